/**
 * REST benchmark: the real server against a hand-written ceiling
 * (bench/raw-ceiling.ts: node:http and one hand-written SQL statement per
 * request) on the same seeded database, SQLite or, with BENCH_DATABASE_URL,
 * PostgreSQL. On PostgreSQL, GET by id is also compared with PostGraphile 5
 * (bench/postgraphile-server.ts) answering `spaceByRowId` over the same ids,
 * in the same run (issue 18: the app at least as many requests/s).
 *
 *   npm run bench:rest
 *   BENCH_DATABASE_URL=postgresql://postgres@127.0.0.1:5432/postgres npm run bench:rest
 *
 * Each server runs in a child process pinned to one core (`taskset -c 1`);
 * this process (autocannon) is pinned to core 0. Per endpoint: a warm-up, then
 * a measured run; statements/request come from `db_queries_total` of
 * GET /metrics read before and after the measured run. The ceiling's bodies
 * are checked byte-identical to the app's first. When GET by id is below
 * TARGET of the ceiling, the server is CPU-profiled (V8 sampling profiler
 * through node:inspector, steady state only) under the same load.
 *
 * Environment: see bench/harness.ts (BENCH_DATABASE_URL, BENCH_DURATION,
 * BENCH_WARMUP, BENCH_CONNECTIONS, BENCH_PROFILE, BENCH_NODE_ENV,
 * BENCH_WAIT_QUIET, BENCH_WAIT_BUDGET).
 *
 * Results: bench/results/<date>-rest-<sqlite|postgresql>.md (raw data and
 * profile in bench/out/).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  captureSql,
  CONNECTIONS,
  databaseVersion,
  DURATION,
  firstDifference,
  fmt,
  handWrittenDriver,
  keepInOut,
  log,
  machineLoad,
  main,
  measure,
  MEASUREMENT_NOTE,
  measurementTable,
  profileMarkdown,
  provider,
  PROFILE_SECONDS,
  profileUnderLoad,
  PUBLIC_URL,
  ratioTable,
  reportHeader,
  request,
  sqlBlock,
  startChild,
  startRun,
  summariseProfile,
  WARMUP,
  writeResults,
  type Endpoint,
  type Measurement,
  type ProfileSummary,
} from './harness.ts';
import { postgraphileName, spaceByRowIdBody, spaceByRowIdEndpoint, type PostGraphileSpace } from './postgraphile-server.ts';
import { stackFloorSpaceEndpoint } from './stack-floor-server.ts';
import { restEndpoints, seed } from './seed.ts';

/** Issue 18: GET by id at least 25% of the ceiling's requests/s (it replaced the foundation's 40%, set before the access model). */
const TARGET = 0.25;
/** Issue 18: GET by id costs at most this many statements with a warm process. */
const TARGET_STATEMENTS = 2;
/** Issue 18: GET by id at least PostGraphile's `spaceByRowId` requests/s (at 10 connections, PostgreSQL). */
const TARGET_VS_POSTGRAPHILE = 1;
const SPACES = 1000;
const IN_COLLECTION = 5;

/** The fields of the app's space body that come from the columns PostGraphile answers. */
const REST_COLUMNS = ['id', 'organization', 'parent', 'title', 'emoji', 'visibility', 'editMode', 'defaultLevel', 'language', 'mergeRules', 'revision', 'createdAt', 'updatedAt', 'deletedAt'];

const pick = (body: Record<string, unknown>, keys: string[]) => Object.fromEntries(keys.filter((k) => k in body).map((k) => [k, body[k]]));

/** `timestamp` text (UTC without a zone) as the app's ISO string. */
const isoOf = (text: string | null) => (text === null ? null : new Date(`${text}Z`).toISOString());

/** PostGraphile's space in the app's REST names (nulls dropped as the app drops them, but `defaultLevel`). */
function spaceAsRest(s: PostGraphileSpace): Record<string, unknown> {
  return pick(
    {
      id: s.rowId,
      organization: s.organizationId,
      ...(s.parentId !== null ? { parent: s.parentId } : {}),
      title: s.title,
      emoji: s.emoji,
      visibility: s.visibility,
      editMode: s.editMode,
      defaultLevel: s.defaultLevel,
      ...(s.language !== null ? { language: s.language } : {}),
      mergeRules: s.mergeRules,
      revision: s.revisionId,
      createdAt: isoOf(s.createdAt),
      updatedAt: isoOf(s.updatedAt),
      ...(s.deletedAt !== null ? { deletedAt: isoOf(s.deletedAt) } : {}),
    },
    REST_COLUMNS,
  );
}

async function run() {
  const benchRun = startRun('rest');
  await machineLoad.settle('before the run');
  log('seeding...');
  const data = await seed('rest', { spaces: SPACES, inCollection: IN_COLLECTION });
  const token = data.token;
  const { byId, list } = restEndpoints(data);
  const health: Endpoint = { key: 'healthz', label: 'GET /healthz (reference: yoga + one Prisma SELECT 1, no GraphQL)', paths: ['/healthz'] };
  // Job polling once an hour: the dispatcher's background polls are not statements of the requests.
  const appEnv = { DATABASE_URL: data.database.url, JOB_POLL_MS: '3600000' };
  const rawEnv = { DATABASE_URL: data.database.url, PUBLIC_URL, APP_URL: PUBLIC_URL, RAW_CEILING_CHILD: '1' };
  const withPostGraphile = provider === 'postgresql';
  const pgName = postgraphileName();
  const pgById = spaceByRowIdEndpoint(data.spaceIds);

  const samplePaths = [byId.paths[0]!, byId.paths[data.spaceIds.length - 1]!, list.paths[0]!];
  const floorById = stackFloorSpaceEndpoint(data.spaceIds);
  const results: { app: Measurement[]; raw: Measurement[]; reference: Measurement[]; postgraphile: Measurement[]; floor: Measurement[] } = { app: [], raw: [], reference: [], postgraphile: [], floor: [] };
  const appBodies: string[] = [];
  /** The SQL the app sends for one request of each sample path. */
  const sqlOf: Record<string, string[]> = {};
  let profile: ProfileSummary | null = null;
  let version = '';
  const profileDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-prof-'));

  try {
    // --- the real server
    log('starting the app server...');
    let child = await startChild('app-server.ts', appEnv);
    try {
      version = await databaseVersion(data.database);
      for (const p of samplePaths) {
        const { result: body, statements } = await captureSql(child, () => request(child.baseUrl, p, token));
        sqlOf[p] = statements;
        if (body.status !== 200) throw new Error(`app: GET ${p} answered ${body.status}: ${body.text}`);
        appBodies.push(body.text);
      }
      const listBody = JSON.parse(appBodies[2]!) as { items: unknown[]; count: number };
      if (listBody.items.length !== 100 || listBody.count !== SPACES) throw new Error(`app: unexpected list (${listBody.items.length} items, count ${listBody.count})`);
      await machineLoad.settle('before the app runs');
      results.app.push(await measure(child.baseUrl, byId, token, `app: ${byId.label}`));
      results.app.push(await measure(child.baseUrl, list, token, `app: ${list.label}`));
      results.reference.push(await measure(child.baseUrl, health, token, `app: ${health.label}`));
    } finally {
      await child.stop();
    }

    // --- the ceiling
    log('starting the raw ceiling server...');
    child = await startChild('raw-ceiling.ts', rawEnv);
    try {
      for (const [i, p] of samplePaths.entries()) {
        const body = await request(child.baseUrl, p, token);
        if (body.status !== 200) throw new Error(`raw: GET ${p} answered ${body.status}: ${body.text}`);
        if (body.text !== appBodies[i]) {
          throw new Error(`raw: GET ${p} differs from the app's body\n app: ${appBodies[i]!.slice(0, 2000)}\n raw: ${body.text.slice(0, 2000)}`);
        }
      }
      await machineLoad.settle('before the ceiling runs');
      results.raw.push(await measure(child.baseUrl, byId, token, `ceiling: ${byId.label}`));
      results.raw.push(await measure(child.baseUrl, list, token, `ceiling: ${list.label}`));
    } finally {
      await child.stop();
    }

    // --- PostGraphile (PostgreSQL only): spaceByRowId over the same ids
    if (withPostGraphile) {
      log(`starting ${pgName}...`);
      child = await startChild('postgraphile-server.ts', { DATABASE_URL: data.database.url, POSTGRAPHILE_CHILD: '1' });
      try {
        // Every space once: PostGraphile finds it; the first and last spaces' columns are the app's.
        const samples = new Map([
          [data.spaceIds[0]!, appBodies[0]!],
          [data.spaceIds[data.spaceIds.length - 1]!, appBodies[1]!],
        ]);
        for (const id of data.spaceIds) {
          const body = await request(child.baseUrl, '/graphql', token, { ...pgById, body: spaceByRowIdBody(id) });
          const parsed = body.status === 200 ? (JSON.parse(body.text) as { data?: { spaceByRowId: PostGraphileSpace | null }; errors?: unknown }) : null;
          const space = parsed?.data?.spaceByRowId;
          if (!parsed || parsed.errors || space?.rowId !== id) throw new Error(`${pgName}: spaceByRowId(${id}) answered ${body.status}: ${body.text.slice(0, 2000)}`);
          const app = samples.get(id);
          const diff = app ? firstDifference(spaceAsRest(space), pick(JSON.parse(app) as Record<string, unknown>, REST_COLUMNS)) : null;
          if (diff) throw new Error(`${pgName}: spaceByRowId(${id}) differs from the app's GET /v1/spaces/${id}: ${diff}`);
        }
        await machineLoad.settle('before PostGraphile runs');
        results.postgraphile.push(await measure(child.baseUrl, pgById, token, `${pgName}: ${pgById.label}`));
      } finally {
        await child.stop();
      }
    }

    // --- the stack's floor: yoga + Pothos + Prisma alone, one space by id (bench/stack-floor-server.ts)
    log('starting the stack floor server...');
    child = await startChild('stack-floor-server.ts', { DATABASE_URL: data.database.url, STACK_FLOOR_CHILD: '1' });
    try {
      // The first and last spaces, whose app bodies are appBodies[0] and [1].
      for (const [i, index] of [0, data.spaceIds.length - 1].entries()) {
        const body = await request(child.baseUrl, '/graphql', token, { ...floorById, body: floorById.bodies![index] });
        const space = body.status === 200 ? (JSON.parse(body.text) as { data?: { space: { id: string; title: string } | null } }).data?.space : null;
        const app = JSON.parse(appBodies[i]!) as { id: string; title: string };
        if (space?.id !== app.id || space.title !== app.title) throw new Error(`stack floor: space(${data.spaceIds[index]}) answered ${body.status}: ${body.text.slice(0, 2000)}`);
      }
      await machineLoad.settle('before the stack floor runs');
      results.floor.push(await measure(child.baseUrl, floorById, token, `stack floor: ${floorById.label}`));
    } finally {
      await child.stop();
    }

    // --- where the time goes, when GET by id misses the target
    const ratioById = results.app[0]!.rps / results.raw[0]!.rps;
    if (ratioById < TARGET && PROFILE_SECONDS > 0) {
      log(`GET by id is at ${(100 * ratioById).toFixed(1)}% of the ceiling (< ${TARGET * 100}%): profiling the app server...`);
      const file = path.join(profileDir, 'get-space.cpuprofile');
      await profileUnderLoad(appEnv, byId, token, file);
      profile = summariseProfile(keepInOut(file, `${benchRun.name}-get-space.cpuprofile`));
    }
  } finally {
    await data.drop();
    fs.rmSync(profileDir, { recursive: true, force: true });
  }
  await machineLoad.read('after the run');

  // --- report
  const rows = results.app.map((a, i) => {
    const r = results.raw[i]!;
    return { endpoint: a.label, app: a, raw: r, ratio: a.rps / r.rps };
  });
  const sqlSamples = [
    { request: `GET /v1/spaces/{id} (top-level space)`, statements: sqlOf[samplePaths[1]!] ?? [] },
    { request: `GET /v1/spaces/{id} (space in the collection)`, statements: sqlOf[samplePaths[0]!] ?? [] },
    { request: `GET /v1/orgs/{id}/spaces?limit=100`, statements: sqlOf[samplePaths[2]!] ?? [] },
  ];
  const database = { description: data.database.description, version };

  const md = reportHeader(benchRun, 'REST benchmark', database);
  md.push(
    `Load: autocannon, ${CONNECTIONS} connections, ${WARMUP} s warm-up then ${DURATION} s measured per endpoint; one bearer token.`,
    `Data: 1 user, 1 organization (user is admin), 1 collection, ${SPACES.toLocaleString('en-US')} spaces (${IN_COLLECTION} in the collection).`,
    `GET by id cycles through all ${SPACES.toLocaleString('en-US')} space ids; the list asks for the first page of 100 (\`count\` ${SPACES.toLocaleString('en-US')}, \`next.page\` set).`,
    MEASUREMENT_NOTE,
    `The ceiling (bench/raw-ceiling.ts) is node:http with hand-written SQL (${handWrittenDriver}), one prepared statement per request, and answers byte-identical bodies (checked before measuring).`,
    '',
    ...measurementTable(
      [
        ...rows.flatMap((r) => [
          { server: 'app', m: r.app, vs: `${fmt(100 * r.ratio, 1)}%` },
          { server: 'raw ceiling', m: r.raw, vs: '100%' },
        ]),
        ...results.postgraphile.map((m) => ({ server: pgName, m, vs: `${fmt((100 * m.rps) / results.raw[0]!.rps, 1)}%` })),
        ...results.floor.map((m) => ({ server: 'stack floor', m, vs: `${fmt((100 * m.rps) / results.raw[0]!.rps, 1)}%` })),
        ...results.reference.map((m) => ({ server: 'app', m, vs: '—' })),
      ],
      'req/s vs ceiling',
    ),
    '',
  );
  const byIdRow = rows[0]!;
  md.push(`**Target**: GET by id ≥ ${TARGET * 100}% of the ceiling. **Measured: ${fmt(100 * byIdRow.ratio, 1)}% — ${byIdRow.ratio >= TARGET ? 'met' : 'NOT met'}.**`, '');
  // The once-a-minute activity writes (a token's lastUsedAt, a member's lastSeenAt) add a few thousandths.
  const statementsById = byIdRow.app.statementsPerRequest;
  const statementsMet = Math.round(statementsById * 100) / 100 <= TARGET_STATEMENTS;
  md.push(
    `**Target**: GET by id ≤ ${TARGET_STATEMENTS} statements per request with a warm process (the once-a-minute activity writes aside). **Measured: ${fmt(statementsById, 3)} — ${statementsMet ? 'met' : 'NOT met'}.**`,
    '',
  );
  const vsPostGraphile = results.postgraphile[0] ? { app: results.app[0]!, postgraphile: results.postgraphile[0], rpsRatio: results.app[0]!.rps / results.postgraphile[0].rps } : null;
  md.push(`## The app and ${pgName}`, '');
  if (vsPostGraphile) {
    md.push(
      `${pgName} (bench/postgraphile-server.ts: the amber preset over this run's schema, grafserv on node:http, a pool of 10 connections) answers \`spaceByRowId\` with the 14 columns of a space, ` +
        `cycling through the same ${SPACES.toLocaleString('en-US')} ids, measured in this run with the same load; every id was asked once before measuring, and the first and last spaces' columns checked equal to the app's bodies. ` +
        'It has no authentication or authorization as configured here (no token lookup, no membership or role); the app also computes the permissions, URLs and counts of its body. Ratios are the app\'s over PostGraphile\'s:',
      '',
      ...ratioTable({ a: 'app', b: pgName }, [{ label: `${byId.label} vs spaceByRowId`, a: vsPostGraphile.app, b: vsPostGraphile.postgraphile }]),
      '',
      `**Target (issue 18)**: GET by id at least ${pgName}'s \`spaceByRowId\` requests/s (at 10 connections). ` +
        `**Measured (${CONNECTIONS} connections): ${fmt(vsPostGraphile.app.rps)} vs ${fmt(vsPostGraphile.postgraphile.rps)} req/s = ${fmt(vsPostGraphile.rpsRatio, 2)}x — ${vsPostGraphile.rpsRatio >= TARGET_VS_POSTGRAPHILE ? 'met' : 'NOT met'}.**`,
      '',
    );
  } else {
    md.push(`Not measured: ${pgName} runs on PostgreSQL only (BENCH_DATABASE_URL).`, '');
  }
  const floor = results.floor[0];
  if (floor) {
    const app = results.app[0]!;
    md.push(
      '## The floor of the chosen stack',
      '',
      'bench/stack-floor-server.ts: graphql-yoga on node:http, a Pothos schema with plugin-prisma and the app\'s own Prisma client (same adapter and settings) answering `space(id)` with the same 14 columns through one `findUnique`, ' +
        'and nothing else (no authentication or authorization, no REST layer, no loaders, no logging, no rate limit). The app does this and more for GET /v1/spaces/{spaceId}, so this bounds it from above on this stack.',
      '',
      `- Stack floor: ${fmt(floor.rps)} req/s (p50 ${fmt(floor.p50Ms, 2)} ms, ${fmt(floor.statementsPerRequest, 2)} statements/request); the app reaches ${fmt((100 * app.rps) / floor.rps, 1)}% of it.`,
      ...(results.postgraphile[0]
        ? [`- The floor is ${fmt(floor.rps / results.postgraphile[0].rps, 2)}x ${pgName}'s requests/s: ${floor.rps >= results.postgraphile[0].rps ? 'the stack alone can reach PostGraphile' : 'yoga, Pothos and Prisma alone, before any of the app\'s work, answer fewer requests than PostGraphile'}.`]
        : []),
      `- The floor is ${fmt((100 * floor.rps) / results.raw[0]!.rps, 1)}% of the hand-written ceiling.`,
      '',
    );
  }
  md.push(...machineLoad.markdown());
  if (profile) md.push(...profileMarkdown(profile, 'GET /v1/spaces/{spaceId}'));
  md.push('## SQL sent by the app for one request', '');
  for (const sample of sqlSamples) md.push(`${sample.request}: ${sample.statements.length} statements`, '', ...sqlBlock(sample.statements), '');
  const settings = { durationSeconds: DURATION, warmupSeconds: WARMUP, connections: CONNECTIONS, spaces: SPACES, spacesInCollection: IN_COLLECTION };
  const postgraphile = vsPostGraphile
    ? { server: pgName, measurements: results.postgraphile, rpsRatio: vsPostGraphile.rpsRatio, p50Ratio: vsPostGraphile.app.p50Ms / vsPostGraphile.postgraphile.p50Ms, target: TARGET_VS_POSTGRAPHILE }
    : null;
  writeResults(benchRun, { database, settings, targetRatioGetById: TARGET, rows, reference: results.reference, postgraphile, floor: results.floor, sqlSamples, profile }, md);
}

main(run);

/**
 * REST benchmark: the real server against a raw node:http + better-sqlite3
 * ceiling (bench/raw-ceiling.ts) on the same seeded SQLite database.
 *
 *   npm run bench
 *
 * Each server runs in a child process pinned to one core (`taskset -c 1`);
 * this process (autocannon) is pinned to core 0. Per endpoint: a warm-up, then
 * a measured run; statements/request come from `db_queries_total` of
 * GET /metrics read before and after the measured run. When GET by id is
 * below TARGET of the ceiling, the server is CPU-profiled (V8 sampling profiler
 * through node:inspector, steady state only) under the same load and the top self-time functions are summarised.
 *
 * Environment (read by bench/harness.ts, the same for bench/site-graph.ts):
 * BENCH_DURATION (s, default 10), BENCH_WARMUP (s, default 3),
 * BENCH_CONNECTIONS (default 10), BENCH_PROFILE (s, default 6; 0 disables),
 * BENCH_NODE_ENV (NODE_ENV of the servers, default production), BENCH_WAIT_QUIET
 * (s to wait for a quiet machine first, default 60).
 *
 * Results: bench/results/<date>-rest.md and .json.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  backgroundBusy,
  captureSql,
  CONNECTIONS,
  describeMachine,
  DURATION,
  fmt,
  getBody,
  log,
  logPinning,
  machineLines,
  measure,
  profileMarkdown,
  PROFILE_SECONDS,
  profileUnderLoad,
  PUBLIC_URL,
  outDir,
  SERVER_NODE_ENV,
  sqlBlock,
  startChild,
  summariseProfile,
  table,
  today,
  WAIT_QUIET_SECONDS,
  waitForQuiet,
  WARMUP,
  writeResults,
  type Endpoint,
  type Measurement,
  type ProfileSummary,
} from './harness.ts';
import { seed, type Seed } from './seed.ts';

const TARGET = 0.4;

async function main() {
  const started = Date.now();
  const date = today();
  logPinning();
  const busyBefore = await waitForQuiet(WAIT_QUIET_SECONDS);
  log(`background CPU before the run: ${busyBefore.join('% / ')}% per core`);
  log('seeding...');
  const data: Seed = await seed({ spaces: 1000, inCollection: 5 });
  const token = data.token;
  const byId: Endpoint = {
    key: 'get-space',
    label: 'GET /v1/spaces/{spaceId}',
    paths: data.spaceIds.map((id) => `/v1/spaces/${id}`),
  };
  const list: Endpoint = {
    key: 'list-spaces',
    label: 'GET /v1/orgs/{organizationId}/spaces?limit=100',
    paths: [`/v1/orgs/${data.organizationId}/spaces?limit=100`],
  };
  const health: Endpoint = { key: 'healthz', label: 'GET /healthz (reference: yoga + one Prisma SELECT 1, no GraphQL)', paths: ['/healthz'] };
  // Job polling once an hour: the dispatcher's background polls are not statements of the requests.
  const appEnv = { DATABASE_URL: data.databaseUrl, JOB_POLL_MS: '3600000' };
  const rawEnv = { DATABASE_FILE: data.databaseFile, PUBLIC_URL, APP_URL: PUBLIC_URL, RAW_CEILING_CHILD: '1' };

  const samplePaths = [byId.paths[0]!, byId.paths[data.spaceIds.length - 1]!, list.paths[0]!];
  const results: { app: Measurement[]; raw: Measurement[]; reference: Measurement[] } = { app: [], raw: [], reference: [] };
  const appBodies: string[] = [];
  /** The SQL the app sends for one request of each sample path. */
  const sqlOf: Record<string, string[]> = {};
  let profile: ProfileSummary | null = null;
  const profileDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-prof-'));

  try {
    // --- the real server
    log('starting the app server...');
    let child = await startChild('app-server.ts', appEnv);
    try {
      for (const p of samplePaths) {
        const { result: body, statements } = await captureSql(child, () => getBody(child.baseUrl, p, token));
        sqlOf[p] = statements;
        if (body.status !== 200) throw new Error(`app: GET ${p} answered ${body.status}: ${body.text}`);
        appBodies.push(body.text);
      }
      const listBody = JSON.parse(appBodies[2]!) as { items: unknown[]; count: number };
      if (listBody.items.length !== 100 || listBody.count !== 1000) throw new Error(`app: unexpected list (${listBody.items.length} items, count ${listBody.count})`);
      results.app.push(await measure(child.baseUrl, byId, token));
      results.app.push(await measure(child.baseUrl, list, token));
      results.reference.push(await measure(child.baseUrl, health, token));
    } finally {
      await child.stop();
    }

    // --- the ceiling
    log('starting the raw ceiling server...');
    child = await startChild('raw-ceiling.ts', rawEnv);
    try {
      for (const [i, p] of samplePaths.entries()) {
        const body = await getBody(child.baseUrl, p, token);
        if (body.status !== 200) throw new Error(`raw: GET ${p} answered ${body.status}: ${body.text}`);
        if (body.text !== appBodies[i]) {
          throw new Error(`raw: GET ${p} differs from the app's body\n app: ${appBodies[i]!.slice(0, 2000)}\n raw: ${body.text.slice(0, 2000)}`);
        }
      }
      results.raw.push(await measure(child.baseUrl, byId, token));
      results.raw.push(await measure(child.baseUrl, list, token));
    } finally {
      await child.stop();
    }

    // --- where the time goes, when GET by id misses the target
    const ratioById = results.app[0]!.rps / results.raw[0]!.rps;
    if (ratioById < TARGET && PROFILE_SECONDS > 0) {
      log(`GET by id is at ${(100 * ratioById).toFixed(1)}% of the ceiling (< ${TARGET * 100}%): profiling the app server...`);
      const file = path.join(profileDir, 'get-space.cpuprofile');
      await profileUnderLoad(appEnv, byId, token, file);
      profile = summariseProfile(file);
      const kept = path.join(outDir, `${today()}-rest-get-space.cpuprofile`);
      fs.mkdirSync(outDir, { recursive: true });
      fs.copyFileSync(file, kept);
      profile.file = kept;
    }
  } finally {
    await data.drop();
    fs.rmSync(profileDir, { recursive: true, force: true });
  }
  const busyAfter = await backgroundBusy();
  log(`background CPU after the run: ${busyAfter.join('% / ')}% per core`);

  // --- report
  const machine = describeMachine(busyBefore, busyAfter);
  const settings = { durationSeconds: DURATION, warmupSeconds: WARMUP, connections: CONNECTIONS, serverNodeEnv: SERVER_NODE_ENV, spaces: 1000, spacesInCollection: 5 };
  const rows = results.app.map((a, i) => {
    const r = results.raw[i]!;
    return { endpoint: a.label, app: a, raw: r, ratio: a.rps / r.rps };
  });
  const sqlSamples = [
    { request: `GET /v1/spaces/{id} (top-level space)`, statements: sqlOf[samplePaths[1]!] ?? [] },
    { request: `GET /v1/spaces/{id} (space in the collection)`, statements: sqlOf[samplePaths[0]!] ?? [] },
    { request: `GET /v1/orgs/{id}/spaces?limit=100`, statements: sqlOf[samplePaths[2]!] ?? [] },
  ];
  const json = { date, generatedAt: new Date().toISOString(), machine, settings, targetRatioGetById: TARGET, rows, reference: results.reference, sqlSamples, profile };

  const md: string[] = [];
  md.push(`# REST benchmark — ${date}`, '');
  md.push(
    ...machineLines(machine),
    `Pinning: ${machine.pinning}. Server NODE_ENV=${SERVER_NODE_ENV}, LOG_LEVEL=silent, rate limit effectively off, job polling once an hour (JOB_POLL_MS) so that background polls do not count as statements of the requests.`,
    `Load: autocannon, ${CONNECTIONS} connections, ${WARMUP} s warm-up then ${DURATION} s measured per endpoint; one bearer token.`,
    `Data: fresh SQLite database (WAL mode, as the app opens it), 1 user, 1 organization (user is admin), 1 collection, 1,000 spaces (5 in the collection).`,
    `GET by id cycles through all 1,000 space ids; the list asks for the first page of 100 (\`count\` 1,000, \`next.page\` set).`,
    `Latencies are computed from every measured response (sub-millisecond precision).`,
    `Statements/request: delta of \`db_queries_total\` (GET /metrics) over the measured run ÷ requests sent.`,
    `The ceiling (bench/raw-ceiling.ts) is node:http + better-sqlite3, one prepared statement per request, and answers byte-identical bodies (checked before measuring).`,
    '',
  );
  const tableRows: string[][] = [];
  for (const row of rows) {
    tableRows.push([row.endpoint, 'app', fmt(row.app.rps), fmt(row.app.p50Ms, 2), fmt(row.app.p99Ms, 2), fmt(row.app.statementsPerRequest, 2), fmt(row.app.bytesPerResponse), `${fmt(100 * row.ratio, 1)}%`]);
    tableRows.push([row.endpoint, 'raw ceiling', fmt(row.raw.rps), fmt(row.raw.p50Ms, 2), fmt(row.raw.p99Ms, 2), fmt(row.raw.statementsPerRequest, 2), fmt(row.raw.bytesPerResponse), '100%']);
  }
  for (const ref of results.reference) {
    tableRows.push([ref.label, 'app', fmt(ref.rps), fmt(ref.p50Ms, 2), fmt(ref.p99Ms, 2), fmt(ref.statementsPerRequest, 2), fmt(ref.bytesPerResponse), '—']);
  }
  md.push(
    ...table(
      ['endpoint', 'server', 'req/s', 'p50 (ms)', 'p99 (ms)', 'statements/request', 'bytes/response', 'ratio to ceiling'],
      tableRows,
      ['l', 'l', 'r', 'r', 'r', 'r', 'r', 'r'],
    ),
  );
  md.push('');
  const byIdRow = rows[0]!;
  md.push(
    `**Target**: GET by id ≥ ${TARGET * 100}% of the ceiling. **Measured: ${fmt(100 * byIdRow.ratio, 1)}% — ${byIdRow.ratio >= TARGET ? 'met' : 'NOT met'}.**`,
    '',
  );
  if (profile) md.push(...profileMarkdown(profile, 'GET /v1/spaces/{spaceId}'));
  md.push('## SQL sent by the app for one request', '');
  for (const sample of sqlSamples) {
    md.push(`${sample.request}: ${sample.statements.length} statements`, '', ...sqlBlock(sample.statements), '');
  }
  md.push(`Raw data (not in git): \`bench/out/${date}-rest.json\`. Total run time: ${fmt((Date.now() - started) / 1000)} s.`, '');
  const written = writeResults(`${date}-rest`, json, md);
  log(`wrote ${written.md} and ${written.json} in ${fmt((Date.now() - started) / 1000)} s`);
  process.stdout.write(md.join('\n'));
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});

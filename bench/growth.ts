/**
 * Growth benchmark (issue 14): does an edit, a merge or a page listing cost
 * more in a big space than in a small one? Edit, merge and list-pages latency
 * on a space of 20 pages against one of 1,000, on the same server, after each
 * has a history of merged revisions.
 *
 *   npm run bench:growth
 *   BENCH_DATABASE_URL=postgresql://postgres@127.0.0.1:5432/postgres npm run bench:growth
 *   GROWTH_DIR=/work/wt-soak-before npm run bench:growth      # another checkout's server and migrations
 *
 * Setup (not timed): a fresh database migrated by the measured checkout's own
 * migrations, its server (bench/app-server.ts of that checkout, pinned to
 * core 1), one organization and the two spaces (bench/seed-content.ts), then
 * a history: GROWTH_HISTORY (default 200) change requests per space, each
 * updating one page, merged (the spaces in turn).
 *
 * Measured: GROWTH_ROUNDS rounds (default 40, after 3 warm-up rounds); in each
 * round each space in turn (the order alternating from round to round, so that
 * the machine's background load falls on both alike, as bench/ab.ts does) gets
 * a fresh change request (not timed), then, each timed alone, client-side:
 * - edit: POST .../content of one `update_page` with new Markdown;
 * - merge: POST .../merge of that change request (a fast-forward: nothing else
 *   merges meanwhile), checked `result: merge`;
 * - list pages: GET .../content/pages (every page, with its document).
 * The page edited is read back after the merge (not timed). Statements: the
 * `db_queries_total` delta around each timed request. The target of the issue:
 * edit and merge p50 on the 1,000-page space within 1.5x of the 20-page space's.
 *
 * Where the time goes: the SQL of one edit and one merge per space (captured
 * from the server's client), and, unless BENCH_PROFILE=0, the server's CPU
 * profile over GROWTH_PROFILE_ROUNDS rounds (default 15) of edit and merge per
 * space, summarised by layer.
 *
 * Environment: GROWTH_HISTORY, GROWTH_ROUNDS, GROWTH_SIZES (default 20,1000),
 * GROWTH_DIR (the checkout to run, default this one), GROWTH_LABEL (ends the
 * result files' name; default the basename of GROWTH_DIR when given),
 * GROWTH_PROFILE_ROUNDS, and the harness's. Results:
 * bench/results/<date>-growth-<sqlite|postgresql>[-<label>].md, raw data and
 * the profiles in bench/out/.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  api,
  ask,
  byKind,
  captureSql,
  count,
  createBenchDatabase,
  createBenchUser,
  databaseSize,
  databaseVersion,
  fmt,
  keepInOut,
  kindTable,
  log,
  machineLoad,
  main,
  megabytes,
  metricValue,
  othersPercent,
  PROFILE_SECONDS,
  profileTables,
  reportHeader,
  startChild,
  startRun,
  stats,
  summariseProfile,
  table,
  writeResults,
  type Child,
  type CpuUse,
  type DatabaseSize,
  type KindCount,
  type ProfileSummary,
  type Stats,
} from './harness.ts';
import { pageMarkdown, seedSpaces, type SizedSpace } from './seed-content.ts';
import { editMarker, mulberry32, pick, seedOf } from './text.ts';

const HISTORY = Number(process.env.GROWTH_HISTORY ?? 200);
const ROUNDS = Number(process.env.GROWTH_ROUNDS ?? 40);
const WARMUP_ROUNDS = 3;
const PROFILE_ROUNDS = Number(process.env.GROWTH_PROFILE_ROUNDS ?? 15);
const SIZES = (process.env.GROWTH_SIZES ?? '20,1000').split(',').filter(Boolean).map(Number);
const DIR = process.env.GROWTH_DIR ? path.resolve(process.env.GROWTH_DIR) : undefined;
const LABEL = process.env.GROWTH_LABEL ?? (DIR ? path.basename(DIR) : '');
const BIG_TABLES = ['RevisionChunk', 'ContentDocument', 'Revision', 'RevisionPage', 'RevisionFile'];
/** The issue's target for edit and merge: the big space's p50 within this factor of the small one's. */
const TARGET_RATIO = 1.5;

const OPERATIONS = ['edit', 'merge', 'list pages'] as const;
type Operation = (typeof OPERATIONS)[number];

interface Timed {
  ms: number;
  statements: number;
  bytes: number;
}

interface Ctx {
  child: Child;
  token: string;
}

/** A request timed alone, with the statements it sent. */
async function timed(ctx: Ctx, method: string, p: string, body?: unknown): Promise<Timed & { body: any }> {
  const before = await metricValue(ctx.child.baseUrl, 'db_queries_total');
  const started = performance.now();
  const res = await fetch(`${ctx.child.baseUrl}${p}`, {
    method,
    headers: { authorization: `Bearer ${ctx.token}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await res.text();
  const ms = performance.now() - started;
  if (res.status !== 200) throw new Error(`${method} ${p} answered ${res.status}: ${text.slice(0, 1000)}`);
  const after = await metricValue(ctx.child.baseUrl, 'db_queries_total');
  return { ms, statements: after - before, bytes: Buffer.byteLength(text), body: text.length < 100_000 ? JSON.parse(text) : null };
}

/** A change request of `space` updating one page (picked by `label`); the edit, then the merge, then the page list, each timed. */
async function round(ctx: Ctx, space: SizedSpace, label: string, options: { list: boolean; check: boolean }): Promise<Record<Operation, Timed | null>> {
  const base = `/v1/spaces/${space.seed.spaceId}`;
  const index = pick(mulberry32(seedOf('growth', label)), space.corpus.pages.filter((p) => p.level === 'page')).index;
  const cr = (await api(ctx.child.baseUrl, ctx.token, 'POST', `${base}/change-requests`, { subject: `Growth ${label}` }, 201)).body;
  const changes = [{ operation: 'update_page', page: space.seed.pageIds[index], document: { markdown: pageMarkdown(space.corpus, space.corpus.pages[index]!, label) } }];
  const edit = await timed(ctx, 'POST', `${base}/change-requests/${cr.id}/content`, { changes });
  const merge = await timed(ctx, 'POST', `${base}/change-requests/${cr.id}/merge`);
  if (merge.body?.result !== 'merge') throw new Error(`${space.label} ${label}: the merge answered ${JSON.stringify(merge.body)}`);
  const list = options.list ? await timed(ctx, 'GET', `${base}/content/pages`) : null;
  if (options.check) {
    const page = (await api(ctx.child.baseUrl, ctx.token, 'GET', `${base}/content/page/${space.seed.pageIds[index]}?format=markdown`)).body;
    if (!String(page.markdown).includes(`${editMarker(label, index)}:`)) throw new Error(`${space.label} ${label}: page ${index} lacks its edit after the merge`);
  }
  return { edit, merge, 'list pages': list };
}

interface Diagnosis {
  space: string;
  editSql: KindCount[];
  mergeSql: KindCount[];
  editStatements: number;
  mergeStatements: number;
  profile: ProfileSummary | null;
  profiledRounds: number;
}

async function diagnose(ctx: Ctx, space: SizedSpace, profileFile: string | null): Promise<Diagnosis> {
  const base = `/v1/spaces/${space.seed.spaceId}`;
  const index = space.corpus.pages.find((p) => p.level === 'page')!.index;
  const cr = (await api(ctx.child.baseUrl, ctx.token, 'POST', `${base}/change-requests`, { subject: 'Growth diagnosis' }, 201)).body;
  const changes = [{ operation: 'update_page', page: space.seed.pageIds[index], document: { markdown: pageMarkdown(space.corpus, space.corpus.pages[index]!, 'diag') } }];
  const edit = await captureSql(ctx.child, () => api(ctx.child.baseUrl, ctx.token, 'POST', `${base}/change-requests/${cr.id}/content`, { changes }));
  const merge = await captureSql(ctx.child, () => api(ctx.child.baseUrl, ctx.token, 'POST', `${base}/change-requests/${cr.id}/merge`));
  if (merge.result.body.result !== 'merge') throw new Error(`${space.label}: the diagnosis merge answered ${JSON.stringify(merge.result.body)}`);
  let profile: ProfileSummary | null = null;
  if (profileFile) {
    const file = path.join(os.tmpdir(), path.basename(profileFile));
    await ask(ctx.child, { profile: 'start', intervalUs: 200 }, 'started');
    for (let i = 0; i < PROFILE_ROUNDS; i++) await round(ctx, space, `prof${i}`, { list: false, check: false });
    await ask(ctx.child, { profile: 'stop', file }, 'stopped');
    profile = summariseProfile(keepInOut(file, profileFile));
    fs.rmSync(file, { force: true });
  }
  return {
    space: space.label,
    editSql: byKind(edit.statements),
    mergeSql: byKind(merge.statements),
    editStatements: edit.statements.length,
    mergeStatements: merge.statements.length,
    profile,
    profiledRounds: profileFile ? PROFILE_ROUNDS : 0,
  };
}

async function run() {
  const benchRun = startRun('growth', { label: LABEL, dir: DIR });
  await machineLoad.settle('before the run');
  log(`creating a fresh database${DIR ? ` (migrated by ${DIR})` : ''}...`);
  const database = await createBenchDatabase('growth', { dir: DIR });
  const storageDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-growth-files-'));
  let spaces: SizedSpace[] = [];
  let version = '';
  const samples = new Map<string, Record<Operation, Timed[]>>();
  const diagnoses: Diagnosis[] = [];
  let history = { seconds: 0, mergeMs: new Map<string, number[]>() };
  let size: DatabaseSize | null = null;
  let cpu: CpuUse | null = null;
  let seedSeconds = 0;
  try {
    const { token } = await createBenchUser(database, 'bench-growth@example.com');
    log('starting the app server...');
    const child = await startChild('app-server.ts', { DATABASE_URL: database.url, STORAGE_DIR: storageDir, JOB_POLL_MS: '3600000' }, { dir: DIR });
    try {
      const ctx: Ctx = { child, token };
      let t = performance.now();
      spaces = (await seedSpaces(child.baseUrl, token, SIZES, log)).spaces;
      seedSeconds = (performance.now() - t) / 1000;
      version = await databaseVersion(database);

      t = performance.now();
      log(`history: ${HISTORY} merged change requests per space...`);
      for (const space of spaces) history.mergeMs.set(space.label, []);
      for (let h = 0; h < HISTORY; h++) {
        for (const space of spaces) history.mergeMs.get(space.label)!.push((await round(ctx, space, `h${h}`, { list: false, check: h % 50 === 0 })).merge!.ms);
        if ((h + 1) % 50 === 0) log(`history: ${h + 1} of ${HISTORY}`);
      }
      history = { ...history, seconds: (performance.now() - t) / 1000 };
      size = await databaseSize(database, BIG_TABLES);

      for (let w = 0; w < WARMUP_ROUNDS; w++) for (const space of spaces) await round(ctx, space, `w${w}`, { list: true, check: false });
      for (const space of spaces) samples.set(space.label, { edit: [], merge: [], 'list pages': [] });
      await machineLoad.settle('before the measured rounds');
      const a = machineLoad.snapshot();
      for (let r = 0; r < ROUNDS; r++) {
        const order = r % 2 === 0 ? spaces : [...spaces].reverse();
        for (const space of order) {
          const result = await round(ctx, space, `r${r}`, { list: true, check: true });
          for (const op of OPERATIONS) samples.get(space.label)![op].push(result[op]!);
        }
        if ((r + 1) % 10 === 0) log(`rounds: ${r + 1} of ${ROUNDS}`);
      }
      cpu = machineLoad.between('the measured rounds (both spaces in turn)', a, machineLoad.snapshot());

      await machineLoad.settle('before the diagnosis');
      for (const space of spaces) {
        diagnoses.push(await diagnose(ctx, space, PROFILE_SECONDS > 0 ? `${benchRun.name}-${space.corpus.pages.length}-pages.cpuprofile` : null));
      }
    } finally {
      await child.stop();
    }
  } finally {
    await database.drop();
    fs.rmSync(storageDir, { recursive: true, force: true });
  }
  await machineLoad.read('after the run');
  if (!cpu || !size) throw new Error('the growth benchmark did not run');

  const summary = spaces.map((space) => {
    const s = samples.get(space.label)!;
    return {
      space: space.label,
      pages: space.corpus.pages.length,
      ...Object.fromEntries(OPERATIONS.map((op) => [op, { latencyMs: stats(s[op].map((x) => x.ms)), statements: stats(s[op].map((x) => x.statements)), bytes: stats(s[op].map((x) => x.bytes)) }])),
    } as { space: string; pages: number } & Record<Operation, { latencyMs: Stats; statements: Stats; bytes: Stats }>;
  });
  const small = summary[0]!;
  const big = summary[summary.length - 1]!;
  const ratio = (op: Operation) => big[op].latencyMs.p50 / small[op].latencyMs.p50;

  const md = reportHeader(benchRun, `Growth: edit, merge and list pages by space size (issue 14)${LABEL ? `: ${LABEL}` : ''}`, { description: database.description, version });
  md.push(
    `Spaces (one organization, one server): ${spaces.map((s) => `${s.label} (${s.corpus.shape.sections} × ${s.corpus.shape.chaptersPerSection} × ${s.corpus.shape.pagesPerChapter}; seeded in ${s.seed.changeRequests} change requests)`).join(', ')}; ` +
      `seeding took ${fmt(seedSeconds)} s. History: then ${HISTORY} change requests per space, each updating one page, merged (${fmt(history.seconds)} s; ` +
      `merge p50 over the history: ${spaces.map((s) => `${s.label} ${fmt(stats(history.mergeMs.get(s.label)!).p50, 1)} ms`).join(', ')}). ` +
      `Database after the history: ${megabytes(size.bytes)}; rows: ${Object.entries(size.rows).map(([t, n]) => `${t} ${count(n)}`).join(', ')}.`,
    '',
    `Measured: ${ROUNDS} rounds after ${WARMUP_ROUNDS} warm-up rounds; each round, each space in turn (the order alternating) gets a fresh change request (not timed), ` +
      'then, timed alone client-side: **edit** (POST .../content of one `update_page` with new Markdown), **merge** (POST .../merge of that change request: a fast-forward, checked `result: merge`), ' +
      '**list pages** (GET .../content/pages: every page with its document). The page edited was read back after each merge. Statements: `db_queries_total` delta around each request.',
    '',
    ...table(
      ['operation', ...summary.flatMap((s) => [`${s.space} p50 (ms)`, `${s.space} p90 (ms)`]), `p50 ratio ${big.space} / ${small.space}`, 'target', 'statements per request', 'bytes per answer'],
      OPERATIONS.map((op) => [
        op,
        ...summary.flatMap((s) => [fmt(s[op].latencyMs.p50, 1), fmt(s[op].latencyMs.p90, 1)]),
        `**${fmt(ratio(op), 2)}x**`,
        op === 'list pages' ? '—' : ratio(op) <= TARGET_RATIO ? `≤ ${TARGET_RATIO}x: met` : `≤ ${TARGET_RATIO}x: **missed**`,
        summary.map((s) => fmt(s[op].statements.p50)).join(' / '),
        summary.map((s) => fmt(s[op].bytes.p50)).join(' / '),
      ]),
      ['l', ...summary.flatMap(() => ['r', 'r'] as const), 'r', 'l', 'r', 'r'],
    ),
    '',
    `Other processes used ${fmt(othersPercent(cpu))}% of a core on average during the rounds (see "Load of the machine"); the spaces took turns, so that load fell on both alike.`,
    '',
  );
  if (diagnoses.length) {
    md.push(
      '## Where the time goes',
      '',
      'The SQL of one edit and one merge per space (captured from the server\'s database client), by kind:',
      '',
      ...kindTable(diagnoses.flatMap((d) => [{ label: `edit, ${d.space}`, kinds: d.editSql }, { label: `merge, ${d.space}`, kinds: d.mergeSql }]), true),
      '',
    );
    for (const d of diagnoses) {
      if (!d.profile) continue;
      md.push(
        `CPU profile of the server, ${d.space}: ${d.profiledRounds} rounds of a change request, its edit and its merge (\`bench/out/${path.basename(d.profile.file)}\`): ` +
          `${fmt(d.profile.busyMs)} ms busy of ${fmt(d.profile.sampledMs)} ms sampled (${fmt(d.profile.idlePercent, 1)}% idle), ${fmt(d.profile.busyMs / d.profiledRounds, 1)} ms busy per round.`,
        '',
        ...profileTables(d.profile, 12),
      );
    }
  }
  md.push(...machineLoad.markdown());
  writeResults(
    benchRun,
    {
      database: { description: database.description, version },
      settings: { history: HISTORY, rounds: ROUNDS, warmupRounds: WARMUP_ROUNDS, sizes: SIZES, dir: DIR ?? null, label: LABEL, profileRounds: PROFILE_SECONDS > 0 ? PROFILE_ROUNDS : 0 },
      seedSeconds,
      history: { seconds: history.seconds, mergeMs: Object.fromEntries([...history.mergeMs].map(([k, v]) => [k, stats(v)])) },
      databaseAfterHistory: size,
      summary,
      ratios: Object.fromEntries(OPERATIONS.map((op) => [op, ratio(op)])),
      samples: Object.fromEntries([...samples].map(([k, v]) => [k, Object.fromEntries(OPERATIONS.map((op) => [op, v[op].map((x) => [Math.round(x.ms * 100) / 100, x.statements, x.bytes])]))])),
      diagnoses,
      cpu,
    },
    md,
  );
}

main(run);

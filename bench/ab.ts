/**
 * Paired A/B of versions of the app (checkouts), for a machine others use
 * too: the versions run side by side, each its own server (its own
 * bench/app-server.ts, pinned to core 1) on one seeded database, SQLite or,
 * with BENCH_DATABASE_URL, PostgreSQL, and take turns in short bursts of
 * sequential requests, so that background load falls on every version alike.
 * bench/rest.ts and bench/site-graph.ts measure one version against a
 * hand-written baseline; this compares versions, on their endpoints:
 *
 *   rest:  GET /v1/spaces/{spaceId} (cycling through 1,000 spaces) and
 *          GET /v1/orgs/{organizationId}/spaces?limit=100, on bench/seed.ts's data
 *   sites: the site graph query (POST /graphql) and
 *          GET /v1/orgs/{organizationId}/sites/{siteId}/structure, on bench/seed-sites.ts's data
 *
 *   git worktree add /tmp/ab-before <rev>; ln -s $PWD/node_modules /tmp/ab-before/node_modules
 *   (cd /tmp/ab-before && node --import tsx scripts/prisma-generate.ts)
 *   AB_DIRS=/tmp/ab-before,$PWD npm run bench:ab
 *   AB_DIRS=/tmp/ab-before,$PWD BENCH_DATABASE_URL=postgresql://postgres@127.0.0.1:5432/postgres npm run bench:ab
 *
 * Before measuring, every version's answers are checked equal to the first's
 * (modulo key order). Environment: AB_DIRS (checkouts, comma-separated; the
 * first is the reference), AB_SUITES (default rest,sites), AB_ROUNDS (turns
 * per version, 40), AB_BURST (requests per turn, 10), and the harness's
 * (BENCH_DATABASE_URL, BENCH_WAIT_QUIET, ...).
 *
 * Results: bench/results/<date>-ab-<sqlite|postgresql>.md: p10/p50/p90/p99
 * and statements per request, per endpoint and version.
 */
import path from 'node:path';
import {
  codeIdentity,
  databaseVersion,
  firstDifference,
  fmt,
  log,
  machineLoad,
  main,
  othersPercent,
  reportHeader,
  request,
  metricValue,
  startChild,
  startRun,
  stats,
  table,
  writeResults,
  type BenchDatabase,
  type Child,
  type CpuUse,
  type Endpoint,
  type Stats,
} from './harness.ts';
import { restEndpoints, seed } from './seed.ts';
import { seedSites, siteGraphEndpoints } from './seed-sites.ts';

const dirs = (process.env.AB_DIRS ?? '').split(',').filter(Boolean).map((d) => path.resolve(d));
const SUITES = (process.env.AB_SUITES ?? 'rest,sites').split(',').filter(Boolean);
const ROUNDS = Number(process.env.AB_ROUNDS ?? 40);
const BURST = Number(process.env.AB_BURST ?? 10);
const WARMUP_REQUESTS = 30;

interface Suite {
  name: string;
  database: BenchDatabase;
  token: string;
  endpoints: Endpoint[];
  /** Paths whose answers must be the same from every version (besides each endpoint's first). */
  checked: Array<{ endpoint: Endpoint; path: string }>;
  drop(): Promise<void>;
}

async function seedSuite(name: string): Promise<Suite> {
  if (name === 'rest') {
    const data = await seed('ab_rest');
    const { byId, list } = restEndpoints(data);
    const inCollection = byId.paths[data.spaceIds.indexOf(data.inCollection[0]!)]!;
    const checked = [byId.paths[0]!, inCollection, byId.paths[byId.paths.length - 1]!].map((p) => ({ endpoint: byId, path: p }));
    return { name, database: data.database, token: data.token, endpoints: [byId, list], checked: [...checked, { endpoint: list, path: list.paths[0]! }], drop: data.drop };
  }
  if (name === 'sites') {
    const data = await seedSites('ab_sites');
    const { graph, structure } = siteGraphEndpoints(data);
    const checked = [{ endpoint: graph, path: graph.paths[0]! }, ...structure.paths.map((p) => ({ endpoint: structure, path: p }))];
    return { name, database: data.database, token: data.token, endpoints: [graph, structure], checked, drop: data.drop };
  }
  throw new Error(`AB_SUITES: unknown suite "${name}" (rest, sites)`);
}

interface Row {
  suite: string;
  endpoint: string;
  version: string;
  latencyMs: Stats;
  statementsPerRequest: number;
  cpu: CpuUse;
}

async function runSuite(suite: Suite, versions: string[]): Promise<Row[]> {
  const servers: Child[] = [];
  const rows: Row[] = [];
  try {
    // Job polling once an hour: the dispatcher's background polls are not statements of the requests.
    for (const dir of dirs) servers.push(await startChild('app-server.ts', { DATABASE_URL: suite.database.url, JOB_POLL_MS: '3600000' }, { dir }));
    // The same answers from every version.
    for (const { endpoint, path: p } of suite.checked) {
      const bodies = await Promise.all(servers.map((s) => request(s.baseUrl, p, suite.token, endpoint)));
      for (const [k, b] of bodies.entries()) {
        if (b.status !== 200) throw new Error(`${versions[k]}: ${endpoint.method ?? 'GET'} ${p} answered ${b.status}: ${b.text.slice(0, 2000)}`);
        const d = firstDifference(JSON.parse(b.text), JSON.parse(bodies[0]!.text));
        if (d) throw new Error(`${versions[k]}: ${endpoint.method ?? 'GET'} ${p} answers differently from ${versions[0]}: ${d}`);
      }
    }
    for (const endpoint of suite.endpoints) {
      let next = 0;
      const call = (s: Child) => request(s.baseUrl, endpoint.paths[next++ % endpoint.paths.length]!, suite.token, endpoint);
      for (const s of servers) for (let i = 0; i < WARMUP_REQUESTS; i++) await call(s);
      await machineLoad.settle(`before ${suite.name}: ${endpoint.label}`);
      const times: number[][] = servers.map(() => []);
      const statementsBefore = await Promise.all(servers.map((s) => metricValue(s.baseUrl, 'db_queries_total')));
      const cpuBefore = machineLoad.snapshot();
      for (let r = 0; r < ROUNDS; r++) {
        for (const [k, s] of servers.entries()) {
          for (let i = 0; i < BURST; i++) {
            const t = performance.now();
            const reply = await call(s);
            times[k]!.push(performance.now() - t);
            if (reply.status !== 200) throw new Error(`${versions[k]}: ${endpoint.label} answered ${reply.status}: ${reply.text.slice(0, 500)}`);
          }
        }
      }
      const cpu = machineLoad.between(`${suite.name}: ${endpoint.label} (every version in turn)`, cpuBefore, machineLoad.snapshot());
      const statementsAfter = await Promise.all(servers.map((s) => metricValue(s.baseUrl, 'db_queries_total')));
      for (const [k, t] of times.entries()) {
        const row = { suite: suite.name, endpoint: endpoint.label, version: versions[k]!, latencyMs: stats(t), statementsPerRequest: (statementsAfter[k]! - statementsBefore[k]!) / t.length, cpu };
        log(`${endpoint.label} ${row.version}: n=${t.length} p10 ${fmt(row.latencyMs.p10, 2)} p50 ${fmt(row.latencyMs.p50, 2)} p90 ${fmt(row.latencyMs.p90, 2)} p99 ${fmt(row.latencyMs.p99, 2)} ms, ${fmt(row.statementsPerRequest, 2)} statements/request`);
        rows.push(row);
      }
    }
  } finally {
    for (const s of servers) await s.stop();
  }
  return rows;
}

async function run() {
  if (dirs.length === 0) throw new Error('AB_DIRS: the checkouts to compare, comma-separated');
  const benchRun = startRun('ab');
  const codes = dirs.map((dir) => ({ dir, ...codeIdentity(dir) }));
  const versions = codes.map((c) => `${path.basename(c.dir)} (${c.head}${c.changedFiles ? `+${c.changedFiles}` : ''})`);
  await machineLoad.settle('before the run');
  const rows: Row[] = [];
  let database: { description: string; version: string } | null = null;
  for (const name of SUITES) {
    log(`seeding the ${name} suite...`);
    const suite = await seedSuite(name);
    try {
      database ??= { description: suite.database.description.replace(/, fresh schema \w+$/, ', a fresh schema per suite'), version: await databaseVersion(suite.database) };
      rows.push(...(await runSuite(suite, versions)));
    } finally {
      await suite.drop();
    }
  }
  await machineLoad.read('after the run');

  const md = reportHeader(benchRun, 'A/B of app versions', database);
  md.push(
    `Versions (checkouts; the first is the reference): ${codes.map((c, k) => `**${versions[k]}** \`${c.dir}\`, src/ digest ${c.srcDigest}`).join('; ')}.`,
    `Each version is its own server (its checkout's bench/app-server.ts, pinned to core 1) on the same seeded database; before measuring, every version's answers were checked equal to the reference's (modulo key order). ` +
      `Per endpoint: ${WARMUP_REQUESTS} warm-up requests per version, then ${ROUNDS} rounds in which each version in turn answers ${BURST} sequential requests (no queueing), so that background load falls on every version alike. ` +
      'Statements/request: the `db_queries_total` delta of each server over its measured requests.',
    '',
    ...table(
      ['suite', 'endpoint', 'version', 'n', 'p10 (ms)', 'p50 (ms)', 'p90 (ms)', 'p99 (ms)', 'p50 / reference p50', 'statements/request', 'other processes meanwhile (% of a core)'],
      rows.map((r) => {
        const reference = rows.find((x) => x.suite === r.suite && x.endpoint === r.endpoint)!;
        return [
          r.suite,
          r.endpoint,
          r.version,
          r.latencyMs.n,
          fmt(r.latencyMs.p10, 2),
          fmt(r.latencyMs.p50, 2),
          fmt(r.latencyMs.p90, 2),
          fmt(r.latencyMs.p99, 2),
          `${fmt(r.latencyMs.p50 / reference.latencyMs.p50, 2)}x`,
          fmt(r.statementsPerRequest, 2),
          `${fmt(othersPercent(r.cpu))}%`,
        ];
      }),
      ['l', 'l', 'l', 'r', 'r', 'r', 'r', 'r', 'r', 'r', 'r'],
    ),
    '',
    ...machineLoad.markdown(),
  );
  writeResults(benchRun, { database, versions: codes, rounds: ROUNDS, burst: BURST, rows }, md);
}

main(run);

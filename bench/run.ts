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
 * Environment: BENCH_DURATION (s, default 10), BENCH_WARMUP (s, default 3),
 * BENCH_CONNECTIONS (default 10), BENCH_PROFILE (s, default 6; 0 disables),
 * BENCH_NODE_ENV (NODE_ENV of the servers, default production), BENCH_WAIT_QUIET
 * (s to wait for a quiet machine first, default 60).
 *
 * Results: bench/results/<date>-rest.md and .json.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { seed, type Seed } from './seed.ts';

const here = path.dirname(fileURLToPath(import.meta.url));
const resultsDir = path.join(here, 'results');

const DURATION = Number(process.env.BENCH_DURATION ?? 10);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 3);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10);
const PROFILE_SECONDS = Number(process.env.BENCH_PROFILE ?? 6);
const SERVER_NODE_ENV = process.env.BENCH_NODE_ENV ?? 'production';
const TARGET = 0.4;
const PUBLIC_URL = 'http://bench.local';

const log = (...args: unknown[]) => console.error('[bench]', ...args);

// ---------------------------------------------------------------------------
// CPU pinning

function hasTaskset(): boolean {
  try {
    execFileSync('taskset', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

const cores = os.cpus().length;
const pinning = hasTaskset() && cores >= 2;
if (pinning) execFileSync('taskset', ['-cp', '0', String(process.pid)], { stdio: 'ignore' });

// ---------------------------------------------------------------------------
// Child servers

interface Child {
  process: ChildProcess;
  baseUrl: string;
  stop(): Promise<void>;
}

function startChild(script: string, env: Record<string, string>, nodeArgs: string[] = []): Promise<Child> {
  const args = [...nodeArgs, '--import', 'tsx', path.join(here, script)];
  const [command, argv] = pinning ? ['taskset', ['-c', '1', process.execPath, ...args]] : [process.execPath, args];
  const child = spawn(command, argv, {
    cwd: path.join(here, '..'),
    env: { ...process.env, NODE_ENV: SERVER_NODE_ENV, ...env },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${script} did not start within 60 s`)), 60_000);
    child.once('exit', (code) => reject(new Error(`${script} exited with ${code} before it was ready`)));
    child.on('message', (message: { ready?: boolean; baseUrl?: string }) => {
      if (!message.ready) return;
      clearTimeout(timer);
      resolve({
        process: child,
        baseUrl: message.baseUrl!,
        stop: async () => {
          child.kill('SIGTERM');
          const timeout = new Promise<void>((r) => setTimeout(r, 15_000).unref());
          await Promise.race([exited, timeout]);
          if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
        },
      });
    });
  });
}

/** Sends a message to a child and waits for its answer (`{profile: expected}` or `{sql: expected}`). */
function ask(child: Child, message: Record<string, unknown>, expected: string): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no "${expected}" from the child`)), 30_000);
    const onMessage = (m: { profile?: string; sql?: string }) => {
      if (m.profile !== expected && m.sql !== expected) return;
      clearTimeout(timer);
      child.process.off('message', onMessage);
      resolve(m);
    };
    child.process.on('message', onMessage);
    child.process.send(message);
  });
}

// ---------------------------------------------------------------------------
// Background load: the numbers mean little if something else uses the CPUs.

function cpuTimes() {
  return os.cpus().map((c) => ({ idle: c.times.idle, total: c.times.user + c.times.nice + c.times.sys + c.times.idle + c.times.irq }));
}

/** Busy % of each core over `ms`, while this benchmark does nothing. */
async function backgroundBusy(ms = 1500): Promise<number[]> {
  const a = cpuTimes();
  await new Promise((r) => setTimeout(r, ms));
  const b = cpuTimes();
  return b.map((t, i) => {
    const total = t.total - a[i]!.total;
    return total > 0 ? Math.round((100 * (1 - (t.idle - a[i]!.idle) / total)) * 10) / 10 : 0;
  });
}

/** Waits (up to `maxSeconds`) for the machine to be quiet; returns the last reading. */
async function waitForQuiet(maxSeconds: number): Promise<number[]> {
  const deadline = Date.now() + maxSeconds * 1000;
  let busy = await backgroundBusy();
  while (Math.max(...busy) > 15 && Date.now() < deadline) {
    log(`the machine is busy (${busy.join('% / ')}% per core): waiting...`);
    await new Promise((r) => setTimeout(r, 3000));
    busy = await backgroundBusy();
  }
  return busy;
}

// ---------------------------------------------------------------------------
// Load

interface Endpoint {
  key: string;
  label: string;
  /** Paths requested in turn. */
  paths: string[];
}

interface Measurement {
  endpoint: string;
  label: string;
  durationSeconds: number;
  requests: number;
  rps: number;
  p50Ms: number;
  p90Ms: number;
  p99Ms: number;
  maxMs: number;
  non2xx: number;
  errors: number;
  timeouts: number;
  bytesPerResponse: number;
  statements: number;
  statementsPerRequest: number;
  autocannon: { rpsAverage: number; latencyP50: number; latencyP99: number; sent: number; completed: number };
}

function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return NaN;
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[index]!;
}

async function load(baseUrl: string, endpoint: Endpoint, token: string, seconds: number, record: boolean) {
  let i = 0;
  let latencies = new Float64Array(1 << 16);
  let n = 0;
  const instance = autocannon({
    url: baseUrl,
    connections: CONNECTIONS,
    duration: seconds,
    headers: { authorization: `Bearer ${token}` },
    requests: [
      {
        method: 'GET',
        setupRequest: (request: Record<string, unknown>) => {
          request.path = endpoint.paths[i++ % endpoint.paths.length];
          return request;
        },
      },
    ],
  } as never);
  if (record) {
    instance.on('response', (_client: unknown, _status: number, _bytes: number, responseTime: number) => {
      if (n === latencies.length) {
        const grown = new Float64Array(latencies.length * 2);
        grown.set(latencies);
        latencies = grown;
      }
      latencies[n++] = responseTime;
    });
  }
  const result = await instance;
  const sorted = latencies.subarray(0, n).sort();
  return { result, sorted };
}

async function metricValue(baseUrl: string, name: string): Promise<number> {
  const text = await (await fetch(`${baseUrl}/metrics`)).text();
  let total = 0;
  for (const line of text.split('\n')) {
    if (line.startsWith(`${name} `) || line.startsWith(`${name}{`)) total += Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return total;
}

async function measure(baseUrl: string, endpoint: Endpoint, token: string): Promise<Measurement> {
  if (WARMUP > 0) await load(baseUrl, endpoint, token, WARMUP, false);
  const before = await metricValue(baseUrl, 'db_queries_total');
  const { result, sorted } = await load(baseUrl, endpoint, token, DURATION, true);
  // Let requests still in flight when autocannon stopped finish on the server.
  await new Promise((r) => setTimeout(r, 200));
  const after = await metricValue(baseUrl, 'db_queries_total');
  const completed = result.requests.total;
  const sent = result.requests.sent ?? completed;
  const statements = after - before;
  const m: Measurement = {
    endpoint: endpoint.key,
    label: endpoint.label,
    durationSeconds: result.duration,
    requests: completed,
    rps: completed / result.duration,
    p50Ms: percentile(sorted, 50),
    p90Ms: percentile(sorted, 90),
    p99Ms: percentile(sorted, 99),
    maxMs: percentile(sorted, 100),
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
    bytesPerResponse: completed ? result.throughput.total / completed : 0,
    statements,
    // Requests sent reached the server (the in-flight ones finished during the pause above).
    statementsPerRequest: sent ? statements / sent : NaN,
    autocannon: { rpsAverage: result.requests.average, latencyP50: result.latency.p50, latencyP99: result.latency.p99, sent, completed },
  };
  log(
    `${endpoint.label}: ${m.rps.toFixed(0)} req/s, p50 ${m.p50Ms.toFixed(2)} ms, p99 ${m.p99Ms.toFixed(2)} ms, ` +
      `${m.statementsPerRequest.toFixed(2)} statements/req, non-2xx ${m.non2xx}, errors ${m.errors}`,
  );
  if (m.non2xx || m.errors || m.timeouts) throw new Error(`${endpoint.label}: ${m.non2xx} non-2xx, ${m.errors} errors, ${m.timeouts} timeouts`);
  return m;
}

async function getBody(baseUrl: string, p: string, token: string): Promise<{ status: number; text: string; contentType: string | null }> {
  const res = await fetch(`${baseUrl}${p}`, { headers: { authorization: `Bearer ${token}` } });
  return { status: res.status, text: await res.text(), contentType: res.headers.get('content-type') };
}

// ---------------------------------------------------------------------------
// CPU profile summary

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number };
  children?: number[];
}

function where(url: string): string {
  if (!url) return '(native)';
  if (url.startsWith('node:')) return 'node internals';
  const nm = url.lastIndexOf('node_modules/');
  if (nm >= 0) {
    const rest = url.slice(nm + 'node_modules/'.length).split('/');
    return rest[0]!.startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0]!;
  }
  const root = path.join(here, '..') + '/';
  const file = url.replace(/^file:\/\//, '');
  return file.startsWith(root) ? file.slice(root.length) : file;
}

function summariseProfile(file: string) {
  const profile = JSON.parse(fs.readFileSync(file, 'utf8')) as { nodes: ProfileNode[]; samples: number[]; timeDeltas: number[] };
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parentOf = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parentOf.set(c, n.id);
  // The profiler's own stop call (node:inspector serialising the profile) is not the server's work.
  const isProfiler = (id: number) => {
    for (let cur: number | undefined = id; cur !== undefined; cur = parentOf.get(cur)) if (byId.get(cur)!.callFrame.url === 'node:inspector') return true;
    return false;
  };
  const selfUs = new Map<number, number>();
  for (let i = 0; i < profile.samples.length; i++) selfUs.set(profile.samples[i]!, (selfUs.get(profile.samples[i]!) ?? 0) + (profile.timeDeltas[i] ?? 0));
  for (const id of [...selfUs.keys()]) if (isProfiler(id)) selfUs.delete(id);
  let total = 0;
  let idle = 0;
  const functions = new Map<string, { name: string; location: string; us: number }>();
  const places = new Map<string, number>();
  for (const [id, us] of selfUs) {
    const { callFrame } = byId.get(id)!;
    total += us;
    if (callFrame.functionName === '(idle)') {
      idle += us;
      continue;
    }
    const place = callFrame.url ? where(callFrame.url) : callFrame.functionName.startsWith('(') ? callFrame.functionName : '(native)';
    const location = callFrame.url
      ? `${callFrame.url.startsWith('node:') || callFrame.url.includes('node_modules/') ? callFrame.url.replace(/^.*node_modules\//, '') : where(callFrame.url)}:${callFrame.lineNumber + 1}`
      : place;
    const key = `${callFrame.functionName}|${callFrame.url}|${callFrame.lineNumber}`;
    const entry = functions.get(key) ?? { name: callFrame.functionName || '(anonymous)', location, us: 0 };
    entry.us += us;
    functions.set(key, entry);
    places.set(place, (places.get(place) ?? 0) + us);
  }
  // Stages: each sample goes to the nearest frame on its stack (leaf first) that belongs to a known layer,
  // so native work (SQLite's prepare/step, JSON.parse, ...) counts for the layer that called it.
  const stageOfUrl = (url: string): string | null => {
    if (!url) return null;
    if (/@prisma\/|better-sqlite3|\/src\/db\//.test(url)) return 'Prisma client + adapter + SQLite';
    if (/\/src\/rest\//.test(url)) return 'REST runtime (src/rest)';
    if (/node_modules\/(graphql|@graphql-tools|@pothos|@envelop|graphql-yoga|@escape\.tech|dataloader|@graphql-yoga)\//.test(url)) return 'GraphQL (yoga/envelop, execution, Pothos)';
    if (/node_modules\/(@whatwg-node|urlpattern-polyfill|find-my-way)\//.test(url) || /^node:(_http|http|net|stream|internal\/(http|stream|streams|net|url|fixed_queue))/.test(url)) return 'HTTP (node:http + whatwg-node fetch adapter)';
    if (/node_modules\/(prom-client|pino|rate-limiter-flexible)\//.test(url)) return 'metrics / logging / rate limit';
    if (/\/work\/main\/src\//.test(url) || url.includes('/src/')) return 'app code (src, resolvers, auth)';
    if (url.includes('node_modules/')) return 'other packages';
    return null;
  };
  const stageOf = (id: number): string => {
    const leaf = byId.get(id)!.callFrame;
    if (leaf.functionName === '(garbage collector)') return 'garbage collector';
    if (leaf.functionName === '(program)') return '(program: V8/native, no JS frame)';
    for (let cur: number | undefined = id; cur !== undefined; cur = parentOf.get(cur)) {
      const stage = stageOfUrl(byId.get(cur)!.callFrame.url);
      if (stage) return stage;
    }
    return 'other (event loop, microtasks)';
  };
  const stages = new Map<string, number>();
  for (const [id, us] of selfUs) if (byId.get(id)!.callFrame.functionName !== '(idle)') stages.set(stageOf(id), (stages.get(stageOf(id)) ?? 0) + us);
  const busy = total - idle;
  const pct = (us: number) => (100 * us) / busy;
  return {
    file,
    sampledMs: total / 1000,
    busyMs: busy / 1000,
    idlePercent: (100 * idle) / total,
    topFunctions: [...functions.values()]
      .sort((a, b) => b.us - a.us)
      .slice(0, 20)
      .map((f) => ({ function: f.name, location: f.location, selfMs: f.us / 1000, percentOfBusy: pct(f.us) })),
    byStage: [...stages.entries()].sort((a, b) => b[1] - a[1]).map(([stage, us]) => ({ stage, selfMs: us / 1000, percentOfBusy: pct(us) })),
    byPackage: [...places.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, 20)
      .map(([place, us]) => ({ place, selfMs: us / 1000, percentOfBusy: pct(us) })),
  };
}

// ---------------------------------------------------------------------------

const fmt = (n: number, digits = 0) => (Number.isFinite(n) ? n.toFixed(digits) : 'n/a');

async function main() {
  const started = Date.now();
  const date = new Date().toISOString().slice(0, 10);
  log(`pinning: ${pinning ? 'servers on core 1, autocannon on core 0' : 'none (no taskset or a single core)'}`);
  const busyBefore = await waitForQuiet(Number(process.env.BENCH_WAIT_QUIET ?? 60));
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
  const appEnv = { DATABASE_URL: data.databaseUrl };
  const rawEnv = { DATABASE_FILE: data.databaseFile, PUBLIC_URL, APP_URL: PUBLIC_URL, RAW_CEILING_CHILD: '1' };

  const samplePaths = [byId.paths[0]!, byId.paths[data.spaceIds.length - 1]!, list.paths[0]!];
  const results: { app: Measurement[]; raw: Measurement[]; reference: Measurement[] } = { app: [], raw: [], reference: [] };
  const appBodies: string[] = [];
  /** The SQL the app sends for one request of each sample path. */
  const sqlOf: Record<string, string[]> = {};
  let profile: ReturnType<typeof summariseProfile> | null = null;
  const profileDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-prof-'));

  try {
    // --- the real server
    log('starting the app server...');
    let child = await startChild('app-server.ts', appEnv);
    try {
      for (const p of samplePaths) {
        await ask(child, { sql: 'start' }, 'started');
        const body = await getBody(child.baseUrl, p, token);
        sqlOf[p] = (await ask(child, { sql: 'stop' }, 'stopped')).statements as string[];
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
      child = await startChild('app-server.ts', appEnv);
      const file = path.join(profileDir, 'get-space.cpuprofile');
      try {
        await load(child.baseUrl, byId, token, 2, false);
        await ask(child, { profile: 'start', intervalUs: 200 }, 'started');
        await load(child.baseUrl, byId, token, PROFILE_SECONDS, false);
        await ask(child, { profile: 'stop', file }, 'stopped');
      } finally {
        await child.stop();
      }
      profile = summariseProfile(file);
      const kept = path.join(resultsDir, `${new Date().toISOString().slice(0, 10)}-rest-get-space.cpuprofile`);
      fs.mkdirSync(resultsDir, { recursive: true });
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
  const cpu = os.cpus()[0]?.model ?? 'unknown';
  const machine = {
    cpu,
    cores,
    memoryGiB: Math.round((os.totalmem() / 2 ** 30) * 10) / 10,
    node: process.version,
    platform: `${os.type()} ${os.release()} ${os.arch()}`,
    pinning: pinning ? 'server: taskset -c 1; autocannon: core 0' : 'none',
    backgroundBusyPercentPerCore: { before: busyBefore, after: busyAfter },
  };
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
  fs.mkdirSync(resultsDir, { recursive: true });
  const base = path.join(resultsDir, `${date}-rest`);
  fs.writeFileSync(`${base}.json`, `${JSON.stringify(json, null, 2)}\n`);

  const md: string[] = [];
  md.push(`# REST benchmark — ${date}`, '');
  md.push(
    `Machine: ${machine.cpu}, ${machine.cores} cores, ${machine.memoryGiB} GiB, Node ${machine.node} (${machine.platform}).`,
    `Background CPU (busy % per core over 1.5 s with the benchmark idle): before ${busyBefore.join('/')}, after ${busyAfter.join('/')}.`,
    `Pinning: ${machine.pinning}. Server NODE_ENV=${SERVER_NODE_ENV}, LOG_LEVEL=silent, rate limit effectively off.`,
    `Load: autocannon, ${CONNECTIONS} connections, ${WARMUP} s warm-up then ${DURATION} s measured per endpoint; one bearer token.`,
    `Data: fresh SQLite database (journal mode delete), 1 user, 1 organization (user is admin), 1 collection, 1,000 spaces (5 in the collection).`,
    `GET by id cycles through all 1,000 space ids; the list asks for the first page of 100 (\`count\` 1,000, \`next.page\` set).`,
    `Latencies are computed from every measured response (sub-millisecond precision).`,
    `Statements/request: delta of \`db_queries_total\` (GET /metrics) over the measured run ÷ requests sent.`,
    `The ceiling (bench/raw-ceiling.ts) is node:http + better-sqlite3, one prepared statement per request, and answers byte-identical bodies (checked before measuring).`,
    '',
  );
  md.push('| endpoint | server | req/s | p50 (ms) | p99 (ms) | statements/request | bytes/response | ratio to ceiling |');
  md.push('|---|---|---:|---:|---:|---:|---:|---:|');
  for (const row of rows) {
    md.push(`| ${row.endpoint} | app | ${fmt(row.app.rps)} | ${fmt(row.app.p50Ms, 2)} | ${fmt(row.app.p99Ms, 2)} | ${fmt(row.app.statementsPerRequest, 2)} | ${fmt(row.app.bytesPerResponse)} | ${fmt(100 * row.ratio, 1)}% |`);
    md.push(`| ${row.endpoint} | raw ceiling | ${fmt(row.raw.rps)} | ${fmt(row.raw.p50Ms, 2)} | ${fmt(row.raw.p99Ms, 2)} | ${fmt(row.raw.statementsPerRequest, 2)} | ${fmt(row.raw.bytesPerResponse)} | 100% |`);
  }
  for (const ref of results.reference) {
    md.push(`| ${ref.label} | app | ${fmt(ref.rps)} | ${fmt(ref.p50Ms, 2)} | ${fmt(ref.p99Ms, 2)} | ${fmt(ref.statementsPerRequest, 2)} | ${fmt(ref.bytesPerResponse)} | — |`);
  }
  md.push('');
  const byIdRow = rows[0]!;
  md.push(
    `**Target**: GET by id ≥ ${TARGET * 100}% of the ceiling. **Measured: ${fmt(100 * byIdRow.ratio, 1)}% — ${byIdRow.ratio >= TARGET ? 'met' : 'NOT met'}.**`,
    '',
  );
  if (profile) {
    md.push('## Where the time goes (GET /v1/spaces/{spaceId})', '');
    md.push(
      `CPU profile of the app server (V8 sampling profiler via node:inspector, 200 µs interval, steady state only: started after a 2 s warm-up, ` +
        `stopped after ${PROFILE_SECONDS} s of the same load; saved as \`${path.basename(profile.file)}\`, open it in Chrome DevTools): ` +
        `${fmt(profile.busyMs)} ms busy of ${fmt(profile.sampledMs)} ms sampled (${fmt(profile.idlePercent, 1)}% idle). Self time, as % of busy time.`,
      '',
      '### By layer',
      '',
      'Each sample is charged to the nearest frame on its stack that belongs to a layer (so SQLite\'s native prepare/step count for Prisma).',
      '',
      '| layer | ms | % busy |',
      '|---|---:|---:|',
      ...profile.byStage.map((st) => `| ${st.stage} | ${fmt(st.selfMs)} | ${fmt(st.percentOfBusy, 1)}% |`),
      '',
      '### By package / file (self time of the leaf frame)',
      '',
      '| where | self ms | % busy |',
      '|---|---:|---:|',
    );
    for (const p of profile.byPackage.slice(0, 15)) md.push(`| ${p.place} | ${fmt(p.selfMs)} | ${fmt(p.percentOfBusy, 1)}% |`);
    md.push('', '### Top functions', '', '| function | location | self ms | % busy |', '|---|---|---:|---:|');
    for (const f of profile.topFunctions.slice(0, 20)) md.push(`| \`${f.function}\` | ${f.location} | ${fmt(f.selfMs)} | ${fmt(f.percentOfBusy, 1)}% |`);
    md.push('');
  }
  md.push('## SQL sent by the app for one request', '');
  for (const sample of sqlSamples) {
    md.push(`${sample.request}: ${sample.statements.length} statements`, '', '```sql', ...sample.statements.map((q) => q.replace(/\s+/g, ' ').slice(0, 400)), '```', '');
  }
  md.push(`Raw data: \`${path.basename(base)}.json\`. Total run time: ${fmt((Date.now() - started) / 1000)} s.`, '');
  fs.writeFileSync(`${base}.md`, md.join('\n'));
  log(`wrote ${base}.md and ${base}.json in ${fmt((Date.now() - started) / 1000)} s`);
  process.stdout.write(md.join('\n'));
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});

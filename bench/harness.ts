/**
 * What the benchmarks share (bench/run.ts, bench/site-graph.ts): settings from
 * the environment, CPU pinning, child servers (bench/app-server.ts and the raw
 * servers) started and stopped over IPC, the background-CPU check, autocannon
 * load with latency percentiles from every response, the `db_queries_total`
 * delta, CPU profiles of a child under load and their summary, the machine
 * description and markdown helpers.
 *
 * Environment (read here, the same for every benchmark): BENCH_DURATION (s,
 * default 10), BENCH_WARMUP (s, default 3), BENCH_CONNECTIONS (default 10),
 * BENCH_PROFILE (s, default 6; 0 disables), BENCH_NODE_ENV (NODE_ENV of the
 * servers, default production), BENCH_WAIT_QUIET (s to wait for a quiet
 * machine first, default 60).
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';

export const here = path.dirname(fileURLToPath(import.meta.url));
/** The .md summaries, kept in git. */
export const resultsDir = path.join(here, 'results');
/** Raw output (JSON, CPU profiles): git-ignored. */
export const outDir = path.join(here, 'out');

export const DURATION = Number(process.env.BENCH_DURATION ?? 10);
export const WARMUP = Number(process.env.BENCH_WARMUP ?? 3);
export const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10);
export const PROFILE_SECONDS = Number(process.env.BENCH_PROFILE ?? 6);
export const SERVER_NODE_ENV = process.env.BENCH_NODE_ENV ?? 'production';
export const WAIT_QUIET_SECONDS = Number(process.env.BENCH_WAIT_QUIET ?? 60);
/** PUBLIC_URL / APP_URL of every server the benchmarks start (bench/app-server.ts sets the same). */
export const PUBLIC_URL = 'http://bench.local';

export const log = (...args: unknown[]) => console.error('[bench]', ...args);

export const fmt = (n: number, digits = 0) => (Number.isFinite(n) ? n.toFixed(digits) : 'n/a');

/** Today's date (UTC) as YYYY-MM-DD, the prefix of the result files. */
export const today = () => new Date().toISOString().slice(0, 10);

// ---------------------------------------------------------------------------
// CPU pinning: servers on core 1, the load generator (this process) on core 0.

function hasTaskset(): boolean {
  try {
    execFileSync('taskset', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

export const cores = os.cpus().length;
export const pinning = hasTaskset() && cores >= 2;
if (pinning) execFileSync('taskset', ['-cp', '0', String(process.pid)], { stdio: 'ignore' });

export const pinningDescription = pinning ? 'server: taskset -c 1; autocannon: core 0' : 'none';

export function logPinning() {
  log(`pinning: ${pinning ? 'servers on core 1, autocannon on core 0' : 'none (no taskset or a single core)'}`);
}

// ---------------------------------------------------------------------------
// Child servers

export interface Child {
  process: ChildProcess;
  baseUrl: string;
  stop(): Promise<void>;
}

/**
 * Starts `bench/<script>` in a child process (pinned to core 1), which reports
 * `{ready: true, baseUrl}` over IPC once it listens.
 */
export function startChild(script: string, env: Record<string, string>, nodeArgs: string[] = []): Promise<Child> {
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

/** Starts a child, runs `work` with it, and stops it whatever happens. */
export async function withChild<T>(script: string, env: Record<string, string>, work: (child: Child) => Promise<T>): Promise<T> {
  const child = await startChild(script, env);
  try {
    return await work(child);
  } finally {
    await child.stop();
  }
}

/** Sends a message to a child and waits for its answer (`{profile: expected}` or `{sql: expected}`). */
export function ask(child: Child, message: Record<string, unknown>, expected: string): Promise<Record<string, unknown>> {
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

/** Runs `request` on the app server (bench/app-server.ts) and returns its result with the SQL it sent. */
export async function captureSql<T>(child: Child, request: () => Promise<T>): Promise<{ result: T; statements: string[] }> {
  await ask(child, { sql: 'start' }, 'started');
  const result = await request();
  const statements = (await ask(child, { sql: 'stop' }, 'stopped')).statements as string[];
  return { result, statements };
}

// ---------------------------------------------------------------------------
// Background load: the numbers mean little if something else uses the CPUs.

function cpuTimes() {
  return os.cpus().map((c) => ({ idle: c.times.idle, total: c.times.user + c.times.nice + c.times.sys + c.times.idle + c.times.irq }));
}

/** Busy % of each core over `ms`, while this benchmark does nothing. */
export async function backgroundBusy(ms = 1500): Promise<number[]> {
  const a = cpuTimes();
  await new Promise((r) => setTimeout(r, ms));
  const b = cpuTimes();
  return b.map((t, i) => {
    const total = t.total - a[i]!.total;
    return total > 0 ? Math.round((100 * (1 - (t.idle - a[i]!.idle) / total)) * 10) / 10 : 0;
  });
}

/** Waits (up to `maxSeconds`) for the machine to be quiet; returns the last reading. */
export async function waitForQuiet(maxSeconds: number): Promise<number[]> {
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

export interface Endpoint {
  key: string;
  label: string;
  /** Paths requested in turn. */
  paths: string[];
  /** Default GET. */
  method?: 'GET' | 'POST';
  /** Request body (the same for every request). */
  body?: string;
  /** Headers besides the bearer token. */
  headers?: Record<string, string>;
  /**
   * Every response has the same size (a fixed answer such as one GraphQL
   * query's): the measurement fails when one differs, which catches errors
   * answered with 200 (GraphQL `errors`).
   */
  sameSize?: boolean;
  /** Concurrent connections (default BENCH_CONNECTIONS). */
  connections?: number;
}

export interface Measurement {
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

export function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return NaN;
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[index]!;
}

/** autocannon against `endpoint` for `seconds`; with `record`, the latency of every response (sorted) and the range of response sizes. */
export async function load(baseUrl: string, endpoint: Endpoint, token: string, seconds: number, record: boolean) {
  let i = 0;
  let latencies = new Float64Array(1 << 16);
  let n = 0;
  let minBytes = Infinity;
  let maxBytes = -Infinity;
  const instance = autocannon({
    url: baseUrl,
    connections: endpoint.connections ?? CONNECTIONS,
    duration: seconds,
    headers: { authorization: `Bearer ${token}` },
    requests: [
      {
        method: endpoint.method ?? 'GET',
        ...(endpoint.headers ? { headers: endpoint.headers } : {}),
        ...(endpoint.body !== undefined ? { body: endpoint.body } : {}),
        setupRequest: (request: Record<string, unknown>) => {
          request.path = endpoint.paths[i++ % endpoint.paths.length];
          return request;
        },
      },
    ],
  } as never);
  if (record) {
    instance.on('response', (_client: unknown, _status: number, bytes: number, responseTime: number) => {
      if (n === latencies.length) {
        const grown = new Float64Array(latencies.length * 2);
        grown.set(latencies);
        latencies = grown;
      }
      latencies[n++] = responseTime;
      if (bytes < minBytes) minBytes = bytes;
      if (bytes > maxBytes) maxBytes = bytes;
    });
  }
  const result = await instance;
  const sorted = latencies.subarray(0, n).sort();
  return { result, sorted, minBytes, maxBytes };
}

/** The sum of a Prometheus metric's samples in GET /metrics. */
export async function metricValue(baseUrl: string, name: string): Promise<number> {
  const text = await (await fetch(`${baseUrl}/metrics`)).text();
  let total = 0;
  for (const line of text.split('\n')) {
    if (line.startsWith(`${name} `) || line.startsWith(`${name}{`)) total += Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return total;
}

/**
 * A warm-up, then a measured run of `endpoint`; statements/request is the
 * delta of `db_queries_total` over the measured run divided by the requests
 * sent. Throws on any non-2xx, error or timeout.
 */
export async function measure(baseUrl: string, endpoint: Endpoint, token: string): Promise<Measurement> {
  if (WARMUP > 0) {
    await load(baseUrl, endpoint, token, WARMUP, false);
    // Warm-up requests still in flight when it stopped finish before the count starts.
    await new Promise((r) => setTimeout(r, 200));
  }
  const before = await metricValue(baseUrl, 'db_queries_total');
  const { result, sorted, minBytes, maxBytes } = await load(baseUrl, endpoint, token, DURATION, true);
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
  if (endpoint.sameSize && sorted.length > 0 && minBytes !== maxBytes) {
    throw new Error(`${endpoint.label}: responses of different sizes (${minBytes} to ${maxBytes} bytes): some were not the expected answer`);
  }
  return m;
}

export interface Body {
  status: number;
  text: string;
  contentType: string | null;
}

/** One request of `endpoint` (its method, body and headers) to `p`, with the bearer token. */
export async function request(baseUrl: string, p: string, token: string, endpoint?: Pick<Endpoint, 'method' | 'body' | 'headers'>): Promise<Body> {
  const res = await fetch(`${baseUrl}${p}`, {
    method: endpoint?.method ?? 'GET',
    headers: { ...endpoint?.headers, authorization: `Bearer ${token}` },
    ...(endpoint?.body !== undefined ? { body: endpoint.body } : {}),
  });
  return { status: res.status, text: await res.text(), contentType: res.headers.get('content-type') };
}

export const getBody = (baseUrl: string, p: string, token: string): Promise<Body> => request(baseUrl, p, token);

/** `value` with the keys of every object sorted, so two JSON bodies compare equal whatever their key order. */
export function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .map((k) => [k, canonical((value as Record<string, unknown>)[k])]),
    );
  }
  return value;
}

/** Where two JSON values first differ (a JSON path and both values), or null when equal modulo key order. */
export function firstDifference(a: unknown, b: unknown, at = '$'): string | null {
  if (Array.isArray(a) && Array.isArray(b)) {
    for (let i = 0; i < Math.max(a.length, b.length); i++) {
      if (i >= a.length || i >= b.length) return `${at}: ${a.length} items vs ${b.length}`;
      const d = firstDifference(a[i], b[i], `${at}[${i}]`);
      if (d) return d;
    }
    return null;
  }
  if (a && b && typeof a === 'object' && typeof b === 'object' && !Array.isArray(a) && !Array.isArray(b)) {
    const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
    for (const k of [...keys].sort()) {
      if (!(k in a) || !(k in b)) return `${at}.${k}: ${k in a ? 'only in the first' : 'only in the second'}`;
      const d = firstDifference((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k], `${at}.${k}`);
      if (d) return d;
    }
    return null;
  }
  return Object.is(a, b) ? null : `${at}: ${JSON.stringify(a)} vs ${JSON.stringify(b)}`;
}

// ---------------------------------------------------------------------------
// CPU profiles

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number };
  children?: number[];
}

/**
 * CPU profile of the app server (a fresh bench/app-server.ts child) under the
 * load of `endpoint`: 2 s of load first, then the V8 sampling profiler
 * (200 µs) for `seconds` of the same load; written to `file`.
 */
export async function profileUnderLoad(env: Record<string, string>, endpoint: Endpoint, token: string, file: string, seconds = PROFILE_SECONDS) {
  await withChild('app-server.ts', env, async (child) => {
    await load(child.baseUrl, endpoint, token, 2, false);
    await ask(child, { profile: 'start', intervalUs: 200 }, 'started');
    await load(child.baseUrl, endpoint, token, seconds, false);
    await ask(child, { profile: 'stop', file }, 'stopped');
  });
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

export function summariseProfile(file: string) {
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

export type ProfileSummary = ReturnType<typeof summariseProfile>;

/** The "Where the time goes" section of a report (`title` names the request profiled). */
export function profileMarkdown(profile: ProfileSummary, title: string, seconds = PROFILE_SECONDS): string[] {
  const md: string[] = [];
  md.push(`## Where the time goes (${title})`, '');
  md.push(
    `CPU profile of the app server (V8 sampling profiler via node:inspector, 200 µs interval, steady state only: started after a 2 s warm-up, ` +
      `stopped after ${seconds} s of the same load; saved as \`bench/out/${path.basename(profile.file)}\` (not in git), open it in Chrome DevTools): ` +
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
  return md;
}

// ---------------------------------------------------------------------------
// Report helpers

export interface Machine {
  cpu: string;
  cores: number;
  memoryGiB: number;
  node: string;
  platform: string;
  pinning: string;
  backgroundBusyPercentPerCore: { before: number[]; after: number[] };
}

export function describeMachine(busyBefore: number[], busyAfter: number[]): Machine {
  return {
    cpu: os.cpus()[0]?.model ?? 'unknown',
    cores,
    memoryGiB: Math.round((os.totalmem() / 2 ** 30) * 10) / 10,
    node: process.version,
    platform: `${os.type()} ${os.release()} ${os.arch()}`,
    pinning: pinningDescription,
    backgroundBusyPercentPerCore: { before: busyBefore, after: busyAfter },
  };
}

/** The first lines of every report: machine, Node, background CPU. */
export function machineLines(machine: Machine): string[] {
  const { before, after } = machine.backgroundBusyPercentPerCore;
  return [
    `Machine: ${machine.cpu}, ${machine.cores} cores, ${machine.memoryGiB} GiB, Node ${machine.node} (${machine.platform}).`,
    `Background CPU (busy % per core over 1.5 s with the benchmark idle): before ${before.join('/')}, after ${after.join('/')}.`,
  ];
}

/** A markdown table; `align` per column: 'l' or 'r' (default 'l'). */
export function table(header: string[], rows: Array<Array<string | number>>, align: Array<'l' | 'r'> = []): string[] {
  return [
    `| ${header.join(' | ')} |`,
    `|${header.map((_, i) => (align[i] === 'r' ? '---:' : '---')).join('|')}|`,
    ...rows.map((r) => `| ${r.join(' | ')} |`),
  ];
}

/** SQL statements as a fenced block, one line each (whitespace collapsed, cut at `max` characters). */
export function sqlBlock(statements: string[], max = 400): string[] {
  return ['```sql', ...statements.map((q) => q.replace(/\s+/g, ' ').slice(0, max)), '```'];
}

/** Writes `<name>.md` in bench/results/ (kept in git) and `<name>.json` in bench/out/ (ignored); returns both paths. */
export function writeResults(name: string, json: unknown, md: string[]): { md: string; json: string } {
  fs.mkdirSync(resultsDir, { recursive: true });
  fs.mkdirSync(outDir, { recursive: true });
  const files = { md: path.join(resultsDir, `${name}.md`), json: path.join(outDir, `${name}.json`) };
  fs.writeFileSync(files.json, `${JSON.stringify(json, null, 2)}\n`);
  fs.writeFileSync(files.md, md.join('\n'));
  return files;
}

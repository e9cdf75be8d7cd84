/**
 * The one harness of the benchmarks (bench/rest.ts, site-graph.ts, openapi.ts, insights.ts,
 * site-graph-floor.ts, content.ts, jobs.ts, ab.ts, soak.ts, growth.ts):
 * settings from the environment, the database of a run (a fresh SQLite file,
 * or a fresh schema of BENCH_DATABASE_URL's PostgreSQL, migrated by this
 * checkout or another) and its size on disk, CPU pinning, child servers
 * (bench/app-server.ts and the hand-written SQL servers) started and stopped
 * over IPC, the load of a shared machine (waiting for a quiet one, who used
 * the CPU during each measured phase), autocannon load with latency
 * percentiles from every response, the `db_queries_total` delta, JSON calls,
 * SQL statements by kind, CPU profiles and their summary by layer, the code
 * measured, and the report: its header, tables, and the files it writes
 * (the .md summary in bench/results/, kept in git; the raw JSON and CPU
 * profiles in bench/out/, git-ignored).
 *
 * Environment (the same for every benchmark):
 * - BENCH_DATABASE_URL: postgresql://user@host:port/db runs on PostgreSQL (in
 *   a fresh schema, dropped at the end); unset or empty, on SQLite;
 * - BENCH_DURATION (s, default 10), BENCH_WARMUP (s, default 3),
 *   BENCH_CONNECTIONS (default 10): the autocannon runs;
 * - BENCH_PROFILE (s, default 6; 0 disables the CPU profiles);
 * - BENCH_NODE_ENV: NODE_ENV of the servers (default production);
 * - BENCH_WAIT_QUIET (s, default 60): how long, before each measured phase,
 *   to wait for a quiet machine (no other benchmark or test runner, no core
 *   above 15% busy); 0 never waits. BENCH_WAIT_BUDGET (s, default 600): all
 *   those waits of one run together.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import pg from 'pg';
import { createUserWithToken } from '../src/auth/users.ts';
import { createDb } from '../src/db/client.ts';
import { migrate } from '../src/db/migrate.ts';
import { parseDatabaseUrl, type DatabaseConfig, type Provider } from '../src/db/provider/config.ts';
import { dropDatabase, prepareDatabase } from '../src/db/provider/setup.ts';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.join(here, '..');
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
export const WAIT_BUDGET_SECONDS = Number(process.env.BENCH_WAIT_BUDGET ?? 600);
/** The PostgreSQL server to run on; undefined: SQLite. */
export const BENCH_DATABASE_URL = process.env.BENCH_DATABASE_URL || undefined;
export const provider: Provider = BENCH_DATABASE_URL ? 'postgresql' : 'sqlite';
export const databaseName = provider === 'postgresql' ? 'PostgreSQL' : 'SQLite';
/** PUBLIC_URL / APP_URL of every server the benchmarks start (bench/app-server.ts sets the same). */
export const PUBLIC_URL = 'http://bench.local';

export const log = (...args: unknown[]) => console.error('[bench]', ...args);

export const fmt = (n: number, digits = 0) => (Number.isFinite(n) ? n.toFixed(digits) : 'n/a');
export const count = (n: number) => n.toLocaleString('en-US');
export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
export const sum = (values: number[]) => values.reduce((a, b) => a + b, 0);

/** Today's date (UTC) as YYYY-MM-DD, the prefix of the result files. */
export const today = () => new Date().toISOString().slice(0, 10);

export function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return NaN;
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[index]!;
}

/** Nearest-rank percentiles, min, max and mean of the finite values. */
export function stats(values: number[]) {
  const sorted = Float64Array.from(values.filter((v) => Number.isFinite(v))).sort();
  return {
    n: sorted.length,
    min: sorted[0] ?? NaN,
    p10: percentile(sorted, 10),
    p50: percentile(sorted, 50),
    p90: percentile(sorted, 90),
    p95: percentile(sorted, 95),
    p99: percentile(sorted, 99),
    max: sorted[sorted.length - 1] ?? NaN,
    mean: sorted.length ? sum([...sorted]) / sorted.length : NaN,
  };
}
export type Stats = ReturnType<typeof stats>;
export const median = (values: number[]) => stats(values).p50;

// ---------------------------------------------------------------------------
// The database of a run

export interface BenchDatabase {
  url: string;
  config: DatabaseConfig;
  provider: Provider;
  /** What it is, for the report (without any password). */
  description: string;
  drop(): Promise<void>;
}

/**
 * A fresh, migrated database: a SQLite file in a temporary folder, or, with
 * BENCH_DATABASE_URL, a new schema `bench_<name>_<random>` of that PostgreSQL
 * database (dropped by `drop`).
 */
export async function createBenchDatabase(name: string, options: { dir?: string } = {}): Promise<BenchDatabase> {
  let url: string;
  let dir: string | undefined;
  let description: string;
  if (BENCH_DATABASE_URL) {
    const u = new URL(BENCH_DATABASE_URL);
    if (u.searchParams.has('schema')) throw new Error('BENCH_DATABASE_URL: give no ?schema=, the benchmark makes its own');
    const schema = `bench_${name.replace(/\W/g, '_')}_${randomBytes(5).toString('hex')}`;
    u.searchParams.set('schema', schema);
    url = u.toString();
    description = `PostgreSQL ${u.hostname}:${u.port || '5432'}${u.pathname}, fresh schema ${schema}`;
  } else {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), `bench-${name}-`));
    url = `file:${path.join(dir, 'bench.db')}`;
    description = 'SQLite, fresh file in a temporary folder';
  }
  const config = parseDatabaseUrl(url);
  await prepareDatabase(config);
  try {
    if (options.dir && path.resolve(options.dir) !== root) migrateIn(options.dir, url);
    else await migrate(config);
  } catch (error) {
    await dropDatabase(config).catch(() => {});
    throw error;
  }
  return {
    url,
    config,
    provider: config.provider,
    description,
    async drop() {
      await dropDatabase(config);
      if (dir) fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * Migrates the database of `url` with the migrations of checkout `dir` (another version of the
 * app, whose schema may differ from this checkout's), in a child process running that checkout's
 * own migrate().
 */
function migrateIn(dir: string, url: string): void {
  const script = [
    "const { migrate } = await import('./src/db/migrate.ts');",
    "const { parseDatabaseUrl } = await import('./src/db/provider/config.ts');",
    'await migrate(parseDatabaseUrl(process.env.BENCH_MIGRATE_URL));',
  ].join(' ');
  execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    cwd: dir,
    env: { ...process.env, BENCH_MIGRATE_URL: url, LOG_LEVEL: 'silent' },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
}

/** Bytes of a file, 0 when it does not exist. */
const fileBytes = (file: string) => {
  try {
    return fs.statSync(file).size;
  } catch {
    return 0;
  }
};

export interface DatabaseSize {
  /** What the database takes: SQLite, the file and its -wal; PostgreSQL, the relations of the run's schema (tables, indexes, TOAST). */
  bytes: number;
  /** SQLite: the main file and the write-ahead log; PostgreSQL: pg_database_size of the whole database (other schemas in it included). */
  parts: Record<string, number>;
  /** Rows of the tables asked for that exist (a table absent from this version of the schema is left out). */
  rows: Record<string, number>;
  /** Bytes of each table with its indexes (and TOAST), biggest first; only with the rows. */
  tables: Record<string, number>;
}

/** Sizes by table, biggest first, as an object. */
const sortedSizes = (entries: Array<[string, number]>) => Object.fromEntries(entries.filter(([, b]) => b > 0).sort((a, b) => b[1] - a[1]));

/** The size of a run's database on disk, and the rows of `tables` (counted only when asked: a COUNT of millions of rows takes a while). */
export async function databaseSize(database: BenchDatabase, tables: readonly string[] = []): Promise<DatabaseSize> {
  const rows: Record<string, number> = {};
  if (database.provider === 'postgresql') {
    const c = database.config.pg!;
    const schema = c.schema ?? 'public';
    const client = new pg.Client({ host: c.host, port: c.port, user: c.user, database: c.database, ...(c.password ? { password: c.password } : {}) });
    await client.connect();
    try {
      const relations = await client.query<{ bytes: string }>(
        `SELECT COALESCE(SUM(pg_total_relation_size(c.oid)), 0) AS bytes FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = $1 AND c.relkind IN ('r', 'm')`,
        [schema],
      );
      const whole = await client.query<{ bytes: string }>('SELECT pg_database_size(current_database()) AS bytes');
      const existing = await client.query<{ table_name: string }>('SELECT table_name FROM information_schema.tables WHERE table_schema = $1', [schema]);
      const names = new Set(existing.rows.map((r) => r.table_name));
      for (const table of tables) {
        if (!names.has(table)) continue;
        const { rows: r } = await client.query<{ n: string }>(`SELECT COUNT(*) AS n FROM "${schema}"."${table}"`);
        rows[table] = Number(r[0]!.n);
      }
      const bySize = tables.length
        ? await client.query<{ name: string; bytes: string }>(
            `SELECT c.relname AS name, pg_total_relation_size(c.oid) AS bytes FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = $1 AND c.relkind IN ('r', 'm')`,
            [schema],
          )
        : { rows: [] };
      return {
        bytes: Number(relations.rows[0]!.bytes),
        parts: { schema: Number(relations.rows[0]!.bytes), database: Number(whole.rows[0]!.bytes) },
        rows,
        tables: sortedSizes(bySize.rows.map((r) => [r.name, Number(r.bytes)])),
      };
    } finally {
      await client.end();
    }
  }
  const file = database.config.file!;
  const parts = { file: fileBytes(file), wal: fileBytes(`${file}-wal`) };
  let bySize: Record<string, number> = {};
  if (tables.length) {
    const db = createDb(database.config);
    try {
      const existing = await db.$queryRawUnsafe<Array<{ name: string }>>("SELECT name FROM sqlite_master WHERE type = 'table'");
      const names = new Set(existing.map((r) => r.name));
      for (const table of tables) {
        if (!names.has(table)) continue;
        const r = await db.$queryRawUnsafe<Array<{ n: number | bigint }>>(`SELECT COUNT(*) AS n FROM "${table}"`);
        rows[table] = Number(r[0]!.n);
      }
      // The pages of each table and its indexes (dbstat: the committed database, the -wal's pages included).
      const pages = await db.$queryRawUnsafe<Array<{ name: string; bytes: number | bigint }>>(
        "SELECT COALESCE(m.tbl_name, d.name) AS name, SUM(d.pgsize) AS bytes FROM dbstat d LEFT JOIN sqlite_master m ON m.name = d.name GROUP BY 1",
      );
      bySize = sortedSizes(pages.map((r) => [r.name, Number(r.bytes)]));
    } finally {
      await db.$disconnect();
    }
  }
  return { bytes: parts.file + parts.wal, parts, rows, tables: bySize };
}

/** Bytes as MB (10^6), the unit of the reports. */
export const megabytes = (bytes: number, digits = 1) => `${fmt(bytes / 1e6, digits)} MB`;

/** A user and its API token, written directly (as `npm run cli -- user:create` would). */
export async function createBenchUser(database: BenchDatabase, email: string): Promise<{ userId: string; token: string }> {
  const db = createDb(database.config);
  try {
    const { user, token } = await createUserWithToken(db, { email, displayName: 'Bench', label: 'bench' });
    return { userId: user.id, token };
  } finally {
    await db.$disconnect();
  }
}

/** The database server's version (and SQLite's journal mode, which the app sets when it opens the file). */
export async function databaseVersion(database: BenchDatabase): Promise<string> {
  if (database.provider === 'postgresql') {
    const c = database.config.pg!;
    const client = new pg.Client({ host: c.host, port: c.port, user: c.user, database: c.database, ...(c.password ? { password: c.password } : {}) });
    await client.connect();
    try {
      const { rows } = await client.query<{ version: string }>('SELECT version() AS version');
      return rows[0]!.version.replace(/ on .*/, '');
    } finally {
      await client.end();
    }
  }
  const db = createDb(database.config);
  try {
    const rows = await db.$queryRawUnsafe<Array<{ v: string }>>('SELECT sqlite_version() AS v');
    const mode = await db.$queryRawUnsafe<Array<{ journal_mode: string }>>('PRAGMA journal_mode');
    return `SQLite ${rows[0]!.v} (better-sqlite3), journal mode ${mode[0]?.journal_mode ?? '?'}`;
  } finally {
    await db.$disconnect();
  }
}

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

export const pinningDescription =
  (pinning ? 'servers: taskset -c 1; this process (the load generator): core 0' : 'none (no taskset or a single core)') +
  (provider === 'postgresql' ? '; the PostgreSQL server is not pinned: it shares the cores' : '');

// ---------------------------------------------------------------------------
// Child servers

export interface Child {
  process: ChildProcess;
  baseUrl: string;
  stop(): Promise<void>;
}

/**
 * Starts `bench/<script>` of this checkout, or of checkout `dir`, in a child
 * process (pinned to core 1), which reports `{ready: true, baseUrl}` over IPC
 * once it listens. While it runs, it is one of the servers of the machine-load readings.
 */
export function startChild(script: string, env: Record<string, string>, options: { dir?: string } = {}): Promise<Child> {
  const dir = options.dir ?? root;
  const args = ['--import', 'tsx', path.join(dir, 'bench', script)];
  const [command, argv] = pinning ? ['taskset', ['-c', '1', process.execPath, ...args]] : [process.execPath, args];
  const child = spawn(command, argv, {
    cwd: dir,
    env: { ...process.env, NODE_ENV: SERVER_NODE_ENV, ...env },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${script} did not start within 60 s`)), 60_000);
    child.once('exit', (code) => reject(new Error(`${dir}/bench/${script} exited with ${code} before it was ready`)));
    child.on('message', (message: { ready?: boolean; baseUrl?: string }) => {
      if (!message.ready) return;
      clearTimeout(timer);
      machineLoad.serverPids.add(child.pid!);
      resolve({
        process: child,
        baseUrl: message.baseUrl!,
        stop: async () => {
          machineLoad.serverPids.delete(child.pid!);
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

/**
 * Runs `request` on the app server (bench/app-server.ts) and returns its
 * result with the SQL it sent and when (epoch ms, sub-ms precision: the
 * same clock as `epochNow` here).
 */
export async function captureSql<T>(child: Child, request: () => Promise<T>): Promise<{ result: T; statements: string[]; times: number[] }> {
  await ask(child, { sql: 'start' }, 'started');
  const result = await request();
  const answer = await ask(child, { sql: 'stop' }, 'stopped');
  return { result, statements: answer.statements as string[], times: (answer.times as number[] | undefined) ?? [] };
}

/** Now as epoch ms with sub-millisecond precision (comparable across the processes of this machine). */
export const epochNow = () => performance.timeOrigin + performance.now();

// ---------------------------------------------------------------------------
// The load of the machine: others (their benchmarks, tests, servers) share
// it, so before each measured phase a benchmark waits for a quiet machine,
// and for each one it records who used the CPU.

const CLOCK_TICKS = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
})();

function cpuTimes() {
  return os.cpus().map((c) => ({ idle: c.times.idle, total: c.times.user + c.times.nice + c.times.sys + c.times.idle + c.times.irq }));
}

/** Busy % of each core over `ms`, while this benchmark does nothing. */
async function backgroundBusy(ms = 1500): Promise<number[]> {
  const a = cpuTimes();
  await sleep(ms);
  const b = cpuTimes();
  return b.map((t, i) => {
    const total = t.total - a[i]!.total;
    return total > 0 ? Math.round(100 * (1 - (t.idle - a[i]!.idle) / total) * 10) / 10 : 0;
  });
}

export interface ProcessInfo {
  pid: number;
  ppid: number;
  /** CPU ticks (user + system) so far. */
  ticks: number;
  what: string;
}

function statFields(pid: number): string[] | null {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return null;
  }
}

/** Every process (from /proc), with its command line shortened. */
export function processes(): Map<number, ProcessInfo> {
  const out = new Map<number, ProcessInfo>();
  for (const entry of fs.existsSync('/proc') ? fs.readdirSync('/proc') : []) {
    if (!/^\d+$/.test(entry)) continue;
    const pid = Number(entry);
    const f = statFields(pid);
    if (!f) continue;
    try {
      const cmd = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean);
      const what = cmd.map((a) => a.replace(/^.*\/node_modules\//, '').replace(`${root}/`, '')).join(' ').slice(0, 100);
      out.set(pid, { pid, ppid: Number(f[1]), ticks: Number(f[11]) + Number(f[12]), what });
    } catch {
      // it ended meanwhile
    }
  }
  return out;
}

/** CPU time (user + system) of a process, in ms. */
export function cpuMs(pid: number | undefined): number {
  const f = pid ? statFields(pid) : null;
  return f ? ((Number(f[11]) + Number(f[12])) * 1000) / CLOCK_TICKS : NaN;
}

/** Resident memory and its high-water mark of a process, in MiB. */
export function memoryMiB(pid: number | undefined): { rssMiB: number; peakMiB: number } {
  try {
    const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (key: string) => Number(new RegExp(`^${key}:\\s+(\\d+)`, 'm').exec(status)?.[1] ?? NaN);
    return { rssMiB: kb('VmRSS') / 1024, peakMiB: kb('VmHWM') / 1024 };
  } catch {
    return { rssMiB: NaN, peakMiB: NaN };
  }
}

/** This process, its ancestors (npm, the shell) and its descendants (its servers, git http-backend). */
function ownPids(procs: Map<number, ProcessInfo>): Set<number> {
  const own = new Set<number>([process.pid]);
  for (let grew = true; grew; ) {
    grew = false;
    for (const p of procs.values()) {
      if (!own.has(p.pid) && own.has(p.ppid)) {
        own.add(p.pid);
        grew = true;
      }
    }
  }
  for (let p = procs.get(process.pid)?.ppid; p && p > 1; p = procs.get(p)?.ppid) own.add(p);
  return own;
}

/** Other benchmarks (anything run from a bench/ folder) and test runners (vitest) running now. */
export function otherRunners(procs = processes()): ProcessInfo[] {
  const own = ownPids(procs);
  return [...procs.values()].filter((p) => !own.has(p.pid) && (/(^|[\s/])bench\/\S+\.ts/.test(p.what) || /vitest/.test(p.what)));
}

/** Busy CPU ticks of the whole machine (user, nice, system, irq, softirq) from /proc/stat. */
function machineTicks(): number {
  try {
    const fields = fs.readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
    return fields[0]! + fields[1]! + fields[2]! + fields[5]! + fields[6]!;
  } catch {
    return NaN;
  }
}

/** A reading of the load with the benchmark idle (1.5 s). */
export interface LoadReading {
  phase: string;
  at: string;
  busyPercentPerCore: number[];
  /** Other benchmarks and test runners running at that moment. */
  otherRunners: string[];
  /** The processes that used >= 2% of a core during the reading (this benchmark's own named as such). */
  top: Array<{ what: string; percent: number }>;
}

export interface CpuSnapshot {
  at: number;
  procs: Map<number, ProcessInfo>;
  machine: number;
}

/** CPU used during a measured phase, by whom, in ms. */
export interface CpuUse {
  phase: string;
  seconds: number;
  machineMs: number;
  /** This process and its helpers (its ancestors and descendants but the server). */
  benchmarkMs: number;
  /** The servers under test (the children running). */
  serverMs: number;
  /** Every postgres process (other people's databases included). */
  postgresMs: number;
  othersMs: number;
  /** The machine's busy time no live process accounts for: processes that ended during the phase (others' test workers), the kernel. */
  unaccountedMs: number;
  topOthers: Array<{ what: string; ms: number }>;
}

/** % of one core that `ms` of CPU over `seconds` is. */
export const percentOfCore = (ms: number, seconds: number) => ms / seconds / 10;
/** What other processes (and processes that ended meanwhile) used during a phase, in % of one core. */
export const othersPercent = (c: CpuUse) => percentOfCore(c.othersMs + c.unaccountedMs, c.seconds);

/** Waits (up to `maxSeconds`) for a quiet machine: no other benchmark or test runner, no core above 15% busy. */
export async function waitForQuiet(maxSeconds: number): Promise<number[]> {
  const deadline = Date.now() + maxSeconds * 1000;
  let busy = await backgroundBusy();
  let runners = otherRunners();
  while ((Math.max(...busy) > 15 || runners.length > 0) && Date.now() < deadline) {
    log(
      `the machine is busy (${busy.join('% / ')}% per core${runners.length ? `; ${runners.length} other benchmark/test processes, e.g. ${runners[0]!.what}` : ''}): waiting...`,
    );
    await sleep(3000);
    busy = await backgroundBusy();
    runners = otherRunners();
  }
  return busy;
}

/** The load of the machine during one benchmark run: readings between phases, CPU by whom during each measured phase. */
class MachineLoad {
  /** The servers under test (the children running), whose CPU is told apart (kept by startChild). */
  readonly serverPids = new Set<number>();
  readonly readings: LoadReading[] = [];
  readonly phases: CpuUse[] = [];
  private waitedSeconds = 0;

  /** Reads the load over 1.5 s, the benchmark idle. */
  async read(phase: string): Promise<LoadReading> {
    const before = processes();
    const started = performance.now();
    const busyPercentPerCore = await backgroundBusy();
    const seconds = Math.max(0.5, (performance.now() - started) / 1000);
    const after = processes();
    const top: LoadReading['top'] = [];
    for (const [pid, p] of after) {
      const percent = (100 * (p.ticks - (before.get(pid)?.ticks ?? 0))) / CLOCK_TICKS / seconds;
      if (percent < 2) continue;
      top.push({ what: pid === process.pid ? 'this benchmark' : this.serverPids.has(pid) ? 'its server' : p.what, percent: Math.round(percent) });
    }
    top.sort((a, b) => b.percent - a.percent);
    const reading: LoadReading = {
      phase,
      at: new Date().toISOString(),
      busyPercentPerCore,
      otherRunners: otherRunners(after).map((p) => `${p.pid} ${p.what}`),
      top: top.slice(0, 4),
    };
    this.readings.push(reading);
    log(
      `load (${phase}): ${busyPercentPerCore.join('% / ')}% per core; other benchmarks/tests: ${reading.otherRunners.length}; ` +
        `top: ${reading.top.map((t) => `${t.what} ${t.percent}%`).join(', ') || 'none'}`,
    );
    return reading;
  }

  /** Before a measured phase: waits (BENCH_WAIT_QUIET s at most, within BENCH_WAIT_BUDGET for the run) for a quiet machine, then reads its load. */
  async settle(phase: string): Promise<LoadReading> {
    const seconds = Math.min(WAIT_QUIET_SECONDS, Math.max(0, WAIT_BUDGET_SECONDS - this.waitedSeconds));
    const started = Date.now();
    if (seconds > 0) await waitForQuiet(seconds);
    this.waitedSeconds += (Date.now() - started) / 1000;
    return this.read(phase);
  }

  snapshot(): CpuSnapshot {
    return { at: performance.now(), procs: processes(), machine: machineTicks() };
  }

  /** The CPU used between two snapshots, by whom; recorded as a measured phase. */
  between(phase: string, a: CpuSnapshot, b: CpuSnapshot): CpuUse {
    const seconds = (b.at - a.at) / 1000;
    const ms = (ticks: number) => (ticks * 1000) / CLOCK_TICKS;
    const own = ownPids(b.procs);
    let benchmark = 0;
    let server = 0;
    let postgres = 0;
    let others = 0;
    const top: CpuUse['topOthers'] = [];
    for (const [pid, now] of b.procs) {
      const ticks = now.ticks - (a.procs.get(pid)?.ticks ?? 0);
      if (ticks <= 0) continue;
      if (this.serverPids.has(pid)) server += ticks;
      else if (own.has(pid)) benchmark += ticks;
      else if (/(^|\/)postgres\b/.test(now.what)) postgres += ticks;
      else {
        others += ticks;
        top.push({ what: now.what, ms: ms(ticks) });
      }
    }
    const use: CpuUse = {
      phase,
      seconds,
      machineMs: ms(b.machine - a.machine),
      benchmarkMs: ms(benchmark),
      serverMs: ms(server),
      postgresMs: ms(postgres),
      othersMs: ms(others),
      unaccountedMs: Math.max(0, ms(b.machine - a.machine - benchmark - server - postgres - others)),
      topOthers: top.sort((x, y) => y.ms - x.ms).slice(0, 3),
    };
    this.phases.push(use);
    const pct = (v: number) => `${fmt(percentOfCore(v, seconds))}%`;
    log(
      `CPU during ${phase} (% of one core): machine ${pct(use.machineMs)}, benchmark ${pct(use.benchmarkMs)}, server ${pct(use.serverMs)}, ` +
        `PostgreSQL ${pct(use.postgresMs)}, others ${pct(use.othersMs)}, unaccounted ${pct(use.unaccountedMs)}`,
    );
    return use;
  }

  /** The phases in which other processes used `threshold`% of a core or more. */
  disturbed(threshold = 10): CpuUse[] {
    return this.phases.filter((c) => othersPercent(c) >= threshold);
  }

  /** The "Load of the machine" section of a report. */
  markdown(): string[] {
    const esc = (s: string) => s.replaceAll('|', '\\|');
    const md = ['## Load of the machine', ''];
    md.push(
      (WAIT_QUIET_SECONDS > 0 && WAIT_BUDGET_SECONDS > 0
        ? `Before each measured phase the benchmark waited (at most ${WAIT_QUIET_SECONDS} s, ${WAIT_BUDGET_SECONDS} s in all) for a quiet machine: no other benchmark or test runner, no core above 15% busy. `
        : 'The benchmark did not wait for a quiet machine (BENCH_WAIT_QUIET=0 or BENCH_WAIT_BUDGET=0). ') + 'Readings (1.5 s, the benchmark idle; % of one core per process):',
      '',
      ...table(
        ['when (UTC)', 'phase', 'busy % per core', 'other benchmarks / test runners', 'top processes'],
        this.readings.map((r) => [
          r.at.slice(11, 19),
          r.phase,
          r.busyPercentPerCore.join(' / '),
          r.otherRunners.length
            ? `${r.otherRunners.length}: ${r.otherRunners.slice(0, 2).map((o) => `\`${esc(o).slice(0, 60)}\``).join(', ')}${r.otherRunners.length > 2 ? ', …' : ''}`
            : '—',
          r.top.map((t) => `${esc(t.what)} ${t.percent}%`).join('; ') || '—',
        ]),
        ['l', 'l', 'r', 'l', 'l'],
      ),
      '',
    );
    if (this.phases.length) {
      const pct = (ms: number, c: CpuUse) => `${fmt(percentOfCore(ms, c.seconds))}%`;
      md.push(
        `CPU used during the measured phases, on average, in % of one core (${cores} cores = ${cores * 100}%), by whom (from /proc):`,
        '',
        ...table(
          ['phase', 's', 'machine', 'this benchmark', 'its servers', 'PostgreSQL (all)', 'other processes', 'not accounted (ended processes, kernel)', 'top other processes'],
          this.phases.map((c) => [
            c.phase,
            fmt(c.seconds),
            pct(c.machineMs, c),
            pct(c.benchmarkMs, c),
            pct(c.serverMs, c),
            pct(c.postgresMs, c),
            pct(c.othersMs, c),
            pct(c.unaccountedMs, c),
            c.topOthers.map((t) => `${esc(t.what)} ${pct(t.ms, c)}`).join('; ') || '—',
          ]),
          ['l', 'r', 'r', 'r', 'r', 'r', 'r', 'r', 'l'],
        ),
        '',
      );
    }
    const disturbed = this.disturbed();
    const busiest = Math.max(0, ...this.readings.map((r) => Math.max(...r.busyPercentPerCore)));
    const runners = new Set(this.readings.flatMap((r) => r.otherRunners));
    md.push(
      disturbed.length
        ? `**Other processes used the CPU during measured phases** (${disturbed.map((c) => `${c.phase}: ${fmt(othersPercent(c))}% of a core`).join('; ')}): their latencies may be inflated; statement counts are not affected.`
        : `Other processes used less than 10% of a core during every measured phase${busiest > 15 || runners.size ? ` (though between phases a core was up to ${fmt(busiest)}% busy, ${runners.size} other benchmark/test processes seen)` : ''}.`,
      '',
    );
    return md;
  }
}

/** The load of this run's machine (one benchmark per process). */
export const machineLoad = new MachineLoad();

// ---------------------------------------------------------------------------
// HTTP

export interface Endpoint {
  key: string;
  label: string;
  /** Paths requested in turn. */
  paths: string[];
  /** Default GET. */
  method?: 'GET' | 'POST';
  /** Request body (the same for every request). */
  body?: string;
  /** Request bodies sent in turn, with the paths (a GraphQL query over many ids); instead of `body`. */
  bodies?: string[];
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
  connections: number;
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
  /** CPU by whom during the measured run. */
  cpu: CpuUse;
  autocannon: { rpsAverage: number; latencyP50: number; latencyP99: number; sent: number; completed: number };
}

/** autocannon against `endpoint` for `seconds` (with the bearer token; none when `token` is empty); with `record`, the latency of every response (sorted) and the range of response sizes. */
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
    // An empty token: no Authorization header (anonymous requests).
    headers: token ? { authorization: `Bearer ${token}` } : {},
    requests: [
      {
        method: endpoint.method ?? 'GET',
        ...(endpoint.headers ? { headers: endpoint.headers } : {}),
        ...(endpoint.body !== undefined ? { body: endpoint.body } : {}),
        setupRequest: (request: Record<string, unknown>) => {
          request.path = endpoint.paths[i % endpoint.paths.length];
          if (endpoint.bodies) request.body = endpoint.bodies[i % endpoint.bodies.length];
          i++;
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
 * The statements one scrape of GET /metrics sends (the `jobs_queued` gauge reads the job table),
 * counted in `db_queries_total` by the next scrape: what a delta between two reads includes besides
 * the requests measured. Read as the delta of consecutive scrapes with nothing in between.
 */
export async function scrapeStatements(baseUrl: string, scrapes = 3): Promise<number> {
  const first = await metricValue(baseUrl, 'db_queries_total');
  let last = first;
  for (let i = 0; i < scrapes; i++) last = await metricValue(baseUrl, 'db_queries_total');
  return Math.round((last - first) / scrapes);
}

/**
 * A warm-up, then a measured run of `endpoint` (a measured phase of the
 * machine load); statements/request is the delta of `db_queries_total` over
 * the measured run divided by the requests sent. Throws on any non-2xx,
 * error or timeout.
 */
export async function measure(baseUrl: string, endpoint: Endpoint, token: string, phase = endpoint.label): Promise<Measurement> {
  if (WARMUP > 0) {
    await load(baseUrl, endpoint, token, WARMUP, false);
    // Warm-up requests still in flight when it stopped finish before the count starts.
    await sleep(200);
  }
  const before = await metricValue(baseUrl, 'db_queries_total');
  const cpuBefore = machineLoad.snapshot();
  const { result, sorted, minBytes, maxBytes } = await load(baseUrl, endpoint, token, DURATION, true);
  const cpu = machineLoad.between(phase, cpuBefore, machineLoad.snapshot());
  // Let requests still in flight when autocannon stopped finish on the server.
  await sleep(200);
  const after = await metricValue(baseUrl, 'db_queries_total');
  const completed = result.requests.total;
  const sent = result.requests.sent ?? completed;
  const statements = after - before;
  const m: Measurement = {
    endpoint: endpoint.key,
    label: endpoint.label,
    connections: endpoint.connections ?? CONNECTIONS,
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
    cpu,
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

/** What a report says of its autocannon measurements. */
export const MEASUREMENT_NOTE =
  'Latencies are computed from every measured response (sub-millisecond precision). Statements/request: delta of `db_queries_total` (GET /metrics) over the measured run ÷ requests sent (a hand-written server counts its own).';

/** The driver of the hand-written SQL servers on this run's database, for the reports. */
export const handWrittenDriver = provider === 'postgresql' ? "node-postgres, a pool of 10 connections as the app's" : 'better-sqlite3';

/** The table of autocannon measurements of a report: one row per endpoint and server, `vs` comparing it with a baseline. */
export function measurementTable(rows: Array<{ server: string; m: Measurement; vs: string }>, vsHeader: string): string[] {
  return table(
    ['endpoint', 'server', 'req/s', 'p50 (ms)', 'p99 (ms)', 'statements/request', 'bytes/response', vsHeader, 'other processes meanwhile (% of a core)'],
    rows.map(({ server, m, vs }) => [m.label, server, fmt(m.rps), fmt(m.p50Ms, 2), fmt(m.p99Ms, 2), fmt(m.statementsPerRequest, 2), fmt(m.bytesPerResponse), vs, `${fmt(othersPercent(m.cpu))}%`]),
    ['l', 'l', 'r', 'r', 'r', 'r', 'r', 'r', 'r'],
  );
}

/**
 * Two servers answering the same requests (the app and another, such as PostGraphile): per request and
 * number of connections, each one's req/s and p50, and the ratios `a` / `b` (req/s above 1 and p50
 * below 1: `a` is faster).
 */
export function ratioTable(names: { a: string; b: string }, rows: Array<{ label: string; a: Measurement; b: Measurement }>): string[] {
  return table(
    ['request', 'connections', `${names.a} req/s`, `${names.b} req/s`, 'req/s ratio', `${names.a} p50 (ms)`, `${names.b} p50 (ms)`, 'p50 ratio'],
    rows.map(({ label, a, b }) => [label, a.connections, fmt(a.rps), fmt(b.rps), fmt(a.rps / b.rps, 2), fmt(a.p50Ms, 2), fmt(b.p50Ms, 2), fmt(a.p50Ms / b.p50Ms, 2)]),
    ['l', 'r', 'r', 'r', 'r', 'r', 'r', 'r'],
  );
}

export interface Body {
  status: number;
  text: string;
  contentType: string | null;
}

/** One request of `endpoint` (its method, body and headers) to `p`, with the bearer token (none when `token` is empty). */
export async function request(baseUrl: string, p: string, token: string, endpoint?: Pick<Endpoint, 'method' | 'body' | 'headers'>): Promise<Body> {
  const res = await fetch(`${baseUrl}${p}`, {
    method: endpoint?.method ?? 'GET',
    headers: { ...endpoint?.headers, ...(token ? { authorization: `Bearer ${token}` } : {}) },
    ...(endpoint?.body !== undefined ? { body: endpoint.body } : {}),
  });
  return { status: res.status, text: await res.text(), contentType: res.headers.get('content-type') };
}

export interface Reply {
  status: number;
  /** The parsed JSON (any: the benchmarks read many answer shapes). */
  body: any;
  ms: number;
}

/**
 * Latencies and statements (`db_queries_total` delta per call, the scrapes' own statements taken
 * out: see `scrapeStatements`) of `runs` sequential calls of `call`, after `warm` unmeasured ones.
 */
export async function timedCalls(baseUrl: string, runs: number, warm: number, call: () => Promise<void>): Promise<{ latency: Stats; statements: number }> {
  for (let i = 0; i < warm; i++) await call();
  const scrape = await scrapeStatements(baseUrl);
  const before = await metricValue(baseUrl, 'db_queries_total');
  const latencies: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t = performance.now();
    await call();
    latencies.push(performance.now() - t);
  }
  return { latency: stats(latencies), statements: ((await metricValue(baseUrl, 'db_queries_total')) - before - scrape) / runs };
}

/** A JSON call to the app with the bearer token, timed; throws unless it answers `expected`. */
export async function api(baseUrl: string, token: string, method: string, p: string, body?: unknown, expected = 200): Promise<Reply> {
  const started = performance.now();
  const res = await fetch(`${baseUrl}${p}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await res.text();
  const ms = performance.now() - started;
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {
    // not JSON: keep the text
  }
  if (res.status !== expected) throw new Error(`${method} ${p} answered ${res.status} (expected ${expected}): ${text.slice(0, 2000)}`);
  return { status: res.status, body: parsed, ms };
}

/** A GraphQL operation over HTTP; throws on `errors`. */
export async function graphql(baseUrl: string, token: string, query: string, variables: Record<string, unknown>): Promise<Reply['body']> {
  const { body } = await api(baseUrl, token, 'POST', '/graphql', { query, variables });
  if (body.errors) throw new Error(`GraphQL errors: ${JSON.stringify(body.errors).slice(0, 2000)}`);
  return body.data;
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
// SQL statements

/** A statement in a few words: `INSERT Space`, `SELECT Site` (the first table it reads), `COUNT Site`, `BEGIN`. */
export function statementKind(sql: string): string {
  const s = sql.trim();
  const tx = /^(BEGIN|COMMIT|ROLLBACK|SAVEPOINT|RELEASE|SET TRANSACTION)\b/i.exec(s);
  if (tx) return tx[1]!.toUpperCase();
  const name = String.raw`(?:[\x60"]?\w+[\x60"]?\.)?[\x60"]?(\w+)[\x60"]?`;
  const insert = new RegExp(`^INSERT\\s+INTO\\s+${name}`, 'i').exec(s);
  if (insert) return `INSERT ${insert[1]}${/'delete'/.test(s) ? ' (FTS5 delete command)' : ''}`;
  const update = new RegExp(`^UPDATE\\s+${name}`, 'i').exec(s);
  if (update) return `UPDATE ${update[1]}`;
  const del = new RegExp(`^DELETE\\s+FROM\\s+${name}`, 'i').exec(s);
  if (del) return `DELETE ${del[1]}`;
  if (/^SELECT\s+pg_advisory_xact_lock/i.test(s)) return 'SELECT pg_advisory_xact_lock';
  if (/^(SELECT|WITH)\b/i.test(s)) return `${/^SELECT\s+COUNT\(/i.test(s) ? 'COUNT' : 'SELECT'} ${statementTable(s) ?? '?'}`;
  return s.split(/\s+/)[0]!.toUpperCase();
}

/** The first table a statement reads (`FROM <table>`, inside a subquery too). */
export function statementTable(sql: string): string | null {
  const m = /\bFROM\s+(?:[\x60"]?\w+[\x60"]?\.)?[\x60"]?([A-Za-z_]\w*)[\x60"]?/i.exec(sql.replace(/\bFROM\s+\(/gi, '( '));
  return m ? m[1]! : null;
}

export const isTransactionControl = (sql: string) => /^\s*(BEGIN|COMMIT|ROLLBACK|SAVEPOINT|RELEASE|SET TRANSACTION)\b/i.test(sql);

/** The number of bound parameters of a statement (`?` or `$n`). */
const parametersOf = (sql: string) => (sql.match(/\?|\$\d+/g) ?? []).length;

/** `statementKind`, with the parameters when there are many. */
export const describeStatement = (sql: string) => {
  const n = parametersOf(sql);
  return `${statementKind(sql)}${n > 20 ? ` (${count(n)} parameters)` : ''}`;
};

export interface KindCount {
  kind: string;
  count: number;
  maxParameters: number;
}

/** Statements counted by kind, most frequent first. */
export function byKind(statements: string[]): KindCount[] {
  const counts = new Map<string, KindCount>();
  for (const sql of statements) {
    const kind = statementKind(sql);
    const entry = counts.get(kind) ?? { kind, count: 0, maxParameters: 0 };
    entry.count++;
    entry.maxParameters = Math.max(entry.maxParameters, parametersOf(sql));
    counts.set(kind, entry);
  }
  return [...counts.values()].sort((a, b) => b.count - a.count || a.kind.localeCompare(b.kind));
}

/** A table of statement kinds (rows) by sample (columns), with totals. */
export function kindTable(samples: Array<{ label: string; kinds: KindCount[] }>, showParameters = false): string[] {
  const kinds = [...new Set(samples.flatMap((s) => s.kinds.map((k) => k.kind)))];
  const find = (s: (typeof samples)[number], kind: string) => s.kinds.find((k) => k.kind === kind);
  kinds.sort((a, b) => Math.max(...samples.map((s) => find(s, b)?.count ?? 0)) - Math.max(...samples.map((s) => find(s, a)?.count ?? 0)));
  const cell = (s: (typeof samples)[number], kind: string) => {
    const k = find(s, kind);
    return k ? `${k.count}${showParameters && k.maxParameters > 5 ? ` (≤ ${k.maxParameters} params)` : ''}` : '0';
  };
  return table(
    ['statement', ...samples.map((s) => s.label)],
    [...kinds.map((kind) => [`\`${kind}\``, ...samples.map((s) => cell(s, kind))]), ['**total**', ...samples.map((s) => `**${sum(s.kinds.map((k) => k.count))}**`)]],
    ['l', ...samples.map(() => 'r' as const)],
  );
}

/** SQL statements as a fenced block, one line each (whitespace collapsed, cut at `max` characters). */
export function sqlBlock(statements: string[], max = 400): string[] {
  return ['```sql', ...statements.map((q) => q.replace(/\s+/g, ' ').slice(0, max)), '```'];
}

// ---------------------------------------------------------------------------
// CPU profiles

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number };
  children?: number[];
}

/** A layer of the stack: the frames whose script URL matches. */
export type Layer = [name: string, url: RegExp];

/** The layers of a request to the app. */
export const REQUEST_LAYERS: Layer[] = [
  ['Prisma client + adapter + database driver', /@prisma\/|better-sqlite3|node_modules\/pg[\w-]*\/|\/src\/db\//],
  ['REST runtime (src/rest)', /\/src\/rest\//],
  ['GraphQL (yoga/envelop, execution, Pothos)', /node_modules\/(graphql|@graphql-tools|@pothos|@envelop|graphql-yoga|@escape\.tech|dataloader|@graphql-yoga)\//],
  [
    'HTTP (node:http + whatwg-node fetch adapter)',
    /node_modules\/(@whatwg-node|urlpattern-polyfill|find-my-way)\/|^node:(_http|http|net|stream|internal\/(http|stream|streams|net|url|fixed_queue))/,
  ],
  ['metrics / logging / rate limit', /node_modules\/(prom-client|pino|rate-limiter-flexible)\//],
  ['app code (src, resolvers, auth)', /\/src\//],
  ['other packages', /node_modules\//],
];

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
  const file = url.replace(/^file:\/\//, '');
  return file.startsWith(`${root}/`) ? file.slice(root.length + 1) : file;
}

/**
 * Self time by layer (each sample charged to the nearest frame of its stack
 * that belongs to one of `layers`, so native work such as SQLite's
 * prepare/step counts for the layer that called it), by package or file
 * (the leaf frame), and the top functions; the profiler's own work left out.
 */
export function summariseProfile(file: string, layers: Layer[] = REQUEST_LAYERS) {
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
  const layerOf = (id: number): string => {
    const leaf = byId.get(id)!.callFrame;
    if (leaf.functionName === '(garbage collector)') return 'garbage collector';
    if (leaf.functionName === '(program)') return '(program: V8/native, no JS frame)';
    for (let cur: number | undefined = id; cur !== undefined; cur = parentOf.get(cur)) {
      const url = byId.get(cur)!.callFrame.url;
      if (!url) continue;
      const layer = layers.find(([, re]) => re.test(url));
      if (layer) return layer[0];
    }
    return 'other (event loop, microtasks, node internals)';
  };
  let total = 0;
  let idle = 0;
  const functions = new Map<string, { name: string; location: string; us: number }>();
  const places = new Map<string, number>();
  const byLayer = new Map<string, number>();
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
    const layer = layerOf(id);
    byLayer.set(layer, (byLayer.get(layer) ?? 0) + us);
  }
  const busy = total - idle;
  const pct = (us: number) => (100 * us) / busy;
  return {
    file,
    sampledMs: total / 1000,
    busyMs: busy / 1000,
    idleMs: idle / 1000,
    idlePercent: (100 * idle) / total,
    topFunctions: [...functions.values()]
      .sort((a, b) => b.us - a.us)
      .slice(0, 20)
      .map((f) => ({ function: f.name, location: f.location, selfMs: f.us / 1000, percentOfBusy: pct(f.us) })),
    byLayer: [...byLayer.entries()].sort((a, b) => b[1] - a[1]).map(([layer, us]) => ({ layer, selfMs: us / 1000, percentOfBusy: pct(us) })),
    byPackage: [...places.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, 20)
      .map(([place, us]) => ({ place, selfMs: us / 1000, percentOfBusy: pct(us) })),
  };
}

export type ProfileSummary = ReturnType<typeof summariseProfile>;

/** The profile's busy time by layer (with the idle time), then its top functions. */
export function profileTables(profile: ProfileSummary, topFunctions = 12): string[] {
  return [
    ...table(
      ['layer', 'ms', '% busy'],
      [...profile.byLayer.map((l) => [l.layer, fmt(l.selfMs), `${fmt(l.percentOfBusy, 1)}%`]), ['(idle: waiting for the database, the network, timers)', fmt(profile.idleMs), '—']],
      ['l', 'r', 'r'],
    ),
    '',
    ...table(
      ['function', 'location', 'self ms', '% busy'],
      profile.topFunctions.slice(0, topFunctions).map((f) => [`\`${f.function}\``, f.location, fmt(f.selfMs), `${fmt(f.percentOfBusy, 1)}%`]),
      ['l', 'l', 'r', 'r'],
    ),
    '',
  ];
}

/** The "Where the time goes" section of a report on a profile taken by profileUnderLoad (`title` names the request profiled). */
export function profileMarkdown(profile: ProfileSummary, title: string, seconds = PROFILE_SECONDS): string[] {
  return [
    `## Where the time goes (${title})`,
    '',
    `CPU profile of the app server (V8 sampling profiler via node:inspector, 200 µs interval, steady state only: started after a 2 s warm-up, ` +
      `stopped after ${seconds} s of the same load; saved as \`bench/out/${path.basename(profile.file)}\`, not in git, open it in Chrome DevTools): ` +
      `${fmt(profile.busyMs)} ms busy of ${fmt(profile.sampledMs)} ms sampled (${fmt(profile.idlePercent, 1)}% idle). ` +
      'Self time as % of busy time, by layer (each sample charged to the nearest frame of its stack that belongs to a layer, so SQLite\'s native prepare/step count for Prisma), then by function:',
    '',
    ...profileTables(profile, 20),
    'By package or file (self time of the leaf frame):',
    '',
    ...table(['where', 'self ms', '% busy'], profile.byPackage.slice(0, 15).map((p) => [p.place, fmt(p.selfMs), `${fmt(p.percentOfBusy, 1)}%`]), ['l', 'r', 'r']),
    '',
  ];
}

// ---------------------------------------------------------------------------
// The run and its report

/** Which code was measured (this checkout, or checkout `dir`): HEAD, the files of the working tree that differ from it, and a digest of src/. */
export function codeIdentity(dir = root) {
  const git = (args: string[]) => {
    try {
      return execFileSync('git', args, { cwd: dir, encoding: 'utf8' }).trim();
    } catch {
      return '';
    }
  };
  const status = git(['status', '--porcelain', '-uall']);
  const digest = createHash('sha256');
  for (const file of git(['ls-files', '--cached', '--others', '--exclude-standard', 'src']).split('\n').filter(Boolean).sort()) {
    try {
      digest.update(file).update(fs.readFileSync(path.join(dir, file)));
    } catch {
      digest.update(`${file} missing`);
    }
  }
  return { head: git(['rev-parse', '--short', 'HEAD']), changedFiles: status ? status.split('\n').length : 0, srcDigest: digest.digest('hex').slice(0, 12) };
}

export interface Run {
  /** The benchmark's name: rest, site-graph, ... */
  bench: string;
  /** The result files' name: `<date>-<bench>-<sqlite|postgresql>[-<label>]`. */
  name: string;
  date: string;
  startedAt: Date;
  /** The checkout measured (this one unless the benchmark runs another's server). */
  dir: string;
  code: ReturnType<typeof codeIdentity>;
}

/** Starts a run: its name and the code it measures (this checkout, or checkout `dir`); `label` ends the result files' name. */
export function startRun(bench: string, options: { label?: string; dir?: string } = {}): Run {
  const date = today();
  const dir = path.resolve(options.dir ?? root);
  const label = options.label ? `-${options.label.replace(/[^\w.-]+/g, '-')}` : '';
  log(`${bench}${label ? ` (${options.label})` : ''} on ${databaseName}; pinning: ${pinningDescription}`);
  return { bench, name: `${date}-${bench}-${provider}${label}`, date, startedAt: new Date(), dir, code: codeIdentity(dir) };
}

export function describeMachine() {
  return {
    cpu: os.cpus()[0]?.model ?? 'unknown',
    cores,
    memoryGiB: Math.round((os.totalmem() / 2 ** 30) * 10) / 10,
    node: process.version,
    platform: `${os.type()} ${os.release()} ${os.arch()}`,
    pinning: pinningDescription,
  };
}

/** The first lines of every report: title, machine, time, code, database, pinning. */
export function reportHeader(run: Run, title: string, database: { description: string; version: string } | null): string[] {
  const machine = describeMachine();
  const code = codeIdentity(run.dir);
  return [
    `# ${title}, ${databaseName} — ${run.date}`,
    '',
    `Machine: ${machine.cpu}, ${machine.cores} cores, ${machine.memoryGiB} GiB, Node ${machine.node} (${machine.platform}).`,
    `Run from ${run.startedAt.toISOString().slice(0, 19)} to ${new Date().toISOString().slice(0, 19)} (UTC), ${fmt((Date.now() - run.startedAt.getTime()) / 1000)} s.`,
    `Code measured: ${run.dir === root ? '' : `checkout \`${run.dir}\`, `}HEAD ${run.code.head}${run.code.changedFiles ? `, ${run.code.changedFiles} files of the working tree changed or new` : ''}` +
      (code.srcDigest !== run.code.srcDigest ? '; **src/ changed during the run** (the servers loaded it when they started).' : '; src/ did not change during the run.'),
    ...(database ? [`Database: ${database.version}; ${database.description}.`] : []),
    `Pinning: ${machine.pinning}. Servers: NODE_ENV=${SERVER_NODE_ENV}, LOG_LEVEL=silent, rate limit effectively off, job polling once an hour (JOB_POLL_MS) so that background polls do not count as statements of the requests.`,
    '',
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

/** Copies a raw file (a CPU profile) to bench/out/ as `<name>`; returns the copy's path. */
export function keepInOut(file: string, name: string): string {
  fs.mkdirSync(outDir, { recursive: true });
  const kept = path.join(outDir, name);
  fs.copyFileSync(file, kept);
  return kept;
}

/**
 * Writes the report `<run.name>.md` in bench/results/ (kept in git) and the
 * raw data `<run.name>.json` in bench/out/ (ignored), and prints the report.
 */
export function writeResults(run: Run, json: Record<string, unknown>, md: string[]): void {
  fs.mkdirSync(resultsDir, { recursive: true });
  fs.mkdirSync(outDir, { recursive: true });
  const files = { md: path.join(resultsDir, `${run.name}.md`), json: path.join(outDir, `${run.name}.json`) };
  const full = {
    date: run.date,
    startedAt: run.startedAt.toISOString(),
    finishedAt: new Date().toISOString(),
    provider,
    machine: describeMachine(),
    code: run.code,
    load: { readings: machineLoad.readings, phases: machineLoad.phases },
    ...json,
  };
  md.push(`Raw data (not in git): \`bench/out/${run.name}.json\`.`, '');
  fs.writeFileSync(files.json, `${JSON.stringify(full, null, 2)}\n`);
  fs.writeFileSync(files.md, md.join('\n'));
  log(`wrote ${path.relative(root, files.md)} and ${path.relative(root, files.json)} in ${fmt((Date.now() - run.startedAt.getTime()) / 1000)} s`);
  process.stdout.write(md.join('\n'));
}

/** Runs a benchmark's main function: on failure prints the error and exits non-zero; on success exits (child servers and clients closed). */
export function main(fn: () => Promise<void>): void {
  fn().then(
    () => process.exit(0),
    (error) => {
      console.error(error);
      process.exit(1);
    },
  );
}

/**
 * `npm run bench:restart`: how long the service is gone when its process is
 * killed, on SQLite: from `kill -9` of a server holding data and answering
 * requests, to `GET /healthz` answering 200 from the restarted one (and to the
 * first answer of a real REST request). Also the cold start: from launching
 * the command on an empty database (every migration pending) to ready.
 *
 *   npm run bench:restart                                  # `npm run dev`, `npm start`, `node dist/main.js`: 5 restarts each
 *   npm run bench:restart -- --runs 10 --command "npm start"
 *
 * Each command runs in the repository with its own process group, database and port (the
 * commands take turns, restart by restart); "kill -9"
 * kills that group (npm and the node it started), as a crash or the OOM
 * killer would, without a graceful shutdown, while a load of reads and writes
 * is running, so the SQLite write-ahead log holds data when the new process
 * opens the file. The restart is launched at once, as a supervisor would. The
 * machine's load during each restart is reported with it (the benchmark
 * cannot make a shared machine quiet). Writes bench/results/<date>-restart-sqlite.md.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createUserWithToken } from '../src/auth/users.ts';
import { createDb } from '../src/db/client.ts';
import { parseDatabaseUrl } from '../src/db/provider/config.ts';
import { newId } from '../src/ids.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const option = (name: string) => args.flatMap((a, i) => (a === `--${name}` && args[i + 1] ? [args[i + 1]!] : []));
const RUNS = Number(option('runs')[0] ?? 5);
// `npm run dev` is the service from its TypeScript sources through tsx, as `npm start` was before dist/.
const COMMANDS = option('command').length ? option('command') : ['npm run dev', 'npm start', 'node dist/main.js'];
const SPACES = Number(option('spaces')[0] ?? 2000);
const PORT = Number(option('port')[0] ?? 18_000 + Math.floor(Math.random() * 2000));
const READY_TIMEOUT_MS = 60_000;

const log = (...values: unknown[]) => console.error('[restart]', ...values);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Busy share of all cores between two readings of /proc/stat (everything that ran, the server included). */
function cpuTimes(): { busy: number; total: number } {
  const [, ...fields] = fs.readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/);
  const values = fields.map(Number);
  const idle = values[3]! + values[4]!;
  const total = values.reduce((a, b) => a + b, 0);
  return { busy: total - idle, total };
}
const busyPercent = (from: ReturnType<typeof cpuTimes>, to: ReturnType<typeof cpuTimes>) =>
  (100 * (to.busy - from.busy)) / Math.max(1, to.total - from.total);

function launch(command: string, env: Record<string, string>): ChildProcess {
  const child = spawn(command, { cwd: root, shell: true, detached: true, stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, ...env } });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-4000)));
  child.on('exit', (code, signal) => {
    if (code) log(`${command} exited with ${code}: ${stderr}`);
    void signal;
  });
  return child;
}

/** Kills the command's whole process group (npm, sh, node) with SIGKILL; resolves once the group is gone. */
async function killGroup(child: ChildProcess): Promise<void> {
  try {
    process.kill(-child.pid!, 'SIGKILL');
  } catch {
    return;
  }
  for (;;) {
    try {
      process.kill(-child.pid!, 0);
    } catch {
      return;
    }
    await sleep(5);
  }
}

/** Polls `path` every 10 ms until it answers 200; the time it took, from `since`. */
async function waitFor200(port: number, path: string, since: number, headers: Record<string, string> = {}): Promise<number> {
  for (;;) {
    try {
      const res = await fetch(`http://127.0.0.1:${port}${path}`, { headers, signal: AbortSignal.timeout(2000) });
      await res.arrayBuffer();
      if (res.status === 200) return performance.now() - since;
    } catch {
      // not listening yet
    }
    if (performance.now() - since > READY_TIMEOUT_MS) throw new Error(`${path} did not answer 200 within ${READY_TIMEOUT_MS} ms`);
    await sleep(10);
  }
}

/** Reads and writes against the server until `stop` is set (errors are expected once it is killed). */
function startLoad(port: number, token: string, organizationId: string, state: { stop: boolean; requests: number }): Promise<void> {
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  const worker = async (n: number) => {
    while (!state.stop) {
      try {
        const write = n % 2 === 0;
        const res = await fetch(`http://127.0.0.1:${port}/v1/orgs/${organizationId}/spaces${write ? '' : '?limit=50'}`, {
          method: write ? 'POST' : 'GET',
          headers,
          body: write ? JSON.stringify({ title: `Load ${state.requests}` }) : undefined,
        });
        await res.arrayBuffer();
        state.requests++;
      } catch {
        await sleep(5);
      }
    }
  };
  return Promise.all([0, 1, 2, 3].map(worker)).then(() => undefined);
}

async function seed(databaseUrl: string): Promise<{ token: string; organizationId: string }> {
  const db = createDb(parseDatabaseUrl(databaseUrl));
  try {
    const { user, token } = await createUserWithToken(db, { email: 'restart@example.com', displayName: 'Restart', label: 'bench' });
    const organizationId = newId();
    await db.organization.create({ data: { id: organizationId, title: 'Restart bench' } });
    await db.member.create({ data: { id: newId(), organizationId, userId: user.id, role: 'admin' } });
    for (let i = 0; i < SPACES; i += 500) {
      await db.space.createMany({
        data: Array.from({ length: Math.min(500, SPACES - i) }, (_, j) => ({
          id: newId(),
          revisionId: newId(),
          organizationId,
          title: `Space ${i + j}`,
          position: i + j,
        })),
      });
    }
    return { token, organizationId };
  } finally {
    await db.$disconnect();
  }
}

/** Clients stop at the kill (`quiet`), or keep sending (retrying while it is down) until the restarted server answered (`loaded`). */
type Mode = 'quiet' | 'loaded';
const MODES: Mode[] = ['quiet', 'loaded'];

interface Run {
  mode: Mode;
  healthz: number;
  firstRequest: number;
  /** CPU seconds the command's processes used from their launch to /healthz 200. */
  cpu: number;
  busy: number;
}

/** CPU seconds (user + system) used so far by the live processes of process group `pgid` (Linux /proc). */
function groupCpuSeconds(pgid: number): number {
  let ticks = 0;
  for (const pid of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
      // After "pid (comm) ": state, ppid, pgrp, ... utime (14th field), stime (15th).
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(fields[2]) === pgid) ticks += Number(fields[11]) + Number(fields[12]);
    } catch {
      // gone meanwhile
    }
  }
  return ticks / 100; // USER_HZ
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor((values.length - 1) / 2)]!;
const fmt = (ms: number) => (ms / 1000).toFixed(2);

/** One command under test: its own database, files and port, and the server it runs now. */
interface Subject {
  command: string;
  port: number;
  dir: string;
  env: Record<string, string>;
  child: ChildProcess;
  token: string;
  organizationId: string;
  cold: { healthz: number; busy: number };
  runs: Run[];
}

async function setUp(command: string, port: number): Promise<Subject> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-restart-'));
  const databaseUrl = `file:${path.join(dir, 'app.db')}`;
  const env = { PORT: String(port), HOST: '127.0.0.1', DATABASE_URL: databaseUrl, STORAGE_DIR: path.join(dir, 'files'), LOG_LEVEL: 'warn', RATE_LIMIT_POINTS: '1000000000' };
  log(`${command}: cold start on an empty database`);
  const cpu = cpuTimes();
  const started = performance.now();
  const child = launch(command, env);
  const cold = { healthz: await waitFor200(port, '/healthz', started), busy: busyPercent(cpu, cpuTimes()) };
  const { token, organizationId } = await seed(databaseUrl);
  return { command, port, dir, env, child, token, organizationId, cold, runs: [] };
}

/** Kills the subject's server while clients write and read, starts it again, and records how long it was gone. */
async function restart(subject: Subject, run: number, mode: Mode): Promise<void> {
  const load = { stop: false, requests: 0 };
  const loading = startLoad(subject.port, subject.token, subject.organizationId, load);
  await sleep(1500);
  if (mode === 'quiet') {
    load.stop = true;
    await loading;
  }
  const cpu = cpuTimes();
  const started = performance.now();
  await killGroup(subject.child);
  subject.child = launch(subject.command, subject.env);
  const healthz = await waitFor200(subject.port, '/healthz', started);
  const cpuSeconds = groupCpuSeconds(subject.child.pid!);
  const firstRequest = await waitFor200(subject.port, `/v1/orgs/${subject.organizationId}/spaces?limit=10`, started, { authorization: `Bearer ${subject.token}` });
  const busy = busyPercent(cpu, cpuTimes());
  load.stop = true;
  await loading;
  subject.runs.push({ mode, healthz, firstRequest, cpu: cpuSeconds, busy });
  log(`${subject.command} (${mode}): restart ${run + 1}: /healthz ${fmt(healthz)} s (${cpuSeconds.toFixed(2)} s CPU), first REST answer ${fmt(firstRequest)} s, machine ${busy.toFixed(0)}% busy`);
}

const startedAt = new Date();
const loadAtStart = os.loadavg();
const results: Subject[] = [];
try {
  for (const [i, command] of COMMANDS.entries()) results.push(await setUp(command, PORT + i));
  // Round by round, each command in turn: a shared machine's load falls on all of them alike.
  for (let run = 0; run < RUNS; run++) for (const subject of results) for (const mode of MODES) await restart(subject, run, mode);
} finally {
  for (const subject of results) {
    await killGroup(subject.child);
    fs.rmSync(subject.dir, { recursive: true, force: true });
  }
}

const cpus = os.cpus();
const lines = [
  `# Restart after kill -9, SQLite — ${startedAt.toISOString().slice(0, 10)}`,
  '',
  `Machine: ${cpus[0]?.model.trim()}, ${cpus.length} vCPU, ${(os.totalmem() / 2 ** 30).toFixed(1)} GiB, Node ${process.version} (${os.type()} ${os.release()}).`,
  `Run at ${startedAt.toISOString().slice(0, 19)} UTC; load average at the start ${loadAtStart.map((l) => l.toFixed(1)).join(' / ')} (a shared machine: other engineers' tests and benchmarks ran meanwhile).`,
  `Database: SQLite file with ${SPACES} spaces; before each kill, clients (2 creating spaces, 2 listing them) run for 1.5 s, so the write-ahead log holds fresh writes.`,
  `Restart: the command's process group is killed with SIGKILL and the command launched again at once; times from the kill. "quiet": the clients stop at the kill. "loaded": they keep sending, retrying while the server is down, until it answered.`,
  `"CPU": seconds of CPU the command's processes (npm, sh, node) used from their launch to /healthz 200, about the wall time a quiet machine would show. "busy": share of both cores in use during the restart (everything: the restarting server, the clients, other processes).`,
  '',
  '| command | clients | restarts | /healthz 200: median (min–max) | CPU to /healthz | first REST answer: median (min–max) | busy (median) | cold start, empty database |',
  '|---|---|---:|---:|---:|---:|---:|---:|',
  ...results.flatMap(({ command, cold, runs }) =>
    MODES.map((mode) => {
      const of = runs.filter((r) => r.mode === mode);
      const h = of.map((r) => r.healthz);
      const f = of.map((r) => r.firstRequest);
      return `| \`${command}\` | ${mode} | ${of.length} | ${fmt(median(h))} s (${fmt(Math.min(...h))}–${fmt(Math.max(...h))}) | ${median(of.map((r) => r.cpu)).toFixed(2)} s | ${fmt(median(f))} s (${fmt(Math.min(...f))}–${fmt(Math.max(...f))}) | ${median(of.map((r) => r.busy)).toFixed(0)}% | ${fmt(cold.healthz)} s |`;
    }),
  ),
  '',
  'Each restart, in seconds (healthz / CPU / first REST answer / busy):',
  '',
  ...results.flatMap(({ command, runs }) =>
    MODES.map((mode) => `- \`${command}\`, ${mode}: ${runs.filter((r) => r.mode === mode).map((r) => `${fmt(r.healthz)}/${r.cpu.toFixed(2)}/${fmt(r.firstRequest)}/${r.busy.toFixed(0)}%`).join(', ')}`),
  ),
  '',
];
const report = lines.join('\n');
console.log(report);
const out = path.join(root, 'bench/results', `${startedAt.toISOString().slice(0, 10)}-restart-sqlite.md`);
if (!args.includes('--no-write')) {
  fs.writeFileSync(out, report);
  log(`wrote ${path.relative(root, out)}`);
}

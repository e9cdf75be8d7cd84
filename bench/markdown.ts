/**
 * Bounded work benchmark (issue 14): how long Markdown conversion takes by
 * input size, and how fast /healthz answers while a conversion is abused.
 *
 *   npm run bench:markdown
 *   BENCH_COMPARE_DIR=/path/to/other/checkout npm run bench:markdown   # and that version's conversion beside it
 *
 * Conversion: every case of test/helpers/pathological-markdown.ts (CommonMark's
 * pathological inputs and the shapes found since), and the worst inputs the
 * limits let through (each limit reached in every paragraph), at 10, 30 and
 * 100 KB, plus ordinary Markdown at 100 KB and 1 MB. Each conversion runs
 * markdownToDocument in a process of its own, BENCH_RUNS times (default
 * 3; the least wall and CPU time kept), stopped after BENCH_CAP_SECONDS
 * (default 30). A refused input shows the setting that refused it. With
 * BENCH_COMPARE_DIR, the same inputs also go to that checkout's
 * src/content/document/markdown-parse.ts (it needs its node_modules), in
 * another column.
 *
 * /healthz: the real app (createApp) on a fresh SQLite file, with the inline
 * delimiter limit raised so the scan lets 64 KB of `*a` through (the input
 * that once held the event loop 45 s) and WORKER_TASK_TIMEOUT_MS=5000, so the
 * worker's deadline stops it. While that request is in flight, GET /healthz
 * every 20 ms; the latencies (p50, p99, max) and the request's answer.
 *
 * BENCH_PARTS=conversions or =healthz runs one of the two.
 *
 * Results: bench/results/<date>-markdown.md (raw JSON in bench/out/).
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createUserWithToken } from '../src/auth/users.ts';
import { loadConfig, MARKDOWN_LIMIT_DEFAULTS } from '../src/config.ts';
import { createDb } from '../src/db/client.ts';
import { migrate } from '../src/db/migrate.ts';
import { parseDatabaseUrl } from '../src/db/provider/config.ts';
import { dropDatabase, prepareDatabase } from '../src/db/provider/setup.ts';
import { createApp } from '../src/server.ts';
import { PATHOLOGICAL_CASES } from '../test/helpers/pathological-markdown.ts';

const here = path.dirname(fileURLToPath(import.meta.url));
const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const CAP_SECONDS = Number(process.env.BENCH_CAP_SECONDS ?? 30);
const COMPARE_DIR = process.env.BENCH_COMPARE_DIR || null;
/** `conversions`, `healthz` or both (comma-separated). */
const PARTS = new Set((process.env.BENCH_PARTS ?? 'conversions,healthz').split(',').map((p) => p.trim()));
const SIZES = [10_000, 30_000, 100_000];
const log = (...args: unknown[]) => console.error('[bench]', ...args);

/** One measurement: the least wall and CPU time of the runs (ms), the setting that refused the input, or the cap. */
type Outcome = { wallMs: number; cpuMs: number; refused: string | null; error: string | null } | { capped: true };

const fill = (unit: string, bytes: number) => unit.repeat(Math.max(1, Math.round(bytes / unit.length)));
const limits = MARKDOWN_LIMIT_DEFAULTS;
/** The worst inputs the default limits let through: each limit reached in every paragraph. */
const AT_THE_LIMITS: { name: string; make: (bytes: number) => string }[] = [
  { name: `paragraphs of ${limits.maxInlineDelimiters - 1} \`*a\``, make: (b) => fill(`${'*a'.repeat(limits.maxInlineDelimiters - 1)}\n\n`, b) },
  { name: `paragraphs of ${Math.floor(limits.maxInlineDelimiters / 2) - 1} links`, make: (b) => fill(`${'[a](b)'.repeat(Math.floor(limits.maxInlineDelimiters / 2) - 1)}\n\n`, b) },
  {
    name: `${limits.maxUnclosedInline} code spans left open per 5 KB paragraph`,
    make: (b) => fill(`${Array.from({ length: limits.maxUnclosedInline }, (_, i) => `x${'`'.repeat(i + 1)}`).join('')}${'lorem ipsum '.repeat(400)}\n\n`, b),
  },
  { name: `${limits.maxNesting} block quotes deep`, make: (b) => fill(`${'> '.repeat(limits.maxNesting)}text *a*\n${'> '.repeat(limits.maxNesting)}\n`, b) },
  { name: `${limits.maxNesting} list levels, then indented lines`, make: (b) => Array.from({ length: limits.maxNesting }, (_, i) => `${'  '.repeat(i)}- a\n`).join('') + fill(`${'  '.repeat(limits.maxNesting)}b\n`, b) },
  { name: `paragraphs of ${limits.maxLazyLines} lazy lines`, make: (b) => fill(`> a\n${'b\n'.repeat(limits.maxLazyLines)}\n`, b) },
  {
    name: `a table of ${limits.maxTableCells} cells, then paragraphs`,
    make: (b) => {
      const rows = limits.maxTableCells / 5 - 1;
      const table = `| a | b | c | d | e |\n|---|---|---|---|---|\n${'| *x* | [l](u) | `c` | y | z |\n'.repeat(rows)}`;
      return table + fill(ORDINARY, Math.max(0, b - table.length));
    },
  },
  { name: `${limits.maxNesting - 1} nested GitBook hints`, make: (b) => `${'{% hint %}\n\n'.repeat(limits.maxNesting - 1)}${fill('text *a* b\n\n', b)}${'{% endhint %}\n\n'.repeat(limits.maxNesting - 1)}` },
];
const ORDINARY = 'Lorem ipsum dolor sit amet, *consectetur* adipiscing elit, sed do `eiusmod` tempor [incididunt](https://example.com) ut labore.\n\n';

/** Converts `markdown` with the parser module `module` in a process of its own (bench/markdown-convert.ts), stopped after the cap. */
async function measure(module: string, markdown: string): Promise<Outcome> {
  const child = spawn(process.execPath, [...process.execArgv, fileURLToPath(new URL('./markdown-convert.ts', import.meta.url))], { stdio: ['pipe', 'pipe', 'inherit'] });
  child.stdin.end(JSON.stringify({ module, markdown, runs: RUNS }));
  let output = '';
  child.stdout.setEncoding('utf8').on('data', (data: string) => (output += data));
  return new Promise((resolve, reject) => {
    const cap = setTimeout(() => {
      child.kill('SIGKILL');
      resolve({ capped: true });
    }, CAP_SECONDS * 1000);
    child.once('exit', (code) => {
      clearTimeout(cap);
      if (code === 0) resolve(JSON.parse(output) as Outcome);
      else if (code !== null) reject(new Error(`bench/markdown-convert.ts exited with ${code}`));
    });
  });
}

function show(outcome: Outcome | undefined): string {
  if (!outcome) return '';
  if ('capped' in outcome) return `> ${CAP_SECONDS} s (stopped)`;
  if (outcome.error) return `error: ${outcome.error.replace(/\|/g, '\\|')}`;
  if (outcome.refused) return `refused (${outcome.refused}) in ${outcome.wallMs.toFixed(1)} ms`;
  return `${outcome.wallMs.toFixed(outcome.wallMs < 10 ? 1 : 0)} ms (CPU ${outcome.cpuMs.toFixed(0)})`;
}

const loadOf = () => os.loadavg().map((l) => l.toFixed(2)).join(' / ');

async function conversions() {
  const current = path.join(here, '../src/content/document/markdown-parse.ts');
  const compare = COMPARE_DIR ? path.join(path.resolve(COMPARE_DIR), 'src/content/document/markdown-parse.ts') : null;
  const rows: { group: string; name: string; size: number; bytes: number; now: Outcome; before?: Outcome }[] = [];
  const groups = [
    { group: 'pathological', cases: PATHOLOGICAL_CASES, sizes: SIZES },
    { group: 'at the limits', cases: AT_THE_LIMITS, sizes: SIZES },
    { group: 'ordinary', cases: [{ name: 'ordinary Markdown (paragraphs, emphasis, code, links)', make: (b: number) => fill(ORDINARY, b) }], sizes: [100_000, 990_000] },
  ];
  for (const { group, cases, sizes } of groups) {
    for (const { name, make } of cases) {
      for (const size of sizes) {
        const markdown = make(size);
        const now = await measure(current, markdown);
        const before = compare ? await measure(compare, markdown) : undefined;
        log(`${name} @ ${size}: ${show(now)}${compare ? ` | before: ${show(before)}` : ''}`);
        rows.push({ group, name, size, bytes: markdown.length, now, before });
      }
    }
  }
  return rows;
}

async function healthzUnderAbuse() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-markdown-'));
  const database = parseDatabaseUrl(`file:${path.join(dir, 'bench.db')}`);
  await prepareDatabase(database);
  await migrate(database);
  const config = loadConfig({
    ...process.env,
    DATABASE_URL: `file:${path.join(dir, 'bench.db')}`,
    STORAGE_DIR: path.join(dir, 'files'),
    PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: 'silent',
    RATE_LIMIT_POINTS: '1000000000',
    MARKDOWN_MAX_INLINE_DELIMITERS: '1000000',
    WORKER_TASK_TIMEOUT_MS: '5000',
  });
  const app = createApp({ config });
  const base = await app.listen();
  try {
    const db = createDb(database);
    const { token } = await createUserWithToken(db, { email: 'bench@example.com', displayName: 'Bench', label: 'bench' });
    await db.$disconnect();
    const call = async (method: string, url: string, body?: unknown) => {
      const res = await fetch(`${base}${url}`, { method, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
      return { status: res.status, body: (await res.json().catch(() => null)) as any, ms: 0 };
    };
    const org = (await call('POST', '/v1/orgs', { title: 'Bench' })).body.id as string;
    const space = (await call('POST', `/v1/orgs/${org}/spaces`, { title: 'Docs' })).body.id as string;
    const cr = (await call('POST', `/v1/spaces/${space}/change-requests`, { subject: 'Abuse' })).body.id as string;
    // The first conversion starts the pool's thread: not part of what is measured.
    await call('POST', `/v1/spaces/${space}/change-requests/${cr}/content`, { changes: [{ operation: 'insert_page', document: { markdown: '# Warm' } }] });

    const idle: number[] = [];
    for (let i = 0; i < 50; i++) {
      const t = performance.now();
      await fetch(`${base}/healthz`);
      idle.push(performance.now() - t);
    }
    const started = performance.now();
    const abuse = call('POST', `/v1/spaces/${space}/change-requests/${cr}/content`, { changes: [{ operation: 'insert_page', document: { markdown: '*a'.repeat(32_000) } }] }).then((r) => ({ ...r, ms: performance.now() - started }));
    let done = false;
    void abuse.finally(() => (done = true));
    const busy: number[] = [];
    while (!done) {
      const t = performance.now();
      await fetch(`${base}/healthz`);
      busy.push(performance.now() - t);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const answer = await abuse;
    const summary = (values: number[]) => {
      const sorted = [...values].sort((a, b) => a - b);
      const at = (p: number) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!;
      return { count: values.length, p50: at(0.5), p99: at(0.99), max: sorted[sorted.length - 1]! };
    };
    return { idle: summary(idle), busy: summary(busy), answer: { status: answer.status, message: answer.body?.error?.message ?? null, ms: answer.ms } };
  } finally {
    await app.close();
    await dropDatabase(database).catch(() => {});
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

const startedAt = new Date();
const loadBefore = loadOf();
if (PARTS.has('conversions')) log(`conversions (${RUNS} runs each, cap ${CAP_SECONDS} s${COMPARE_DIR ? `, compared with ${COMPARE_DIR}` : ''})`);
const rows = PARTS.has('conversions') ? await conversions() : [];
if (PARTS.has('healthz')) log('/healthz while a conversion is abused');
const health = PARTS.has('healthz') ? await healthzUnderAbuse() : null;
const loadAfter = loadOf();

const date = startedAt.toISOString().slice(0, 10);
fs.mkdirSync(path.join(here, 'out'), { recursive: true });
fs.writeFileSync(path.join(here, 'out', `${date}-markdown.json`), JSON.stringify({ startedAt, rows, health }, null, 2));

const kb = (bytes: number) => (bytes >= 1_000_000 ? `${(bytes / 1_000_000).toFixed(1)} MB` : `${Math.round(bytes / 1000)} KB`);
const lines: string[] = [];
lines.push(`# Markdown conversion by input size, and /healthz under abuse (issue 14) — ${date}`, '');
lines.push(`Machine: ${os.cpus()[0]?.model.trim() ?? 'unknown'}, ${os.cpus().length} cores, Node ${process.version} (${os.type()} ${os.release()}).`);
lines.push(`Run at ${startedAt.toISOString()}. Load average (1/5/15 min) before: ${loadBefore}; after: ${loadAfter} (other engineers share the machine: wall times are inflated by it, CPU times much less).`);
lines.push(`Each conversion: markdownToDocument in a process of its own, least of ${RUNS} runs, stopped after ${CAP_SECONDS} s. Limits: the defaults (${JSON.stringify(limits)}).`);
if (COMPARE_DIR) lines.push(`"Before": the same inputs through ${COMPARE_DIR}.`);
lines.push('');
for (const group of rows.length ? ['pathological', 'at the limits', 'ordinary'] : []) {
  lines.push(`## ${group === 'pathological' ? 'Pathological inputs' : group === 'at the limits' ? 'The worst inputs the limits let through' : 'Ordinary Markdown'}`, '');
  lines.push(`| input | size | now: wall (CPU), ms${COMPARE_DIR ? ' | before' : ''} |`, `|---|---:|---|${COMPARE_DIR ? '---|' : ''}`);
  for (const row of rows.filter((r) => r.group === group)) {
    lines.push(`| ${row.name.replace(/\|/g, '\\|')} | ${kb(row.bytes)} | ${show(row.now)}${COMPARE_DIR ? ` | ${show(row.before)}` : ''} |`);
  }
  lines.push('');
}
if (health) {
  lines.push('## /healthz while a conversion is abused', '');
  lines.push('64 KB of `*a` with MARKDOWN_MAX_INLINE_DELIMITERS raised to 1,000,000 (the scan lets it through) and WORKER_TASK_TIMEOUT_MS=5000.', '');
  lines.push(`The request: ${health.answer.status} after ${health.answer.ms.toFixed(0)} ms, \`${health.answer.message}\`.`, '');
  lines.push('| /healthz | requests | p50 ms | p99 ms | max ms |', '|---|---:|---:|---:|---:|');
  for (const [name, s] of [['idle', health.idle], ['during the conversion', health.busy]] as const) {
    lines.push(`| ${name} | ${s.count} | ${s.p50.toFixed(1)} | ${s.p99.toFixed(1)} | ${s.max.toFixed(1)} |`);
  }
  lines.push('');
}
const report = path.join(here, 'results', `${date}-markdown.md`);
fs.writeFileSync(report, lines.join('\n'));
log(`wrote ${path.relative(process.cwd(), report)}`);
process.exit(0);

/**
 * Soak benchmark (issue 14): the app under a realistic mix of reads and
 * writes for minutes, to see what grows (the database, the memory, the
 * latencies) and that nothing acknowledged is lost.
 *
 *   npm run bench:soak
 *   BENCH_DATABASE_URL=postgresql://postgres@127.0.0.1:5432/postgres npm run bench:soak
 *   SOAK_DIR=/work/wt-soak-before npm run bench:soak      # another checkout's server and migrations
 *
 * Setup (not timed): a fresh database migrated by the measured checkout's own
 * migrations, its server (bench/app-server.ts of that checkout, pinned to
 * core 1), then through the API one organization and a space per size of
 * SOAK_SIZES (default 20, 300 and 1,000 pages: bench/seed-content.ts's
 * generated Markdown, written in change requests of 50 `insert_page`).
 *
 * The soak: SOAK_CONNECTIONS clients (default 10), each a loop of sequential
 * requests, for SOAK_MINUTES (default 8). Each turn a client picks one of
 * the spaces at random, then:
 * - 25%: an editing session: POST .../change-requests, 1 or 2 POST
 *   .../content (each either `update_page` of 1 to 3 seeded pages with new
 *   Markdown, or, one time in four, an `insert_page` of a new page under a
 *   chapter), then POST .../merge (a 409, a lost race with another merge, is
 *   expected: retried up to 5 times; `result: conflicts`, another session
 *   changed the same page meanwhile, is expected too and leaves the change
 *   request open);
 * - 30%: GET .../content/page/{pageId} (a seeded page);
 * - 10%: GET .../content/pages (every page, with its document);
 * - 20%: GET /v1/spaces/{spaceId};
 * - 15%: GET .../search (a chapter's codename or a common word, limit 20).
 * A session under way when the time is up is finished (its requests count).
 *
 * Recorded: every request (kind, space, status, client-side latency);
 * errors (any status that is not 2xx, but the expected 409s of merges, and
 * network failures), listed; p50/p90/p99 per kind over the run, per minute,
 * and per space; the server's RSS (/proc) and V8 heap (its /metrics) every
 * 5 s; the database's size after migrating, after seeding and every minute
 * (SQLite: the file and its -wal; PostgreSQL: the relations of the run's
 * schema), with the rows of RevisionChunk, ContentDocument, Revision and
 * RevisionPage (where the version has it) after seeding and at the end; who
 * used the CPU each minute.
 *
 * Checked at the end: every acknowledged write is there. Each page inserted
 * by a merged change request is in the space under its chapter, the spaces
 * hold exactly their seeded pages plus those, and each page updated by a
 * merged change request reads back (as Markdown) with the text of the last
 * merge that changed it (or of a merge that overlapped with that one: their
 * order is the server's).
 *
 * Environment: SOAK_MINUTES, SOAK_CONNECTIONS, SOAK_SIZES, SOAK_DIR (the
 * checkout to run, default this one), SOAK_LABEL (ends the result files'
 * name; default the basename of SOAK_DIR when given), and the harness's
 * (BENCH_DATABASE_URL, BENCH_WAIT_QUIET, ...). Results:
 * bench/results/<date>-soak-<sqlite|postgresql>[-<label>].md, raw data in
 * bench/out/.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  api,
  count,
  createBenchDatabase,
  createBenchUser,
  databaseSize,
  databaseVersion,
  fmt,
  log,
  machineLoad,
  main,
  megabytes,
  memoryMiB,
  othersPercent,
  percentOfCore,
  reportHeader,
  sleep,
  startChild,
  startRun,
  stats,
  table,
  writeResults,
  type CpuUse,
  type DatabaseSize,
  type Stats,
} from './harness.ts';
import { COMMON_WORD, pageMarkdown, seedSpaces, spacePages, type CorpusPage, type SizedSpace } from './seed-content.ts';
import { between, editMarker, mulberry32, pick, sample, seedOf, slug, type Rng } from './text.ts';

const MINUTES = Number(process.env.SOAK_MINUTES ?? 8);
const CLIENTS = Number(process.env.SOAK_CONNECTIONS ?? 10);
const SIZES = (process.env.SOAK_SIZES ?? '20,300,1000').split(',').filter(Boolean).map(Number);
const DIR = process.env.SOAK_DIR ? path.resolve(process.env.SOAK_DIR) : undefined;
const LABEL = process.env.SOAK_LABEL ?? (DIR ? path.basename(DIR) : '');
/** Minutes of the report's tables (SOAK_MINUTES may be a fraction, for a quick try). */
const MINUTE_COUNT = Math.max(1, Math.ceil(MINUTES));
const MEMORY_EVERY_MS = 5_000;
const SIZE_EVERY_MS = 60_000;
const REQUEST_TIMEOUT_MS = 120_000;
const MERGE_ATTEMPTS = 5;
/** The tables whose rows are counted after seeding and at the end. */
const BIG_TABLES = ['RevisionChunk', 'ContentDocument', 'Revision', 'RevisionPage', 'RevisionFile'];
/** Errors kept with their answer in the report (all are counted). */
const ERRORS_LISTED = 30;

const KINDS = ['create change request', 'edit: update_page', 'edit: insert_page', 'merge', 'get page', 'list pages', 'get space', 'search'] as const;
type Kind = (typeof KINDS)[number];
/** What a client does each turn, with its weight. */
const TURNS: Array<[turn: 'session' | 'get page' | 'list pages' | 'get space' | 'search', weight: number]> = [
  ['session', 0.25],
  ['get page', 0.3],
  ['list pages', 0.1],
  ['get space', 0.2],
  ['search', 0.15],
];

interface Sample {
  /** ms since the soak started, when the answer arrived. */
  at: number;
  kind: Kind;
  space: string;
  ms: number;
  status: number;
}

interface SoakError {
  at: number;
  kind: Kind;
  space: string;
  method: string;
  path: string;
  status: number;
  answer: string;
}

/** A merge acknowledged with `result: merge`: what it wrote. */
interface AcknowledgedMerge {
  space: string;
  changeRequestId: string;
  label: string;
  /** ms since the soak started: the merge request that succeeded sent, and answered. */
  sentAt: number;
  answeredAt: number;
  /** Seeded pages updated (corpus indexes). */
  updated: number[];
  /** Pages inserted: title and the chapter (corpus index) they went under. */
  inserted: Array<{ title: string; parent: number }>;
}

interface MemorySample {
  at: number;
  rssMiB: number;
  heapUsedMiB: number;
  heapTotalMiB: number;
  externalMiB: number;
}

interface SizeSample {
  at: number;
  bytes: number;
}

class Soak {
  readonly samples: Sample[] = [];
  readonly errors: SoakError[] = [];
  readonly acknowledged: AcknowledgedMerge[] = [];
  /** Merges answered 409 (a lost race, retried), `result: conflicts`, and sessions given up (an edit failed, or every merge attempt was a 409). */
  expected409 = 0;
  conflicts = 0;
  abandoned = 0;
  sessions = 0;
  readonly started = performance.now();

  constructor(
    readonly baseUrl: string,
    readonly token: string,
    readonly deadline: number,
  ) {}

  now = () => performance.now() - this.started;

  /** One request, recorded; null when it failed (recorded as an error, unless it is an `allowed` status). */
  async call(kind: Kind, space: string, method: string, p: string, body?: unknown, allowed: number[] = []): Promise<{ status: number; json: () => any } | null> {
    const t = performance.now();
    let status = 0;
    let text = '';
    try {
      const res = await fetch(`${this.baseUrl}${p}`, {
        method,
        headers: { authorization: `Bearer ${this.token}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
        signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
      });
      status = res.status;
      text = await res.text();
    } catch (error) {
      text = String(error);
    }
    const ms = performance.now() - t;
    this.samples.push({ at: this.now(), kind, space, ms, status });
    if (status >= 200 && status < 300) return { status, json: () => JSON.parse(text) };
    if (allowed.includes(status)) return { status, json: () => (text ? JSON.parse(text) : null) };
    this.errors.push({ at: this.now(), kind, space, method, path: p, status, answer: text.slice(0, 300) });
    return null;
  }
}

const spacePath = (space: SizedSpace) => `/v1/spaces/${space.seed.spaceId}`;

/** The Markdown of a page a session inserts: generated as the corpus's pages, under its own title. */
function insertedMarkdown(space: SizedSpace, title: string, n: number): string {
  const page: CorpusPage = {
    index: 1_000_000 + n,
    level: 'page',
    title,
    slug: slug(title),
    path: slug(title),
    parent: null,
    codename: null,
    common: true,
    pair: false,
    latency: false,
    budget: false,
    linkTo: null,
  };
  return pageMarkdown(space.corpus, page);
}

/** An editing session: a change request, 1 or 2 edits, its merge. */
async function session(soak: Soak, space: SizedSpace, rng: Rng, label: string) {
  soak.sessions++;
  const base = spacePath(space);
  const created = await soak.call('create change request', space.label, 'POST', `${base}/change-requests`, { subject: `Soak ${label}` });
  if (!created) {
    soak.abandoned++;
    return;
  }
  const changeRequestId = created.json().id as string;
  const updated: number[] = [];
  const inserted: AcknowledgedMerge['inserted'] = [];
  const chapters = space.corpus.pages.filter((p) => p.level === 'chapter');
  const calls = between(rng, 1, 2);
  for (let c = 0; c < calls; c++) {
    let kind: Kind;
    let changes: unknown[];
    if (rng() < 0.25) {
      kind = 'edit: insert_page';
      const chapter = pick(rng, chapters);
      const title = `Soak note ${label}${c}`;
      inserted.push({ title, parent: chapter.index });
      changes = [{ operation: 'insert_page', into: space.seed.pageIds[chapter.index], document: { markdown: insertedMarkdown(space, title, inserted.length) } }];
    } else {
      kind = 'edit: update_page';
      const fresh = space.corpus.pages.map((p) => p.index).filter((i) => !updated.includes(i));
      const pages = sample(rng, fresh, between(rng, 1, 3));
      updated.push(...pages);
      changes = pages.map((index) => ({ operation: 'update_page', page: space.seed.pageIds[index], document: { markdown: pageMarkdown(space.corpus, space.corpus.pages[index]!, label) } }));
    }
    if (!(await soak.call(kind, space.label, 'POST', `${base}/change-requests/${changeRequestId}/content`, { changes }))) {
      soak.abandoned++;
      return;
    }
  }
  for (let attempt = 1; attempt <= MERGE_ATTEMPTS; attempt++) {
    const sentAt = soak.now();
    const merged = await soak.call('merge', space.label, 'POST', `${base}/change-requests/${changeRequestId}/merge`, undefined, [409]);
    if (!merged) break;
    if (merged.status === 409) {
      soak.expected409++;
      await sleep(10 + 40 * rng());
      continue;
    }
    const body = merged.json();
    if (body.result === 'merge') soak.acknowledged.push({ space: space.label, changeRequestId, label, sentAt, answeredAt: soak.now(), updated, inserted });
    else soak.conflicts++;
    return;
  }
  soak.abandoned++;
}

async function client(soak: Soak, spaces: SizedSpace[], k: number) {
  const rng = mulberry32(seedOf('soak', k));
  for (let n = 0; soak.now() < soak.deadline; n++) {
    const space = pick(rng, spaces);
    const base = spacePath(space);
    let r = rng();
    const turn = TURNS.find(([, weight]) => (r -= weight) < 0)?.[0] ?? 'get space';
    if (turn === 'session') await session(soak, space, rng, `${k}x${n}`);
    else if (turn === 'get page') await soak.call('get page', space.label, 'GET', `${base}/content/page/${pick(rng, space.seed.pageIds)}`);
    else if (turn === 'list pages') await soak.call('list pages', space.label, 'GET', `${base}/content/pages`);
    else if (turn === 'get space') await soak.call('get space', space.label, 'GET', base);
    else {
      const query = rng() < 0.7 ? pick(rng, space.corpus.codenames) : COMMON_WORD;
      await soak.call('search', space.label, 'GET', `${base}/search?query=${encodeURIComponent(query)}&limit=20`);
    }
  }
}

/** The sum of a metric's samples in a /metrics text. */
function metricIn(text: string, name: string): number {
  let total = NaN;
  for (const line of text.split('\n')) {
    if (line.startsWith(`${name} `) || line.startsWith(`${name}{`)) total = (Number.isNaN(total) ? 0 : total) + Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return total;
}

async function memorySample(soak: Soak, pid: number | undefined): Promise<MemorySample> {
  const { rssMiB } = memoryMiB(pid);
  let text = '';
  try {
    text = await (await fetch(`${soak.baseUrl}/metrics`, { signal: AbortSignal.timeout(10_000) })).text();
  } catch {
    // the sample keeps the RSS
  }
  const mib = (name: string) => metricIn(text, name) / 2 ** 20;
  return { at: soak.now(), rssMiB, heapUsedMiB: mib('nodejs_heap_size_used_bytes'), heapTotalMiB: mib('nodejs_heap_size_total_bytes'), externalMiB: mib('nodejs_external_memory_bytes') };
}

// ---------------------------------------------------------------------------
// The check at the end

interface Verification {
  mergesChecked: number;
  pagesInserted: number;
  pagesUpdated: number;
  /** What is missing or stale, described. */
  problems: string[];
  seconds: number;
}

/** Runs `work` on every item, `parallel` at a time. */
async function pool<T>(items: readonly T[], parallel: number, work: (item: T) => Promise<void>) {
  let next = 0;
  await Promise.all(Array.from({ length: parallel }, async () => {
    while (next < items.length) await work(items[next++]!);
  }));
}

async function verify(baseUrl: string, token: string, spaces: SizedSpace[], acknowledged: AcknowledgedMerge[]): Promise<Verification> {
  const started = performance.now();
  const problems: string[] = [];
  let pagesInserted = 0;
  let pagesUpdated = 0;
  for (const space of spaces) {
    const merges = acknowledged.filter((m) => m.space === space.label);
    const byPath = await spacePages(baseUrl, token, space.seed.spaceId);
    // Inserted pages: under their chapter, by title; the space holds its seeded pages plus those.
    const inserted = merges.flatMap((m) => m.inserted.map((i) => ({ ...i, merge: m })));
    const expectedPages = space.corpus.pages.length + inserted.length;
    if (byPath.size !== expectedPages) problems.push(`${space.label}: ${byPath.size} pages at the end, expected ${expectedPages} (${space.corpus.pages.length} seeded + ${inserted.length} inserted by merged change requests)`);
    for (const i of inserted) {
      const chapterPath = space.corpus.pages[i.parent]!.path;
      const found = [...byPath.entries()].some(([p, page]) => page.title === i.title && p.startsWith(`${chapterPath}/`) && !p.slice(chapterPath.length + 1).includes('/'));
      if (!found) problems.push(`${space.label}: page "${i.title}" inserted under ${chapterPath} by merged change request ${i.merge.changeRequestId} is missing`);
      pagesInserted++;
    }
    for (const page of space.corpus.pages) {
      const found = byPath.get(page.path);
      if (!found || found.id !== space.seed.pageIds[page.index]) problems.push(`${space.label}: seeded page ${page.path} is missing or changed id`);
    }
    // Updated pages: the text of the last merge that changed each (or of one overlapping with it).
    const edits = new Map<number, AcknowledgedMerge[]>();
    for (const m of merges) for (const index of m.updated) edits.set(index, [...(edits.get(index) ?? []), m]);
    await pool([...edits.entries()], 4, async ([index, list]) => {
      const last = list.reduce((a, b) => (b.answeredAt > a.answeredAt ? b : a));
      const acceptable = list.filter((m) => m.answeredAt >= last.sentAt);
      const { body } = await api(baseUrl, token, 'GET', `/v1/spaces/${space.seed.spaceId}/content/page/${space.seed.pageIds[index]}?format=markdown`);
      const markdown = String(body.markdown);
      pagesUpdated++;
      if (!acceptable.some((m) => markdown.includes(`${editMarker(m.label, index)}:`))) {
        const holds = list.filter((m) => markdown.includes(`${editMarker(m.label, index)}:`)).map((m) => m.label);
        problems.push(
          `${space.label}: page ${space.corpus.pages[index]!.path} lacks the text of merge ${last.label} (change request ${last.changeRequestId}, the last of ${list.length} merges changing it)` +
            `${holds.length ? `; it holds ${holds.join(', ')}'s` : ''}`,
        );
      }
    });
  }
  return { mergesChecked: acknowledged.length, pagesInserted, pagesUpdated, problems, seconds: (performance.now() - started) / 1000 };
}

// ---------------------------------------------------------------------------

async function run() {
  const benchRun = startRun('soak', { label: LABEL, dir: DIR });
  await machineLoad.settle('before the run');
  log(`creating a fresh database${DIR ? ` (migrated by ${DIR})` : ''}...`);
  const database = await createBenchDatabase('soak', { dir: DIR });
  const storageDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-soak-files-'));
  const sizes: Array<{ when: string; size: DatabaseSize }> = [];
  const sizeCurve: SizeSample[] = [];
  const memory: MemorySample[] = [];
  const minuteCpu: CpuUse[] = [];
  let soak: Soak | null = null;
  let spaces: SizedSpace[] = [];
  let version = '';
  let verification: Verification | null = null;
  let seedSeconds = 0;
  let soakCpu: CpuUse | null = null;
  let soakSeconds = 0;
  let serverPeakMiB = NaN;
  try {
    sizes.push({ when: 'migrated, empty', size: await databaseSize(database, BIG_TABLES) });
    const { token } = await createBenchUser(database, 'bench-soak@example.com');
    log('starting the app server...');
    // JOB_POLL_MS: no background polls (no request of the mix starts a job).
    const child = await startChild('app-server.ts', { DATABASE_URL: database.url, STORAGE_DIR: storageDir, JOB_POLL_MS: '3600000' }, { dir: DIR });
    try {
      const t = performance.now();
      spaces = (await seedSpaces(child.baseUrl, token, SIZES, log)).spaces;
      seedSeconds = (performance.now() - t) / 1000;
      version = await databaseVersion(database);
      sizes.push({ when: 'seeded: the start of the soak', size: await databaseSize(database, BIG_TABLES) });

      await machineLoad.settle('before the soak');
      soak = new Soak(child.baseUrl, token, MINUTES * 60_000);
      const s = soak;
      const pid = child.process.pid;
      sizeCurve.push({ at: 0, bytes: sizes[sizes.length - 1]!.size.bytes });
      memory.push(await memorySample(s, pid));
      const soakStart = machineLoad.snapshot();
      let minuteStart = soakStart;
      const memoryTimer = setInterval(() => void memorySample(s, pid).then((m) => memory.push(m)), MEMORY_EVERY_MS);
      const sizeTimer = setInterval(() => {
        const at = s.now();
        const snapshot = machineLoad.snapshot();
        minuteCpu.push(machineLoad.between(`soak minute ${minuteCpu.length + 1}`, minuteStart, snapshot));
        minuteStart = snapshot;
        void databaseSize(database).then((size) => sizeCurve.push({ at, bytes: size.bytes }));
        log(`soak: ${fmt(at / 60_000, 1)} min, ${count(s.samples.length)} requests, ${s.errors.length} errors, ${s.acknowledged.length} merges`);
      }, SIZE_EVERY_MS);
      log(`soak: ${CLIENTS} clients for ${MINUTES} min...`);
      await Promise.all(Array.from({ length: CLIENTS }, (_, k) => client(s, spaces, k)));
      clearInterval(memoryTimer);
      clearInterval(sizeTimer);
      const soakEnd = machineLoad.snapshot();
      if (soakEnd.at - minuteStart.at > 5_000) minuteCpu.push(machineLoad.between(`soak minute ${minuteCpu.length + 1} (and the sessions finishing)`, minuteStart, soakEnd));
      soakCpu = machineLoad.between('the whole soak', soakStart, soakEnd);
      soakSeconds = s.now() / 1000;
      memory.push(await memorySample(s, pid));
      serverPeakMiB = memoryMiB(pid).peakMiB;
      await sleep(1000);
      sizes.push({ when: 'the end of the soak', size: await databaseSize(database, BIG_TABLES) });
      sizeCurve.push({ at: s.now(), bytes: sizes[sizes.length - 1]!.size.bytes });
      log(`soak done: ${count(s.samples.length)} requests, ${s.errors.length} errors; checking ${s.acknowledged.length} merged change requests...`);
      verification = await verify(child.baseUrl, token, spaces, s.acknowledged);
      log(`check: ${verification.problems.length} problems (${verification.pagesUpdated} updated and ${verification.pagesInserted} inserted pages read back)`);
    } finally {
      await child.stop();
    }
  } finally {
    await database.drop();
    fs.rmSync(storageDir, { recursive: true, force: true });
  }
  await machineLoad.read('after the run');
  if (!soak || !verification || !soakCpu) throw new Error('the soak did not run');
  report(benchRun, { database, version, soak, spaces, sizes, sizeCurve, memory, minuteCpu, soakCpu, soakSeconds, seedSeconds, verification, serverPeakMiB });
}

// ---------------------------------------------------------------------------
// The report

interface Results {
  database: { description: string };
  version: string;
  soak: Soak;
  spaces: SizedSpace[];
  sizes: Array<{ when: string; size: DatabaseSize }>;
  sizeCurve: SizeSample[];
  memory: MemorySample[];
  minuteCpu: CpuUse[];
  soakCpu: CpuUse;
  soakSeconds: number;
  seedSeconds: number;
  verification: Verification;
  serverPeakMiB: number;
}

const latencyOf = (samples: Sample[]) => stats(samples.filter((s) => s.status >= 200 && s.status < 300).map((s) => s.ms));
const minuteOf = (at: number) => Math.min(MINUTE_COUNT - 1, Math.max(0, Math.floor(at / 60_000)));
const rowsText = (rows: Record<string, number>) =>
  Object.entries(rows)
    .map(([table, n]) => `${table} ${count(n)}`)
    .join(', ');

function report(benchRun: ReturnType<typeof startRun>, r: Results) {
  const { soak, verification: v } = r;
  const samples = soak.samples;
  const ok = samples.filter((s) => s.status >= 200 && s.status < 300);
  const byKind = KINDS.map((kind) => ({ kind, all: samples.filter((s) => s.kind === kind), latency: latencyOf(samples.filter((s) => s.kind === kind)) }));
  const start = r.sizes.find((s) => s.when.startsWith('seeded'))!.size;
  const end = r.sizes.find((s) => s.when.startsWith('the end'))!.size;
  const grown = end.bytes - start.bytes;
  const pagesAtEnd = r.spaces.reduce((n, s) => n + s.corpus.pages.length, 0) + v.pagesInserted;
  const postgres = r.database.description.startsWith('PostgreSQL');

  const md = reportHeader(benchRun, `Soak (issue 14)${LABEL ? `: ${LABEL}` : ''}`, { description: r.database.description, version: r.version });
  md.push(
    `Settings: ${MINUTES} min, ${CLIENTS} clients (each a loop of sequential requests), spaces of ${r.spaces.map((s) => s.label).join(', ')} in one organization ` +
      `(bench/seed-content.ts's generated Markdown, written through the API in change requests of 50 \`insert_page\`, merged; ${fmt(r.seedSeconds)} s, before the soak). ` +
      `Each turn a client picks a space at random, then ${TURNS.map(([t, w]) => `${fmt(w * 100)}% ${t}`).join(', ')}; a session is POST .../change-requests, 1 or 2 POST .../content ` +
      '(`update_page` of 1 to 3 seeded pages with new Markdown, or one time in four `insert_page` of a new page under a chapter), then POST .../merge ' +
      `(a 409 is retried up to ${MERGE_ATTEMPTS} times; \`result: conflicts\` leaves the change request open). Latencies are client-side, end to end, of 2xx answers.`,
    '',
    '## Summary',
    '',
    `${count(samples.length)} requests in ${fmt(r.soakSeconds)} s (${fmt(samples.length / r.soakSeconds, 1)} req/s), **${soak.errors.length} errors**; ` +
      `${count(soak.sessions)} editing sessions: ${count(soak.acknowledged.length)} merged, ${count(soak.conflicts)} with conflicts (expected), ${count(soak.abandoned)} given up; ${count(soak.expected409)} merges answered 409 and were retried (expected).`,
    `Database: **${megabytes(start.bytes)} at the start of the soak, ${megabytes(end.bytes)} at the end** (+${megabytes(grown)}, ${fmt(grown / Math.max(1, soak.acknowledged.length) / 1e3, 1)} kB per merged change request); ` +
      `${count(pagesAtEnd)} live pages at the end. Rows at the end: ${rowsText(end.rows)}.`,
    `Server memory: RSS ${fmt(r.memory[0]!.rssMiB)} MiB at the start, ${fmt(r.memory[r.memory.length - 1]!.rssMiB)} MiB at the end (peak ${fmt(r.serverPeakMiB)} MiB); ` +
      `V8 heap used ${fmt(r.memory[0]!.heapUsedMiB)} → ${fmt(r.memory[r.memory.length - 1]!.heapUsedMiB)} MiB.`,
    memoryTarget(r.memory, minuteOf),
    `Check at the end (${fmt(v.seconds)} s): ${count(v.mergesChecked)} merged change requests, ${count(v.pagesUpdated)} updated pages read back as Markdown, ${count(v.pagesInserted)} inserted pages found: ` +
      (v.problems.length ? `**${v.problems.length} problems** (listed below).` : 'every acknowledged write is there.'),
    '',
    '## Requests by kind, over the whole soak',
    '',
    ...table(
      ['kind', 'requests', 'errors', 'p50 (ms)', 'p90 (ms)', 'p99 (ms)', 'max (ms)'],
      [
        ...byKind.map((k) => [k.kind, count(k.all.length), soak.errors.filter((e) => e.kind === k.kind).length, fmt(k.latency.p50, 1), fmt(k.latency.p90, 1), fmt(k.latency.p99, 1), fmt(k.latency.max)]),
        ['**all**', `**${count(samples.length)}**`, `**${soak.errors.length}**`, fmt(latencyOf(samples).p50, 1), fmt(latencyOf(samples).p90, 1), fmt(latencyOf(samples).p99, 1), fmt(latencyOf(samples).max)],
      ],
      ['l', 'r', 'r', 'r', 'r', 'r', 'r'],
    ),
    '',
    'p50 by space (ms; the spaces grow during the soak as sessions insert pages):',
    '',
    ...table(
      ['kind', ...r.spaces.map((s) => s.label)],
      KINDS.map((kind) => [kind, ...r.spaces.map((s) => {
        const l = latencyOf(samples.filter((x) => x.kind === kind && x.space === s.label));
        return l.n ? `${fmt(l.p50, 1)} (n=${l.n})` : '—';
      })]),
      ['l', ...r.spaces.map(() => 'r' as const)],
    ),
    '',
    '## Per minute',
    '',
    'Latency p50 / p99 (ms) per kind and minute (the sessions still under way when the time was up count in the last minute):',
    '',
    ...table(
      ['minute', 'requests', ...KINDS],
      Array.from({ length: MINUTE_COUNT }, (_, m) => {
        const inMinute = samples.filter((s) => minuteOf(s.at) === m);
        return [
          m + 1,
          count(inMinute.length),
          ...KINDS.map((kind) => {
            const l = latencyOf(inMinute.filter((s) => s.kind === kind));
            return l.n ? `${fmt(l.p50, 1)} / ${fmt(l.p99)}` : '—';
          }),
        ];
      }),
      ['r', 'r', ...KINDS.map(() => 'r' as const)],
    ),
    '',
    `Memory of the server (RSS from /proc, V8 heap from its /metrics, sampled every ${MEMORY_EVERY_MS / 1000} s; MiB), the database's size at the end of each minute, and the CPU of that minute (% of one core):`,
    '',
    ...table(
      ['minute', 'RSS min', 'RSS max', 'RSS at the end', 'heap used min', 'heap used max', 'heap total at the end', 'database', 'server CPU', 'PostgreSQL CPU', 'other processes CPU'],
      Array.from({ length: MINUTE_COUNT }, (_, m) => {
        const inMinute = r.memory.filter((x) => minuteOf(x.at) === m);
        const last = inMinute[inMinute.length - 1];
        const size = r.sizeCurve.filter((x) => minuteOf(x.at - 1) === m).pop();
        const cpu = r.minuteCpu[m];
        const pct = (ms: number) => (cpu ? `${fmt(percentOfCore(ms, cpu.seconds))}%` : '—');
        return [
          m + 1,
          fmt(Math.min(...inMinute.map((x) => x.rssMiB))),
          fmt(Math.max(...inMinute.map((x) => x.rssMiB))),
          fmt(last?.rssMiB ?? NaN),
          fmt(Math.min(...inMinute.map((x) => x.heapUsedMiB))),
          fmt(Math.max(...inMinute.map((x) => x.heapUsedMiB))),
          fmt(last?.heapTotalMiB ?? NaN),
          size ? megabytes(size.bytes) : '—',
          cpu ? pct(cpu.serverMs) : '—',
          cpu ? pct(cpu.postgresMs) : '—',
          cpu ? `${fmt(othersPercent(cpu))}%` : '—',
        ];
      }),
      ['r', 'r', 'r', 'r', 'r', 'r', 'r', 'r', 'r', 'r', 'r'],
    ),
    '',
    'Heap used swings with garbage collection (answers of several MB, such as the page list of a 1,000-page space, are garbage a moment later); its minimum, sampled after a collection, is the live set.',
    '',
    '## Database',
    '',
    `${postgres ? "PostgreSQL: the tables, indexes and TOAST of the run's schema (pg_total_relation_size); the whole database's pg_database_size, other schemas in it included, in the last column" : 'SQLite: the database file plus its -wal'}.`,
    '',
    ...table(
      ['when', 'size', postgres ? 'parts' : 'file + wal', ...BIG_TABLES.map((t) => `${t} rows`)],
      r.sizes.map(({ when, size }) => [
        when,
        megabytes(size.bytes),
        Object.entries(size.parts)
          .map(([k, b]) => `${k} ${megabytes(b)}`)
          .join(', '),
        ...BIG_TABLES.map((t) => (t in size.rows ? count(size.rows[t]!) : '—')),
      ]),
      ['l', 'r', 'l', ...BIG_TABLES.map(() => 'r' as const)],
    ),
    '',
    `The biggest tables (each with its indexes${postgres ? ' and TOAST' : '; from dbstat'}) and what they grew by per merged change request:`,
    '',
    ...table(
      ['table', 'start of the soak', 'end', 'growth', 'per merged change request'],
      Object.keys(end.tables)
        .slice(0, 10)
        .map((t) => {
          const growth = end.tables[t]! - (start.tables[t] ?? 0);
          return [t, megabytes(start.tables[t] ?? 0), megabytes(end.tables[t]!), megabytes(growth), `${fmt(growth / Math.max(1, soak.acknowledged.length) / 1e3, 1)} kB`];
        }),
      ['l', 'r', 'r', 'r', 'r'],
    ),
    '',
  );
  if (soak.errors.length) {
    const groups = new Map<string, number>();
    for (const e of soak.errors) groups.set(`${e.kind} → ${e.status || 'network error'}`, (groups.get(`${e.kind} → ${e.status || 'network error'}`) ?? 0) + 1);
    md.push(
      '## Errors',
      '',
      ...table(['kind → status', 'count'], [...groups.entries()].map(([k, n]) => [k, n]), ['l', 'r']),
      '',
      `The first ${Math.min(ERRORS_LISTED, soak.errors.length)}:`,
      '',
      ...table(
        ['s', 'kind', 'space', 'request', 'status', 'answer'],
        soak.errors.slice(0, ERRORS_LISTED).map((e) => [fmt(e.at / 1000, 1), e.kind, e.space, `${e.method} ${e.path}`, e.status || 'network', `\`${e.answer.replace(/\s+/g, ' ').replaceAll('|', '\\|').replaceAll('`', "'").slice(0, 200)}\``]),
        ['r', 'l', 'l', 'l', 'r', 'l'],
      ),
      '',
    );
  }
  if (v.problems.length) md.push('## Writes missing at the end', '', ...v.problems.slice(0, 50).map((p) => `- ${p}`), '');
  md.push(...machineLoad.markdown());
  writeResults(
    benchRun,
    {
      database: { ...r.database, version: r.version },
      settings: { minutes: MINUTES, clients: CLIENTS, sizes: SIZES, dir: DIR ?? null, label: LABEL, turns: TURNS, mergeAttempts: MERGE_ATTEMPTS },
      spaces: r.spaces.map((s) => ({ label: s.label, pages: s.corpus.pages.length, shape: s.corpus.shape, seedSeconds: s.seed.seconds })),
      seedSeconds: r.seedSeconds,
      soakSeconds: r.soakSeconds,
      requests: samples.length,
      ok: ok.length,
      byKind: byKind.map((k) => ({ kind: k.kind, requests: k.all.length, latencyMs: k.latency })),
      perMinute: Array.from({ length: MINUTE_COUNT }, (_, m) => ({
        minute: m + 1,
        byKind: Object.fromEntries(KINDS.map((kind) => [kind, latencyOf(samples.filter((s) => minuteOf(s.at) === m && s.kind === kind))])) as Record<Kind, Stats>,
      })),
      sessions: { total: soak.sessions, merged: soak.acknowledged.length, conflicts: soak.conflicts, abandoned: soak.abandoned, expected409: soak.expected409 },
      errors: soak.errors,
      sizes: r.sizes,
      sizeCurve: r.sizeCurve,
      memory: r.memory,
      serverPeakMiB: r.serverPeakMiB,
      minuteCpu: r.minuteCpu,
      soakCpu: r.soakCpu,
      verification: v,
      samples: samples.map((s) => [Math.round(s.at), s.kind, s.space, Math.round(s.ms * 10) / 10, s.status]),
    },
    md,
  );
  if (soak.errors.length || v.problems.length) throw new Error(`${soak.errors.length} errors, ${v.problems.length} acknowledged writes missing: see the report`);
}

main(run);

/**
 * Issue 18's memory target: the server's RSS at the end of the soak within 20% of where it was
 * after the first minute (the last sample of minute 1, when the caches have filled).
 */
function memoryTarget(memory: ReadonlyArray<{ at: number; rssMiB: number }>, minuteOf: (at: number) => number): string {
  const firstMinute = memory.filter((x) => minuteOf(x.at) === 0).pop();
  const end = memory[memory.length - 1];
  if (!firstMinute || !end) return 'Memory target (RSS at the end within 20% of after the first minute): not measured (no samples).';
  const growth = end.rssMiB / firstMinute.rssMiB - 1;
  return (
    `**Memory target** (issue 18: RSS at the end within 20% of after the first minute): ${fmt(firstMinute.rssMiB)} MiB after the first minute, ` +
    `${fmt(end.rssMiB)} MiB at the end (${growth >= 0 ? '+' : ''}${fmt(100 * growth, 1)}%) — **${Math.abs(growth) <= 0.2 ? 'met' : 'NOT met'}**.`
  );
}

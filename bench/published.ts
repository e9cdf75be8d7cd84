/**
 * Published page view benchmark: what a site renderer asks this service on every page view, on
 * the app (bench/app-server.ts) over SQLite, or over PostgreSQL with BENCH_DATABASE_URL.
 *
 *   npm run bench:published
 *   BENCH_DATABASE_URL=postgresql://postgres@127.0.0.1:5432/postgres npm run bench:published
 *
 * Setup (not timed), through the API: one organization, spaces of PAGES pages each (default 50:
 * 10 chapters of 4 nested pages), a site of 2 sections x 2 site spaces and a site of 20 sections
 * x 5 site spaces (the same 50-page tree in each of its 100 spaces), both published.
 *
 * Measured, on each site, over URLs of pages (a chapter or a nested page) in several site spaces:
 * 1. the resolution, `POST /v1/urls/published` `{url}` without an Authorization header: latency
 *    one at a time (p50/p95 of BENCH_PUBLISHED_RUNS calls after 5 unmeasured, with statements per
 *    call from `db_queries_total`), then autocannon at BENCH_CONNECTIONS connections (req/s, p50,
 *    p99), and the SQL of one resolution; then the two sites' resolutions taking turns, one at a
 *    time, to compare them under the same machine load;
 * 2. one page view, one call at a time, with the site token the resolution answers as bearer
 *    token: the resolution, `GET /v1/orgs/{organizationId}/sites/{siteId}/published`,
 *    `GET /v1/spaces/{spaceId}`, `GET /v1/spaces/{spaceId}/revisions/{revisionId}/path/{pagePath}`
 *    and `GET .../page/{pageId}/document?evaluated=deterministic-only`: per call and for the
 *    sequence (the sum of its calls), p50/p95 and statements (BENCH_PAGE_VIEWS views after 5
 *    unmeasured).
 * Both also report the server's CPU time per call (from /proc): on a shared machine latencies
 * grow with the others' load, CPU time much less.
 * With BENCH_PROFILE (default 6 s; 0: none), a CPU profile of the server resolving URLs of the
 * small site at BENCH_CONNECTIONS connections (bench/out/, summarised in the report).
 *
 * Environment: see bench/harness.ts. Results: bench/results/<date>-published-<sqlite|postgresql>.md.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  api,
  byKind,
  captureSql,
  CONNECTIONS,
  count,
  cpuMs,
  createBenchDatabase,
  createBenchUser,
  databaseVersion,
  DURATION,
  fmt,
  keepInOut,
  kindTable,
  log,
  machineLoad,
  main,
  measure,
  MEASUREMENT_NOTE,
  measurementTable,
  metricValue,
  PROFILE_SECONDS,
  profileMarkdown,
  profileUnderLoad,
  reportHeader,
  scrapeStatements,
  sqlBlock,
  startRun,
  stats,
  sum,
  summariseProfile,
  table,
  timedCalls,
  WARMUP,
  withChild,
  writeResults,
  type Endpoint,
  type Measurement,
  type ProfileSummary,
  type Stats,
} from './harness.ts';

const PAGES = Number(process.env.BENCH_PUBLISHED_PAGES ?? 50);
const RUNS = Number(process.env.BENCH_PUBLISHED_RUNS ?? 100);
const PAGE_VIEWS = Number(process.env.BENCH_PAGE_VIEWS ?? 40);
const WARM = 5;
/** Chapters of a space: top-level pages, each with the same number of nested pages. */
const CHAPTERS = 10;
const PER_CHAPTER = Math.max(0, Math.round(PAGES / CHAPTERS) - 1);

/** The sites measured: sections x site spaces per section. */
const SHAPES = [
  { key: 'small', sections: 2, siteSpacesPerSection: 2 },
  { key: 'large', sections: 20, siteSpacesPerSection: 5 },
] as const;

/** The pages of a space, by path: chapter c (`chapter-c`) and its nested pages (`chapter-c/topic-c-k`). */
const chapterPath = (c: number) => `chapter-${c}`;
const topicPath = (c: number, k: number) => `chapter-${c}/topic-${c}-${k}`;

interface PageUrl {
  url: string;
  siteSpaceId: string;
  spaceId: string;
  pagePath: string;
}

interface SeededSite {
  key: string;
  title: string;
  id: string;
  sections: number;
  siteSpaces: number;
  /** The URLs measured, in turn. */
  urls: PageUrl[];
}

/** The five calls of one page view. */
const CALLS = [
  'POST /v1/urls/published',
  'GET /v1/orgs/{organizationId}/sites/{siteId}/published',
  'GET /v1/spaces/{spaceId}',
  'GET /v1/spaces/{spaceId}/revisions/{revisionId}/path/{pagePath}',
  'GET /v1/spaces/{spaceId}/revisions/{revisionId}/page/{pageId}/document?evaluated=deterministic-only',
] as const;

/** A JSON call without an Authorization header (the renderer's resolution); throws unless 200. */
async function resolveUrl(baseUrl: string, url: string): Promise<any> {
  const res = await fetch(`${baseUrl}/v1/urls/published`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ url }) });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`POST /v1/urls/published ${url} answered ${res.status}: ${text.slice(0, 2000)}`);
  return JSON.parse(text);
}

/** One call of a page view: its latency, the statements it sent, the server's CPU time meanwhile (10 ms ticks of /proc: meaningful as a mean). */
interface Step {
  ms: number;
  statements: number;
  serverCpuMs: number;
}

/**
 * The calls of one page view of `page`, each timed, with the statements each sent: `db_queries_total`
 * read between calls, outside the timings, less `scrape`, the statements of one read (scrapeStatements).
 */
async function pageView(baseUrl: string, serverPid: number | undefined, organizationId: string, page: PageUrl, scrape: number): Promise<Step[]> {
  const steps: Step[] = [];
  let metric = await metricValue(baseUrl, 'db_queries_total');
  const step = async <T>(call: () => Promise<T>): Promise<T> => {
    const cpu = cpuMs(serverPid);
    const started = performance.now();
    const result = await call();
    const ms = performance.now() - started;
    const serverCpuMs = cpuMs(serverPid) - cpu;
    const now = await metricValue(baseUrl, 'db_queries_total');
    steps.push({ ms, statements: now - metric - scrape, serverCpuMs });
    metric = now;
    return result;
  };
  const resolved = await step(() => resolveUrl(baseUrl, page.url));
  if (resolved.space !== page.spaceId || resolved.pathname !== page.pagePath) throw new Error(`${page.url} resolved to ${JSON.stringify(resolved)}`);
  const token = resolved.apiToken as string;
  await step(() => api(baseUrl, token, 'GET', `/v1/orgs/${organizationId}/sites/${resolved.site}/published`));
  const space = (await step(() => api(baseUrl, token, 'GET', `/v1/spaces/${resolved.space}`))).body;
  const revision = space.revision as string;
  const byPath = (await step(() => api(baseUrl, token, 'GET', `/v1/spaces/${resolved.space}/revisions/${revision}/path/${encodeURIComponent(resolved.pathname)}`))).body;
  if (byPath.path !== page.pagePath) throw new Error(`page by path ${page.pagePath} answered ${byPath.path}`);
  const document = (await step(() => api(baseUrl, token, 'GET', `/v1/spaces/${resolved.space}/revisions/${revision}/page/${byPath.id}/document?evaluated=deterministic-only`))).body;
  if (document.object !== 'document') throw new Error(`the document of ${page.pagePath} answered ${JSON.stringify(document).slice(0, 500)}`);
  return steps;
}

interface SiteResult {
  site: Omit<SeededSite, 'urls'> & { urls: string[] };
  resolution: { latency: Stats; statements: number; serverCpuMs: number };
  load: Measurement;
  resolutionSql: string[];
  pageView: {
    total: { latency: Stats; statements: number; serverCpuMs: number };
    calls: Array<{ call: string; latency: Stats; statements: number; serverCpuMs: number }>;
    /** One page view's calls, captured: their SQL and the size of their answers (JSON as sent, re-serialised). */
    sql: Array<{ call: string; statements: string[]; bytes: number }>;
  };
}

main(async () => {
  const run = startRun('published');
  const database = await createBenchDatabase('published');
  const admin = await createBenchUser(database, 'admin@bench.local');
  const env = { DATABASE_URL: database.url, LOG_LEVEL: 'silent', RATE_LIMIT_POINTS: '100000000', JOB_POLL_MS: '3600000' };
  let version = '';
  let seedSeconds = 0;
  const results: SiteResult[] = [];
  const endpoints: Endpoint[] = [];
  /** GET /healthz and GET /v1/spaces/{spaceId} under the same load, measured once. */
  const references: Measurement[] = [];
  /** The resolutions of the two sites, one at a time, taking turns. */
  const interleaved: Array<{ site: string; latency: Stats; serverCpuMs: number }> = [];
  let profile: ProfileSummary | null = null;
  try {
    await withChild('app-server.ts', env, async (child) => {
      const baseUrl = child.baseUrl;
      const serverPid = child.process.pid;
      const call = (method: string, p: string, body?: unknown, expected = 200) => api(baseUrl, admin.token, method, p, body, expected);
      version = await databaseVersion(database);
      const seedStarted = performance.now();
      const org = (await call('POST', '/v1/orgs', { title: 'Bench published org' }, 201)).body.id as string;

      // Spaces: the same tree of pages in each, written in one merged change request.
      const spaceCount = Math.max(...SHAPES.map((s) => s.sections * s.siteSpacesPerSection));
      const changes = Array.from({ length: CHAPTERS }, (_, c) => [
        { operation: 'insert_page', ref: `c${c}`, title: `Chapter ${c}`, slug: chapterPath(c), document: { markdown: `# Chapter ${c}\n\nAn introduction to chapter ${c}.\n` } },
        ...Array.from({ length: PER_CHAPTER }, (_, k) => ({
          operation: 'insert_page',
          into: `c${c}`,
          title: `Topic ${c}.${k}`,
          slug: `topic-${c}-${k}`,
          document: { markdown: `# Topic ${c}.${k}\n\nSome text about topic ${k} of chapter ${c}, with **emphasis** and \`code\`.\n\n- one\n- two\n\nSee [chapter ${c}](../${chapterPath(c)}.md).\n` },
        })),
      ]).flat();
      const spaces: string[] = [];
      log(`seeding ${spaceCount} spaces of ${changes.length} pages`);
      for (let i = 0; i < spaceCount; i++) {
        const space = (await call('POST', `/v1/orgs/${org}/spaces`, { title: `Space ${i}` }, 201)).body.id as string;
        const cr = (await call('POST', `/v1/spaces/${space}/change-requests`, { subject: 'Pages' }, 201)).body.id as string;
        await call('POST', `/v1/spaces/${space}/change-requests/${cr}/content`, { changes });
        await call('PATCH', `/v1/spaces/${space}/change-requests/${cr}`, { status: 'open' });
        const merged = await call('POST', `/v1/spaces/${space}/change-requests/${cr}/merge`);
        if (merged.body.result !== 'merge') throw new Error(`space ${i} did not merge: ${JSON.stringify(merged.body)}`);
        spaces.push(space);
      }

      const sites: SeededSite[] = [];
      for (const shape of SHAPES) {
        const title = `${shape.sections} sections x ${shape.siteSpacesPerSection} site spaces`;
        const site = (await call('POST', `/v1/orgs/${org}/sites`, { title: `Docs ${shape.key}` }, 201)).body.id as string;
        const siteBase = `/v1/orgs/${org}/sites/${site}`;
        // placed[s][k]: site space k of section s.
        const placed: Array<Array<{ id: string; spaceId: string; path: string; sectionPath: string }>> = [];
        for (let s = 0; s < shape.sections; s++) {
          const first = spaces[s * shape.siteSpacesPerSection]!;
          const section = (await call('POST', `${siteBase}/sections`, { spaceId: first, title: `Section ${s}` }, 201)).body;
          const row = [{ id: section.siteSpaces[0].id as string, spaceId: first, path: section.siteSpaces[0].path as string, sectionPath: section.path as string }];
          for (let k = 1; k < shape.siteSpacesPerSection; k++) {
            const spaceId = spaces[s * shape.siteSpacesPerSection + k]!;
            const added = (await call('POST', `${siteBase}/site-spaces`, { spaceId, sectionId: section.id }, 201)).body;
            row.push({ id: added.id, spaceId, path: added.path, sectionPath: section.path });
          }
          placed.push(row);
        }
        const published = (await call('POST', `${siteBase}/publish`)).body;
        const siteUrl = (published.urls.published as string).replace(/\/?$/, '/');
        // Pages in turn: every site space of the small site; on the large one, site spaces of the first, middle and last sections.
        const sectionsMeasured = shape.sections <= 2 ? placed.map((_, s) => s) : [0, Math.floor(shape.sections / 2), shape.sections - 1];
        const urls: PageUrl[] = [];
        for (const s of sectionsMeasured) {
          const row = placed[s]!;
          for (const [k, siteSpace] of (shape.sections <= 2 ? row : [row[0]!, row[row.length - 1]!]).entries()) {
            for (const pagePath of [chapterPath((s + k) % CHAPTERS), topicPath((s + k + 3) % CHAPTERS, PER_CHAPTER - 1)]) {
              urls.push({ url: `${siteUrl}${siteSpace.sectionPath}/${siteSpace.path}/${pagePath}`, siteSpaceId: siteSpace.id, spaceId: siteSpace.spaceId, pagePath });
            }
          }
        }
        sites.push({ key: shape.key, title, id: site, sections: shape.sections, siteSpaces: shape.sections * shape.siteSpacesPerSection, urls });
      }
      seedSeconds = (performance.now() - seedStarted) / 1000;
      log(`seeded in ${fmt(seedSeconds)} s`);

      for (const site of sites) {
        // Every URL resolves to its site space and page path, completely.
        for (const page of site.urls) {
          const r = await resolveUrl(baseUrl, page.url);
          if (r.site !== site.id || r.siteSpace !== page.siteSpaceId || r.space !== page.spaceId || r.pathname !== page.pagePath || r.complete !== true) {
            throw new Error(`${page.url} resolved to ${JSON.stringify(r)}`);
          }
        }
        const { statements: resolutionSql } = await captureSql(child, () => resolveUrl(baseUrl, site.urls[1]!.url));

        await machineLoad.settle(`before the resolutions on the ${site.title} site, one at a time`);
        let i = 0;
        // The server's CPU time over the calls (the two /metrics scrapes of timedCalls included: a few hundredths of a ms per call).
        const cpuBefore = cpuMs(serverPid);
        const timed = await timedCalls(baseUrl, RUNS, WARM, async () => {
          await resolveUrl(baseUrl, site.urls[i++ % site.urls.length]!.url);
        });
        const resolution = { ...timed, serverCpuMs: (cpuMs(serverPid) - cpuBefore) / (RUNS + WARM) };
        log(`${site.title}: resolution p50 ${fmt(resolution.latency.p50, 2)} ms, p95 ${fmt(resolution.latency.p95, 2)} ms, ${fmt(resolution.statements, 2)} statements, server CPU ${fmt(resolution.serverCpuMs, 2)} ms/call`);

        await machineLoad.settle(`before the resolutions on the ${site.title} site, ${CONNECTIONS} connections`);
        const endpoint: Endpoint = {
          key: `resolve-${site.key}`,
          label: `POST /v1/urls/published (${site.title})`,
          paths: ['/v1/urls/published'],
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          bodies: site.urls.map((u) => JSON.stringify({ url: u.url })),
        };
        endpoints.push(endpoint);
        // No bearer token: the renderer resolves URLs anonymously.
        const load = await measure(baseUrl, endpoint, '');
        if (references.length === 0) {
          // The same server's floor and a one-row read, at the same moment: the machine's speed varies (a shared VM).
          const { apiToken, space } = await resolveUrl(baseUrl, site.urls[0]!.url);
          const health: Endpoint = { key: 'healthz', label: 'GET /healthz (reference: yoga + one Prisma SELECT 1, no GraphQL)', paths: ['/healthz'] };
          const getSpace: Endpoint = { key: 'get-space', label: 'GET /v1/spaces/{spaceId} (reference: with the site token of a resolution)', paths: [`/v1/spaces/${space}`], sameSize: true };
          await machineLoad.settle('before the references');
          references.push(await measure(baseUrl, health, ''), await measure(baseUrl, getSpace, apiToken));
        }

        await machineLoad.settle(`before the page views on the ${site.title} site`);
        const scrape = await scrapeStatements(baseUrl);
        const view = (n: number) => pageView(baseUrl, serverPid, org, site.urls[n % site.urls.length]!, scrape);
        for (let w = 0; w < WARM; w++) await view(w);
        const views: Step[][] = [];
        for (let v = 0; v < PAGE_VIEWS; v++) views.push(await view(v));
        const mean = (values: number[]) => sum(values) / values.length;
        const total = (steps: Step[], key: keyof Step) => sum(steps.map((step) => step[key]));

        // The SQL of each call of one page view, after the measured ones (the site token of its URL used before: in the viewer cache).
        const sql: SiteResult['pageView']['sql'] = [];
        {
          const page = site.urls[1]!;
          const resolved = await captureSql(child, () => resolveUrl(baseUrl, page.url));
          sql.push({ call: CALLS[0], statements: resolved.statements, bytes: JSON.stringify(resolved.result).length });
          const { apiToken: token, space: spaceId, pathname } = resolved.result as { apiToken: string; space: string; pathname: string };
          const get = async (n: number, p: string) => {
            const { result, statements } = await captureSql(child, () => api(baseUrl, token, 'GET', p));
            sql.push({ call: CALLS[n]!, statements, bytes: JSON.stringify(result.body).length });
            return result.body;
          };
          await get(1, `/v1/orgs/${org}/sites/${site.id}/published`);
          const revision = (await get(2, `/v1/spaces/${spaceId}`)).revision as string;
          const pageId = (await get(3, `/v1/spaces/${spaceId}/revisions/${revision}/path/${encodeURIComponent(pathname)}`)).id as string;
          await get(4, `/v1/spaces/${spaceId}/revisions/${revision}/page/${pageId}/document?evaluated=deterministic-only`);
        }
        const pageViewResult: SiteResult['pageView'] = {
          total: { latency: stats(views.map((steps) => total(steps, 'ms'))), statements: mean(views.map((steps) => total(steps, 'statements'))), serverCpuMs: mean(views.map((steps) => total(steps, 'serverCpuMs'))) },
          calls: CALLS.map((label, n) => ({
            call: label,
            latency: stats(views.map((steps) => steps[n]!.ms)),
            statements: mean(views.map((steps) => steps[n]!.statements)),
            serverCpuMs: mean(views.map((steps) => steps[n]!.serverCpuMs)),
          })),
          sql,
        };
        log(`${site.title}: page view p50 ${fmt(pageViewResult.total.latency.p50, 1)} ms, p95 ${fmt(pageViewResult.total.latency.p95, 1)} ms, ${fmt(pageViewResult.total.statements, 1)} statements, server CPU ${fmt(pageViewResult.total.serverCpuMs, 1)} ms`);
        results.push({ site: { ...site, urls: site.urls.map((u) => u.url) }, resolution, load, resolutionSql, pageView: pageViewResult });
      }

      // The two sites' resolutions taking turns, one at a time: whatever else the machine runs meanwhile weighs on both alike.
      await machineLoad.settle('before the resolutions of the two sites taking turns');
      const turns = sites.map(() => ({ ms: [] as number[], cpu: 0 }));
      for (let n = -WARM; n < RUNS; n++) {
        for (const [k, site] of sites.entries()) {
          const cpu = cpuMs(serverPid);
          const started = performance.now();
          await resolveUrl(baseUrl, site.urls[(n + WARM) % site.urls.length]!.url);
          const ms = performance.now() - started;
          if (n < 0) continue;
          turns[k]!.ms.push(ms);
          turns[k]!.cpu += cpuMs(serverPid) - cpu;
        }
      }
      interleaved.push(...sites.map((site, k) => ({ site: site.title, latency: stats(turns[k]!.ms), serverCpuMs: turns[k]!.cpu / RUNS })));
      log(`taking turns: ${interleaved.map((t) => `${t.site} p50 ${fmt(t.latency.p50, 2)} ms, server CPU ${fmt(t.serverCpuMs, 2)} ms`).join('; ')}`);
    });
    // Where the server's time goes when it resolves URLs of the small site (a fresh server on the same database).
    if (PROFILE_SECONDS > 0) {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-prof-'));
      try {
        const file = path.join(dir, 'resolve.cpuprofile');
        await machineLoad.settle('before the CPU profile');
        await profileUnderLoad(env, endpoints[0]!, '', file);
        profile = summariseProfile(keepInOut(file, `${run.name}-resolve.cpuprofile`));
      } finally {
        fs.rmSync(dir, { recursive: true, force: true });
      }
    }
  } finally {
    await database.drop();
  }
  await machineLoad.read('after the run');

  const md = reportHeader(run, 'Published page view: POST /v1/urls/published and the reads of one page', { description: database.description, version });
  md.push(
    `Data (seeded through the API in ${fmt(seedSeconds)} s, not timed): 1 organization; ${count(Math.max(...SHAPES.map((s) => s.sections * s.siteSpacesPerSection)))} spaces of ${CHAPTERS * (1 + PER_CHAPTER)} pages ` +
      `(${CHAPTERS} chapters of ${PER_CHAPTER} nested pages, one merged change request each); two published sites (public, no custom hostname): ` +
      SHAPES.map((s) => `${s.sections} sections x ${s.siteSpacesPerSection} site spaces`).join(' and ') +
      ', each site space publishing a space of its own. URLs are `<site URL>/<section path>/<site space path>/<page path>`, ' +
      'the site URL `<SITES_URL>/<organizationId>/<site basename>/` (SITES_URL: PUBLIC_URL/sites, `http://bench.local/sites`); pages in turn: ' +
      'on the small site a chapter and a nested page of each of its 4 site spaces, on the large one of the first and last site spaces of its first, middle and last sections. ' +
      'Each URL was checked to resolve to its site space and page path with `complete: true` before measuring.',
    '',
    '## Resolution: POST /v1/urls/published (no Authorization header)',
    '',
    `One at a time: ${RUNS} calls after ${WARM} unmeasured; statements per call from \`db_queries_total\` (less the statement each scrape of /metrics sends itself). ` +
      "Server CPU: the app server's user + system time (from /proc) over the calls, per call: unlike latencies, it does not grow when other processes take the cores.",
    '',
    ...table(
      ['site', 'site spaces', 'p50 ms', 'p95 ms', 'statements/call', 'server CPU ms/call'],
      results.map((r) => [r.site.title, r.site.siteSpaces, fmt(r.resolution.latency.p50, 2), fmt(r.resolution.latency.p95, 2), fmt(r.resolution.statements, 2), fmt(r.resolution.serverCpuMs, 2)]),
      ['l', 'r', 'r', 'r', 'r', 'r'],
    ),
    '',
    `Under load: autocannon, ${CONNECTIONS} connections, ${WARMUP} s warm-up then ${DURATION} s measured, the URLs in turn. ${MEASUREMENT_NOTE}`,
    '',
    ...measurementTable(
      [
        ...results.map((r) => ({ server: 'app', m: r.load, vs: r === results[0] ? '—' : `${fmt(r.load.rps / results[0]!.load.rps, 2)}x` })),
        ...references.map((m) => ({ server: 'app', m, vs: '—' })),
      ],
      'req/s vs the small site',
    ),
    '',
    `Server CPU per request under load: ${[...results.map((r) => ({ label: r.site.title, m: r.load })), ...references.map((m) => ({ label: m.label.replace(/ \(reference.*/, ''), m }))]
      .map(({ label, m }) => `${label}, ${fmt(m.cpu.serverMs / m.requests, 2)} ms`)
      .join('; ')}.`,
    '',
    `The two sites' resolutions taking turns (small, large, small, ...; ${RUNS} calls each after ${WARM} unmeasured), so that what else runs on the machine weighs on both alike:`,
    '',
    ...table(
      ['site', 'p50 ms', 'p95 ms', 'server CPU ms/call (mean)', 'p50 vs the small site', 'CPU vs the small site'],
      interleaved.map((t) => [
        t.site,
        fmt(t.latency.p50, 2),
        fmt(t.latency.p95, 2),
        fmt(t.serverCpuMs, 2),
        `${fmt(t.latency.p50 / interleaved[0]!.latency.p50, 2)}x`,
        `${fmt(t.serverCpuMs / interleaved[0]!.serverCpuMs, 2)}x`,
      ]),
      ['l', 'r', 'r', 'r', 'r', 'r'],
    ),
    '',
    '## One page view, one call at a time',
    '',
    `The five calls a renderer makes for one page, in order, the four reads with the site token the resolution answers as bearer token; ${PAGE_VIEWS} page views after ${WARM} unmeasured, the URLs in turn. ` +
      'The total is the sum of the five calls (the `/metrics` reads between calls, for the statements of each, are not counted). ' +
      "Server CPU per call is read from /proc in 10 ms ticks: only its mean over the page views means something. " +
      'A mean statement count with a fraction: a call that sometimes sends one more (the site token verified with its signing key, `SELECT OrganizationSigningKey`, ' +
      'when the viewer cache does not hold it: its first use, or a verification older than VIEWER_CACHE_MAX_AGE_MS, 5 s by default).',
    '',
  );
  for (const r of results) {
    md.push(
      `### ${r.site.title}`,
      '',
      ...table(
        ['call', 'p50 ms', 'p95 ms', 'statements (mean)', 'server CPU ms (mean)', 'bytes (one answer)'],
        [
          ...r.pageView.calls.map((c, n) => [
            `\`${c.call}\``,
            fmt(c.latency.p50, 2),
            fmt(c.latency.p95, 2),
            fmt(c.statements, 2),
            fmt(c.serverCpuMs, 1),
            count(r.pageView.sql[n]!.bytes),
          ]),
          [
            '**the page view (sum)**',
            `**${fmt(r.pageView.total.latency.p50, 2)}**`,
            `**${fmt(r.pageView.total.latency.p95, 2)}**`,
            `**${fmt(r.pageView.total.statements, 2)}**`,
            `**${fmt(r.pageView.total.serverCpuMs, 1)}**`,
            `**${count(sum(r.pageView.sql.map((c) => c.bytes)))}**`,
          ],
        ],
        ['l', 'r', 'r', 'r', 'r', 'r'],
      ),
      '',
    );
  }
  md.push(...machineLoad.markdown());
  if (profile) md.push(...profileMarkdown(profile, `POST /v1/urls/published, ${results[0]!.site.title} site, ${CONNECTIONS} connections`));
  md.push('## SQL of one resolution', '');
  // Without the schema qualifier (the run's PostgreSQL schema, SQLite's `main`), so that the WHERE clauses fit.
  const unqualified = (sql: string) => sql.replace(/"bench_\w+"\./g, '').replace(/`main`\./g, '');
  for (const r of results) md.push(`${r.site.title}: ${r.resolutionSql.length} statements`, '', ...sqlBlock(r.resolutionSql.map(unqualified), 700), '');
  md.push('## Statements of one page view, by call', '');
  for (const r of results) {
    md.push(`${r.site.title} (captured from one page view, the process warm):`, '', ...kindTable(r.pageView.sql.map((s, n) => ({ label: `${n + 1}`, kinds: byKind(s.statements) }))), '');
  }
  md.push(`Columns: ${CALLS.map((c, n) => `${n + 1} \`${c}\``).join(', ')}.`, '');
  const settings = { pages: CHAPTERS * (1 + PER_CHAPTER), runs: RUNS, pageViews: PAGE_VIEWS, warm: WARM, durationSeconds: DURATION, warmupSeconds: WARMUP, connections: CONNECTIONS };
  writeResults(run, { settings, results, interleaved, references, profile }, md);
});

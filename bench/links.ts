/**
 * Link report benchmark (issue 19): `GET /v1/spaces/{spaceId}/links` on a space of PAGES pages
 * (default 1,000) with LINKS links each (default 10: to 8 other pages, to one URL of its own, and
 * one broken page reference), on the app (bench/app-server.ts) over SQLite, or over PostgreSQL
 * with BENCH_DATABASE_URL.
 *
 *   npm run bench:links
 *   BENCH_DATABASE_URL=postgresql://postgres@127.0.0.1:5432/postgres npm run bench:links
 *
 * Setup (not timed): the pages are written through the API, 50 per change request, merged. The
 * report is read when a tenth of the pages are there and again with all of them: the statements
 * per request must be the same (a constant number, whatever the pages and links). Per request:
 * latency (client side, p50/p95, BENCH_LIST_RUNS requests one at a time after 5 unmeasured) and
 * statements (`db_queries_total` delta). Results: bench/results/<date>-links-<sqlite|postgresql>.md.
 */
import {
  api,
  count,
  createBenchDatabase,
  createBenchUser,
  databaseVersion,
  fmt,
  log,
  machineLoad,
  main,
  reportHeader,
  startRun,
  table,
  timedCalls,
  withChild,
  writeResults,
  type Stats,
} from './harness.ts';

const PAGES = Number(process.env.BENCH_LINK_PAGES ?? 1000);
const LIST_RUNS = Number(process.env.BENCH_LIST_RUNS ?? 30);
const BATCH = 50;
const WARM = 5;

const slugOf = (n: number) => `p${String(n).padStart(4, '0')}`;

/** Page `n`'s Markdown: 8 links to other pages (by path), a URL of its own, a reference to a page that does not exist. */
function markdownOf(n: number): string {
  const targets = Array.from({ length: 8 }, (_, k) => (n * 7 + k * 131 + 1) % PAGES).map((t) => (t === n ? (t + 1) % PAGES : t));
  const links = targets.map((t) => `[page ${t}](./${slugOf(t)}.md)`).join(', ');
  return `# Page ${n}\n\nSee ${links}.\n\nMore at [the site](https://example.com/docs/${n}) and [an old page](/pages/gone-${n}).\n`;
}

main(async () => {
  const run = startRun('links');
  const database = await createBenchDatabase('links');
  const admin = await createBenchUser(database, 'admin@bench.local');
  const env = { DATABASE_URL: database.url, LOG_LEVEL: 'silent', RATE_LIMIT_POINTS: '100000000', JOB_POLL_MS: '3600000' };
  let version = '';
  const measured: { pages: number; links: number; result: { latency: Stats; statements: number }; total: number; broken: number }[] = [];
  try {
    await withChild('app-server.ts', env, async (child) => {
      const baseUrl = child.baseUrl;
      version = await databaseVersion(database);
      const org = (await api(baseUrl, admin.token, 'POST', '/v1/orgs', { title: 'Bench links org' }, 201)).body.id as string;
      const space = (await api(baseUrl, admin.token, 'POST', `/v1/orgs/${org}/spaces`, { title: 'Linked' }, 201)).body.id as string;
      // Pages are created first (empty), then their text: every link names a page that exists.
      const write = async (from: number, to: number, changes: (n: number) => unknown) => {
        for (let start = from; start < to; start += BATCH) {
          const cr = (await api(baseUrl, admin.token, 'POST', `/v1/spaces/${space}/change-requests`, { subject: `Pages ${start}` }, 201)).body.id as string;
          const batch = Array.from({ length: Math.min(BATCH, to - start) }, (_, k) => changes(start + k));
          await api(baseUrl, admin.token, 'POST', `/v1/spaces/${space}/change-requests/${cr}/content`, { changes: batch });
          await api(baseUrl, admin.token, 'PATCH', `/v1/spaces/${space}/change-requests/${cr}`, { status: 'open' });
          const merged = await api(baseUrl, admin.token, 'POST', `/v1/spaces/${space}/change-requests/${cr}/merge`);
          if (merged.body.result !== 'merge') throw new Error(`batch ${start} did not merge: ${JSON.stringify(merged.body)}`);
        }
      };
      log(`creating ${PAGES} pages`);
      await write(0, PAGES, (n) => ({ operation: 'insert_page', title: `Page ${n}`, slug: slugOf(n), document: { markdown: `# Page ${n}\n` } }));
      const ids = new Map<string, string>(((await api(baseUrl, admin.token, 'GET', `/v1/spaces/${space}/content/pages`)).body.pages as { slug: string; id: string }[]).map((p) => [p.slug, p.id]));

      for (const upTo of [Math.ceil(PAGES / 10), PAGES]) {
        const from = measured.length ? measured[measured.length - 1]!.pages : 0;
        log(`linking pages ${from} to ${upTo - 1}`);
        await write(from, upTo, (n) => ({ operation: 'update_page', page: ids.get(slugOf(n))!, document: { markdown: markdownOf(n) } }));
        await machineLoad.settle(`before the link report of ${upTo} linked pages`);
        let total = 0;
        let broken = 0;
        const result = await timedCalls(baseUrl, LIST_RUNS, WARM, async () => {
          const reply = await api(baseUrl, admin.token, 'GET', `/v1/spaces/${space}/links?limit=100`);
          total = reply.body.stats.total as number;
          broken = reply.body.stats.broken.total as number;
          if ((reply.body.items as unknown[]).length !== 100) throw new Error('the report lost links');
        });
        measured.push({ pages: upTo, links: upTo * 10, result, total, broken });
        log(`${upTo} pages: p50 ${fmt(result.latency.p50, 1)} ms, ${fmt(result.statements, 1)} statements, ${total} distinct targets (${broken} broken)`);
      }
    });
  } finally {
    await database.drop();
  }

  const md = reportHeader(run, 'Link report: GET /v1/spaces/{spaceId}/links', { description: database.description, version });
  md.push(`## The report of a space's links (first 100 of them), ${LIST_RUNS} requests one at a time`, '');
  md.push(
    ...table(
      ['linked pages', 'links in documents', 'distinct targets (broken)', 'p50 ms', 'p95 ms', 'statements/request'],
      measured.map((m) => [count(m.pages), count(m.links), `${count(m.total)} (${count(m.broken)})`, fmt(m.result.latency.p50, 1), fmt(m.result.latency.p95, 1), fmt(m.result.statements, 1)]),
      ['r', 'r', 'r', 'r', 'r', 'r'],
    ),
    '',
  );
  writeResults(run, { measured }, md);
});

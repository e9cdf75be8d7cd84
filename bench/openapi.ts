/**
 * OpenAPI spec processing benchmark (issue 21), through the API as `gitbook openapi publish` uses
 * it, on the app (bench/app-server.ts) over SQLite, or over PostgreSQL with BENCH_DATABASE_URL:
 * `PUT /v1/orgs/{org}/openapi/{slug}` with @gitbook/api's own OpenAPI document (1.1 MB JSON), the
 * same as YAML, and from a URL this process serves; then reading it back.
 *
 *   npm run bench:openapi
 *   BENCH_DATABASE_URL=postgresql://postgres@127.0.0.1:5432/postgres npm run bench:openapi
 *
 * Per case, BENCH_OPENAPI_RUNS runs (default 5), each a new version (the document's info.version
 * changed): the PUT's latency (the body taken, checked and stored, the job queued) and the time
 * until the spec is `complete` (the job run on the worker pool: fetched, parsed, validated, every
 * $ref checked, files stored), polled every 10 ms. Then a PUT of the same text again (no new
 * version). Reads: the latest version's content (the parsed document, as the renderer reads it)
 * and the organization's list of specs, latency and statements per request. The server's resident
 * memory after each case and its peak. Results: bench/results/<date>-openapi-<sqlite|postgresql>.md.
 */
import { readFile } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { stringify } from 'yaml';
import {
  api,
  createBenchDatabase,
  createBenchUser,
  databaseVersion,
  fmt,
  log,
  machineLoad,
  main,
  memoryMiB,
  reportHeader,
  sleep,
  startRun,
  stats,
  table,
  timedCalls,
  withChild,
  writeResults,
  type Stats,
} from './harness.ts';

const RUNS = Number(process.env.BENCH_OPENAPI_RUNS ?? 5);
const READ_RUNS = Number(process.env.BENCH_LIST_RUNS ?? 30);
const GITBOOK_API_SPEC = fileURLToPath(new URL('../node_modules/@gitbook/api/spec/openapi.json', import.meta.url));

interface CaseResult {
  name: string;
  bytes: number;
  put: Stats;
  complete: Stats;
  unchanged: { put: number; complete: number; versions: number };
  rssMiB: number;
}

main(async () => {
  const run = startRun('openapi');
  const database = await createBenchDatabase('openapi');
  const admin = await createBenchUser(database, 'admin@bench.local');
  const json = await readFile(GITBOOK_API_SPEC, 'utf8');
  const parsed = JSON.parse(json) as { info: { version: string } };
  /** The document of run `n`: the same but for info.version, so that each run makes a version. */
  const documentOf = (format: 'json' | 'yaml', n: number) => {
    const doc = { ...parsed, info: { ...parsed.info, version: `bench-${n}` } };
    return format === 'json' ? JSON.stringify(doc, null, 2) : stringify(doc);
  };
  // The URL case's document, served by this process (the app fetches it like any spec's URL).
  let served = '';
  const files = http.createServer((_request, response) => response.writeHead(200, { 'content-type': 'application/json' }).end(served));
  await new Promise<void>((resolve) => files.listen(0, '127.0.0.1', resolve));
  const specUrl = `http://127.0.0.1:${(files.address() as AddressInfo).port}/openapi.json`;

  const env = { DATABASE_URL: database.url, LOG_LEVEL: 'silent', RATE_LIMIT_POINTS: '100000000', JOB_POLL_MS: '3600000', FETCH_ALLOW_PRIVATE_ADDRESSES: 'true' };
  let version = '';
  const cases: CaseResult[] = [];
  const reads: { label: string; result: { latency: Stats; statements: number }; bytes: number }[] = [];
  let rssStart = 0;
  let rssPeak = 0;
  try {
    await withChild('app-server.ts', env, async (child) => {
      const baseUrl = child.baseUrl;
      version = await databaseVersion(database);
      const pid = child.process.pid;
      rssStart = memoryMiB(pid).rssMiB;
      const org = (await api(baseUrl, admin.token, 'POST', '/v1/orgs', { title: 'Bench OpenAPI org' }, 201)).body.id as string;
      const specPath = (slug: string) => `/v1/orgs/${org}/openapi/${slug}`;

      /** PUTs `source` and waits until the spec is complete with a version other than `previous`; ms for each. */
      const putAndProcess = async (slug: string, source: unknown, previous: string | null, expectNew: boolean) => {
        const started = performance.now();
        const put = await api(baseUrl, admin.token, 'PUT', specPath(slug), { source }, previous === null ? 201 : 200);
        for (;;) {
          const spec = (await api(baseUrl, admin.token, 'GET', specPath(slug))).body;
          if (spec.processingState === 'complete') {
            if (spec.lastProcessErrorCode) throw new Error(`${slug}: processing failed: ${JSON.stringify(spec.lastProcessedErrors)}`);
            if (expectNew && spec.lastVersion === previous) throw new Error(`${slug}: no new version`);
            return { putMs: put.ms, completeMs: performance.now() - started, lastVersion: spec.lastVersion as string };
          }
          await sleep(10);
        }
      };

      const measureCase = async (name: string, slug: string, sourceOf: (n: number) => { source: unknown; bytes: number }) => {
        await machineLoad.settle(`before ${name}`);
        let last: string | null = null;
        const puts: number[] = [];
        const completes: number[] = [];
        let bytes = 0;
        // Run 0 makes the spec and warms the worker pool's thread: not measured.
        for (let n = 0; n <= RUNS; n++) {
          const { source, bytes: size } = sourceOf(n);
          bytes = size;
          const r = await putAndProcess(slug, source, last, true);
          last = r.lastVersion;
          if (n > 0) {
            puts.push(r.putMs);
            completes.push(r.completeMs);
          }
          log(`${name} run ${n}: PUT ${fmt(r.putMs)} ms, complete after ${fmt(r.completeMs)} ms`);
        }
        const same = sourceOf(RUNS);
        const unchanged = await putAndProcess(slug, same.source, last, false);
        const versions = (await api(baseUrl, admin.token, 'GET', `${specPath(slug)}/versions`)).body.items.length as number;
        if (unchanged.lastVersion !== last) throw new Error(`${name}: the same document made a version`);
        const rssMiB = memoryMiB(pid).rssMiB;
        cases.push({ name, bytes, put: stats(puts), complete: stats(completes), unchanged: { put: unchanged.putMs, complete: unchanged.completeMs, versions }, rssMiB });
      };

      await measureCase('JSON text (@gitbook/api 0.146.0)', 'gitbook-json', (n) => {
        const text = documentOf('json', n);
        return { source: { text }, bytes: Buffer.byteLength(text) };
      });
      await measureCase('YAML text (the same document)', 'gitbook-yaml', (n) => {
        const text = documentOf('yaml', n);
        return { source: { text }, bytes: Buffer.byteLength(text) };
      });
      await measureCase('URL (the JSON, fetched from a local server)', 'gitbook-url', (n) => {
        served = documentOf('json', n);
        return { source: { url: specUrl }, bytes: Buffer.byteLength(served) };
      });

      await machineLoad.settle('before the reads');
      let contentBytes = 0;
      reads.push({
        label: 'GET .../openapi/gitbook-json/versions/latest/content',
        result: await timedCalls(baseUrl, READ_RUNS, 3, async () => {
          const res = await fetch(`${baseUrl}${specPath('gitbook-json')}/versions/latest/content`, { headers: { authorization: `Bearer ${admin.token}` } });
          const text = await res.text();
          if (res.status !== 200) throw new Error(`content answered ${res.status}`);
          contentBytes = Buffer.byteLength(text);
        }),
        bytes: contentBytes,
      });
      reads[0]!.bytes = contentBytes;
      let listBytes = 0;
      reads.push({
        label: 'GET /v1/orgs/{org}/openapi (3 specs)',
        result: await timedCalls(baseUrl, READ_RUNS, 3, async () => {
          const res = await api(baseUrl, admin.token, 'GET', `/v1/orgs/${org}/openapi`);
          listBytes = JSON.stringify(res.body).length;
        }),
        bytes: 0,
      });
      reads[1]!.bytes = listBytes;
      rssPeak = memoryMiB(pid).peakMiB;
    });
  } finally {
    await database.drop();
    await new Promise((resolve) => files.close(resolve));
  }

  const md = reportHeader(run, 'OpenAPI spec processing: PUT /v1/orgs/{org}/openapi/{slug} until complete', { description: database.description, version });
  md.push(`## Processing, ${RUNS} new versions per case after one unmeasured (the spec's creation)`, '');
  md.push(
    'The PUT: body received, checked and stored, the job queued. Complete: from sending the PUT to the spec `complete` (polled every 10 ms; the job starts on its announcement, the dispatcher polls no more).',
    '',
  );
  md.push(
    ...table(
      ['case', 'document', 'PUT p50 ms', 'complete p50 ms', 'complete p95 ms', 'same again: complete ms (versions)', 'server RSS after, MiB'],
      cases.map((c) => [
        c.name,
        `${fmt(c.bytes / 1024 / 1024, 2)} MB`,
        fmt(c.put.p50),
        fmt(c.complete.p50),
        fmt(c.complete.p95),
        `${fmt(c.unchanged.complete)} (${c.unchanged.versions})`,
        fmt(c.rssMiB),
      ]),
      ['l', 'r', 'r', 'r', 'r', 'r', 'r'],
    ),
    '',
    `Server resident memory: ${fmt(rssStart)} MiB at start, peak ${fmt(rssPeak)} MiB.`,
    '',
  );
  md.push(`## Reads, ${READ_RUNS} requests one at a time`, '');
  md.push(
    ...table(
      ['request', 'answer', 'p50 ms', 'p95 ms', 'statements/request'],
      reads.map((r) => [r.label, `${fmt(r.bytes / 1024, 0)} KiB`, fmt(r.result.latency.p50, 1), fmt(r.result.latency.p95, 1), fmt(r.result.statements, 1)]),
      ['l', 'r', 'r', 'r', 'r'],
    ),
    '',
  );
  writeResults(run, { cases, reads, rssStart, rssPeak }, md);
});

/**
 * Docs insights benchmark (issue 22), on the app (bench/app-server.ts) over SQLite, or over
 * PostgreSQL with BENCH_DATABASE_URL: a burst of BENCH_INSIGHTS_CONVERSATIONS (default 1,000)
 * support conversations ingested through `POST /v1/orgs/{org}/conversations`, 100 per request
 * (the labelled set of test/insights/fixtures/, each conversation again under new ids until the
 * count is reached), then read by the default engine.
 *
 *   npm run bench:insights
 *   BENCH_DATABASE_URL=postgresql://postgres@127.0.0.1:5432/postgres npm run bench:insights
 *
 * Reports the ingest throughput (conversations per second, the requests one after the other),
 * the time from the first ingest until every conversation is read, how many processing jobs the
 * burst made, the issues and clusters found, and the server's resident memory.
 * Results: bench/results/<date>-insights-<sqlite|postgresql>.md.
 */
import { loadLabelledSet } from '../test/insights/labelled-set.ts';
import { createDb } from '../src/db/client.ts';
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
  withChild,
  writeResults,
} from './harness.ts';

const COUNT = Number(process.env.BENCH_INSIGHTS_CONVERSATIONS ?? 1000);
const PER_REQUEST = 100;

main(async () => {
  const run = startRun('insights');
  const database = await createBenchDatabase('insights');
  const admin = await createBenchUser(database, 'admin@bench.local');
  const { conversations: labelled } = loadLabelledSet();
  const bodies = Array.from({ length: COUNT }, (_, i) => {
    const c = labelled[i % labelled.length]! as (typeof labelled)[number] & { source: string };
    return { id: `${c.id}-${Math.floor(i / labelled.length)}`, source: c.source, subject: c.subject ?? undefined, parts: c.parts, metadata: { createdAt: c.createdAt } };
  });
  const env = { DATABASE_URL: database.url, LOG_LEVEL: 'silent', RATE_LIMIT_POINTS: '100000000', JOB_POLL_MS: '3600000', INSIGHTS_BATCH_MS: '2000' };
  let version = '';
  const result = { ingestMs: [] as number[], ingestTotalMs: 0, processedMs: 0, jobs: 0, issues: 0, clusters: 0, rssStart: 0, rssEnd: 0, rssPeak: 0 };
  const db = createDb(database.config);
  try {
    await withChild('app-server.ts', env, async (child) => {
      const baseUrl = child.baseUrl;
      version = await databaseVersion(database);
      result.rssStart = memoryMiB(child.process.pid).rssMiB;
      const org = (await api(baseUrl, admin.token, 'POST', '/v1/orgs', { title: 'Bench insights org' }, 201)).body.id as string;
      await machineLoad.settle('before the burst');
      const started = performance.now();
      for (let i = 0; i < bodies.length; i += PER_REQUEST) {
        const reply = await api(baseUrl, admin.token, 'POST', `/v1/orgs/${org}/conversations`, bodies.slice(i, i + PER_REQUEST), 204);
        result.ingestMs.push(reply.ms);
      }
      result.ingestTotalMs = performance.now() - started;
      log(`ingested ${COUNT} in ${fmt(result.ingestTotalMs)} ms`);
      for (;;) {
        const waiting = await db.conversation.count({ where: { organizationId: org, processedAt: null } });
        if (waiting === 0) break;
        await sleep(100);
      }
      result.processedMs = performance.now() - started;
      result.jobs = await db.job.count({ where: { organizationId: org, kind: 'conversation-processing' } });
      result.issues = await db.conversationIssue.count({ where: { organizationId: org } });
      result.clusters = await db.issuesCluster.count({ where: { organizationId: org } });
      const memory = memoryMiB(child.process.pid);
      result.rssEnd = memory.rssMiB;
      result.rssPeak = memory.peakMiB;
      log(`read in ${fmt(result.processedMs)} ms by ${result.jobs} jobs: ${result.issues} issues, ${result.clusters} clusters`);
    });
  } finally {
    await db.$disconnect();
    await database.drop();
  }

  const ingest = stats(result.ingestMs);
  const md = reportHeader(run, `Docs insights: ${COUNT} conversations ingested and read`, { description: database.description, version });
  md.push(
    `The labelled set (${labelled.length} conversations) repeated under new ids up to ${COUNT}, ingested ${PER_REQUEST} per request, one request after the other; INSIGHTS_BATCH_MS=2000.`,
    '',
    ...table(
      ['ingest, conversations/s', 'request p50 ms', 'request p95 ms', 'first ingest to all read, s', 'processing jobs', 'issues', 'clusters', 'server RSS start / end / peak, MiB'],
      [
        [
          fmt((COUNT / result.ingestTotalMs) * 1000),
          fmt(ingest.p50),
          fmt(ingest.p95),
          fmt(result.processedMs / 1000, 1),
          result.jobs,
          result.issues,
          result.clusters,
          `${fmt(result.rssStart)} / ${fmt(result.rssEnd)} / ${fmt(result.rssPeak)}`,
        ],
      ],
      ['r', 'r', 'r', 'r', 'r', 'r', 'r', 'r'],
    ),
    '',
  );
  writeResults(run, result, md);
});

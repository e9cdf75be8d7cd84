/**
 * The cost of a job's events in the database: `JobStore.progress` (one progress step: the
 * job row updated, and since the job event history, its event recorded in the same
 * transaction) called BENCH_EVENTS times in a row (default 1,000) on one running job, and
 * the replay read of a subscriber (`eventsAfter(job, 0)`, the whole history) of a job of
 * 30 events. Wall time per call (median, p99) and SQL statements per call, on SQLite, or
 * PostgreSQL with BENCH_DATABASE_URL. Written so that it also runs on the code before the
 * history (no replay read then), to compare:
 *
 *   npx tsx bench/job-event-writes.ts
 *   BENCH_DATABASE_URL=postgresql://postgres@127.0.0.1:5432/postgres npx tsx bench/job-event-writes.ts
 *
 * Prints one JSON line; writes nothing.
 */
import { createDb } from '../src/db/client.ts';
import { newId } from '../src/ids.ts';
import { JobStore } from '../src/jobs/job-store.ts';
import { createBenchDatabase, main, median } from './harness.ts';

const EVENTS = Number(process.env.BENCH_EVENTS ?? 1000);

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

main(async () => {
  const database = await createBenchDatabase('job-event-writes');
  let statements = 0;
  const db = createDb(database.config, { onQuery: () => statements++ });
  // Events go nowhere: only the database is measured.
  const bus = { publish: () => undefined, listen: () => () => undefined, subscribe: () => undefined, close: async () => undefined };
  const store = new JobStore(db, bus as never, database.config.provider);
  try {
    const organizationId = newId();
    await db.organization.create({ data: { id: organizationId, title: 'Bench' } });
    const timed = async (count: number, call: (i: number) => Promise<unknown>) => {
      const ms: number[] = [];
      const before = statements;
      for (let i = 0; i < count; i++) {
        const started = performance.now();
        await call(i);
        ms.push(performance.now() - started);
      }
      return { calls: count, medianMs: +median(ms).toFixed(3), p99Ms: +percentile(ms, 99).toFixed(3), statementsPerCall: (statements - before) / count };
    };
    const job = await store.create({ organizationId, kind: 'git-import', input: {} });
    const running = (await store.claim(job.id, 'bench'))!;
    await timed(50, (i) => store.progress(running, 'bench', { step: 'warm-up', percent: i % 100 }));
    const progress = await timed(EVENTS, (i) => store.progress(running, 'bench', { step: `step ${i}`, percent: (i * 100) / EVENTS }));
    let replay: unknown = 'not in this code';
    const history = (store as unknown as { eventsAfter?: (id: string, after: number) => Promise<unknown> }).eventsAfter;
    if (history) {
      const small = await store.create({ organizationId, kind: 'git-import', input: {} });
      const smallRunning = (await store.claim(small.id, 'bench'))!;
      for (let i = 0; i < 27; i++) await store.progress(smallRunning, 'bench', { step: `step ${i}`, percent: i * 3 });
      await store.finish(smallRunning, 'succeeded', { result: {}, worker: 'bench' });
      replay = await timed(200, () => history.call(store, small.id, 0));
    }
    console.log(JSON.stringify({ database: database.description, events: EVENTS, progress, replayOf30Events: replay }));
  } finally {
    await db.$disconnect();
    await database.drop();
  }
});

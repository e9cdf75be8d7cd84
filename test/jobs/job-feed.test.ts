/**
 * Following jobs on a bus that loses, repeats and reorders events (src/jobs/job-feed.ts),
 * on a real database (SQLite, or PostgreSQL with TEST_DATABASE_URL): each job's events
 * reach the subscriber once, in sequence order, from the stored history where the bus
 * failed; a late subscriber replays what it missed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeDb, createDb, type Db } from '../../src/db/client.ts';
import { newId } from '../../src/ids.ts';
import { createJobEventBus, type JobEvent, type JobEventBus, type JobEventListener } from '../../src/jobs/events.ts';
import { followJob, followJobs } from '../../src/jobs/job-feed.ts';
import { JobStore, type JobRow } from '../../src/jobs/job-store.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/database.ts';

let database: TestDatabase;
let db: Db;
let organizationId: string;

beforeAll(async () => {
  database = await createTestDatabase();
  db = createDb(database.config);
  organizationId = newId();
  await db.organization.create({ data: { id: organizationId, title: 'Feeds' } });
});
afterAll(async () => {
  await closeDb(db);
  await database.drop();
});

/** An in-process bus whose deliveries `route` decides: none (lost), one, or several (repeated, or held ones let out). */
class UnreliableBus implements JobEventBus {
  private readonly inner = createJobEventBus(undefined);
  private readonly listeners = new Set<JobEventListener>();
  route: (event: JobEvent) => JobEvent[] = (event) => [event];

  publish(event: JobEvent): void {
    for (const delivered of this.route(event)) this.inner.publish(delivered);
  }
  listen(listener: JobEventListener): () => void {
    this.listeners.add(listener);
    const unlisten = this.inner.listen(listener);
    return () => {
      this.listeners.delete(listener);
      unlisten();
    };
  }
  /** What the Redis bus does once its subscription holds again. */
  resync(): void {
    for (const listener of this.listeners) listener.resync();
  }
  ping = () => this.inner.ping();
  close = () => this.inner.close();
}

function setup() {
  const bus = new UnreliableBus();
  const store = new JobStore(db, bus, database.config.provider);
  const worker = 'worker-test';
  return {
    bus,
    store,
    create: (spaceId: string | null = null) => store.create({ organizationId, spaceId, kind: 'git-import', input: {} }),
    claim: async (job: JobRow) => (await store.claim(job.id, worker))!,
    step: (job: JobRow, step: string, percent: number) => store.progress(job, worker, { step, percent }),
    succeed: (job: JobRow) => store.finish(job, 'succeeded', { result: { ok: true }, worker }),
  };
}

/** Reads events from `iterable` until `count` arrived or it ended; the events and whether it ended. */
async function take(iterable: AsyncIterable<JobEvent>, count: number): Promise<{ events: JobEvent[]; ended: boolean }> {
  const iterator = iterable[Symbol.asyncIterator]();
  const events: JobEvent[] = [];
  while (events.length < count) {
    const next = await iterator.next();
    if (next.done) return { events, ended: true };
    events.push(next.value);
  }
  await iterator.return?.();
  return { events, ended: false };
}

/** Starts reading every event of `iterable` until it ends (or `stop()`). */
function read(iterable: AsyncIterable<JobEvent>) {
  const iterator = iterable[Symbol.asyncIterator]();
  const events: JobEvent[] = [];
  const ended = (async () => {
    for (let next = await iterator.next(); !next.done; next = await iterator.next()) events.push(next.value);
  })();
  return { events, ended, stop: async () => (await iterator.return?.(), ended) };
}

/** Lets pending deliveries and store reads run. */
async function settle(until: () => boolean): Promise<void> {
  const started = Date.now();
  while (!until()) {
    if (Date.now() - started > 10_000) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 5));
  }
}

const seq = (events: JobEvent[]) => events.map((e) => e.sequence);

describe('following one job', () => {
  it('fills a gap from the stored history, drops repeats, and puts reordered events back in order', async () => {
    const { bus, store, create, claim, step, succeed } = setup();
    const job = await create();
    const followed = read(followJob(store, bus, job.id));
    await settle(() => followed.events.length === 1); // the current state: queued
    let held: JobEvent | null = null;
    bus.route = (event) => {
      if (event.sequence === 3) return []; // lost
      if (event.sequence === 4) return [event, event]; // twice
      if (event.sequence === 5) return ((held = event), []); // late...
      if (event.sequence === 6) return [event, held!]; // ...after the next one
      return [event];
    };
    const running = await claim(job); // 2
    await step(running, 'one', 10); // 3, lost
    await step(running, 'two', 20); // 4, twice: the gap before it is read from the store
    await step(running, 'three', 30); // 5, held
    await step(running, 'four', 40); // 6, then 5
    await succeed(running); // 7
    await followed.ended;
    expect(seq(followed.events)).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(followed.events.map((e) => e.step)).toEqual([null, 'starting', 'one', 'two', 'three', 'four', 'done']);
    expect(followed.events.at(-1)).toMatchObject({ state: 'succeeded', result: { ok: true } });
  });

  it('a lost final event arrives when the bus resyncs, and the subscription ends', async () => {
    const { bus, store, create, claim, succeed } = setup();
    const job = await create();
    const followed = read(followJob(store, bus, job.id, { after: 0 }));
    const running = await claim(job);
    await settle(() => followed.events.length === 2);
    bus.route = (event) => (event.state === 'succeeded' ? [] : [event]);
    await succeed(running);
    // Nothing tells the feed, until the bus may have lost something.
    await new Promise((r) => setTimeout(r, 50));
    expect(seq(followed.events)).toEqual([1, 2]);
    bus.resync();
    await followed.ended;
    expect(seq(followed.events)).toEqual([1, 2, 3]);
  });

  it('after a finished job: its final state alone, or from `after` on; then the end', async () => {
    const { bus, store, create, claim, step, succeed } = setup();
    const job = await create();
    const running = await claim(job);
    await step(running, 'one', 50);
    await succeed(running);
    expect(await take(followJob(store, bus, job.id), 10)).toMatchObject({ ended: true, events: [{ sequence: 4, state: 'succeeded' }] });
    expect(seq((await take(followJob(store, bus, job.id, { after: 0 }), 10)).events)).toEqual([1, 2, 3, 4]);
    expect(seq((await take(followJob(store, bus, job.id, { after: 2 }), 10)).events)).toEqual([3, 4]);
    expect(await take(followJob(store, bus, job.id, { after: 4 }), 10)).toEqual({ ended: true, events: [] });
  });

  it('an event the subscriber may not see counts as handled', async () => {
    const { bus, store, create, claim, succeed } = setup();
    const job = await create();
    const followed = read(followJob(store, bus, job.id, { after: 0, visible: (event) => event.state !== 'running' }));
    await succeed(await claim(job));
    await followed.ended;
    expect(seq(followed.events)).toEqual([1, 3]);
  });
});

describe('following the jobs of a space', () => {
  it('replays the unfinished jobs from their start, skips the finished ones, and follows new ones', async () => {
    const { bus, store, create, claim, step, succeed } = setup();
    const spaceId = newId(); // a job's space is not a foreign key: no space needed
    const finished = await create(spaceId);
    await succeed(await claim(finished));
    const unfinished = await create(spaceId);
    const unfinishedRunning = await claim(unfinished);
    await step(unfinishedRunning, 'one', 10);
    const elsewhere = await create(null);

    const followed = read(followJobs(store, bus, { spaceId }));
    await settle(() => followed.events.length === 3);
    expect(followed.events.map((e) => [e.id, e.sequence])).toEqual([
      [unfinished.id, 1],
      [unfinished.id, 2],
      [unfinished.id, 3],
    ]);
    // A new job whose first events are lost: its next one brings them from the store.
    const fresh = await create(spaceId);
    bus.route = (event) => (event.id === fresh.id && event.sequence < 3 ? [] : [event]);
    const freshRunning = await claim(fresh);
    await claim(elsewhere);
    await step(freshRunning, 'one', 10);
    await succeed(unfinishedRunning);
    await settle(() => followed.events.length === 7);
    await new Promise((r) => setTimeout(r, 20));
    await followed.stop();
    const of = (id: string) => seq(followed.events.filter((e) => e.id === id));
    expect(of(unfinished.id)).toEqual([1, 2, 3, 4]);
    expect(of(fresh.id)).toEqual([1, 2, 3]);
    expect(followed.events.filter((e) => e.id === finished.id || e.id === elsewhere.id)).toEqual([]);
  });

  it('after the bus resyncs: the events it lost, of jobs seen or not, including ones that started and finished meanwhile', async () => {
    const { bus, store, create, claim, step, succeed } = setup();
    const spaceId = newId();
    const followed = read(followJobs(store, bus, { spaceId }));
    const seen = await create(spaceId);
    await settle(() => followed.events.length === 1);
    bus.route = () => []; // Redis is down
    const seenRunning = await claim(seen);
    await step(seenRunning, 'one', 10);
    const meanwhile = await create(spaceId);
    await succeed(await claim(meanwhile));
    bus.route = (event) => [event];
    bus.resync();
    await settle(() => followed.events.length === 6);
    await new Promise((r) => setTimeout(r, 20));
    await followed.stop();
    expect(seq(followed.events.filter((e) => e.id === seen.id))).toEqual([1, 2, 3]);
    expect(seq(followed.events.filter((e) => e.id === meanwhile.id))).toEqual([1, 2, 3]);
  });
});

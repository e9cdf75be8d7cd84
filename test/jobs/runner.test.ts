/**
 * The job system on a real database (SQLite, or PostgreSQL with
 * TEST_DATABASE_URL): events in order, progress, completion inside the
 * handler's transaction, cancellation, and a job whose worker died taken over
 * and finished once.
 */
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { closeDb, createDb, type Db } from '../../src/db/client.ts';
import { parseDatabaseUrl } from '../../src/db/provider/config.ts';
import { newId } from '../../src/ids.ts';
import { createJobEventBus, type JobEvent } from '../../src/jobs/events.ts';
import { JobStore } from '../../src/jobs/job-store.ts';
import { RetryLaterError } from '../../src/errors/internal.ts';
import { JobRunner, PROGRESS_INTERVAL_MS, PollingDispatch, type JobHandler } from '../../src/jobs/runner.ts';
import { type ObjectStorage } from '../../src/storage/object-storage.ts';
import { type WorkerPool } from '../../src/worker-pool.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/database.ts';

let database: TestDatabase;
let db: Db;
let organizationId: string;
const log = pino({ level: 'silent' });
const config = loadConfig({ LOG_LEVEL: 'silent' });
const storage = {} as ObjectStorage;
// These handlers convert nothing.
const workers = {} as WorkerPool;

beforeAll(async () => {
  database = await createTestDatabase();
  db = createDb(database.config);
  organizationId = newId();
  await db.organization.create({ data: { id: organizationId, title: 'Jobs' } });
});
afterAll(async () => {
  await closeDb(db);
  await database.drop();
});

function setup(handler: JobHandler, leaseMs = 30_000) {
  const bus = createJobEventBus(undefined);
  const provider = parseDatabaseUrl(database.url).provider;
  const store = new JobStore(db, bus, provider, leaseMs);
  const runner = new JobRunner({ db, provider, storage, config, log, workers, store, handlers: { 'git-import': handler } });
  const seen: JobEvent[] = [];
  const unlisten = bus.listen({ event: (event) => seen.push(event), resync: () => undefined });
  return { store, runner, seen, stop: async () => unlisten() };
}

describe('job runner', () => {
  it('publishes queued, running, every step and succeeded, in order; the result commits with the effect', async () => {
    const { store, runner, seen, stop } = setup(async (ctx) => {
      for (const [i, step] of ['cloning', 'reading', 'writing'].entries()) await ctx.progress(step, (i + 1) * 30);
      await ctx.db.$transaction(async (tx) => {
        await tx.organization.update({ where: { id: organizationId }, data: { title: 'Jobs (imported)' } });
        await ctx.complete(tx, { revision: 'r1' });
      });
    });
    const job = await store.create({ organizationId, kind: 'git-import', input: { url: 'x' } });
    await runner.execute(job.id);
    await stop();
    const mine = seen.filter((e) => e.id === job.id);
    expect(mine.map((e) => [e.sequence, e.state, e.step])).toEqual([
      [1, 'queued', null],
      [2, 'running', 'starting'],
      [3, 'running', 'cloning'],
      [4, 'running', 'reading'],
      [5, 'running', 'writing'],
      [6, 'succeeded', 'done'],
    ]);
    expect(mine.at(-1)).toMatchObject({ percent: 100, result: { revision: 'r1' } });
    // The history holds the same events, published once each.
    expect((await store.eventsAfter(job.id, 0))!.events).toEqual(mine);
    expect((await store.get(job.id))!.eventSequence).toBe(6);
    expect((await db.organization.findUnique({ where: { id: organizationId } }))!.title).toBe('Jobs (imported)');
  });

  it('records steps reported without waiting in the order they were reported, a burst of one step as its first and latest', async () => {
    const { store, runner, seen, stop } = setup(async (ctx) => {
      // As Git's transfer callbacks do: steps fired without awaiting, then the next phase awaited.
      for (let percent = 5; percent <= 45; percent += 5) void ctx.progress('cloning', percent).catch(() => undefined);
      // The burst's latest is recorded once the interval since its first record has passed.
      await new Promise((resolve) => setTimeout(resolve, PROGRESS_INTERVAL_MS * 2));
      await ctx.progress('reading pages', 50);
      // Held, then superseded by the next step before its interval passed: not recorded.
      void ctx.progress('reading pages', 60).catch(() => undefined);
      await ctx.progress('writing', 70);
      // Held when the job ends: not recorded after it.
      void ctx.progress('writing', 80).catch(() => undefined);
    });
    const job = await store.create({ organizationId, kind: 'git-import', input: { url: 'x' } });
    await runner.execute(job.id);
    await stop();
    const running = seen.filter((e) => e.id === job.id && e.state === 'running' && e.step !== 'starting').map((e) => [e.step, e.percent]);
    expect(running).toEqual([
      ['cloning', 5],
      ['cloning', 45],
      ['reading pages', 50],
      ['writing', 70],
    ]);
    expect(seen.filter((e) => e.id === job.id).at(-1)).toMatchObject({ state: 'succeeded' });
    const events = (await store.eventsAfter(job.id, 0))!.events;
    expect(events.map((e) => e.sequence)).toEqual(events.map((_, i) => i + 1));
  });

  it('records and publishes no event for a change that did not apply, nor for a completion whose transaction rolled back', async () => {
    const { store, runner, seen, stop } = setup(async (ctx) => {
      await ctx.progress('one', 50);
      await ctx.db.$transaction(async (tx) => {
        await ctx.complete(tx, { never: true });
        throw new Error('the effect failed after the completion');
      });
    });
    const job = await store.create({ organizationId, kind: 'git-import', input: {} });
    await runner.execute(job.id);
    // The completion rolled back with the effect: not in the history, never published (the job
    // stays running, for another attempt once its lease expires).
    const history = (await store.eventsAfter(job.id, 0))!.events;
    expect(history.map((e) => [e.sequence, e.state, e.step])).toEqual([
      [1, 'queued', null],
      [2, 'running', 'starting'],
      [3, 'running', 'one'],
    ]);
    // A worker that does not hold the job changes nothing, and records nothing.
    const row = (await store.get(job.id))!;
    expect(await store.progress(row, 'another-worker', { step: 'late', percent: 90 })).toEqual({ held: false, cancelRequested: false });
    expect(await store.finish(row, 'succeeded', { result: {}, worker: 'another-worker' })).toBeNull();
    expect((await store.eventsAfter(job.id, 0))!.events).toEqual(history);
    expect((await store.get(job.id))!.eventSequence).toBe(3);
    await stop();
    // Published: the history, and its latest event once more (what the runner announces after a
    // completion, read back from the store), which subscribers drop; never the rolled-back success.
    expect(seen.filter((e) => e.id === job.id)).toEqual([...history, history.at(-1)]);
  });

  it('fails with the error of the handler', async () => {
    const { store, runner, stop } = setup(async () => {
      throw new Error('repository not found');
    });
    const job = await store.create({ organizationId, kind: 'git-import', input: {} });
    await runner.execute(job.id);
    await stop();
    expect(await store.get(job.id)).toMatchObject({ state: 'failed', error: 'repository not found' });
  });

  it('cancels a queued job at once and a running one at its next step', async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const { store, runner, stop } = setup(async (ctx) => {
      await ctx.progress('waiting', 10);
      await gate;
      await ctx.progress('after the gate', 50);
    });
    const queued = await store.create({ organizationId, kind: 'git-import', input: {} });
    expect((await store.cancel(queued.id))!.state).toBe('cancelled');
    await runner.execute(queued.id); // not claimable any more
    expect((await store.get(queued.id))!.state).toBe('cancelled');

    const running = await store.create({ organizationId, kind: 'git-import', input: {} });
    const run = runner.execute(running.id);
    while ((await store.get(running.id))!.step !== 'waiting') await new Promise((r) => setTimeout(r, 5));
    await store.cancel(running.id);
    release();
    await run;
    await stop();
    expect(await store.get(running.id)).toMatchObject({ state: 'cancelled' });
  });

  it('queues a job whose handler asks to retry later, claims it again only once its delay passed, and counts no death for it', async () => {
    const runs: number[] = [];
    const { store, runner, seen, stop } = setup(async (ctx) => {
      runs.push(ctx.job.retries);
      if (ctx.job.retries < 3) throw new RetryLaterError('the renderer answered 503', 200);
      return { sent: true };
    });
    const job = await store.create({ organizationId, kind: 'git-import', input: {} });
    await runner.execute(job.id);
    const waiting = (await store.get(job.id))!;
    expect(waiting).toMatchObject({ state: 'queued', retries: 1, attempts: 1, step: 'waiting to retry', error: 'the renderer answered 503', leaseOwner: null });
    expect(waiting.runAfter!.getTime()).toBeGreaterThan(Date.now());
    // Not before its time: neither listed as claimable nor claimed.
    expect(await store.claimable(100)).not.toContain(job.id);
    await runner.execute(job.id);
    expect(runs).toEqual([0]);
    expect(await store.claimable(100, new Date(waiting.runAfter!.getTime() + 1))).toContain(job.id);
    // More runs than MAX_ATTEMPTS: retries are not deaths.
    for (let i = 0; i < 3; i++) {
      const row = (await store.get(job.id))!;
      await new Promise((r) => setTimeout(r, row.runAfter!.getTime() - Date.now() + 5));
      await runner.execute(job.id);
    }
    await stop();
    expect(runs).toEqual([0, 1, 2, 3]);
    expect(await store.get(job.id)).toMatchObject({ state: 'succeeded', attempts: 4, retries: 3, error: null, result: { sent: true } });
    const states = seen.filter((e) => e.id === job.id).map((e) => [e.state, e.step]);
    expect(states.slice(0, 4)).toEqual([
      ['queued', null],
      ['running', 'starting'],
      ['queued', 'waiting to retry'],
      ['running', 'restarting'],
    ]);
    expect(states.at(-1)).toEqual(['succeeded', 'done']);
  });

  it('cancels a job waiting to retry at once', async () => {
    const { store, runner, stop } = setup(async () => {
      throw new RetryLaterError('not now', 60_000);
    });
    const job = await store.create({ organizationId, kind: 'git-import', input: {} });
    await runner.execute(job.id);
    expect((await store.cancel(job.id))!.state).toBe('cancelled');
    await stop();
  });

  it('gathers inputs into the queued job of a kind not yet taken, and queues a new one once it was', async () => {
    const { store, runner, stop } = setup(async () => undefined);
    const org = newId();
    await db.organization.create({ data: { id: org, title: 'Gathering' } });
    const union = (queued: Record<string, unknown>, added: Record<string, unknown>) => ({
      tags: [...new Set([...(queued.tags as string[]), ...(added.tags as string[])])],
    });
    const gather = (tags: string[]) => store.gather({ organizationId: org, kind: 'renderer-revalidation', input: { tags } }, union);
    const runnerOf = new JobRunner({ db, provider: parseDatabaseUrl(database.url).provider, storage, config, log, workers, store, handlers: { 'renderer-revalidation': async () => undefined } });
    // The first gatherings at once, as requests may: they take turns, so they make one job between them.
    const opening = await Promise.all(Array.from({ length: 8 }, (_, i) => gather([`o${i}`])));
    expect(new Set(opening.map((job) => job.id)).size).toBe(1);
    const first = await gather(['a', 'b']);
    expect(first.id).toBe(opening[0]!.id);
    expect(((await store.get(first.id))!.input as { tags: string[] }).tags.sort()).toEqual(['a', 'b', 'o0', 'o1', 'o2', 'o3', 'o4', 'o5', 'o6', 'o7']);
    await runnerOf.execute(first.id);
    // At once again: each lands in the one job.
    const second = await gather(['a', 'b']);
    const together = await Promise.all([gather(['b', 'c']), gather(['d']), gather(['e'])]);
    expect(together.map((job) => job.id)).toEqual([second.id, second.id, second.id]);
    expect(((await store.get(second.id))!.input as { tags: string[] }).tags.sort()).toEqual(['a', 'b', 'c', 'd', 'e']);
    // Another organization's work is another job.
    expect((await store.gather({ organizationId, kind: 'renderer-revalidation', input: { tags: ['x'] } }, union)).id).not.toBe(second.id);
    // Once a worker took it, the next gathering starts another job.
    await runnerOf.execute(second.id);
    expect((await store.get(second.id))!.state).toBe('succeeded');
    const next = await gather(['f']);
    expect(next.id).not.toBe(second.id);
    expect(next.input).toEqual({ tags: ['f'] });
    await runner.execute(next.id);
    await stop();
  });

  it('takes over a job whose worker died once its lease expired, and finishes it once', async () => {
    const effects: string[] = [];
    let dieAfterFirstStep = true;
    const handler: JobHandler = async (ctx) => {
      await ctx.progress('step 1', 50);
      if (dieAfterFirstStep) {
        dieAfterFirstStep = false;
        await new Promise(() => {}); // the process "dies" here: never finishes, never renews (see below)
      }
      await ctx.db.$transaction(async (tx) => {
        effects.push(ctx.job.id);
        await ctx.complete(tx, { done: true });
      });
    };
    const first = setup(handler, 300);
    const job = await first.store.create({ organizationId, kind: 'git-import', input: {} });
    void first.runner.execute(job.id);
    while ((await first.store.get(job.id))!.step !== 'step 1') await new Promise((r) => setTimeout(r, 5));
    // Simulate the death: the first worker stops renewing (its timers are gone with the process).
    first.runner.abortAll();
    await new Promise((r) => setTimeout(r, 400));

    const second = setup(handler, 300);
    const dispatch = new PollingDispatch(second.runner, second.store, { concurrency: 1, pollMs: 50, log });
    dispatch.start();
    while (!['succeeded', 'failed'].includes((await second.store.get(job.id))!.state)) await new Promise((r) => setTimeout(r, 20));
    await dispatch.stop();
    await first.stop();
    await second.stop();
    const final = (await second.store.get(job.id))!;
    expect(final).toMatchObject({ state: 'succeeded', attempts: 2 });
    expect(effects).toEqual([job.id]);
  });
});

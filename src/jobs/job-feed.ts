/**
 * Following jobs without missing a change. A subscription's events come from the store
 * (what happened before it listened, or while the bus lost events) and from the bus
 * (what happens now), merged so that each job's events arrive in sequence order, each
 * once:
 *
 * - the feed remembers, per job, the sequence number of the last event it handled and
 *   drops anything at or below it (an event read from the store and then received from
 *   the bus, or published twice);
 * - an event numbered beyond the next one shows a gap (the bus lost some): the feed reads
 *   the job's events after its last from the store, which holds every event up to the
 *   one in hand (an event is stored before it is published);
 * - when the bus may have lost events (its Redis subscription holds again after a
 *   reconnection), the feed reads the store for every job it follows.
 *
 * Store reads and deliveries run one at a time, in the order they were asked for.
 */
import type { JobEvent, JobEventBus, JobEventListener } from './events.ts';
import { inScope, isFinal, type JobScope, type JobStore } from './job-store.ts';

/**
 * How far apart the clocks of two server processes may be: a job is taken to have
 * finished before a subscription started only when it finished this long before.
 */
const CLOCK_SKEW_MS = 5_000;

export interface FollowOptions {
  /** Whether the subscriber may see an event; one it may not see still counts as handled. */
  visible?: (event: JobEvent) => boolean | Promise<boolean>;
}

/**
 * One job's events: with `after`, those numbered after it (0: all of them), else its
 * latest one (its current state) first; then every later one, until the event reaching a
 * final state, after which the iterable ends.
 */
export function followJob(store: JobStore, bus: JobEventBus, jobId: string, options: FollowOptions & { after?: number } = {}): AsyncIterable<JobEvent> {
  return feed(bus, (push, end) => new OneJob(store, push, end, options.visible, jobId, options.after));
}

/**
 * The events of the jobs of `scope`: the whole history of every job not finished when
 * the subscription starts, then every event of every job; it never ends.
 */
export function followJobs(store: JobStore, bus: JobEventBus, scope: JobScope, options: FollowOptions = {}): AsyncIterable<JobEvent> {
  return feed(bus, (push, end) => new ScopeJobs(store, push, end, options.visible, scope));
}

type Push = (event: JobEvent) => Promise<unknown>;
type End = (error?: unknown) => void;

function feed(bus: JobEventBus, make: (push: Push, end: End) => Follower): AsyncIterable<JobEvent> {
  return new Feed<JobEvent>((push, end) => {
    const follower = make(push, end);
    const unlisten = bus.listen(follower);
    follower.start();
    return () => {
      unlisten();
      follower.stop();
    };
  });
}

/**
 * The events of one subscription as an async iterator: started at the first `next()`, the
 * values pushed wait in order until taken; `end` (the follower stopping, with its error if any)
 * closes it after the values already pushed, `return()` (the subscriber leaving) at once. A
 * Repeater did this before: every subscriber takes every event, and at 1,000 subscribers its
 * promises per value were a tenth of the fan-out's time.
 */
class Feed<T> implements AsyncIterableIterator<T> {
  private readonly values: T[] = [];
  private waiting: { resolve: (result: IteratorResult<T>) => void; reject: (error: unknown) => void } | null = null;
  private state: 'new' | 'open' | 'ended' = 'new';
  private failure: { error: unknown } | null = null;
  private close: (() => void) | null = null;

  constructor(private readonly open: (push: (value: T) => Promise<void>, end: (error?: unknown) => void) => () => void) {}

  next(): Promise<IteratorResult<T>> {
    if (this.state === 'new') {
      this.state = 'open';
      const close = this.open(
        (value) => this.push(value),
        (error) => this.end(error),
      );
      // Ended already (the follower stopped as it started): nothing to keep open.
      if (this.ended()) close();
      else this.close = close;
    }
    if (this.values.length > 0) return Promise.resolve({ value: this.values.shift()!, done: false });
    if (this.state === 'ended') return this.finished();
    return new Promise((resolve, reject) => (this.waiting = { resolve, reject }));
  }

  return(): Promise<IteratorResult<T>> {
    this.values.length = 0;
    this.end();
    this.failure = null;
    return Promise.resolve({ value: undefined, done: true });
  }

  throw(error: unknown): Promise<IteratorResult<T>> {
    this.return();
    return Promise.reject(error);
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  private ended(): boolean {
    return this.state === 'ended';
  }

  private push(value: T): Promise<void> {
    if (this.state !== 'ended') {
      const waiting = this.waiting;
      this.waiting = null;
      if (waiting) waiting.resolve({ value, done: false });
      else this.values.push(value);
    }
    return Promise.resolve();
  }

  private end(error?: unknown): void {
    if (this.state === 'ended') return;
    this.state = 'ended';
    if (error !== undefined) this.failure = { error };
    const close = this.close;
    this.close = null;
    close?.();
    const waiting = this.waiting;
    this.waiting = null;
    if (waiting) void this.finished().then(waiting.resolve, waiting.reject);
  }

  private finished(): Promise<IteratorResult<T>> {
    const failure = this.failure;
    this.failure = null;
    return failure ? Promise.reject(failure.error) : Promise.resolve({ value: undefined, done: true });
  }
}

abstract class Follower implements JobEventListener {
  /** The sequence number of the last event handled, per job. */
  protected readonly handled = new Map<string, number>();
  /** Jobs whose final event was handled, or that this feed ignores. */
  protected readonly closed = new Set<string>();
  private queue: Promise<void> = Promise.resolve();
  private stopped = false;

  constructor(
    protected readonly store: JobStore,
    private readonly push: Push,
    private readonly end: End,
    private readonly visible: FollowOptions['visible'],
  ) {}

  /** Starts with what the store holds. */
  abstract start(): void;
  /** Whether an event from the bus concerns this feed. */
  protected abstract wants(event: JobEvent): boolean;
  /** An event from the bus that is not the next one of a job this feed follows. */
  protected abstract unexpected(event: JobEvent, last: number | undefined): Promise<void>;
  /** Reads the store for everything this feed may have missed. */
  protected abstract catchUpAll(): Promise<void>;
  /** After a job's final event was handled. */
  protected abstract finished(jobId: string): void;

  event(event: JobEvent): void {
    if (this.wants(event)) this.run(() => this.receive(event));
  }

  resync(): void {
    this.run(() => this.catchUpAll());
  }

  stop(error?: unknown): void {
    if (this.stopped) return;
    this.stopped = true;
    this.end(error);
  }

  /** Runs `task` after every task asked for before it; a failure ends the feed with its error. */
  protected run(task: () => Promise<void>): void {
    this.queue = this.queue.then(() => (this.stopped ? undefined : task())).catch((error: unknown) => this.stop(error));
  }

  private async receive(event: JobEvent): Promise<void> {
    if (this.closed.has(event.id)) return;
    const last = this.handled.get(event.id);
    if (last !== undefined && event.sequence <= last) return;
    if (last !== undefined && event.sequence === last + 1) return this.deliver(event);
    await this.unexpected(event, last);
  }

  /** Hands `event` to the subscriber unless it was handled already. */
  protected async deliver(event: JobEvent): Promise<void> {
    if (this.stopped || this.closed.has(event.id) || event.sequence <= (this.handled.get(event.id) ?? 0)) return;
    this.handled.set(event.id, event.sequence);
    const final = isFinal(event.state);
    if (final) this.closed.add(event.id);
    if (!this.visible || (await this.visible(event))) await this.push(event);
    if (final) this.finished(event.id);
  }

  /** Delivers the job's stored events after `after`; the job as read, or null when it is gone. */
  protected async catchUp(jobId: string, after: number) {
    const found = await this.store.eventsAfter(jobId, after);
    if (!found) return null;
    for (const event of found.events) await this.deliver(event);
    return found.job;
  }
}

class OneJob extends Follower {
  constructor(
    store: JobStore,
    push: Push,
    end: End,
    visible: FollowOptions['visible'],
    private readonly jobId: string,
    private readonly after: number | undefined,
  ) {
    super(store, push, end, visible);
    if (after !== undefined) this.handled.set(jobId, after);
  }

  start(): void {
    this.run(async () => {
      if (this.after !== undefined) return this.catchUpAll();
      const latest = await this.store.latestEvent(this.jobId);
      if (!latest) return this.stop();
      await this.deliver(latest);
    });
  }

  protected wants(event: JobEvent): boolean {
    return event.id === this.jobId;
  }

  protected unexpected(): Promise<void> {
    return this.catchUpAll();
  }

  protected async catchUpAll(): Promise<void> {
    const job = await this.catchUp(this.jobId, this.handled.get(this.jobId) ?? 0);
    // Gone, or finished at or before the event the subscriber asked to resume after.
    if (!job || isFinal(job.state)) this.stop();
  }

  protected finished(): void {
    this.stop();
  }
}

class ScopeJobs extends Follower {
  /** Jobs finished before this are not followed (see CLOCK_SKEW_MS). */
  private readonly since = new Date(Date.now() - CLOCK_SKEW_MS);

  constructor(
    store: JobStore,
    push: Push,
    end: End,
    visible: FollowOptions['visible'],
    private readonly scope: JobScope,
  ) {
    super(store, push, end, visible);
  }

  start(): void {
    this.run(async () => {
      for (const job of await this.store.jobsOf(this.scope)) await this.catchUp(job.id, 0);
    });
  }

  protected wants(event: JobEvent): boolean {
    return inScope(this.scope, event);
  }

  protected async unexpected(event: JobEvent, last: number | undefined): Promise<void> {
    if (last !== undefined) {
      await this.catchUp(event.id, last);
      return;
    }
    // A new job: its first event needs no reading.
    if (event.sequence === 1) return this.deliver(event);
    // A job met in the middle: follow it from its start, unless it had finished before this subscription started.
    const found = await this.store.eventsAfter(event.id, 0);
    if (!found || (found.job.finishedAt && found.job.finishedAt < this.since)) {
      this.closed.add(event.id);
      return;
    }
    for (const stored of found.events) await this.deliver(stored);
  }

  protected async catchUpAll(): Promise<void> {
    const open = [...this.handled.keys()].filter((id) => !this.closed.has(id));
    for (const job of await this.store.jobsOf(this.scope, { finishedSince: this.since, ids: open })) {
      if (this.closed.has(job.id)) continue;
      const last = this.handled.get(job.id) ?? 0;
      if (job.eventSequence > last) await this.catchUp(job.id, last);
    }
  }

  protected finished(): void {}
}

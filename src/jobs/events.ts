/**
 * Job events: every transition and progress step of a job, numbered within the job
 * (`sequence` 1, 2, ...) and stored with the change (the JobEvent table, written by
 * job-store.ts), then published on a bus: in-process by default; with REDIS_URL, on a
 * Redis channel, so a subscriber on one server process sees a job run by another.
 *
 * The bus is fast, not faithful: a Redis connection that drops loses what was published
 * meanwhile. The store is the record. The bus tells its listeners when it may have lost
 * events (`resync`: its Redis subscription is confirmed again after a reconnection, or for
 * the first time), and a listener then reads what it missed from the store
 * (src/jobs/job-feed.ts).
 */
import { createRequire } from 'node:module';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { JobKind, JobState } from '../db/value-sets.ts';

/** JOB_STATES and JOB_KINDS of src/db/value-sets.ts. */
export type { JobKind, JobState };

/** States a job never leaves: its event reaching one is its last. */
export const FINAL_JOB_STATES: ReadonlySet<string> = new Set<JobState>(['succeeded', 'failed', 'cancelled']);

export interface JobEvent {
  id: string;
  organizationId: string;
  spaceId: string | null;
  translationId: string | null;
  kind: JobKind;
  state: JobState;
  step: string | null;
  percent: number;
  message: string | null;
  /** What it made, once succeeded (revision, space, commit, ...). */
  result: Record<string, unknown> | null;
  error: string | null;
  /** When the change was written (ISO). */
  at: string;
  /** The number of this change within the job: 1 (created), 2, ...; no gaps. */
  sequence: number;
}

export interface JobEventListener {
  /** An event as published: late, twice or never are all possible with Redis. */
  event(event: JobEvent): void;
  /** Events published before now may not have arrived: read the store. */
  resync(): void;
}

export interface JobEventBus {
  /** Publishes an event that is stored already. */
  publish(event: JobEvent): void;
  /** Calls `listener` with every event published from now on, until the returned function is called. */
  listen(listener: JobEventListener): () => void;
  /** Resolves when the bus can publish now (Redis answers PING); rejects when it cannot. */
  ping(): Promise<void>;
  close(): Promise<void>;
}

/**
 * `namespace` keeps deployments (databases) that share one Redis apart: their
 * events travel on different channels.
 */
export function createJobEventBus(redisUrl: string | undefined, options: { namespace?: string; log?: Logger } = {}): JobEventBus {
  if (!redisUrl) return new LocalJobEventBus();
  return new RedisJobEventBus(redisUrl, `docs-api:${options.namespace ?? 'default'}:job`, options.log);
}

class Listeners {
  private readonly set = new Set<JobEventListener>();

  add(listener: JobEventListener): () => void {
    this.set.add(listener);
    return () => void this.set.delete(listener);
  }

  event(event: JobEvent): void {
    for (const listener of [...this.set]) listener.event(event);
  }

  resync(): void {
    for (const listener of [...this.set]) listener.resync();
  }

  clear(): void {
    this.set.clear();
  }
}

/** One process: nothing is lost, nothing to resync. */
class LocalJobEventBus implements JobEventBus {
  private readonly listeners = new Listeners();

  publish(event: JobEvent): void {
    this.listeners.event(event);
  }

  listen(listener: JobEventListener): () => void {
    return this.listeners.add(listener);
  }

  async ping(): Promise<void> {}

  async close(): Promise<void> {
    this.listeners.clear();
  }
}

/** Events that failed to publish kept for the next connection, at most (the oldest go first). */
const MAX_UNSENT = 10_000;

/**
 * Redis pub/sub on one channel. A subscribed connection can do nothing else: one
 * connection publishes, one listens. The listening one subscribes once, for the life of
 * the bus; ioredis reconnects (and resubscribes) by itself, and each time it is `ready`
 * again the bus subscribes once more to learn when the subscription holds (the reply to
 * SUBSCRIBE), then asks its listeners to resync. An event whose publication failed (the
 * publishing connection stayed down) is published again when it is back: a listener
 * drops what it has seen.
 */
class RedisJobEventBus implements JobEventBus {
  private readonly listeners = new Listeners();
  private readonly publisher: Redis;
  private readonly subscriber: Redis;
  private unsent: string[] = [];
  private closed = false;

  constructor(
    redisUrl: string,
    private readonly channel: string,
    private readonly log?: Logger,
  ) {
    // Named (CLIENT LIST shows `docs-api:<namespace>:job:publish` and `...:subscribe`).
    // Loaded only with Redis, not at every server's start (docs/decisions.md, "Restart"); require() keeps this synchronous.
    const { Redis: RedisClient } = createRequire(import.meta.url)('ioredis') as typeof import('ioredis');
    this.publisher = new RedisClient(redisUrl, { maxRetriesPerRequest: 3, connectionName: `${channel}:publish` });
    this.subscriber = new RedisClient(redisUrl, { maxRetriesPerRequest: 3, connectionName: `${channel}:subscribe` });
    this.subscriber.on('message', (channel: string, message: string) => {
      if (channel !== this.channel) return;
      let event: JobEvent;
      try {
        event = JSON.parse(message) as JobEvent;
      } catch {
        return;
      }
      this.listeners.event(event);
    });
    this.subscriber.on('ready', () => void this.confirmSubscription());
    this.publisher.on('ready', () => this.publishUnsent());
    // Without a listener ioredis prints every connection error; the log says it once, as a warning.
    for (const connection of [this.publisher, this.subscriber]) {
      connection.on('error', (error: Error) => this.log?.warn({ err: error }, 'job events: Redis connection error'));
    }
  }

  private async confirmSubscription(): Promise<void> {
    try {
      await this.subscriber.subscribe(this.channel);
    } catch (error) {
      // The connection dropped again: its next `ready` tries again.
      this.log?.warn({ err: error }, 'job events: could not subscribe on Redis');
      return;
    }
    if (!this.closed) this.listeners.resync();
  }

  publish(event: JobEvent): void {
    this.send(JSON.stringify(event));
  }

  private send(message: string): void {
    this.publisher.publish(this.channel, message).catch((error: unknown) => {
      if (this.closed) return;
      this.log?.warn({ err: error }, 'job events: publish failed; published again once Redis is back');
      this.unsent.push(message);
      if (this.unsent.length > MAX_UNSENT) this.unsent.splice(0, this.unsent.length - MAX_UNSENT);
      // Back already (the failure came late, or Redis refused the command): try again shortly.
      if (this.publisher.status === 'ready') setTimeout(() => this.publishUnsent(), 1000).unref();
    });
  }

  private publishUnsent(): void {
    const messages = this.unsent;
    this.unsent = [];
    for (const message of messages) this.send(message);
  }

  listen(listener: JobEventListener): () => void {
    return this.listeners.add(listener);
  }

  async ping(): Promise<void> {
    // Not queued behind a reconnection: a Redis that is down now is reported down now.
    if (this.publisher.status !== 'ready') throw new Error(`Redis is not connected (${this.publisher.status})`);
    await this.publisher.ping();
  }

  async close(): Promise<void> {
    this.closed = true;
    this.listeners.clear();
    this.publisher.disconnect();
    this.subscriber.disconnect();
  }
}

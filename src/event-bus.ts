/**
 * The process's event buses: one per topic (`job`, `comment`), all carried by one hub. In-process
 * by default; with REDIS_URL, every topic is a Redis channel and the hub holds two connections for
 * all of them (one publishes, one listens), so a subscriber on one server process sees what another
 * published.
 *
 * A bus is fast, not faithful: a Redis connection that drops loses what was published meanwhile.
 * It tells its listeners when it may have lost events (`resync`: the Redis subscription is confirmed
 * again after a reconnection, or for the first time); a topic that keeps a record (jobs) then reads
 * what it missed from it, one that does not (comments) goes on.
 */
import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';

export interface EventListener<E> {
  /** An event as published: late, twice or never are all possible with Redis. */
  event(event: E): void;
  /** Events published before now may not have arrived. */
  resync(): void;
}

export interface EventBus<E> {
  publish(event: E): void;
  /** Calls `listener` with every event published from now on, until the returned function is called. */
  listen(listener: EventListener<E>): () => void;
  /** Resolves when the bus can publish now (Redis answers PING); rejects when it cannot. */
  ping(): Promise<void>;
  /** Stops calling this topic's listeners (the hub's connections stay until the hub closes). */
  close(): Promise<void>;
}

/** A hub's own bus of a topic, which can also say who heard an event. */
export interface HubBus<E> extends EventBus<E> {
  /**
   * Publishes now, without keeping the event for later when Redis is down (it rejects then), and
   * resolves with how many processes listen to the topic (Redis: PUBLISH's answer; in-process: 1).
   */
  deliver(event: E): Promise<number>;
}

export interface EventHub {
  /** Whether events reach other processes (Redis), not only this one. */
  readonly shared: boolean;
  /** The bus of one topic: the same object for the same name. */
  topic<E>(name: string): HubBus<E>;
  ping(): Promise<void>;
  close(): Promise<void>;
}

/**
 * The part of Redis of one deployment (one database): in its channels' and queues' names and its
 * connections' names, so deployments sharing a Redis keep their events and jobs apart.
 */
export function deploymentNamespace(databaseUrl: string | undefined): string {
  return createHash('sha256').update(databaseUrl ?? 'default').digest('hex').slice(0, 12);
}

export function createEventHub(redisUrl: string | undefined, options: { namespace?: string; log?: Logger } = {}): EventHub {
  const prefix = `docs-api:${options.namespace ?? 'default'}`;
  return redisUrl ? new RedisEventHub(redisUrl, prefix, options.log) : new LocalEventHub();
}

class Listeners<E> {
  private readonly set = new Set<EventListener<E>>();

  add(listener: EventListener<E>): () => void {
    this.set.add(listener);
    return () => void this.set.delete(listener);
  }

  event(event: E): void {
    for (const listener of [...this.set]) listener.event(event);
  }

  resync(): void {
    for (const listener of [...this.set]) listener.resync();
  }

  clear(): void {
    this.set.clear();
  }
}

/** The buses of a hub, by topic; each publishes through `send`. */
abstract class Hub implements EventHub {
  protected readonly topics = new Map<string, Listeners<unknown>>();
  private readonly buses = new Map<string, HubBus<unknown>>();

  abstract readonly shared: boolean;
  protected abstract send(topic: string, event: unknown): void;
  protected abstract sendNow(topic: string, event: unknown): Promise<number>;
  abstract ping(): Promise<void>;
  abstract close(): Promise<void>;
  /** A topic's first use (Redis: subscribe to its channel). */
  protected opened(_topic: string): void {}

  topic<E>(name: string): HubBus<E> {
    let bus = this.buses.get(name);
    if (!bus) {
      const listeners = new Listeners<unknown>();
      this.topics.set(name, listeners);
      bus = {
        publish: (event) => this.send(name, event),
        deliver: (event) => this.sendNow(name, event),
        listen: (listener) => listeners.add(listener),
        ping: () => this.ping(),
        close: async () => listeners.clear(),
      };
      this.buses.set(name, bus);
      this.opened(name);
    }
    return bus as HubBus<E>;
  }
}

/** One process: nothing is lost, nothing to resync. */
class LocalEventHub extends Hub {
  readonly shared = false;

  protected send(topic: string, event: unknown): void {
    this.topics.get(topic)?.event(event);
  }

  protected async sendNow(topic: string, event: unknown): Promise<number> {
    this.send(topic, event);
    return 1;
  }

  async ping(): Promise<void> {}

  async close(): Promise<void> {
    for (const listeners of this.topics.values()) listeners.clear();
  }
}

/** Messages that failed to publish kept for the next connection, at most (the oldest go first). */
const MAX_UNSENT = 10_000;

/**
 * Redis pub/sub, a channel per topic (`docs-api:<namespace>:<topic>`). A subscribed connection can
 * do nothing else: one connection publishes, one listens, for every topic. The listening one
 * subscribes to each topic's channel at its first use, for the life of the hub; ioredis reconnects
 * (and resubscribes) by itself, and each time it is `ready` again the hub subscribes once more to
 * learn when the subscription holds (the reply to SUBSCRIBE), then asks every listener to resync. A
 * message whose publication failed (the publishing connection stayed down) is published again when
 * it is back: a listener drops what it has seen.
 */
class RedisEventHub extends Hub {
  readonly shared = true;
  private readonly publisher: Redis;
  private readonly subscriber: Redis;
  private unsent: Array<[channel: string, message: string]> = [];
  private closed = false;

  constructor(
    redisUrl: string,
    private readonly prefix: string,
    private readonly log?: Logger,
  ) {
    super();
    // Named (CLIENT LIST shows `docs-api:<namespace>:events:publish` and `...:subscribe`).
    // Loaded only with Redis, not at every server's start (docs/decisions.md, "Restart"); require() keeps this synchronous.
    const { Redis: RedisClient } = createRequire(import.meta.url)('ioredis') as typeof import('ioredis');
    this.publisher = new RedisClient(redisUrl, { maxRetriesPerRequest: 3, connectionName: `${prefix}:events:publish` });
    this.subscriber = new RedisClient(redisUrl, { maxRetriesPerRequest: 3, connectionName: `${prefix}:events:subscribe` });
    this.subscriber.on('message', (channel: string, message: string) => {
      const listeners = this.topics.get(channel.slice(this.prefix.length + 1));
      if (!listeners || !channel.startsWith(`${this.prefix}:`)) return;
      let event: unknown;
      try {
        event = JSON.parse(message);
      } catch {
        return;
      }
      listeners.event(event);
    });
    this.subscriber.on('ready', () => void this.confirmSubscription([...this.topics.keys()]));
    this.publisher.on('ready', () => this.publishUnsent());
    // Without a listener ioredis prints every connection error; the log says it once, as a warning.
    for (const connection of [this.publisher, this.subscriber]) {
      connection.on('error', (error: Error) => this.log?.warn({ err: error }, 'events: Redis connection error'));
    }
  }

  private channel(topic: string): string {
    return `${this.prefix}:${topic}`;
  }

  protected opened(topic: string): void {
    // Before `ready`, the subscription waits for it (the `ready` handler subscribes to every topic).
    if (this.subscriber.status === 'ready') void this.confirmSubscription([topic]);
  }

  private async confirmSubscription(topics: string[]): Promise<void> {
    if (topics.length === 0) return;
    try {
      await this.subscriber.subscribe(...topics.map((topic) => this.channel(topic)));
    } catch (error) {
      // The connection dropped again: its next `ready` tries again.
      this.log?.warn({ err: error }, 'events: could not subscribe on Redis');
      return;
    }
    if (this.closed) return;
    for (const topic of topics) this.topics.get(topic)?.resync();
  }

  protected send(topic: string, event: unknown): void {
    this.sendMessage(this.channel(topic), JSON.stringify(event));
  }

  protected sendNow(topic: string, event: unknown): Promise<number> {
    return this.publisher.publish(this.channel(topic), JSON.stringify(event));
  }

  private sendMessage(channel: string, message: string): void {
    this.publisher.publish(channel, message).catch((error: unknown) => {
      if (this.closed) return;
      this.log?.warn({ err: error }, 'events: publish failed; published again once Redis is back');
      this.unsent.push([channel, message]);
      if (this.unsent.length > MAX_UNSENT) this.unsent.splice(0, this.unsent.length - MAX_UNSENT);
      // Back already (the failure came late, or Redis refused the command): try again shortly.
      if (this.publisher.status === 'ready') setTimeout(() => this.publishUnsent(), 1000).unref();
    });
  }

  private publishUnsent(): void {
    const messages = this.unsent;
    this.unsent = [];
    for (const [channel, message] of messages) this.sendMessage(channel, message);
  }

  async ping(): Promise<void> {
    // Not queued behind a reconnection: a Redis that is down now is reported down now.
    if (this.publisher.status !== 'ready') throw new Error(`Redis is not connected (${this.publisher.status})`);
    await this.publisher.ping();
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const listeners of this.topics.values()) listeners.clear();
    this.publisher.disconnect();
    this.subscriber.disconnect();
  }
}

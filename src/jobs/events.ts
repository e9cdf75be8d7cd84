/**
 * Job events: every transition and progress step of a job, on one pub/sub.
 * In-process by default; with REDIS_URL, on Redis (graphql-yoga's Redis event
 * target), so a subscriber on one server process sees a job run by another.
 */
import { createRequire } from 'node:module';
import { createPubSub, type PubSub } from 'graphql-yoga';
import type { JobKind, JobState } from '../db/value-sets.ts';

/** JOB_STATES and JOB_KINDS of src/db/value-sets.ts. */
export type { JobKind, JobState };

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
  /** When the event happened (ISO); events of one job are published in order. */
  at: string;
}

export type JobPubSub = PubSub<{ job: [JobEvent] }>;

export interface JobEvents {
  pubsub: JobPubSub;
  close(): Promise<void>;
}

/**
 * `namespace` keeps deployments (databases) that share one Redis apart: their
 * events travel on different channels.
 */
export function createJobEvents(redisUrl: string | undefined, namespace = 'default'): JobEvents {
  if (!redisUrl) return { pubsub: createPubSub<{ job: [JobEvent] }>(), close: async () => {} };
  // Loaded only with Redis, not at every server's start (docs/decisions.md, "Restart"); require() keeps this synchronous.
  const require = createRequire(import.meta.url);
  const { Redis } = require('ioredis') as typeof import('ioredis');
  const { createRedisEventTarget } = require('@graphql-yoga/redis-event-target') as typeof import('@graphql-yoga/redis-event-target');
  // A subscribed Redis connection can do nothing else: one to publish, one to listen.
  const publishClient = new Redis(redisUrl, { maxRetriesPerRequest: 3 });
  const subscribeClient = new Redis(redisUrl, { maxRetriesPerRequest: 3 });
  const redisPubsub = createPubSub<Record<string, [JobEvent]>>({ eventTarget: createRedisEventTarget({ publishClient, subscribeClient }) });
  const channel = `docs-api:${namespace}:job`;
  // The rest of the code sees one topic, `job`.
  const pubsub: JobPubSub = {
    publish: (_topic: 'job', event: JobEvent) => redisPubsub.publish(channel, event),
    subscribe: (_topic: 'job') => redisPubsub.subscribe(channel),
  } as JobPubSub;
  return {
    pubsub,
    async close() {
      publishClient.disconnect();
      subscribeClient.disconnect();
    },
  };
}

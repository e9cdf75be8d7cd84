/**
 * The job system of one server process: events (in-process or Redis), the
 * store, the runner with every kind's handler, and the dispatch (embedded
 * polling, or BullMQ with REDIS_URL). Resolvers start jobs with `start`.
 */
import { createHash } from 'node:crypto';
import type { Logger } from 'pino';
import type { AppConfig } from '../config.ts';
import type { Db } from '../db/client.ts';
import { type Provider } from '../db/provider/config.ts';
import { type ObjectStorage } from '../storage/object-storage.ts';
import { type WorkerPool } from '../worker-pool.ts';
import { BullmqDispatch } from './bullmq-dispatch.ts';
import { createJobEvents, type JobEvents, type JobKind, type JobPubSub } from './events.ts';
import { JobStore, type JobRow } from './job-store.ts';
import { JobRunner, PollingDispatch, type JobHandler } from './runner.ts';

export interface Jobs {
  pubsub: JobPubSub;
  store: JobStore;
  runner: JobRunner;
  /** Creates a job and hands it to a worker. */
  start(input: { organizationId: string; spaceId?: string | null; translationId?: string | null; kind: JobKind; input: Record<string, unknown>; createdById?: string | null }): Promise<JobRow>;
  /** Starts the workers (the server calls it once it listens). */
  startWorkers(): void;
  close(): Promise<void>;
}

export function createJobs(deps: {
  db: Db;
  provider: Provider;
  storage: ObjectStorage;
  config: AppConfig;
  log: Logger;
  workers: WorkerPool;
  handlers: Partial<Record<JobKind, JobHandler>>;
}): Jobs {
  const { config, log } = deps;
  // Deployments sharing one Redis (one per database) keep their queues and events apart.
  const namespace = createHash('sha256').update(config.databaseUrl ?? 'default').digest('hex').slice(0, 12);
  const events: JobEvents = createJobEvents(config.redisUrl, namespace);
  const store = new JobStore(deps.db, events.pubsub, config.jobs.leaseMs);
  const runner = new JobRunner({ ...deps, store });
  const dispatch = config.redisUrl
    ? new BullmqDispatch(runner, store, { redisUrl: config.redisUrl, prefix: `docs-api:${namespace}`, concurrency: config.jobs.concurrency, sweepMs: config.jobs.pollMs, log })
    : new PollingDispatch(runner, store, { concurrency: config.jobs.concurrency, pollMs: config.jobs.pollMs, log });
  let started = false;
  return {
    pubsub: events.pubsub,
    store,
    runner,
    async start(input) {
      const job = await store.create(input);
      if (started) dispatch.wake(job.id);
      return job;
    },
    startWorkers() {
      if (started) return;
      started = true;
      dispatch.start();
    },
    async close() {
      if (started) await dispatch.stop();
      await events.close();
    },
  };
}

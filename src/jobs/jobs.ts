/**
 * The job system of one server process: events (in-process or Redis), the
 * store, the runner with every kind's handler, and the dispatch (embedded
 * polling, or BullMQ with REDIS_URL). Resolvers start jobs with `start`.
 */
import type { Logger } from 'pino';
import type { AppConfig } from '../config.ts';
import type { Db, Tx } from '../db/client.ts';
import { type Provider } from '../db/provider/config.ts';
import type { JobMetrics } from '../metrics.ts';
import { deploymentNamespace, type EventHub } from '../event-bus.ts';
import { type ObjectStorage } from '../storage/object-storage.ts';
import { type WorkerPool } from '../worker-pool.ts';
import { BullmqDispatch } from './bullmq-dispatch.ts';
import { createJobEventBus, jobEventBus, type JobEvent, type JobEventBus, type JobKind } from './events.ts';
import { followJob, followJobs, type FollowOptions } from './job-feed.ts';
import { JobStore, type JobRow, type JobScope } from './job-store.ts';
import { JobRunner, PollingDispatch, type JobHandler } from './runner.ts';

export interface Jobs {
  /** This deployment's part of Redis: in its queue's keys, its events' channel and its connections' names. */
  namespace: string;
  bus: JobEventBus;
  store: JobStore;
  runner: JobRunner;
  /** Creates a job and hands it to a worker. */
  start(input: { organizationId: string; spaceId?: string | null; translationId?: string | null; openAPISpecId?: string | null; kind: JobKind; input: Record<string, unknown>; createdById?: string | null }): Promise<JobRow>;
  /**
   * Creates a job inside the caller's transaction `tx`, with the change it is for; once that
   * committed, `announce` it (publishes its first event and hands it to a worker).
   */
  queue(tx: Tx, input: Omit<Parameters<JobStore['create']>[0], 'tx'>): Promise<JobRow>;
  announce(job: JobRow): void;
  /**
   * Hands a queued job to a worker in `delayMs` (a gathered job: what is gathered meanwhile goes
   * out in one run). A process that stops first leaves it to the workers' next look (JOB_POLL_MS).
   */
  wakeAfter(job: JobRow, delayMs: number): void;
  /** One job's events (src/jobs/job-feed.ts `followJob`). */
  follow(jobId: string, options?: FollowOptions & { after?: number }): AsyncIterable<JobEvent>;
  /** The events of the jobs of a scope (src/jobs/job-feed.ts `followJobs`). */
  followScope(scope: JobScope, options?: FollowOptions): AsyncIterable<JobEvent>;
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
  metrics?: JobMetrics;
  /** The process's event hub (the server's); without, the jobs make one of their own. */
  events?: EventHub;
}): Jobs {
  const { config, log } = deps;
  // Deployments sharing one Redis (one per database) keep their queues and events apart.
  const namespace = deploymentNamespace(config.databaseUrl);
  const bus = deps.events ? jobEventBus(deps.events) : createJobEventBus(config.redisUrl, { namespace, log });
  const store = new JobStore(deps.db, bus, deps.provider, config.jobs.leaseMs);
  const runner = new JobRunner({ ...deps, store });
  const dispatch = config.redisUrl
    ? new BullmqDispatch(runner, store, { redisUrl: config.redisUrl, prefix: `docs-api:${namespace}`, concurrency: config.jobs.concurrency, sweepMs: config.jobs.pollMs, log })
    : new PollingDispatch(runner, store, { concurrency: config.jobs.concurrency, pollMs: config.jobs.pollMs, log });
  let started = false;
  return {
    namespace,
    bus,
    store,
    runner,
    follow: (jobId, options) => followJob(store, bus, jobId, options),
    followScope: (scope, options) => followJobs(store, bus, scope, options),
    async start(input) {
      const job = await store.create(input);
      if (started) dispatch.wake(job.id);
      return job;
    },
    queue: (tx, input) => store.create({ ...input, tx }),
    announce(job) {
      store.announce(job);
      if (started) dispatch.wake(job.id);
    },
    wakeAfter(job, delayMs) {
      if (!started) return;
      setTimeout(() => dispatch.wake(job.id), delayMs).unref();
    },
    startWorkers() {
      if (started) return;
      started = true;
      dispatch.start();
    },
    async close() {
      if (started) await dispatch.stop();
      await bus.close();
    },
  };
}

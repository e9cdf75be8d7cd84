/**
 * Dispatch on BullMQ when REDIS_URL is set: creating a job adds its id to a
 * BullMQ queue, and every server process runs a BullMQ worker that executes
 * the ids it receives (claiming the job's lease in the database, which stays
 * the source of truth). A sweep re-adds jobs that are queued in the database
 * but not in Redis, or whose worker died (lease expired), so nothing waits on
 * a lost message.
 */
import { createRequire } from 'node:module';
import type * as BullMQ from 'bullmq';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { JobStore } from './job-store.ts';
import type { JobRunner } from './runner.ts';

const QUEUE_NAME = 'docs-api-jobs';

/**
 * bullmq (with ioredis) is loaded when a dispatch on Redis is made, not at every server's start
 * (docs/decisions.md, "Restart"); both are CommonJS, so require() loads them synchronously.
 */
const require = createRequire(import.meta.url);

export class BullmqDispatch {
  private readonly connection: Redis;
  private readonly queue: BullMQ.Queue;
  private worker: BullMQ.Worker | null = null;
  private workerConnection: Redis | null = null;
  private sweepTimer: NodeJS.Timeout | null = null;

  constructor(
    private readonly runner: JobRunner,
    private readonly store: JobStore,
    private readonly options: { redisUrl: string; prefix: string; concurrency: number; sweepMs: number; log: Logger },
  ) {
    const { Redis } = require('ioredis') as typeof import('ioredis');
    const { Queue } = require('bullmq') as typeof BullMQ;
    // BullMQ's blocking commands need maxRetriesPerRequest: null.
    this.connection = new Redis(options.redisUrl, { maxRetriesPerRequest: null });
    this.queue = new Queue(QUEUE_NAME, { connection: this.connection, prefix: options.prefix });
  }

  start(): void {
    this.workerConnection = this.connection.duplicate();
    const { Worker } = require('bullmq') as typeof BullMQ;
    this.worker = new Worker(QUEUE_NAME, async (job) => this.runner.execute(String(job.data.jobId)), {
      connection: this.workerConnection,
      prefix: this.options.prefix,
      concurrency: this.options.concurrency,
    });
    this.worker.on('error', (error) => this.options.log.error({ err: error }, 'BullMQ worker error'));
    const sweep = () => void this.sweep();
    this.sweepTimer = setInterval(sweep, this.options.sweepMs);
    this.sweepTimer.unref();
    sweep();
  }

  /** Hands a job (or, without an id, whatever is claimable) to the workers now. */
  wake(jobId?: string): void {
    if (jobId) void this.add(jobId);
    else void this.sweep();
  }

  private async add(jobId: string): Promise<void> {
    try {
      // The BullMQ job id is ours: adding an id already waiting or active does nothing.
      await this.queue.add('run', { jobId }, { jobId, removeOnComplete: true, removeOnFail: true });
    } catch (error) {
      this.options.log.error({ err: error, jobId }, 'could not queue the job on BullMQ');
    }
  }

  private async sweep(): Promise<void> {
    try {
      for (const id of await this.store.claimable(100)) await this.add(id);
    } catch (error) {
      this.options.log.error({ err: error }, 'job sweep failed');
    }
  }

  async stop(): Promise<void> {
    if (this.sweepTimer) clearInterval(this.sweepTimer);
    this.runner.abortAll();
    if (this.connection.status !== 'ready') {
      // Redis is down: BullMQ's close() would wait for it to come back, and the process would not stop.
      this.workerConnection?.disconnect();
      this.connection.disconnect();
      await Promise.race([Promise.allSettled([this.worker?.close(true), this.queue.close()]), new Promise((resolve) => setTimeout(resolve, 1_000).unref())]);
      return;
    }
    await this.worker?.close();
    await this.queue.close();
    this.workerConnection?.disconnect();
    this.connection.disconnect();
  }
}

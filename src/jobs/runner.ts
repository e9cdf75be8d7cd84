/**
 * Runs jobs: claims one, calls its kind's handler with a context for
 * progress, cancellation and the final transaction, and finishes it.
 *
 * Dispatch, which decides when `execute(jobId)` is called:
 *   - embedded (default): workers inside the server process poll the job table
 *     (and wake at once for jobs this process creates); any process on the same
 *     database may claim, leases keep one worker per job;
 *   - BullMQ (with REDIS_URL): the queue hands job ids to the processes' workers
 *     (see src/jobs/bullmq-dispatch.ts); the table stays the source of truth.
 * Either way a job whose worker died is claimed again once its lease expires, and a job whose
 * handler threw RetryLaterError is queued again, claimable once its delay passed.
 */
import type { Logger } from 'pino';
import type { AppConfig } from '../config.ts';
import type { Db, Tx } from '../db/client.ts';
import { type Provider } from '../db/provider/config.ts';
import { JobCancelledError, LostJobError, RetryLaterError } from '../errors/internal.ts';
import { newId } from '../ids.ts';
import type { JobMetrics } from '../metrics.ts';
import { type ObjectStorage } from '../storage/object-storage.ts';
import { type WorkerPool } from '../worker-pool.ts';
import type { JobKind } from './events.ts';
import { JobStore, jobInput, type JobRow } from './job-store.ts';

/** A step's progress is recorded at most once per this interval (the latest report of it, at the interval's end). */
export const PROGRESS_INTERVAL_MS = 100;

export interface JobContext {
  job: JobRow;
  input: Record<string, unknown>;
  db: Db;
  provider: Provider;
  storage: ObjectStorage;
  config: AppConfig;
  log: Logger;
  /** Threads for CPU-heavy work (the Git layout), one per job that may run at once. */
  workers: WorkerPool;
  /** Aborted when the job is cancelled or the worker lost it: stop between steps. */
  signal: AbortSignal;
  /**
   * Reports a step; the same step reported again within PROGRESS_INTERVAL_MS of its last record is
   * held, only its latest recorded at the interval's end (unless a new step comes first). Throws
   * when the job was cancelled or taken over.
   */
  progress(step: string, percent: number, message?: string | null): Promise<void>;
  /** Marks the job succeeded inside the handler's final transaction (its effect and success commit together). */
  complete(tx: Tx, result: Record<string, unknown>): Promise<void>;
  /** Adds work to a queued job of another kind, or queues one (JobStore.gather): what this job's effect leaves to do. */
  gather: JobStore['gather'];
}

export type JobHandler = (ctx: JobContext) => Promise<Record<string, unknown> | void>;

export interface JobRunnerDeps {
  db: Db;
  provider: Provider;
  storage: ObjectStorage;
  config: AppConfig;
  log: Logger;
  workers: WorkerPool;
  store: JobStore;
  handlers: Partial<Record<JobKind, JobHandler>>;
  /** Running jobs, outcomes and durations (/metrics). */
  metrics?: JobMetrics;
}

export class JobRunner {
  readonly workerId = `worker-${newId()}`;
  private readonly running = new Map<string, AbortController>();

  constructor(private readonly deps: JobRunnerDeps) {}

  get activeCount(): number {
    return this.running.size;
  }

  /** Claims and runs one job; resolves when it finished (or was not claimable). */
  async execute(jobId: string): Promise<void> {
    const { store, log } = this.deps;
    if (this.running.has(jobId)) return;
    const job = await store.claim(jobId, this.workerId);
    if (!job) return;
    if (job.state === 'failed') {
      // The claim gave up on a job whose workers died too often (MAX_ATTEMPTS): nothing to run.
      log.error({ jobId: job.id, kind: job.kind, error: job.error }, 'job failed');
      this.deps.metrics?.jobsFailed.inc({ kind: job.kind });
      return;
    }
    const handler = this.deps.handlers[job.kind as JobKind];
    if (!handler) {
      log.error({ jobId: job.id, kind: job.kind }, 'job failed: no handler for its kind');
      this.deps.metrics?.jobsFailed.inc({ kind: job.kind });
      await store.finish(job, 'failed', { error: `No handler for jobs of kind ${job.kind}`, worker: this.workerId });
      return;
    }
    const controller = new AbortController();
    const metrics = this.deps.metrics;
    const startedAt = performance.now();
    // The state the job ended in on this process (null: left to another worker), for the metrics.
    let outcome: 'succeeded' | 'failed' | 'cancelled' | null = null;
    metrics?.jobsRunning.inc({ kind: job.kind });
    let progressRecorded: Promise<void> = Promise.resolve();
    this.running.set(job.id, controller);
    let completedInTransaction = false;
    // Renew the lease while the handler works, and notice cancellation.
    const heartbeat = setInterval(() => {
      store
        .renew(job, this.workerId)
        .then(({ held, cancelRequested }) => {
          if (!held || cancelRequested) controller.abort(held ? new JobCancelledError() : new LostJobError(job.id));
        })
        .catch((error: unknown) => log.warn({ err: error, jobId: job.id }, 'job lease renewal failed'));
    }, store.leaseMs / 3);
    heartbeat.unref();
    // Once cancelled or lost, stop renewing: the job is no longer this worker's to keep.
    controller.signal.addEventListener('abort', () => clearInterval(heartbeat), { once: true });
    let lastStep: string | null = null;
    let lastRecordedAt = 0;
    let heldProgress: { step: string; percent: number; message?: string | null } | null = null;
    let heldTimer: NodeJS.Timeout | null = null;
    const dropHeldProgress = () => {
      if (heldTimer) clearTimeout(heldTimer);
      heldTimer = null;
      heldProgress = null;
    };
    // One at a time, in call order: a step reported without waiting (Git's transfer callbacks)
    // must not be numbered after a later one (job events are numbered as they are recorded).
    const recordProgress = (update: { step: string; percent: number; message?: string | null }) => {
      lastStep = update.step;
      lastRecordedAt = performance.now();
      const report = progressRecorded.then(async () => {
        if (controller.signal.aborted) throw controller.signal.reason;
        const { held, cancelRequested } = await store.progress(job, this.workerId, update);
        if (!held) throw new LostJobError(job.id);
        if (cancelRequested) throw new JobCancelledError();
      });
      progressRecorded = report.catch(() => undefined);
      return report;
    };
    const context: JobContext = {
      job,
      input: jobInput(job),
      db: this.deps.db,
      provider: this.deps.provider,
      storage: this.deps.storage,
      config: this.deps.config,
      workers: this.deps.workers,
      log: log.child({ jobId: job.id, kind: job.kind }),
      signal: controller.signal,
      progress: (step, percent, message) => {
        // The same step reported again within PROGRESS_INTERVAL_MS of its last record is held, and
        // only the latest held is recorded when the interval ends, unless a new step (or the job's
        // end) comes first and supersedes it: each recorded event goes to every subscriber, and a
        // burst of them (Git's transfer callbacks, a few ms apart) made the last wait for the
        // fan-out of all the others (docs/decisions.md, "Job event fan-out").
        if (step === lastStep && performance.now() - lastRecordedAt < PROGRESS_INTERVAL_MS) {
          heldProgress = { step, percent, message };
          heldTimer ??= setTimeout(() => {
            heldTimer = null;
            const update = heldProgress;
            heldProgress = null;
            if (update) recordProgress(update).catch(() => undefined);
          }, Math.max(0, lastRecordedAt + PROGRESS_INTERVAL_MS - performance.now()));
          return progressRecorded;
        }
        dropHeldProgress();
        return recordProgress({ step, percent, message });
      },
      complete: async (tx, result) => {
        await store.completeInTransaction(tx, job, this.workerId, result);
        completedInTransaction = true;
      },
      gather: (input, merge) => store.gather(input, merge),
    };
    try {
      const result = await handler(context).finally(dropHeldProgress);
      outcome = 'succeeded';
      if (completedInTransaction) await store.announceFinished(job.id);
      else await store.finish(job, 'succeeded', { result: result ?? {}, worker: this.workerId });
    } catch (error) {
      if (completedInTransaction) {
        outcome = 'succeeded';
        await store.announceFinished(job.id);
      } else if (error instanceof LostJobError || (controller.signal.aborted && controller.signal.reason instanceof LostJobError)) {
        // Taken over, or this process is shutting down: the job stays running until its lease expires and another worker takes it.
        log.warn({ jobId: job.id }, 'job left to another worker');
      } else if (error instanceof JobCancelledError || (controller.signal.aborted && controller.signal.reason instanceof JobCancelledError)) {
        outcome = 'cancelled';
        await store.finish(job, 'cancelled', { error: 'Cancelled', worker: this.workerId });
      } else if (error instanceof RetryLaterError) {
        // Queued again for later: neither succeeded nor failed yet.
        const runAfter = new Date(Date.now() + error.delayMs);
        log.info({ jobId: job.id, kind: job.kind, error: error.message, runAfter }, 'job to retry');
        if (!(await store.retryLater(job, this.workerId, { runAfter, error: error.message }))) {
          // A cancellation asked meanwhile (or the job was taken over: then this finds nothing to finish).
          if (await store.finish(job, 'cancelled', { error: 'Cancelled', worker: this.workerId })) outcome = 'cancelled';
        }
      } else {
        outcome = 'failed';
        const message = error instanceof Error ? error.message : String(error);
        // An operator watches for these (a repository that cannot be reached, a provider that refuses):
        // a warning, not routine information.
        log.warn({ err: error, jobId: job.id, kind: job.kind }, 'job failed');
        await store.finish(job, 'failed', { error: message, worker: this.workerId });
      }
    } finally {
      clearInterval(heartbeat);
      this.running.delete(job.id);
      metrics?.jobsRunning.dec({ kind: job.kind });
      if (outcome) {
        if (outcome === 'succeeded') metrics?.jobsSucceeded.inc({ kind: job.kind });
        if (outcome === 'failed') metrics?.jobsFailed.inc({ kind: job.kind });
        metrics?.jobDuration.observe({ kind: job.kind, state: outcome }, (performance.now() - startedAt) / 1000);
      }
    }
  }

  /** Aborts every job this worker runs (shutdown): their leases expire and another worker takes them over. */
  abortAll(): void {
    for (const controller of this.running.values()) controller.abort(new LostJobError('shutdown'));
  }
}

/**
 * The embedded dispatch: polls for claimable jobs (queued, or with an expired
 * lease) and runs up to `concurrency` at once; `wake()` polls at once.
 */
export class PollingDispatch {
  private timer: NodeJS.Timeout | null = null;
  private polling = false;
  private stopped = false;
  private readonly inFlight = new Set<Promise<void>>();

  constructor(
    private readonly runner: JobRunner,
    private readonly store: JobStore,
    private readonly options: { concurrency: number; pollMs: number; log: Logger },
  ) {}

  start(): void {
    this.stopped = false;
    this.schedule(0);
  }

  /** A job was created here: look now rather than at the next poll. */
  wake(_jobId?: string): void {
    if (!this.stopped) this.schedule(0);
  }

  private schedule(ms: number) {
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.poll(), ms);
    this.timer.unref();
  }

  private async poll(): Promise<void> {
    if (this.polling || this.stopped) return;
    this.polling = true;
    try {
      const free = this.options.concurrency - this.inFlight.size;
      if (free > 0) {
        for (const id of await this.store.claimable(free)) {
          const run = this.runner.execute(id).catch((error: unknown) => this.options.log.error({ err: error, jobId: id }, 'job run failed'));
          this.inFlight.add(run);
          void run.finally(() => {
            this.inFlight.delete(run);
            this.wake();
          });
        }
      }
    } catch (error) {
      this.options.log.error({ err: error }, 'job poll failed');
    } finally {
      this.polling = false;
      if (!this.stopped) this.schedule(this.options.pollMs);
    }
  }

  /** Stops polling, aborts running jobs and waits for them to settle. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.runner.abortAll();
    await Promise.allSettled([...this.inFlight]);
  }
}

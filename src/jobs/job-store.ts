/**
 * The persisted state of jobs, and the only code that changes it: creating,
 * claiming (a lease), progress, completion, failure and cancellation. Every
 * change is published as a JobEvent after it is written.
 *
 * Leases: a worker holds a running job until `leaseExpiresAt` and renews the
 * lease while it works. A job whose lease expired (its worker died) can be
 * claimed again, and runs again from the start: handlers are written so a
 * second run finds the first one's effects (or none), never doubles them, and
 * their final write completes the job in the same transaction
 * (`completeJobInTransaction`), so a job's effect and its success commit together.
 */
import type { Db, Tx } from '../db/client.ts';
import { jsonInput, jsonObject } from '../db/json.ts';
import { LostJobError } from '../errors/internal.ts';
import { newId } from '../ids.ts';
import type { JobEvent, JobKind, JobPubSub, JobState } from './events.ts';

export type JobRow = NonNullable<Awaited<ReturnType<Db['job']['findUnique']>>>;

/** How long a claim lasts without renewal, unless configured (JOB_LEASE_MS). */
export const DEFAULT_LEASE_MS = 30_000;
/** A job that lost its worker this many times fails instead of running again. */
export const MAX_ATTEMPTS = 3;

export function jobEvent(job: JobRow): JobEvent {
  return {
    id: job.id,
    organizationId: job.organizationId,
    spaceId: job.spaceId,
    translationId: job.translationId,
    kind: job.kind as JobKind,
    state: job.state as JobState,
    step: job.step,
    percent: job.percent,
    message: job.message,
    result: jobResult(job),
    error: job.error,
    at: job.updatedAt.toISOString(),
  };
}

/** What the job was asked (Job.input: a JSON object, never secrets). */
export function jobInput(job: JobRow): Record<string, unknown> {
  return jsonObject(job.input) ?? {};
}

/** What the job made, once succeeded (Job.result: a JSON object of ids); null before. */
export function jobResult(job: JobRow): Record<string, unknown> | null {
  return jsonObject(job.result);
}

export class JobStore {
  constructor(
    private readonly db: Db,
    private readonly pubsub: JobPubSub,
    readonly leaseMs = DEFAULT_LEASE_MS,
  ) {}

  private publish(job: JobRow | null): JobRow | null {
    if (job) this.pubsub.publish('job', jobEvent(job));
    return job;
  }

  async create(input: {
    organizationId: string;
    spaceId?: string | null;
    translationId?: string | null;
    kind: JobKind;
    input: Record<string, unknown>;
    createdById?: string | null;
    db?: Db | Tx;
  }): Promise<JobRow> {
    const job = await (input.db ?? this.db).job.create({
      data: {
        id: newId(),
        organizationId: input.organizationId,
        spaceId: input.spaceId ?? null,
        translationId: input.translationId ?? null,
        kind: input.kind,
        input: jsonInput(input.input),
        createdById: input.createdById ?? null,
      },
    });
    // Published by the caller once its transaction (if any) committed: see `announce`.
    if (!input.db) this.publish(job);
    return job;
  }

  /** Publishes a job created inside a transaction, after the commit. */
  announce(job: JobRow): void {
    this.publish(job);
  }

  get(id: string): Promise<JobRow | null> {
    return this.db.job.findUnique({ where: { id } });
  }

  /**
   * Takes the job for `worker` if it is queued, or running with an expired
   * lease (its worker died). Compare-and-set: of two workers, one wins.
   */
  async claim(id: string, worker: string, now = new Date()): Promise<JobRow | null> {
    const job = await this.db.job.findUnique({ where: { id } });
    if (!job) return null;
    const claimable = job.state === 'queued' || (job.state === 'running' && job.leaseExpiresAt !== null && job.leaseExpiresAt < now);
    if (!claimable) return null;
    if (job.attempts >= MAX_ATTEMPTS) {
      return this.finish(job, 'failed', { error: `The job stopped ${job.attempts} times without finishing (its worker died); giving up` });
    }
    const taken = await this.db.job.updateMany({
      where: { id, state: job.state, attempts: job.attempts, updatedAt: job.updatedAt },
      data: {
        state: 'running',
        leaseOwner: worker,
        leaseExpiresAt: new Date(now.getTime() + this.leaseMs),
        attempts: { increment: 1 },
        startedAt: job.startedAt ?? now,
        step: job.attempts > 0 ? 'restarting' : 'starting',
      },
    });
    if (taken.count !== 1) return null;
    return this.publish(await this.db.job.findUnique({ where: { id } }));
  }

  /** Ids of jobs a worker may claim now, oldest first. */
  async claimable(limit: number, now = new Date()): Promise<string[]> {
    const rows = await this.db.job.findMany({
      where: { OR: [{ state: 'queued' }, { state: 'running', leaseExpiresAt: { lt: now } }] },
      orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
      take: limit,
      select: { id: true },
    });
    return rows.map((r) => r.id);
  }

  /** Records progress and renews the lease; false when the worker lost the job (or it was cancelled). */
  async progress(job: JobRow, worker: string, update: { step: string; percent: number; message?: string | null }): Promise<{ held: boolean; cancelRequested: boolean }> {
    const percent = Math.max(0, Math.min(100, Math.round(update.percent)));
    const renewed = await this.db.job.updateMany({
      where: { id: job.id, state: 'running', leaseOwner: worker },
      data: { step: update.step, percent, message: update.message ?? null, leaseExpiresAt: new Date(Date.now() + this.leaseMs) },
    });
    const row = await this.db.job.findUnique({ where: { id: job.id } });
    if (renewed.count === 1) this.publish(row);
    return { held: renewed.count === 1, cancelRequested: row?.cancelRequested ?? false };
  }

  /** Renews the lease only (a heartbeat between progress steps). */
  async renew(job: JobRow, worker: string): Promise<{ held: boolean; cancelRequested: boolean }> {
    const renewed = await this.db.job.updateMany({
      where: { id: job.id, state: 'running', leaseOwner: worker },
      data: { leaseExpiresAt: new Date(Date.now() + this.leaseMs) },
    });
    const row = await this.db.job.findUnique({ where: { id: job.id }, select: { cancelRequested: true } });
    return { held: renewed.count === 1, cancelRequested: row?.cancelRequested ?? false };
  }

  /**
   * Marks the job succeeded inside the handler's own final transaction, so the
   * effect and the success commit together. Throws when the worker no longer
   * holds the job (the transaction then rolls back, and the effect with it).
   */
  async completeInTransaction(tx: Tx, job: JobRow, worker: string, result: Record<string, unknown>): Promise<void> {
    const done = await tx.job.updateMany({
      where: { id: job.id, state: 'running', leaseOwner: worker },
      data: { state: 'succeeded', result: jsonInput(result), percent: 100, step: 'done', finishedAt: new Date(), leaseOwner: null, leaseExpiresAt: null },
    });
    if (done.count !== 1) throw new LostJobError(job.id);
  }

  /** Publishes the final state of a job completed in a transaction. */
  async announceFinished(id: string): Promise<void> {
    this.publish(await this.db.job.findUnique({ where: { id } }));
  }

  async finish(job: JobRow, state: 'succeeded' | 'failed' | 'cancelled', outcome: { result?: Record<string, unknown>; error?: string; worker?: string }): Promise<JobRow | null> {
    const done = await this.db.job.updateMany({
      where: { id: job.id, state: { in: ['queued', 'running'] }, ...(outcome.worker ? { leaseOwner: outcome.worker } : {}) },
      data: {
        state,
        result: outcome.result ? jsonInput(outcome.result) : undefined,
        error: outcome.error ?? null,
        step: state === 'succeeded' ? 'done' : state,
        ...(state === 'succeeded' ? { percent: 100 } : {}),
        finishedAt: new Date(),
        leaseOwner: null,
        leaseExpiresAt: null,
      },
    });
    if (done.count !== 1) return null;
    return this.publish(await this.db.job.findUnique({ where: { id: job.id } }));
  }

  /** Cancels a queued job at once; asks a running one to stop (its worker finishes it as cancelled). */
  async cancel(id: string): Promise<JobRow | null> {
    const job = await this.db.job.findUnique({ where: { id } });
    if (!job) return null;
    if (job.state === 'queued') {
      const cancelled = await this.finish(job, 'cancelled', { error: 'Cancelled before it started' });
      if (cancelled) return cancelled;
    }
    if (job.state === 'running' || job.state === 'queued') {
      await this.db.job.updateMany({ where: { id, state: { in: ['queued', 'running'] } }, data: { cancelRequested: true } });
    }
    return this.db.job.findUnique({ where: { id } });
  }
}

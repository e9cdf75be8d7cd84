/**
 * The persisted state of jobs, and the only code that changes it: creating,
 * claiming (a lease), progress, completion, failure and cancellation. Every
 * change is recorded as the job's next event (a JobEvent row numbered 1, 2, ...
 * within the job, written in the same transaction as the change), and published
 * on the event bus once committed. Subscribers replay what the bus lost from
 * these rows (src/jobs/job-feed.ts).
 *
 * Leases: a worker holds a running job until `leaseExpiresAt` and renews the
 * lease while it works. A job whose lease expired (its worker died) can be
 * claimed again, and runs again from the start: handlers are written so a
 * second run finds the first one's effects (or none), never doubles them, and
 * their final write completes the job in the same transaction
 * (`completeJobInTransaction`), so a job's effect and its success commit together.
 */
import type { Db, Prisma, Tx } from '../db/client.ts';
import type { Provider } from '../db/provider/config.ts';
import { lockRowStatement } from '../db/provider/statements.ts';
import { jsonInput, jsonObject } from '../db/json.ts';
import { LostJobError } from '../errors/internal.ts';
import { newId } from '../ids.ts';
import { FINAL_JOB_STATES, type JobEvent, type JobEventBus, type JobKind, type JobState } from './events.ts';

export type JobRow = NonNullable<Awaited<ReturnType<Db['job']['findUnique']>>>;

/** How long a claim lasts without renewal, unless configured (JOB_LEASE_MS). */
export const DEFAULT_LEASE_MS = 30_000;
/**
 * A job that lost its worker this many times fails instead of running again. Runs its handler
 * ended by asking to retry later (`retries`) are not counted: the handler bounds those.
 */
export const MAX_ATTEMPTS = 3;

/** A stored event: one change of a job, numbered within it. */
export type JobEventRow = NonNullable<Awaited<ReturnType<Db['jobEvent']['findFirst']>>>;

/** The fields of a job that an event records (the rest is the job's and never changes, but for the result). */
type RecordedChange = Omit<JobEventRow, 'jobId'>;

/** The job's event recording `change`: its fixed fields, and its result when the change is its success. */
export function jobEventOf(job: JobRow, change: RecordedChange): JobEvent {
  return {
    id: job.id,
    organizationId: job.organizationId,
    spaceId: job.spaceId,
    translationId: job.translationId,
    kind: job.kind as JobKind,
    state: change.state as JobState,
    step: change.step,
    percent: change.percent,
    message: change.message,
    result: change.state === 'succeeded' ? jobResult(job) : null,
    error: change.error,
    at: change.at.toISOString(),
    sequence: change.sequence,
  };
}

/** The job as it is now (the `job` query, mutations): the state of its latest event, and that event's number. */
export function jobEvent(job: JobRow): JobEvent {
  return jobEventOf(job, changeOf(job, job.updatedAt));
}

/** The change a job row holds now, as its latest event (numbered `eventSequence`) records it. */
function changeOf(job: JobRow, at: Date): RecordedChange {
  return { sequence: job.eventSequence, state: job.state, step: job.step, percent: job.percent, message: job.message, error: job.error, at };
}

/** The jobs a multi-job subscription follows: all of them that match every field given. */
export interface JobScope {
  organizationId?: string;
  spaceId?: string;
  translationId?: string;
  kinds?: readonly JobKind[];
}

function scopeWhere(scope: JobScope): Prisma.JobWhereInput {
  return {
    ...(scope.organizationId ? { organizationId: scope.organizationId } : {}),
    ...(scope.spaceId ? { spaceId: scope.spaceId } : {}),
    ...(scope.translationId ? { translationId: scope.translationId } : {}),
    ...(scope.kinds ? { kind: { in: [...scope.kinds] } } : {}),
  };
}

/** Whether `event` is of a job in `scope`. */
export function inScope(scope: JobScope, event: JobEvent): boolean {
  return (
    (!scope.organizationId || event.organizationId === scope.organizationId) &&
    (!scope.spaceId || event.spaceId === scope.spaceId) &&
    (!scope.translationId || event.translationId === scope.translationId) &&
    (!scope.kinds || scope.kinds.includes(event.kind))
  );
}

const OPEN_STATES: JobState[] = ['queued', 'running'];

/** What the job was asked (Job.input: a JSON object, never secrets). */
export function jobInput(job: JobRow): Record<string, unknown> {
  return jsonObject(job.input) ?? {};
}

/** What the job made, once succeeded (Job.result: a JSON object of ids); null before. */
export function jobResult(job: JobRow): Record<string, unknown> | null {
  return jsonObject(job.result);
}

/** A change as written: the job after it, and its event. */
interface Recorded {
  job: JobRow;
  event: JobEvent;
}

export class JobStore {
  /**
   * An event's transaction waits for the database (SQLite runs one transaction at a
   * time, and a job's final one can take seconds) and must not fail for it: it may
   * wait as long as a lease lasts.
   */
  private readonly transactionOptions: { maxWait: number; timeout: number };

  constructor(
    private readonly db: Db,
    private readonly bus: JobEventBus,
    /** Which database: gatherings lock the organization's row on PostgreSQL (lockRowStatement). */
    private readonly provider: Provider,
    readonly leaseMs = DEFAULT_LEASE_MS,
  ) {
    this.transactionOptions = { maxWait: leaseMs, timeout: leaseMs };
  }

  /**
   * Changes the job if it matches `where` and records the change as its next event, in
   * one transaction (the caller's `tx`, or one of its own): the job row and its history
   * never disagree, and the row's `eventSequence` numbers the events without gaps (the
   * UPDATE that increments it locks the row). Null when the job did not match.
   *
   * Its own transaction is a batch of two statements (`$transaction([...])`), not an
   * interactive one: on SQLite the interactive transaction costs several times more
   * (bench/job-event-writes.ts).
   */
  private async record(where: Prisma.JobWhereInput & { id: string }, data: Prisma.JobUpdateManyMutationInput, tx?: Tx): Promise<Recorded | null> {
    const at = new Date();
    const update = (client: Db | Tx) => client.job.updateManyAndReturn({ where, data: { ...data, eventSequence: { increment: 1 }, updatedAt: at } });
    let job: JobRow | undefined;
    if (tx) {
      [job] = await update(tx);
      if (job) await recordLatest(tx, job.id);
    } else {
      [[job]] = await this.db.$transaction([update(this.db), recordLatest(this.db, where.id)], this.transactionOptions);
    }
    return job ? { job, event: jobEventOf(job, changeOf(job, at)) } : null;
  }

  /** Publishes a change once it committed. */
  private published(recorded: Recorded | null): JobRow | null {
    if (recorded) this.bus.publish(recorded.event);
    return recorded?.job ?? null;
  }

  /**
   * Creates a job, queued, with its first event. Inside the caller's transaction `tx`,
   * the caller publishes it after the commit (`announce`).
   */
  async create(input: {
    organizationId: string;
    spaceId?: string | null;
    translationId?: string | null;
    openAPISpecId?: string | null;
    kind: JobKind;
    input: Record<string, unknown>;
    createdById?: string | null;
    tx?: Tx;
  }): Promise<JobRow> {
    const id = newId();
    const create = (client: Db | Tx) =>
      client.job.create({
        data: {
          id,
          organizationId: input.organizationId,
          spaceId: input.spaceId ?? null,
          translationId: input.translationId ?? null,
          openAPISpecId: input.openAPISpecId ?? null,
          kind: input.kind,
          input: jsonInput(input.input),
          createdById: input.createdById ?? null,
          eventSequence: 1,
        },
      });
    if (input.tx) {
      const job = await create(input.tx);
      await recordLatest(input.tx, id);
      return job;
    }
    const [job] = await this.db.$transaction([create(this.db), recordLatest(this.db, id)], this.transactionOptions);
    this.announce(job);
    return job;
  }

  /** Publishes a job created inside a transaction, after the commit. */
  announce(job: JobRow): void {
    this.bus.publish(jobEvent(job));
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
    const claimable =
      (job.state === 'queued' && (job.runAfter === null || job.runAfter <= now)) ||
      (job.state === 'running' && job.leaseExpiresAt !== null && job.leaseExpiresAt < now);
    if (!claimable) return null;
    const deaths = job.attempts - job.retries;
    if (deaths >= MAX_ATTEMPTS) {
      return this.finish(job, 'failed', { error: `The job stopped ${deaths} times without finishing (its worker died); giving up` });
    }
    return this.published(
      await this.record(
        { id, state: job.state, attempts: job.attempts, updatedAt: job.updatedAt },
        {
          state: 'running',
          leaseOwner: worker,
          leaseExpiresAt: new Date(now.getTime() + this.leaseMs),
          attempts: { increment: 1 },
          runAfter: null,
          startedAt: job.startedAt ?? now,
          step: job.attempts > 0 ? 'restarting' : 'starting',
        },
      ),
    );
  }

  /** Ids of jobs a worker may claim now (queued and not waiting to retry, or whose worker died), oldest first. */
  async claimable(limit: number, now = new Date()): Promise<string[]> {
    const rows = await this.db.job.findMany({
      where: {
        OR: [
          { state: 'queued', OR: [{ runAfter: null }, { runAfter: { lte: now } }] },
          { state: 'running', leaseExpiresAt: { lt: now } },
        ],
      },
      orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
      take: limit,
      select: { id: true },
    });
    return rows.map((r) => r.id);
  }

  /** Records progress and renews the lease; false when the worker lost the job (or it was cancelled). */
  async progress(job: JobRow, worker: string, update: { step: string; percent: number; message?: string | null }): Promise<{ held: boolean; cancelRequested: boolean }> {
    const percent = Math.max(0, Math.min(100, Math.round(update.percent)));
    const recorded = await this.record(
      { id: job.id, state: 'running', leaseOwner: worker },
      { step: update.step, percent, message: update.message ?? null, leaseExpiresAt: new Date(Date.now() + this.leaseMs) },
    );
    if (recorded) {
      this.published(recorded);
      return { held: true, cancelRequested: recorded.job.cancelRequested };
    }
    const row = await this.db.job.findUnique({ where: { id: job.id }, select: { cancelRequested: true } });
    return { held: false, cancelRequested: row?.cancelRequested ?? false };
  }

  /** Renews the lease only (a heartbeat between progress steps; not an event). */
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
    const done = await this.record(
      { id: job.id, state: 'running', leaseOwner: worker },
      { state: 'succeeded', result: jsonInput(result), percent: 100, step: 'done', finishedAt: new Date(), leaseOwner: null, leaseExpiresAt: null },
      tx,
    );
    if (!done) throw new LostJobError(job.id);
  }

  /**
   * Publishes the latest event of a job completed in a transaction, read back once the
   * transaction is over: if it rolled back, that is an event published already, which
   * subscribers drop.
   */
  async announceFinished(id: string): Promise<void> {
    const latest = await this.latestEvent(id);
    if (latest) this.bus.publish(latest);
  }

  async finish(job: JobRow, state: 'succeeded' | 'failed' | 'cancelled', outcome: { result?: Record<string, unknown>; error?: string; worker?: string }): Promise<JobRow | null> {
    return this.published(
      await this.record(
        { id: job.id, state: { in: OPEN_STATES }, ...(outcome.worker ? { leaseOwner: outcome.worker } : {}) },
        {
          state,
          result: outcome.result ? jsonInput(outcome.result) : undefined,
          error: outcome.error ?? null,
          step: state === 'succeeded' ? 'done' : state,
          ...(state === 'succeeded' ? { percent: 100 } : {}),
          finishedAt: new Date(),
          leaseOwner: null,
          leaseExpiresAt: null,
        },
      ),
    );
  }

  /**
   * Queues the job again, not to be claimed before `runAfter`, for the worker that holds it (its
   * handler asked to retry later: `RetryLaterError`); `error` says why, for a person. Null when the
   * worker no longer holds it, or a cancellation was asked meanwhile.
   */
  async retryLater(job: JobRow, worker: string, retry: { runAfter: Date; error: string }): Promise<JobRow | null> {
    return this.published(
      await this.record(
        { id: job.id, state: 'running', leaseOwner: worker, cancelRequested: false },
        {
          state: 'queued',
          retries: { increment: 1 },
          runAfter: retry.runAfter,
          step: 'waiting to retry',
          message: `again from ${retry.runAfter.toISOString()}`,
          error: retry.error,
          leaseOwner: null,
          leaseExpiresAt: null,
        },
      ),
    );
  }

  /**
   * Adds `input` to the queued job of `kind` of the organization that no worker took yet (its
   * input becomes `merge(queued, input)`), or creates one when there is none. Gathering does not
   * wake the workers: they take the job at their next look (JOB_POLL_MS, or once it may retry), so
   * what is gathered until then goes out in one run. Gatherings of one organization take turns
   * (one transaction each, the organization's row locked on PostgreSQL, SQLite's one writer): two
   * at once never both make a job, nor lose each other's part. A worker taking the job meanwhile
   * (it does not take turns) leaves it not queued, and a new one is made.
   */
  async gather(
    input: { organizationId: string; kind: JobKind; input: Record<string, unknown> },
    merge: (queued: Record<string, unknown>, added: Record<string, unknown>) => Record<string, unknown>,
  ): Promise<JobRow> {
    return this.db.$transaction(async (tx) => {
      const lock = lockRowStatement(this.provider, 'Organization', 'id');
      if (lock) await tx.$queryRawUnsafe(lock, input.organizationId);
      const queued = await tx.job.findFirst({
        where: { organizationId: input.organizationId, kind: input.kind, state: 'queued', spaceId: null, translationId: null },
        orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
      });
      if (queued) {
        const [merged] = await tx.job.updateManyAndReturn({ where: { id: queued.id, state: 'queued' }, data: { input: jsonInput(merge(jobInput(queued), input.input)) } });
        if (merged) return merged;
      }
      return this.create({ ...input, tx });
    }, this.transactionOptions);
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
      await this.db.job.updateMany({ where: { id, state: { in: OPEN_STATES } }, data: { cancelRequested: true } });
    }
    return this.db.job.findUnique({ where: { id } });
  }

  // -------------------------------------------------------------------------
  // History

  /** The job's latest event; null when there is no such job. */
  async latestEvent(id: string): Promise<JobEvent | null> {
    const job = await this.db.job.findUnique({ where: { id }, include: { events: { orderBy: { sequence: 'desc' }, take: 1 } } });
    const [latest] = job?.events ?? [];
    return job && latest ? jobEventOf(job, latest) : null;
  }

  /**
   * The job, and its events numbered after `afterSequence`, in order: every event up
   * to the job's `eventSequence` at least (they commit together). Null when there is
   * no such job.
   */
  async eventsAfter(id: string, afterSequence: number): Promise<{ job: JobRow; events: JobEvent[] } | null> {
    const job = await this.db.job.findUnique({ where: { id }, include: { events: { where: { sequence: { gt: afterSequence } }, orderBy: { sequence: 'asc' } } } });
    if (!job) return null;
    const { events, ...row } = job;
    // The row and its events are two statements: a success committed between them is among the
    // events but not yet in the row, whose result is then read again (it committed with the event).
    const late = row.state !== 'succeeded' && events.some((event) => event.state === 'succeeded');
    const withResult = late ? { ...row, result: (await this.db.job.findUniqueOrThrow({ where: { id }, select: { result: true } })).result } : row;
    return { job: row, events: events.map((event) => jobEventOf(withResult, event)) };
  }

  /**
   * The jobs of `scope` that are not finished, or finished at `finishedSince` or
   * later, or are one of `ids`; oldest first.
   */
  async jobsOf(scope: JobScope, select: { finishedSince?: Date; ids?: string[] } = {}): Promise<Array<{ id: string; eventSequence: number }>> {
    return this.db.job.findMany({
      where: {
        ...scopeWhere(scope),
        OR: [
          { state: { in: OPEN_STATES } },
          ...(select.finishedSince ? [{ finishedAt: { gte: select.finishedSince } }] : []),
          ...(select.ids?.length ? [{ id: { in: select.ids } }] : []),
        ],
      },
      orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
      select: { id: true, eventSequence: true },
    });
  }
}

/**
 * Stores the job's state as its event numbered `eventSequence` (what the UPDATE or INSERT
 * before it in the transaction just wrote), copied by the database from the row. Nothing
 * when that event is stored already: the change before did not match, and the row is
 * still at its previous event.
 */
function recordLatest(client: Db | Tx, jobId: string) {
  return client.$executeRaw`
    INSERT INTO "JobEvent" ("jobId", "sequence", "state", "step", "percent", "message", "error", "at")
    SELECT "id", "eventSequence", "state", "step", "percent", "message", "error", "updatedAt" FROM "Job" WHERE "id" = ${jobId}
    ON CONFLICT DO NOTHING`;
}

/** Whether a job in `state` is over: it has no event after the one reaching it. */
export function isFinal(state: string): boolean {
  return FINAL_JOB_STATES.has(state);
}

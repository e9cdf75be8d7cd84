/** Jobs: which the caller may see, loading one, and following the events of those they may see. */
import { can } from '../auth/policies.ts';
import type { Context } from '../context.ts';
import { InvalidInputError, NotFoundError } from '../errors/index.ts';
import type { JobEvent } from '../jobs/events.ts';
import type { JobScope } from '../jobs/job-store.ts';
import { SPACE_ACCESS_SELECT } from '../auth/access.ts';

/**
 * Whether the caller may see a job (`job:read`): decided on its space, or
 * without one on its organization; the caller must belong to the job's
 * organization either way. `spaces` remembers the decision per space (a
 * subscription decides once per space, with the roles it started with).
 */
export async function canSeeJob(ctx: Context, job: { organizationId: string; spaceId: string | null }, spaces: Map<string, boolean>): Promise<boolean> {
  const organization = ctx.access.organization(job.organizationId);
  if (!can(organization, 'organization:read')) return false;
  if (!job.spaceId) return can(organization, 'job:read');
  let allowed = spaces.get(job.spaceId);
  if (allowed === undefined) {
    const space = await ctx.db.space.findUnique({ where: { id: job.spaceId }, select: { id: true, ...SPACE_ACCESS_SELECT } });
    allowed = space !== null && can(await ctx.access.space(space), 'job:read');
    spaces.set(job.spaceId, allowed);
  }
  return allowed;
}

/** Loads a job the caller may see, or 404. */
export async function loadJob(ctx: Context, id: string) {
  ctx.access.requireViewer();
  const job = await ctx.jobs.store.get(id);
  if (!job || !(await canSeeJob(ctx, job, new Map()))) throw new NotFoundError('Job', id);
  return job;
}

/** Whether the caller may see an event's job, decided once per space for the life of a subscription. */
function visibleTo(ctx: Context): (event: JobEvent) => Promise<boolean> {
  const spaces = new Map<string, boolean>();
  return (event) => canSeeJob(ctx, event, spaces);
}

/**
 * A job's events (it must be one the caller may see, else 404): after `after` when given
 * (a sequence number the caller has seen, from 0 up to the job's latest), else its current
 * state first; then every change until it finishes.
 */
export async function followJob(ctx: Context, id: string, after?: number | null): Promise<AsyncIterable<JobEvent>> {
  const job = await loadJob(ctx, id);
  const resumeAfter = after ?? lastEventId(ctx);
  if (resumeAfter !== undefined && (resumeAfter < 0 || resumeAfter > job.eventSequence)) {
    throw new InvalidInputError(`after must be a sequence number of this job's events, from 0 to ${job.eventSequence}`);
  }
  return ctx.jobs.follow(job.id, { after: resumeAfter, visible: visibleTo(ctx) });
}

/** The `Last-Event-ID` of an SSE request (the last event's `sequence`), when it has one. */
function lastEventId(ctx: Context): number | undefined {
  const header = ctx.eventIds.lastEventId?.trim();
  if (!header) return undefined;
  if (!/^\d{1,9}$/.test(header)) throw new InvalidInputError('Last-Event-ID must be the sequence number of a job event');
  return Number(header);
}

/** The events of the jobs of `scope` the caller may see: those of unfinished jobs first, from their start (src/jobs/job-feed.ts). */
export function followJobs(ctx: Context, scope: JobScope): AsyncIterable<JobEvent> {
  return ctx.jobs.followScope(scope, { visible: visibleTo(ctx) });
}

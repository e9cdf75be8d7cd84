/** Jobs: which the caller may see, loading one, and following the events of those they may see. */
import { filter, pipe } from 'graphql-yoga';
import { can } from '../auth/policies.ts';
import type { Context } from '../context.ts';
import { NotFoundError } from '../errors/index.ts';
import type { JobEvent } from '../jobs/events.ts';
import { SPACE_ACCESS_SELECT } from './space.ts';

/** States a job never leaves. */
export const FINAL_STATES = new Set(['succeeded', 'failed', 'cancelled']);

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

/** The events of jobs matching `match` the caller may see. */
export function jobEvents(ctx: Context, match: (event: JobEvent) => boolean): AsyncIterable<JobEvent> {
  const spaces = new Map<string, boolean>();
  return pipe(
    ctx.jobs.pubsub.subscribe('job'),
    filter(async (event: JobEvent) => match(event) && (await canSeeJob(ctx, event, spaces))),
  );
}

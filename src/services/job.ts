/** Jobs: which the caller may see, loading one, and following the events of those they may see. */
import { filter, pipe } from 'graphql-yoga';
import { can } from '../auth/policies.ts';
import type { Context } from '../context.ts';
import { NotFoundError } from '../errors/index.ts';
import type { JobEvent } from '../jobs/events.ts';

/** States a job never leaves. */
export const FINAL_STATES = new Set(['succeeded', 'failed', 'cancelled']);

/** Whether the caller may see a job: read access to its space, or to its organization's content. */
export async function canSeeJob(ctx: Context, job: { organizationId: string; spaceId: string | null }, spaces: Map<string, boolean>): Promise<boolean> {
  if (ctx.access.organizationRole(job.organizationId) === undefined) return false;
  if (!job.spaceId) return can(ctx.access.organization(job.organizationId), 'space:read');
  let allowed = spaces.get(job.spaceId);
  if (allowed === undefined) {
    const space = await ctx.db.space.findUnique({ where: { id: job.spaceId } });
    allowed = space ? can(await ctx.access.content(space), 'space:read') : false;
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

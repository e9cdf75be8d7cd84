/** Jobs: which the caller may see, loading one, and following the events of those they may see. */
import { can } from '../auth/policies.ts';
import type { Access } from '../auth/access.ts';
import { createAccess, type Context } from '../context.ts';
import { isOneOf, LISTED_JOB_KINDS } from '../db/value-sets.ts';
import { InvalidInputError, NotFoundError } from '../errors/index.ts';
import type { JobEvent } from '../jobs/events.ts';
import type { JobScope } from '../jobs/job-store.ts';
import type { Loaders } from '../loaders.ts';
import { EventAuthorization } from './event-authorization.ts';

/**
 * Whether `access` may see a job (`job:read`): decided on its space, or without one on its
 * organization; the caller must belong to the job's organization either way. Nobody sees the
 * service's own jobs (kinds outside LISTED_JOB_KINDS: docs/decisions.md, "Renderer revalidation").
 */
async function jobReadable(access: Access, loaders: Loaders, job: { organizationId: string; spaceId: string | null; kind: string }): Promise<boolean> {
  if (!isOneOf(LISTED_JOB_KINDS, job.kind)) return false;
  const organization = access.organization(job.organizationId);
  if (!can(organization, 'organization:read')) return false;
  if (!job.spaceId) return can(organization, 'job:read');
  const space = await loaders.spaceById.load(job.spaceId);
  return space !== null && can(await access.space(space), 'job:read');
}

/** Whether the caller may see a job (`job:read`). */
export function canSeeJob(ctx: Context, job: { organizationId: string; spaceId: string | null; kind: string }): Promise<boolean> {
  return jobReadable(ctx.access, ctx.loaders, job);
}

/** Loads a job the caller may see, or 404. */
export async function loadJob(ctx: Context, id: string) {
  ctx.access.requireViewer();
  const job = await ctx.jobs.store.get(id);
  if (!job || !(await canSeeJob(ctx, job))) throw new NotFoundError('Job', id);
  return job;
}

/**
 * The authorization of one job event, shared by every subscriber it reaches: the bus hands the
 * same event object to all of them (src/jobs/job-feed.ts), so they read their standing through
 * one set of fresh loaders. Keyed by the event object (not by a context): an entry lives as long
 * as the event. Events read from the store for one subscriber's catch-up are objects of their own.
 */
const authorizations = new WeakMap<JobEvent, EventAuthorization>();

function authorizationOf(ctx: Context, event: JobEvent): EventAuthorization {
  let authorization = authorizations.get(event);
  if (!authorization) {
    authorization = new EventAuthorization({ db: ctx.db, revisionChunks: ctx.revisionChunks, accessFor: createAccess });
    authorizations.set(event, authorization);
  }
  return authorization;
}

/**
 * Whether the caller may see an event's job, decided per event as they stand when it is
 * delivered (their token, membership, role and grants read afresh, services/event-authorization.ts):
 * one who lost access receives nothing more.
 */
function visibleTo(ctx: Context): (event: JobEvent) => Promise<boolean> {
  const viewer = ctx.access.requireViewer();
  return (event) => authorizationOf(ctx, event).allows(viewer, event.organizationId, 'job:read', (access, loaders) => jobReadable(access, loaders, event));
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

/**
 * The events of the jobs of `scope` the caller may see: those of unfinished jobs first, from their
 * start (src/jobs/job-feed.ts). Of the listed kinds only, whatever the scope names: the service's
 * own jobs are left out before anything is authorized.
 */
export function followJobs(ctx: Context, scope: JobScope): AsyncIterable<JobEvent> {
  const kinds = (scope.kinds ?? LISTED_JOB_KINDS).filter((kind) => isOneOf(LISTED_JOB_KINDS, kind));
  return ctx.jobs.followScope({ ...scope, kinds }, { visible: visibleTo(ctx) });
}

import { builder } from '../../builder.ts';
import { JOB_STATES, LISTED_JOB_KINDS, type JobKind } from '../../db/value-sets.ts';
import type { JobEvent } from '../../jobs/events.ts';

/**
 * LISTED_JOB_KINDS under GraphQL enum names (`git-import` is GIT_IMPORT: enum names cannot hold '-'):
 * the service's own jobs are never shown (src/services/job.ts).
 */
export const JobKindEnum = builder.enumType('JobKind', {
  values: Object.fromEntries(LISTED_JOB_KINDS.map((kind) => [kind.toUpperCase().replace(/-/g, '_'), { value: kind }])) as Record<string, { value: JobKind }>,
});
export const JobStateEnum = builder.enumType('JobState', { values: JOB_STATES });

const JobUrls = builder.objectRef<{ location: string }>('JobUrls').implement({
  fields: (t) => ({
    location: t.exposeString('location', {
      description: 'A URL a client GETs (with its token) to read the job: GET /graphql running the `job(id)` query; REST answers starting a job name it in their Location header',
    }),
  }),
});

/** A job as GraphQL shows it: the same shape for a stored job and for an event of it. */
export const Job = builder.objectRef<JobEvent>('Job').implement({
  description: 'A long operation (Git import or export, a translation run) and how far it is',
  fields: (t) => ({
    id: t.exposeID('id'),
    kind: t.field({ type: JobKindEnum, resolve: (j) => j.kind }),
    state: t.field({ type: JobStateEnum, resolve: (j) => j.state }),
    step: t.exposeString('step', { nullable: true, description: 'What it is doing now' }),
    percent: t.exposeInt('percent'),
    message: t.exposeString('message', { nullable: true }),
    result: t.field({ type: 'JSON', nullable: true, description: 'What it made, once succeeded (ids)', resolve: (j) => j.result }),
    error: t.exposeString('error', { nullable: true, description: 'Why it failed' }),
    organizationId: t.exposeID('organizationId'),
    spaceId: t.exposeID('spaceId', { nullable: true }),
    translationId: t.exposeID('translationId', { nullable: true }),
    at: t.field({ type: 'DateTime', description: 'When this state was reached', resolve: (j) => new Date(j.at) }),
    urls: t.field({ type: JobUrls, resolve: (j, _args, ctx) => ({ location: ctx.urls.job(j.id) }) }),
    sequence: t.exposeInt('sequence', {
      description: "The number of this change among the job's events (1: created, then 2, 3, ... without gaps); for a job read as it is now, its latest event's",
    }),
  }),
});

import { builder } from '../../builder.ts';
import type { JobEvent } from '../../jobs/events.ts';

export const JobKindEnum = builder.enumType('JobKind', {
  values: { GIT_IMPORT: { value: 'git-import' }, GIT_EXPORT: { value: 'git-export' }, TRANSLATION_RUN: { value: 'translation-run' } } as const,
});
export const JobStateEnum = builder.enumType('JobState', { values: ['queued', 'running', 'succeeded', 'failed', 'cancelled'] as const });

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
  }),
});

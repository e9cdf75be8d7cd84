/**
 * Jobs: read one, and follow them live. Subscriptions are authorized when they start
 * (the job, organization, space or translation must be readable) and per event (an
 * event is delivered only for a job the caller may read as they stand when it is
 * delivered: src/services/job.ts). They replay from the stored history what they did
 * not receive live (src/jobs/job-feed.ts): each job's events arrive in sequence order,
 * each once, even when the subscription started late or Redis reconnected.
 */
import { builder } from '../../builder.ts';
import { NotFoundError } from '../../errors/index.ts';
import { jobEvent } from '../../jobs/job-store.ts';
import { followJob, followJobs, loadJob } from '../../services/job.ts';
import { loadOrganization } from '../../services/organization.ts';
import { loadSpace } from '../../services/space.ts';
import { Job } from './type.ts';

builder.queryField('job', (t) =>
  t.field({
    type: Job,
    authScopes: { authenticated: true },
    args: { id: t.arg.id({ required: true }) },
    resolve: async (_root, { id }, ctx) => jobEvent(await loadJob(ctx, String(id))),
  }),
);

/**
 * A Job's fields depend on the event alone (not on who receives it), and the feed authorizes each
 * subscriber per event: subscribers of the same document and variables share one execution per
 * event (src/plugins/use-shared-subscription-results.ts).
 */
const sharedResults = { sharedResults: true };

builder.subscriptionFields((t) => ({
  jobUpdated: t.field({
    type: Job,
    description: "A job's current state, then every change of it until it finishes; with `after`, every change numbered after it instead, from the job's stored history first",
    authScopes: { authenticated: true },
    extensions: sharedResults,
    args: {
      id: t.arg.id({ required: true }),
      after: t.arg.int({
        required: false,
        description: "Resume after this `sequence` (0: the job's whole history); at most the job's latest. Over SSE, a `Last-Event-ID` header gives it too",
      }),
    },
    subscribe: (_root, { id, after }, ctx) => followJob(ctx, String(id), after),
    resolve: (event, _args, ctx) => {
      // Over SSE, the message's `id:` line (src/plugins/use-sse-event-ids.ts).
      ctx.eventIds.current = String(event.sequence);
      return event;
    },
  }),
  spaceJobs: t.field({
    type: Job,
    description: 'Every change of every job of a space (Git sync, translation runs writing to it); the history of its unfinished jobs first',
    authScopes: { authenticated: true },
    extensions: sharedResults,
    args: { spaceId: t.arg.id({ required: true }) },
    subscribe: async (_root, { spaceId }, ctx) => {
      const space = await loadSpace(ctx, String(spaceId), 'space:read');
      return followJobs(ctx, { spaceId: space.id });
    },
    resolve: (event) => event,
  }),
  gitSync: t.field({
    type: Job,
    description: "Every change of a space's Git imports and exports; the history of the unfinished ones first",
    authScopes: { authenticated: true },
    extensions: sharedResults,
    args: { spaceId: t.arg.id({ required: true }) },
    subscribe: async (_root, { spaceId }, ctx) => {
      const space = await loadSpace(ctx, String(spaceId), 'space:read');
      return followJobs(ctx, { spaceId: space.id, kinds: ['git-import', 'git-export'] });
    },
    resolve: (event) => event,
  }),
  organizationJobs: t.field({
    type: Job,
    description: 'Every change of every job of an organization the caller may see; the history of its unfinished jobs first',
    authScopes: { authenticated: true },
    extensions: sharedResults,
    args: { organizationId: t.arg.id({ required: true }) },
    subscribe: async (_root, { organizationId }, ctx) => {
      const org = await loadOrganization(ctx, String(organizationId), 'organization:read');
      return followJobs(ctx, { organizationId: org.id });
    },
    resolve: (event) => event,
  }),
  translationRuns: t.field({
    type: Job,
    description: "Every change of a translation's runs; the history of the unfinished ones first",
    authScopes: { authenticated: true },
    extensions: sharedResults,
    args: { organizationId: t.arg.id({ required: true }), translationId: t.arg.id({ required: true }) },
    subscribe: async (_root, { organizationId, translationId }, ctx) => {
      const org = await loadOrganization(ctx, String(organizationId), 'organization:read');
      const translation = await ctx.db.translation.findUnique({ where: { id: String(translationId) } });
      if (!translation || translation.organizationId !== org.id) throw new NotFoundError('Translation', String(translationId));
      return followJobs(ctx, { translationId: translation.id });
    },
    resolve: (event) => event,
  }),
}));

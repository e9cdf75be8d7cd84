/**
 * Jobs: read one, and follow them live. Subscriptions are
 * authorized when they start (the organization, space or translation must be
 * readable) and per event (an event is delivered only for a job the caller
 * may read, checked against the caller's roles as of the subscription).
 */
import { Repeater } from 'graphql-yoga';
import { builder } from '../../builder.ts';
import { NotFoundError } from '../../errors/index.ts';
import type { JobEvent } from '../../jobs/events.ts';
import { jobEvent } from '../../jobs/job-store.ts';
import { loadJob, jobEvents, FINAL_STATES } from '../../services/job.ts';
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

builder.subscriptionFields((t) => ({
  jobUpdated: t.field({
    type: Job,
    description: "A job's current state, then every change of it until it finishes",
    authScopes: { authenticated: true },
    args: { id: t.arg.id({ required: true }) },
    subscribe: async (_root, { id }, ctx) => {
      const job = await loadJob(ctx, String(id));
      const events = jobEvents(ctx, (event) => event.id === job.id);
      // Subscribe first, then read the state, so no change falls between the two.
      return new Repeater<JobEvent>(async (push, stop) => {
        const iterator = events[Symbol.asyncIterator]();
        stop.then(() => iterator.return?.());
        const current = jobEvent((await ctx.jobs.store.get(job.id))!);
        await push(current);
        if (FINAL_STATES.has(current.state)) return stop();
        let last = current.at;
        for (let next = await iterator.next(); !next.done; next = await iterator.next()) {
          if (next.value.at < last) continue; // older than what was already sent
          last = next.value.at;
          await push(next.value);
          if (FINAL_STATES.has(next.value.state)) break;
        }
        stop();
      });
    },
    resolve: (event) => event,
  }),
  spaceJobs: t.field({
    type: Job,
    description: 'Every change of every job of a space (Git sync, translation runs writing to it)',
    authScopes: { authenticated: true },
    args: { spaceId: t.arg.id({ required: true }) },
    subscribe: async (_root, { spaceId }, ctx) => {
      const space = await loadSpace(ctx, String(spaceId), 'space:read');
      return jobEvents(ctx, (event) => event.spaceId === space.id);
    },
    resolve: (event) => event,
  }),
  gitSync: t.field({
    type: Job,
    description: "Every change of a space's Git imports and exports",
    authScopes: { authenticated: true },
    args: { spaceId: t.arg.id({ required: true }) },
    subscribe: async (_root, { spaceId }, ctx) => {
      const space = await loadSpace(ctx, String(spaceId), 'space:read');
      return jobEvents(ctx, (event) => event.spaceId === space.id && (event.kind === 'git-import' || event.kind === 'git-export'));
    },
    resolve: (event) => event,
  }),
  organizationJobs: t.field({
    type: Job,
    description: 'Every change of every job of an organization the caller may see',
    authScopes: { authenticated: true },
    args: { organizationId: t.arg.id({ required: true }) },
    subscribe: async (_root, { organizationId }, ctx) => {
      const org = await loadOrganization(ctx, String(organizationId), 'organization:read');
      return jobEvents(ctx, (event) => event.organizationId === org.id);
    },
    resolve: (event) => event,
  }),
  translationRuns: t.field({
    type: Job,
    description: "Every change of a translation's runs",
    authScopes: { authenticated: true },
    args: { organizationId: t.arg.id({ required: true }), translationId: t.arg.id({ required: true }) },
    subscribe: async (_root, { organizationId, translationId }, ctx) => {
      const org = await loadOrganization(ctx, String(organizationId), 'organization:read');
      const translation = await ctx.db.translation.findUnique({ where: { id: String(translationId) } });
      if (!translation || translation.organizationId !== org.id) throw new NotFoundError('Translation', String(translationId));
      return jobEvents(ctx, (event) => event.translationId === translation.id);
    },
    resolve: (event) => event,
  }),
}));

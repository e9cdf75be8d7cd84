/** Jobs: cancel one (the caller must be allowed to change what it works on). */
import { builder } from '../../builder.ts';
import { authorize } from '../../auth/policies.ts';
import { jobEvent } from '../../jobs/job-store.ts';
import { loadJob } from '../../services/job.ts';
import { loadSpace } from '../../services/space.ts';
import { Job } from './type.ts';

builder.mutationField('cancelJob', (t) =>
  t.field({
    type: Job,
    description: 'Cancels a queued job at once, or asks a running one to stop at its next step',
    authScopes: { authenticated: true },
    args: { id: t.arg.id({ required: true }) },
    resolve: async (_root, { id }, ctx) => {
      const job = await loadJob(ctx, String(id));
      if (job.spaceId) await loadSpace(ctx, job.spaceId, 'space:edit');
      else authorize(ctx.access.organization(job.organizationId), 'organization:create-content', { type: 'Job', id: job.id });
      return jobEvent((await ctx.jobs.store.cancel(job.id))!);
    },
  }),
);

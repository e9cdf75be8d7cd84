/**
 * OPENAPI_REFRESH_SECONDS: every so often, each spec read from a URL is processed again, so that a
 * spec whose build publishes it at a URL follows it without a PUT; a version is made only when
 * what the URL serves changed (services/openapi-processing.ts). A spec whose processing is
 * queued or running is left to it. Several processes may run it at once: each spec is queued
 * only if it still has no processing queued when its transaction runs.
 */
import type { Logger } from 'pino';
import type { Db } from '../db/client.ts';
import type { Jobs } from '../jobs/jobs.ts';
import { queueOpenAPIProcessing } from './openapi-spec.ts';
import type { PeriodicTask } from './periodic.ts';

/** Specs queued per statement. */
const BATCH = 200;

/** Queues the processing of every URL-sourced spec not being processed; how many it queued. */
export async function refreshOpenAPISpecs(db: Db, jobs: Jobs): Promise<number> {
  let queued = 0;
  let afterId: string | null = null;
  for (;;) {
    const specs: { id: string; organizationId: string; slug: string }[] = await db.openAPISpec.findMany({
      where: { sourceKind: 'url', processingState: 'complete', ...(afterId === null ? {} : { id: { gt: afterId } }) },
      orderBy: { id: 'asc' },
      take: BATCH,
      select: { id: true, organizationId: true, slug: true },
    });
    for (const spec of specs) {
      const job = await db.$transaction(async (tx) => {
        // Still not being processed (another process's refresh, or a PUT, may have queued it since).
        const current = await tx.openAPISpec.findUnique({ where: { id: spec.id }, select: { processingState: true } });
        return current?.processingState === 'complete' ? queueOpenAPIProcessing(jobs, tx, spec, null) : null;
      });
      if (job) {
        jobs.announce(job);
        queued++;
      }
    }
    if (specs.length < BATCH) return queued;
    afterId = specs[specs.length - 1]!.id;
  }
}

export function openAPIRefreshTask(options: { db: Db; jobs: Jobs; log: Logger; intervalSeconds: number }): PeriodicTask {
  return {
    name: 'OpenAPI spec refresh',
    intervalSeconds: options.intervalSeconds,
    async run() {
      const queued = await refreshOpenAPISpecs(options.db, options.jobs);
      if (queued > 0) options.log.info({ queued }, 'OpenAPI specs: processing queued to fetch their URLs again');
    },
  };
}

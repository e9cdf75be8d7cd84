/**
 * Every kind of job and the function that runs it. A handler's module is
 * loaded when its first job runs: Git (isomorphic-git, undici), the
 * translation providers, the OpenAPI parser and the insights engine's language model stay off the server's start (docs/decisions.md,
 * "Restart"). The renderer's is loaded by the writes that queue its jobs anyway.
 */
import type { KeptClones } from '../git-sync/kept-clones.ts';
import type { JobKind } from '../jobs/events.ts';
import type { JobHandler } from '../jobs/runner.ts';

/** The handlers of the app; `gitClones` are the Git imports' repositories kept between imports (src/git-sync/kept-clones.ts). */
export const jobHandlers = (deps: { gitClones: KeptClones }): Partial<Record<JobKind, JobHandler>> => ({
  'git-import': async (ctx) => (await import('./git-sync-jobs.ts')).importGitRepositoryJob(deps.gitClones)(ctx),
  'git-export': async (ctx) => (await import('./git-sync-jobs.ts')).exportToGitRepositoryJob(ctx),
  'translation-run': async (ctx) => (await import('./translation-run.ts')).translationRunJob(ctx),
  'openapi-processing': async (ctx) => (await import('./openapi-processing.ts')).openAPIProcessingJob(ctx),
  'conversation-processing': async (ctx) => (await import('./conversation-processing.ts')).conversationProcessingJob(ctx),
  'renderer-revalidation': async (ctx) => (await import('./renderer-revalidation.ts')).rendererRevalidationJob()(ctx),
});

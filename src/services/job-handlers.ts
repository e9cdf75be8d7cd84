/** Every kind of job and the function that runs it. */
import type { JobKind } from '../jobs/events.ts';
import type { JobHandler } from '../jobs/runner.ts';
import { exportToGitRepositoryJob, importGitRepositoryJob } from './git-sync-jobs.ts';
import { translationRunJob } from './translation-run.ts';

export const jobHandlers: Partial<Record<JobKind, JobHandler>> = {
  'git-import': importGitRepositoryJob,
  'git-export': exportToGitRepositoryJob,
  'translation-run': translationRunJob,
};

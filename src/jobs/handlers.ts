/** Every kind of job and the function that runs it. */
import { exportToGitRepositoryJob, importGitRepositoryJob } from '../git-sync/sync-jobs.ts';
import { translationRunJob } from '../translation/run-job.ts';
import type { JobKind } from './events.ts';
import type { JobHandler } from './runner.ts';

export const jobHandlers: Partial<Record<JobKind, JobHandler>> = {
  'git-import': importGitRepositoryJob,
  'git-export': exportToGitRepositoryJob,
  'translation-run': translationRunJob,
};

/**
 * Runs the Git layout (./layout.ts) of a job on the worker pool, with the
 * GIT_LAYOUT_TIMEOUT_MS deadline and the job's cancellation.
 */
import type { AppConfig } from '../config.ts';
import { taskRef, workerModule, type WorkerPool } from '../worker-pool.ts';
import type { ExportLayoutInput, exportRepositoryTask, ImportLayoutInput, importRepositoryTask } from './layout-worker.ts';
import type { ImportRepositoryResult, RepositoryPaths } from './layout.ts';

const WORKER = workerModule(import.meta.url, 'layout-worker');
const IMPORT = taskRef<typeof importRepositoryTask>(WORKER, 'importRepositoryTask');
const EXPORT = taskRef<typeof exportRepositoryTask>(WORKER, 'exportRepositoryTask');

interface LayoutRun {
  workers: WorkerPool;
  config: AppConfig;
  /** The job's: aborted when it is cancelled. */
  signal: AbortSignal;
}

/** importRepository on a worker thread; stored files go to the storage of `config`. */
export function importRepositoryOffThread(run: LayoutRun, input: Omit<ImportLayoutInput, 'storage' | 'markdownLimits'>): Promise<ImportRepositoryResult> {
  return run.workers.run(
    IMPORT,
    { ...input, storage: run.config.storage, markdownLimits: run.config.markdownLimits },
    { what: 'Reading the repository', timeoutMs: run.config.gitLayoutTimeoutMs, timeoutSetting: 'GIT_LAYOUT_TIMEOUT_MS', signal: run.signal },
  );
}

/** exportRepository on a worker thread, reading stored files from the storage of `config`. */
export function exportRepositoryOffThread(run: LayoutRun, input: Omit<ExportLayoutInput, 'storage'>): Promise<{ files: Map<string, Uint8Array>; paths: RepositoryPaths }> {
  return run.workers.run(
    EXPORT,
    { ...input, storage: run.config.storage },
    { what: 'Writing the repository', timeoutMs: run.config.gitLayoutTimeoutMs, timeoutSetting: 'GIT_LAYOUT_TIMEOUT_MS', signal: run.signal },
  );
}

/**
 * Running the insights engine on the worker pool: the same answers as
 * ./batch.ts and ./describe.ts on the caller's thread, without holding its
 * event loop.
 */
import { taskRef, workerModule, type WorkerPool } from '../worker-pool.ts';
import type { ConversationBatchInput, ConversationBatchOutput, ReadIssuesInput } from './batch.ts';
import type { describeClustersTask, DescribeClustersInput, placeReadIssuesTask, processConversationBatchTask } from './insights-worker.ts';
import type { ClusterDescription } from './types.ts';

const WORKER = workerModule(import.meta.url, 'insights-worker');
const PROCESS_BATCH = taskRef<typeof processConversationBatchTask>(WORKER, 'processConversationBatchTask');
const PLACE_READ_ISSUES = taskRef<typeof placeReadIssuesTask>(WORKER, 'placeReadIssuesTask');
const DESCRIBE_CLUSTERS = taskRef<typeof describeClustersTask>(WORKER, 'describeClustersTask');

export function processConversationBatchOffThread(workers: WorkerPool, input: ConversationBatchInput, signal?: AbortSignal): Promise<ConversationBatchOutput> {
  return workers.run(PROCESS_BATCH, input, { what: 'Finding documentation issues in conversations', signal });
}

export function placeReadIssuesOffThread(workers: WorkerPool, input: ReadIssuesInput, signal?: AbortSignal): Promise<ConversationBatchOutput> {
  return workers.run(PLACE_READ_ISSUES, input, { what: 'Clustering documentation issues', signal });
}

export function describeClustersOffThread(workers: WorkerPool, input: DescribeClustersInput, signal?: AbortSignal): Promise<ClusterDescription[]> {
  return workers.run(DESCRIBE_CLUSTERS, input, { what: 'Describing clusters of documentation issues', signal });
}

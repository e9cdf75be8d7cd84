/**
 * Running the insights engine on the worker pool: the same answers as
 * ./batch.ts and ./describe.ts on the caller's thread, without holding its
 * event loop.
 */
import { taskRef, workerModule, type WorkerPool } from '../worker-pool.ts';
import type { ConversationBatchOutput, PlaceIssuesInput } from './batch.ts';
import type { describeClustersTask, DescribeClustersInput, extractIssuesTask, placeIssuesTask } from './insights-worker.ts';
import type { ClusterDescription, Conversation, ExtractedIssue } from './types.ts';

const WORKER = workerModule(import.meta.url, 'insights-worker');
const EXTRACT_ISSUES = taskRef<typeof extractIssuesTask>(WORKER, 'extractIssuesTask');
const PLACE_ISSUES = taskRef<typeof placeIssuesTask>(WORKER, 'placeIssuesTask');
const DESCRIBE_CLUSTERS = taskRef<typeof describeClustersTask>(WORKER, 'describeClustersTask');

export function extractIssuesOffThread(workers: WorkerPool, conversations: Conversation[], signal?: AbortSignal): Promise<{ key: string; issues: ExtractedIssue[] }[]> {
  return workers.run(EXTRACT_ISSUES, conversations, { what: 'Finding documentation issues in conversations', signal });
}

export function placeIssuesOffThread(workers: WorkerPool, input: PlaceIssuesInput, signal?: AbortSignal): Promise<ConversationBatchOutput> {
  return workers.run(PLACE_ISSUES, input, { what: 'Clustering documentation issues', signal });
}

export function describeClustersOffThread(workers: WorkerPool, input: DescribeClustersInput, signal?: AbortSignal): Promise<ClusterDescription[]> {
  return workers.run(DESCRIBE_CLUSTERS, input, { what: 'Describing clusters of documentation issues', signal });
}

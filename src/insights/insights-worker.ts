/**
 * The insights engine as tasks of the worker pool (src/worker-pool.ts): a
 * batch of conversations (./batch.ts) takes about 5 ms of CPU per
 * conversation, so a batch of 1,000 would hold the event loop for seconds.
 * Inputs and outputs are plain JSON.
 */
import { workerTask } from '../worker-pool.ts';
import { placeReadIssues, processConversationBatch, type ConversationBatchInput, type ReadIssuesInput } from './batch.ts';
import { describeCluster, type DescribedIssue } from './describe.ts';
import type { CorpusStats } from './types.ts';

export const processConversationBatchTask = workerTask((input: ConversationBatchInput) => processConversationBatch(input));

/** Issues the model engine read, clustered: counting their terms and clustering is the CPU part. */
export const placeReadIssuesTask = workerTask((input: ReadIssuesInput) => placeReadIssues(input));

export interface DescribeClustersInput {
  /** Each cluster's issues (or a sample of them), in the order the descriptions come back. */
  clusters: DescribedIssue[][];
  corpus: CorpusStats;
}

export const describeClustersTask = workerTask(({ clusters, corpus }: DescribeClustersInput) => clusters.map((issues) => describeCluster(issues, corpus)));

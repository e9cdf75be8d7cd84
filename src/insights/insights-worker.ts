/**
 * The insights engine as tasks of the worker pool (src/worker-pool.ts): a
 * batch of conversations (./batch.ts) takes about 5 ms of CPU per
 * conversation, so a batch of 1,000 would hold the event loop for seconds.
 * Inputs and outputs are plain JSON.
 */
import { workerTask } from '../worker-pool.ts';
import { extractConversationIssues, placeIssues, type PlaceIssuesInput } from './batch.ts';
import { describeCluster, type DescribedIssue } from './describe.ts';
import type { Conversation, CorpusStats } from './types.ts';

/** The default engine reading a batch: most of its CPU. */
export const extractIssuesTask = workerTask((conversations: Conversation[]) => extractConversationIssues(conversations));

/** A batch's issues, from either engine, clustered: counting the model's issues' terms and clustering. */
export const placeIssuesTask = workerTask((input: PlaceIssuesInput) => placeIssues(input));

export interface DescribeClustersInput {
  /** Each cluster's issues (or a sample of them), in the order the descriptions come back. */
  clusters: DescribedIssue[][];
  corpus: CorpusStats;
}

export const describeClustersTask = workerTask(({ clusters, corpus }: DescribeClustersInput) => clusters.map((issues) => describeCluster(issues, corpus)));

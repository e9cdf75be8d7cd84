/**
 * The engine's one entry for a batch of newly ingested conversations:
 * extract each conversation's documentation issues, then place them in
 * clusters.
 *
 * Contract: the caller passes the conversations of the batch (any number;
 * they are read in the order given), every cluster it keeps (muted ones
 * included) and the corpus statistics the previous batch answered
 * (`emptyCorpus()` the first time). It gets back, per conversation (`key`
 * is its id), the issues found, each with where it went; the existing
 * clusters that changed (store their centroid and count); the new clusters
 * (give each an id: assignments name them by index in `created`); and the
 * corpus to store for the next batch. Same input, same output: nothing here
 * reads a clock, a random source or the environment. Each cluster that
 * changed or was made can then be described (./describe.ts) from the issues
 * it holds.
 */
import { clusterIssues } from './cluster.ts';
import { extractIssues, issueTerms } from './extract.ts';
import type { ClusterAssignment, ClusterState, Conversation, CorpusStats, ExtractedIssue, Impact, NewClusterState } from './types.ts';

export interface ConversationBatchInput {
  conversations: Conversation[];
  clusters: ClusterState[];
  corpus: CorpusStats;
}

export interface PlacedIssue extends ExtractedIssue {
  cluster: ClusterAssignment;
}

export interface ConversationBatchOutput {
  perConversation: { key: string; issues: PlacedIssue[] }[];
  clusters: ClusterState[];
  created: NewClusterState[];
  corpus: CorpusStats;
}

export function processConversationBatch({ conversations, clusters, corpus }: ConversationBatchInput): ConversationBatchOutput {
  const extracted = conversations.map((conversation) => ({ key: conversation.id, issues: extractIssues(conversation) }));
  return placeIssues(extracted, clusters, corpus);
}

/** An issue as the model engine reads it: no terms yet. */
export interface ReadIssue {
  title: string;
  details: string;
  impact: Impact;
}

export interface ReadIssuesInput {
  /** Per conversation (`key` is its id), the issues another reader (the model engine) found. */
  perConversation: { key: string; issues: ReadIssue[] }[];
  clusters: ClusterState[];
  corpus: CorpusStats;
}

/**
 * The same answer as `processConversationBatch` for issues already read:
 * their terms counted from title and details (`issueTerms`), then clustered.
 */
export function placeReadIssues({ perConversation, clusters, corpus }: ReadIssuesInput): ConversationBatchOutput {
  const extracted = perConversation.map(({ key, issues }) => ({ key, issues: issues.map((issue) => ({ ...issue, terms: issueTerms(issue.title, issue.details) })) }));
  return placeIssues(extracted, clusters, corpus);
}

function placeIssues(extracted: { key: string; issues: ExtractedIssue[] }[], clusters: ClusterState[], corpus: CorpusStats): ConversationBatchOutput {
  const issues = extracted.flatMap(({ key, issues }) => issues.map((issue, index) => ({ id: `${key}#${index}`, terms: issue.terms })));
  const result = clusterIssues({ clusters, issues, corpus });
  let next = 0;
  const perConversation = extracted.map(({ key, issues }) => ({
    key,
    issues: issues.map((issue) => ({ ...issue, cluster: result.assignments[next++].cluster })),
  }));
  return { perConversation, clusters: result.clusters, created: result.created, corpus: result.corpus };
}

/**
 * The engine's steps for a batch of newly ingested conversations: extract
 * each conversation's documentation issues (`extractConversationIssues`, or
 * the model engine reads them), then place them in clusters (`placeIssues`,
 * by terms, and by embeddings when the model engine made them);
 * `processConversationBatch` is both for the default engine.
 *
 * Contract: the caller passes the conversations of the batch (any number;
 * they are read in the order given), every cluster it keeps (muted ones
 * included) and the corpus statistics the previous batch answered
 * (`emptyCorpus()` the first time). It gets back, per conversation (`key`
 * is its id), the issues found, each with where it went; the existing
 * clusters that changed (store their centroids and count); the new clusters
 * (give each an id: assignments name them by index in `created`); and the
 * corpus to store for the next batch. Same input, same output: nothing here
 * reads a clock, a random source or the environment. Each cluster that
 * changed or was made can then be described (./describe.ts) from the issues
 * it holds.
 */
import { clusterIssues } from './cluster.ts';
import { extractIssues, issueTerms } from './extract.ts';
import type { ClusterAssignment, ClusterState, Conversation, CorpusStats, ExtractedIssue, Impact, IssueEmbeddings, NewClusterState, Terms } from './types.ts';

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

/** The default engine on a batch: its issues found, then placed. */
export function processConversationBatch({ conversations, clusters, corpus }: ConversationBatchInput): ConversationBatchOutput {
  return placeIssues({ perConversation: extractConversationIssues(conversations), clusters, corpus });
}

/** Per conversation (`key` is its id), the issues the default engine finds in it. */
export function extractConversationIssues(conversations: Conversation[]): { key: string; issues: ExtractedIssue[] }[] {
  return conversations.map((conversation) => ({ key: conversation.id, issues: extractIssues(conversation) }));
}

/** An issue as the model engine reads it: no terms yet. */
export interface ReadIssue {
  title: string;
  details: string;
  impact: Impact;
}

export interface PlaceIssuesInput {
  /**
   * Per conversation (`key` is its id), the issues found: the default
   * engine's carry their terms, the model engine's get them counted from
   * title and details (`issueTerms`).
   */
  perConversation: { key: string; issues: (ReadIssue & { terms?: Terms })[] }[];
  clusters: ClusterState[];
  corpus: CorpusStats;
  /** The issues' embeddings, in the order of `perConversation`'s issues (./cluster.ts). */
  embeddings?: IssueEmbeddings | null;
}

/** What an issue's embedding is made of (the model engine embeds this text). */
export function embeddingText(issue: ReadIssue): string {
  return `${issue.title}\n\n${issue.details}`;
}

/** The issues of a batch placed in clusters (./cluster.ts); the same answer on any thread. */
export function placeIssues({ perConversation, clusters, corpus, embeddings }: PlaceIssuesInput): ConversationBatchOutput {
  const extracted = perConversation.map(({ key, issues }) => ({ key, issues: issues.map((issue) => ({ ...issue, terms: issue.terms ?? issueTerms(issue.title, issue.details) })) }));
  const issues = extracted.flatMap(({ key, issues }) => issues.map((issue, index) => ({ id: `${key}#${index}`, terms: issue.terms })));
  const result = clusterIssues({ clusters, issues, corpus, embeddings });
  let next = 0;
  return {
    perConversation: extracted.map(({ key, issues }) => ({ key, issues: issues.map((issue) => ({ ...issue, cluster: result.assignments[next++].cluster })) })),
    clusters: result.clusters,
    created: result.created,
    corpus: result.corpus,
  };
}

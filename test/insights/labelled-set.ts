/**
 * The labelled conversations of test/insights/fixtures/conversations/ (one
 * file per documentation topic, written by people; docs/decisions.md,
 * "The labelled set") and the measurement of the default engine on them:
 * precision and recall of "this conversation has a documentation issue", and
 * the adjusted Rand index of the clusters of the true positives against their
 * topics. test/insights/measure-quality.ts prints it; quality.test.ts asserts
 * floors under it.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { clusterIssues } from '../../src/insights/cluster.ts';
import { extractIssues } from '../../src/insights/extract.ts';
import type { ClusterState, Conversation, ExtractedIssue, Impact } from '../../src/insights/types.ts';
import { emptyCorpus } from '../../src/insights/vectors.ts';
import { adjustedRandIndex } from './adjusted-rand-index.ts';

export const FIXTURES = new URL('./fixtures/conversations/', import.meta.url);

export interface LabelledConversation extends Conversation {
  createdAt: string;
  label: { topic: string; hasDocIssue: boolean; impact: Impact | null; note: string };
}

/** Every fixture file's conversations, in createdAt order (ties by id). A file that does not parse is reported, not read. */
export function loadLabelledSet(topics?: readonly string[]): { conversations: LabelledConversation[]; unreadable: string[] } {
  const conversations: LabelledConversation[] = [];
  const unreadable: string[] = [];
  for (const file of readdirSync(FIXTURES).filter((name) => name.endsWith('.json')).sort()) {
    if (topics && !topics.includes(file.replace(/\.json$/, ''))) continue;
    try {
      conversations.push(...(JSON.parse(readFileSync(new URL(file, FIXTURES), 'utf8')) as LabelledConversation[]));
    } catch {
      unreadable.push(file);
    }
  }
  conversations.sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id));
  return { conversations, unreadable };
}

export interface Quality {
  conversations: number;
  topics: number;
  truePositives: number;
  falsePositives: number;
  falseNegatives: number;
  precision: number;
  recall: number;
  f1: number;
  /** Of the true positives' first issues' clusters against their topics. */
  adjustedRandIndex: number;
  clusters: number;
  /** Of the true positives, how many got the labelled impact. */
  impactAgreement: number;
  /** Extraction and clustering of the whole set. */
  milliseconds: number;
}

export interface Extracted {
  conversations: LabelledConversation[];
  issues: ExtractedIssue[][];
  milliseconds: number;
}

/** Each conversation's issues (what processConversationBatch does first; it does not depend on batches). */
export function extractAll(conversations: LabelledConversation[]): Extracted {
  const started = performance.now();
  const issues = conversations.map((conversation) => extractIssues(conversation));
  return { conversations, issues, milliseconds: performance.now() - started };
}

/**
 * Clusters the extracted issues in batches of `batchSize` conversations
 * (Infinity: one batch), in the set's createdAt order, as they would arrive,
 * keeping clusters and corpus between batches as a caller does; measures
 * against the labels.
 */
export function measureQuality({ conversations, issues, milliseconds: extraction }: Extracted, batchSize: number): Quality {
  const started = performance.now();
  let clusters: ClusterState[] = [];
  let corpus = emptyCorpus();
  let nextId = 0;
  const clusterOf = new Map<string, string>();
  const impactOf = new Map<string, Impact>();
  const step = Number.isFinite(batchSize) ? batchSize : conversations.length;
  for (let start = 0; start < conversations.length; start += step) {
    const batch = conversations.slice(start, start + step).flatMap((conversation, offset) => issues[start + offset].slice(0, 1).map((issue) => ({ conversation, issue })));
    const result = clusterIssues({ clusters, issues: batch.map(({ conversation, issue }) => ({ id: conversation.id, terms: issue.terms })), corpus });
    const ids = result.created.map(() => `c${String(nextId++).padStart(5, '0')}`);
    const byId = new Map(clusters.map((cluster) => [cluster.id, cluster]));
    for (const cluster of result.clusters) byId.set(cluster.id, cluster);
    result.created.forEach((cluster, index) => byId.set(ids[index], { ...cluster, id: ids[index] }));
    clusters = [...byId.values()];
    corpus = result.corpus;
    result.assignments.forEach(({ issueId, cluster }, index) => {
      clusterOf.set(issueId, 'existing' in cluster ? cluster.existing : ids[cluster.created]);
      impactOf.set(issueId, batch[index].issue.impact);
    });
  }
  const milliseconds = extraction + performance.now() - started;
  const positives = conversations.filter((conversation) => clusterOf.has(conversation.id));
  const truePositives = positives.filter((conversation) => conversation.label.hasDocIssue);
  const falseNegatives = conversations.filter((conversation) => conversation.label.hasDocIssue && !clusterOf.has(conversation.id)).length;
  const precision = positives.length === 0 ? 0 : truePositives.length / positives.length;
  const recall = truePositives.length + falseNegatives === 0 ? 0 : truePositives.length / (truePositives.length + falseNegatives);
  return {
    conversations: conversations.length,
    topics: new Set(conversations.map((conversation) => conversation.label.topic)).size,
    truePositives: truePositives.length,
    falsePositives: positives.length - truePositives.length,
    falseNegatives,
    precision,
    recall,
    f1: precision + recall === 0 ? 0 : (2 * precision * recall) / (precision + recall),
    adjustedRandIndex: adjustedRandIndex(
      truePositives.map((conversation) => conversation.label.topic),
      truePositives.map((conversation) => clusterOf.get(conversation.id)!),
    ),
    clusters: new Set(positives.map((conversation) => clusterOf.get(conversation.id))).size,
    impactAgreement: truePositives.length === 0 ? 0 : truePositives.filter((conversation) => impactOf.get(conversation.id) === conversation.label.impact).length / truePositives.length,
    milliseconds,
  };
}

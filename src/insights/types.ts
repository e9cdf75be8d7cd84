/**
 * The shapes the insights engine reads and answers. Everything is plain JSON
 * (no Maps, no classes), so a caller stores it as it is and the engine runs
 * the same on the caller's thread or as a worker task (./insights-worker.ts).
 */
import type { ConversationImpact } from '../db/value-sets.ts';

/** Who wrote a message: the customer, an AI assistant, or a person of the support team. */
export const CONVERSATION_ROLES = ['user', 'assistant', 'team-member'] as const;
export type ConversationRole = (typeof CONVERSATION_ROLES)[number];

/** One message of a conversation; `body` is Markdown or HTML. */
export interface ConversationPart {
  type: 'message';
  role: ConversationRole;
  body: string;
}

/** A conversation as a support tool pushed it. */
export interface Conversation {
  id: string;
  subject?: string | null;
  parts: ConversationPart[];
  metadata?: Record<string, unknown> | null;
}

/** CONVERSATION_IMPACTS, lowest first: the value set the service stores. */
export type Impact = ConversationImpact;

/** Lemma (or "lemma lemma" for a pair of neighbouring words) → weight. */
export type Terms = Record<string, number>;

/** A documentation issue found in a conversation. */
export interface ExtractedIssue {
  /** A short phrase: the conversation's subject, or the user's key sentence. */
  title: string;
  /** A few sentences of plain text, drawn from the conversation, saying what is missing or wrong. */
  details: string;
  impact: Impact;
  /** What the issue is about, for clustering: lemma counts (code and links weigh half a word). */
  terms: Terms;
}

/**
 * Statistics of every issue clustered so far, for inverse document
 * frequencies. The caller stores what `clusterIssues` answers and passes it
 * back with the next batch; `emptyCorpus()` starts one.
 */
export interface CorpusStats {
  /** Issues counted. */
  documents: number;
  /** Term → number of issues holding it (the rarest are dropped past MAX_CORPUS_TERMS). */
  frequencies: Record<string, number>;
}

/** What the engine keeps of a cluster between batches. */
export interface ClusterState {
  id: string;
  /**
   * The mean of its issues' sublinear term frequencies (1 + ln tf), inverse
   * document frequencies left out: they are applied when comparing, with the
   * corpus of that moment. At most MAX_CENTROID_TERMS terms.
   */
  centroid: Terms;
  issueCount: number;
  /**
   * Where the model engine's embeddings of its issues point (INSIGHTS_EMBEDDING_MODEL): absent
   * until an issue embedded with that model joins it. Issues placed without embeddings (the
   * default engine's rounds, or a round whose embedding request failed) count only in `centroid`.
   */
  embedding?: EmbeddingCentroid | null;
}

/** The mean of the embeddings (each scaled to unit length) of a cluster's issues that were embedded with `model`. */
export interface EmbeddingCentroid {
  model: string;
  /** Issues it is the mean of. */
  count: number;
  mean: number[];
}

/**
 * Embeddings of a batch's issues, one per issue in the batch's order (each
 * conversation's issues in turn), all of `model`; `similarity` is the cosine
 * at or above which an issue joins a cluster or forms one with others
 * (INSIGHTS_EMBEDDING_SIMILARITY).
 */
export interface IssueEmbeddings {
  model: string;
  similarity: number;
  vectors: number[][];
}

/** A new cluster's state before the caller gives it an id. */
export type NewClusterState = Omit<ClusterState, 'id'>;

/** Where an issue went: into a cluster the caller already has, or into one of `created` (by index). */
export type ClusterAssignment = { existing: string } | { created: number };

export interface ClusterDescription {
  /** A few words naming the theme. */
  label: string;
  /** A Font Awesome icon name (./describe.ts ICON_THEMES). */
  icon: string;
  summary: string;
  impact: Impact;
}

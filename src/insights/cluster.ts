/**
 * Grouping issues into clusters, a batch at a time, so that clusters keep
 * their ids as data arrives.
 *
 * 1. The batch's issues are counted into the corpus first (their terms'
 *    document frequencies), so every comparison of the batch uses the same
 *    inverse document frequencies.
 * 2. The batch is placed in rounds of ROUND_SIZE issues, in the order
 *    given. In a round, each issue joins the cluster it is most similar to
 *    (cosine of TF-IDF vectors; a centroid weighted with the idf of now),
 *    existing or made by an earlier round, when that similarity is at least
 *    JOIN_SIMILARITY. Every issue of a round is compared with the clusters as
 *    they were before it, so the order within a round does not matter; ties
 *    go to the smaller cluster id (existing ones in id order first).
 * 3. The round's other issues are clustered among themselves with
 *    ml-hclust's agglomerative clustering (average linkage over cosine
 *    distances), cut where groups would merge at an average similarity
 *    below NEW_CLUSTER_SIMILARITY; each group becomes a new cluster. Rounds
 *    make one large batch behave like the same issues arriving in smaller
 *    ones, and bound the agglomeration, whose time grows with the cube of
 *    its size.
 *
 * Cost per batch, with b issues, c existing clusters, t terms per issue and
 * C = MAX_CENTROID_TERMS: vectors O(b·t + c·C), joining O(b·(c + new)·t) (a
 * dot product walks the shorter vector), the agglomeration O(ROUND_SIZE³)
 * per round, so O(b·ROUND_SIZE²) in all, and the centroids
 * O((b + c)·C·log C).
 *
 * With embeddings (the model engine's, INSIGHTS_EMBEDDING_MODEL), an issue
 * joins the cluster whose embedding centroid of the same model is most
 * similar, at or above the embedding similarity; when none is, it is compared
 * by terms (against JOIN_SIMILARITY) with the clusters that have no such
 * centroid (made before embeddings were used, or only by rounds without
 * them). A round's unplaced issues are agglomerated over their embeddings,
 * cut at the embedding similarity. Every cluster keeps its term centroid whatever placed
 * its issues, so a round without embeddings (the model failed, or the default
 * engine reads) places issues among the same clusters by terms: one set of
 * clusters, whichever way a round went.
 *
 * Muted clusters are joined like any other: muting is the caller's business.
 */
import { agnes } from 'ml-hclust';
import type { ClusterAssignment, ClusterState, CorpusStats, EmbeddingCentroid, IssueEmbeddings, NewClusterState, Terms } from './types.ts';
import { addToCorpus, compareStrings, cosine, dot, termProfile, unitLength, weightProfile, type Vector } from './vectors.ts';

/** An issue joins an existing cluster at this cosine similarity or above. */
export const JOIN_SIMILARITY = 0.12;
/** Issues form a new cluster together while their average similarity stays at this or above. */
export const NEW_CLUSTER_SIMILARITY = 0.1;
/** Terms a centroid keeps (the heaviest with the idf of its last update). */
export const MAX_CENTROID_TERMS = 200;
/** Issues placed per round: a batch goes round by round, each joining the clusters the rounds before it made or grew. */
export const ROUND_SIZE = 50;

export interface IssueTerms {
  id: string;
  terms: Terms;
}

export interface ClusterInput {
  clusters: ClusterState[];
  issues: IssueTerms[];
  corpus: CorpusStats;
  /** The issues' embeddings (one per issue, in order), when the model engine made them. */
  embeddings?: IssueEmbeddings | null;
}

export interface ClusterOutput {
  /** One per issue, in the order of the input. */
  assignments: { issueId: string; cluster: ClusterAssignment }[];
  /** The existing clusters that issues joined, with their new centroid and count (id order). */
  clusters: ClusterState[];
  /** New clusters, in the order `{ created: index }` names them. */
  created: NewClusterState[];
  corpus: CorpusStats;
}

/** A cluster while a batch is placed: where it came from, the sum of its issues' profiles, and what joined it. */
interface WorkingCluster {
  existing: string | null;
  sum: Terms;
  issueCount: number;
  joined: number[];
  /** The sum of its issues' unit embeddings of the batch's model and how many they are (null: none). */
  embeddingSum: number[] | null;
  embeddingCount: number;
  /** Its stored embedding centroid, kept when no embedded issue joins it (null: none). */
  storedEmbedding: EmbeddingCentroid | null;
}

/** What an issue or a cluster is compared by: its TF-IDF vector, and its embedding's direction when it has one. */
interface Place {
  vector: Vector;
  direction: number[] | null;
}

/** A centroid from the sum of `count` profiles: their mean, cut to the heaviest MAX_CENTROID_TERMS terms under `corpus`. */
function centroidOf(sum: Terms, count: number, corpus: CorpusStats): Terms {
  const weighted = weightProfile(sum, corpus);
  // Terms the corpus does not weigh yet (held by one issue) are kept after the weighed ones: they may weigh later.
  const rest = Object.keys(sum).filter((term) => !weighted.has(term)).sort((a, b) => sum[b] - sum[a] || compareStrings(a, b));
  const kept = [...weighted.keys()].sort((a, b) => weighted.get(b)! - weighted.get(a)! || compareStrings(a, b)).concat(rest).slice(0, MAX_CENTROID_TERMS);
  const centroid: Terms = {};
  // Rounded so that stored centroids do not carry float noise into the next batch's comparisons.
  for (const term of kept.sort(compareStrings)) centroid[term] = Math.round((sum[term] / count) * 1e6) / 1e6;
  return centroid;
}

function addProfile(sum: Terms, profile: Terms, times = 1) {
  for (const term of Object.keys(profile)) sum[term] = (sum[term] ?? 0) + profile[term] * times;
}

/**
 * Index of the cluster `issue` joins, or -1. An issue with an embedding joins
 * the cluster whose embedding direction is most similar at or above
 * `embeddingSimilarity`; failing that, or without an embedding, the cluster
 * most similar by terms at or above JOIN_SIMILARITY among those its
 * embedding cannot be compared with (all of them, for an issue without one).
 * Ties: the earlier, which callers order by id.
 */
function nearest(issue: Place, clusters: Place[], embeddingSimilarity: number): number {
  if (issue.direction) {
    const direction = issue.direction;
    const byEmbedding = best(clusters, (cluster) => (cluster.direction ? dot(direction, cluster.direction) : -1), embeddingSimilarity);
    if (byEmbedding >= 0) return byEmbedding;
  }
  return best(clusters, (cluster) => (issue.direction && cluster.direction ? -1 : cosine(issue.vector, cluster.vector)), JOIN_SIMILARITY);
}

/** Index of the highest `similarity` at or above `threshold` (ties: the earlier), or -1. */
function best(clusters: Place[], similarity: (cluster: Place) => number, threshold: number): number {
  let found = -1;
  let highest = threshold;
  for (let i = 0; i < clusters.length; i++) {
    const value = similarity(clusters[i]);
    if (value > highest || (found === -1 && value >= highest)) {
      found = i;
      highest = value;
    }
  }
  return found;
}

/** Groups of `vectors` (indexes, each group in input order, groups by their first index) from an average-linkage agglomeration cut at NEW_CLUSTER_SIMILARITY. */
export function agglomerate(vectors: Vector[]): number[][] {
  return agglomerateBy(vectors.length, (i, j) => cosine(vectors[i], vectors[j]), NEW_CLUSTER_SIMILARITY);
}

/** The same over `count` items whose pairwise similarity is `similarity(i, j)`, cut at `cut`. */
function agglomerateBy(count: number, similarity: (i: number, j: number) => number, cut: number): number[][] {
  if (count === 0) return [];
  if (count === 1) return [[0]];
  const distances = Array.from({ length: count }, (_, i) => Array.from({ length: count }, (_, j) => (i === j ? 0 : 1 - similarity(i, j))));
  const tree = agnes(distances, { method: 'average', isDistanceMatrix: true });
  // ml-hclust cuts below heights strictly greater than the threshold; the small margin keeps a similarity of exactly the threshold together.
  const groups = tree.cut(1 - cut + 1e-9).map((node) => node.indices().sort((a, b) => a - b));
  return groups.sort((a, b) => a[0] - b[0]);
}

/**
 * Two issues' similarity on the embeddings' scale: their embeddings' cosine,
 * or (an issue without an embedding: a zero vector) their terms' cosine
 * rescaled so that NEW_CLUSTER_SIMILARITY lands on `embeddingSimilarity`.
 */
function similarityBetween(a: Place, b: Place, embeddingSimilarity: number): number {
  if (a.direction && b.direction) return dot(a.direction, b.direction);
  return Math.min(1, (cosine(a.vector, b.vector) * embeddingSimilarity) / NEW_CLUSTER_SIMILARITY);
}

/** A working cluster's embedding direction (null without embedded issues). */
function directionOf(cluster: WorkingCluster): number[] | null {
  return cluster.embeddingSum && cluster.embeddingCount > 0 ? unitLength(cluster.embeddingSum) : null;
}

/** The embedding centroid to store: the mean of what joined under the batch's model, else what it had. */
function embeddingCentroidOf(cluster: WorkingCluster, model: string | undefined): EmbeddingCentroid | null {
  if (!cluster.embeddingSum || cluster.embeddingCount === 0 || model === undefined) return cluster.storedEmbedding;
  // Rounded like term centroids, so stored means do not carry float noise into the next batch.
  return { model, count: cluster.embeddingCount, mean: cluster.embeddingSum.map((value) => Math.round((value / cluster.embeddingCount) * 1e6) / 1e6) };
}

/** Places a batch of issues in clusters (see the module's comment). */
export function clusterIssues({ clusters, issues, corpus, embeddings }: ClusterInput): ClusterOutput {
  const nextCorpus = addToCorpus(corpus, issues.map((issue) => issue.terms));
  const model = embeddings?.model;
  const dimensions = embeddings?.vectors[0]?.length ?? 0;
  const existing = [...clusters].sort((a, b) => compareStrings(a.id, b.id));
  const working: WorkingCluster[] = existing.map((cluster) => {
    const sum: Terms = {};
    addProfile(sum, cluster.centroid, cluster.issueCount);
    const stored = cluster.embedding ?? null;
    // An embedding of another model (or size) is not comparable: the cluster is compared by terms until this model's issues join it.
    const comparable = stored && stored.model === model && stored.mean.length === dimensions && stored.count > 0;
    return {
      existing: cluster.id,
      sum,
      issueCount: cluster.issueCount,
      joined: [],
      embeddingSum: comparable ? stored.mean.map((value) => value * stored.count) : null,
      embeddingCount: comparable ? stored.count : 0,
      storedEmbedding: stored,
    };
  });
  // weightProfile scales to unit length, so a cluster's vector comes from its sum as well as from its mean.
  const places: Place[] = working.map((cluster) => ({ vector: weightProfile(cluster.sum, nextCorpus), direction: directionOf(cluster) }));
  const profiles = issues.map((issue) => termProfile(issue.terms));
  const unitEmbeddings = embeddings ? embeddings.vectors.map(unitLength) : null;
  const issuePlaces: Place[] = profiles.map((profile, index) => ({ vector: weightProfile(profile, nextCorpus), direction: unitEmbeddings?.[index] ?? null }));
  const embeddingSimilarity = embeddings?.similarity ?? 1;
  const placed: number[] = issues.map(() => -1);

  for (let start = 0; start < issues.length; start += ROUND_SIZE) {
    const round = issues.slice(start, start + ROUND_SIZE).map((_, offset) => start + offset);
    // Joins are decided against the clusters as they stand before the round, so the order within a round does not matter.
    const touched = new Set<number>();
    const unplaced: number[] = [];
    for (const index of round) {
      const target = nearest(issuePlaces[index], places, embeddingSimilarity);
      if (target < 0) unplaced.push(index);
      else {
        placed[index] = target;
        touched.add(target);
      }
    }
    const groups = unitEmbeddings
      ? agglomerateBy(unplaced.length, (i, j) => similarityBetween(issuePlaces[unplaced[i]], issuePlaces[unplaced[j]], embeddingSimilarity), embeddingSimilarity)
      : agglomerate(unplaced.map((index) => issuePlaces[index].vector));
    for (const group of groups) {
      working.push({ existing: null, sum: {}, issueCount: 0, joined: [], embeddingSum: null, embeddingCount: 0, storedEmbedding: null });
      places.push({ vector: new Map(), direction: null });
      for (const position of group) placed[unplaced[position]] = working.length - 1;
      touched.add(working.length - 1);
    }
    for (const index of round) {
      const cluster = working[placed[index]];
      addProfile(cluster.sum, profiles[index]);
      cluster.issueCount++;
      cluster.joined.push(index);
      const direction = unitEmbeddings?.[index];
      if (direction) {
        cluster.embeddingSum ??= new Array<number>(direction.length).fill(0);
        for (let d = 0; d < direction.length; d++) cluster.embeddingSum[d] += direction[d];
        cluster.embeddingCount++;
      }
    }
    for (const position of touched) places[position] = { vector: weightProfile(working[position].sum, nextCorpus), direction: directionOf(working[position]) };
  }

  const createdIndex = new Map<number, number>();
  const created: NewClusterState[] = [];
  const changed: ClusterState[] = [];
  working.forEach((cluster, position) => {
    if (cluster.joined.length === 0) return;
    const centroid = centroidOf(cluster.sum, cluster.issueCount, nextCorpus);
    const embedding = embeddingCentroidOf(cluster, model);
    if (cluster.existing !== null) changed.push({ id: cluster.existing, centroid, issueCount: cluster.issueCount, embedding });
    else {
      createdIndex.set(position, created.length);
      created.push({ centroid, issueCount: cluster.issueCount, embedding });
    }
  });
  const assignments = issues.map((issue, index) => {
    const cluster = working[placed[index]];
    return { issueId: issue.id, cluster: cluster.existing !== null ? { existing: cluster.existing } : { created: createdIndex.get(placed[index])! } };
  });
  return { assignments, clusters: changed, created, corpus: nextCorpus };
}

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
 * Muted clusters are joined like any other: muting is the caller's business.
 */
import { agnes } from 'ml-hclust';
import type { ClusterAssignment, ClusterState, CorpusStats, NewClusterState, Terms } from './types.ts';
import { addToCorpus, compareStrings, cosine, termProfile, weightProfile, type Vector } from './vectors.ts';

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

/** Index of the most similar vector at or above `threshold` (ties: the earlier, which callers order by id), or -1. */
function nearest(vector: Vector, candidates: Vector[], threshold: number): number {
  let best = -1;
  let bestSimilarity = threshold;
  for (let i = 0; i < candidates.length; i++) {
    const similarity = cosine(vector, candidates[i]);
    if (similarity > bestSimilarity || (best === -1 && similarity >= bestSimilarity)) {
      best = i;
      bestSimilarity = similarity;
    }
  }
  return best;
}

/** Groups of `vectors` (indexes, each group in input order, groups by their first index) from an average-linkage agglomeration cut at NEW_CLUSTER_SIMILARITY. */
export function agglomerate(vectors: Vector[]): number[][] {
  if (vectors.length === 0) return [];
  if (vectors.length === 1) return [[0]];
  const distances = vectors.map((a, i) => vectors.map((b, j) => (i === j ? 0 : 1 - cosine(a, b))));
  const tree = agnes(distances, { method: 'average', isDistanceMatrix: true });
  // ml-hclust cuts below heights strictly greater than the threshold; the small margin keeps a similarity of exactly the threshold together.
  const groups = tree.cut(1 - NEW_CLUSTER_SIMILARITY + 1e-9).map((node) => node.indices().sort((a, b) => a - b));
  return groups.sort((a, b) => a[0] - b[0]);
}

/** Places a batch of issues in clusters (see the module's comment). */
export function clusterIssues({ clusters, issues, corpus }: ClusterInput): ClusterOutput {
  const nextCorpus = addToCorpus(corpus, issues.map((issue) => issue.terms));
  const existing = [...clusters].sort((a, b) => compareStrings(a.id, b.id));
  const working: WorkingCluster[] = existing.map((cluster) => {
    const sum: Terms = {};
    addProfile(sum, cluster.centroid, cluster.issueCount);
    return { existing: cluster.id, sum, issueCount: cluster.issueCount, joined: [] };
  });
  // weightProfile scales to unit length, so a cluster's vector comes from its sum as well as from its mean.
  const vectors = working.map((cluster) => weightProfile(cluster.sum, nextCorpus));
  const profiles = issues.map((issue) => termProfile(issue.terms));
  const issueVectors = profiles.map((profile) => weightProfile(profile, nextCorpus));
  const placed: number[] = issues.map(() => -1);

  for (let start = 0; start < issues.length; start += ROUND_SIZE) {
    const round = issues.slice(start, start + ROUND_SIZE).map((_, offset) => start + offset);
    // Joins are decided against the clusters as they stand before the round, so the order within a round does not matter.
    const touched = new Set<number>();
    const unplaced: number[] = [];
    for (const index of round) {
      const target = nearest(issueVectors[index], vectors, JOIN_SIMILARITY);
      if (target < 0) unplaced.push(index);
      else {
        placed[index] = target;
        touched.add(target);
      }
    }
    for (const group of agglomerate(unplaced.map((index) => issueVectors[index]))) {
      working.push({ existing: null, sum: {}, issueCount: 0, joined: [] });
      vectors.push(new Map());
      for (const position of group) placed[unplaced[position]] = working.length - 1;
      touched.add(working.length - 1);
    }
    for (const index of round) {
      const cluster = working[placed[index]];
      addProfile(cluster.sum, profiles[index]);
      cluster.issueCount++;
      cluster.joined.push(index);
    }
    for (const position of touched) vectors[position] = weightProfile(working[position].sum, nextCorpus);
  }

  const createdIndex = new Map<number, number>();
  const created: NewClusterState[] = [];
  const changed: ClusterState[] = [];
  working.forEach((cluster, position) => {
    if (cluster.joined.length === 0) return;
    const centroid = centroidOf(cluster.sum, cluster.issueCount, nextCorpus);
    if (cluster.existing !== null) changed.push({ id: cluster.existing, centroid, issueCount: cluster.issueCount });
    else {
      createdIndex.set(position, created.length);
      created.push({ centroid, issueCount: cluster.issueCount });
    }
  });
  const assignments = issues.map((issue, index) => {
    const cluster = working[placed[index]];
    return { issueId: issue.id, cluster: cluster.existing !== null ? { existing: cluster.existing } : { created: createdIndex.get(placed[index])! } };
  });
  return { assignments, clusters: changed, created, corpus: nextCorpus };
}

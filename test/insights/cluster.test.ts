import { describe, expect, it } from 'vitest';
import { clusterIssues, MAX_CENTROID_TERMS, type IssueTerms } from '../../src/insights/cluster.ts';
import type { ClusterState } from '../../src/insights/types.ts';
import { addToCorpus, cosine, emptyCorpus, MAX_CORPUS_TERMS, tfidf } from '../../src/insights/vectors.ts';

const terms = (words: string) => Object.fromEntries(words.split(' ').map((word) => [word, 1]));
const webhooks: IssueTerms[] = [
  { id: 'w1', terms: terms('webhook signature secret verify header') },
  { id: 'w2', terms: terms('webhook signature verify body raw') },
  { id: 'w3', terms: terms('webhook retry delivery endpoint signature') },
];
const domains: IssueTerms[] = [
  { id: 'd1', terms: terms('domain dns record verify cname') },
  { id: 'd2', terms: terms('domain dns record txt propagation') },
  { id: 'd3', terms: terms('domain cname record ssl dns') },
];

/** Applies a result as a caller would: ids for created clusters, changed ones replaced. */
function apply(clusters: ClusterState[], result: ReturnType<typeof clusterIssues>, prefix: string): ClusterState[] {
  const byId = new Map(clusters.map((cluster) => [cluster.id, cluster]));
  for (const cluster of result.clusters) byId.set(cluster.id, cluster);
  result.created.forEach((cluster, index) => byId.set(`${prefix}${index}`, { ...cluster, id: `${prefix}${index}` }));
  return [...byId.values()];
}

describe('clusterIssues', () => {
  it('groups similar issues of a first batch into new clusters', () => {
    const result = clusterIssues({ clusters: [], issues: [...webhooks, ...domains], corpus: emptyCorpus() });
    expect(result.created).toHaveLength(2);
    const created = result.assignments.map(({ cluster }) => ('created' in cluster ? cluster.created : -1));
    expect(created).toEqual([0, 0, 0, 1, 1, 1]);
    expect(result.created.map((cluster) => cluster.issueCount)).toEqual([3, 3]);
    expect(result.corpus.documents).toBe(6);
    expect(result.corpus.frequencies.webhook).toBe(3);
  });

  it('gives the same answer for the same input', () => {
    const input = { clusters: [], issues: [...webhooks, ...domains], corpus: emptyCorpus() };
    expect(JSON.stringify(clusterIssues(input))).toBe(JSON.stringify(clusterIssues(structuredClone(input))));
  });

  it('keeps existing cluster ids: a later issue joins the nearest cluster, an unrelated one starts a new cluster', () => {
    const first = clusterIssues({ clusters: [], issues: [...webhooks, ...domains], corpus: emptyCorpus() });
    const clusters = apply([], first, 'cluster-');
    const webhookCluster = clusters.find((cluster) => cluster.centroid.webhook)!.id;
    const second = clusterIssues({
      clusters,
      issues: [
        { id: 'w4', terms: terms('webhook signature mismatch secret') },
        { id: 'b1', terms: terms('invoice billing vat address') },
        { id: 'b2', terms: terms('invoice billing vat receipt') },
      ],
      corpus: first.corpus,
    });
    expect(second.assignments[0].cluster).toEqual({ existing: webhookCluster });
    expect(second.assignments[1].cluster).toEqual({ created: 0 });
    expect(second.assignments[2].cluster).toEqual({ created: 0 });
    expect(second.clusters).toEqual([expect.objectContaining({ id: webhookCluster, issueCount: 4 })]);
    expect(second.corpus.documents).toBe(9);
  });

  it('places a batch the same whatever order the existing clusters come in', () => {
    const first = clusterIssues({ clusters: [], issues: [...webhooks, ...domains], corpus: emptyCorpus() });
    const clusters = apply([], first, 'cluster-');
    const issues = [{ id: 'd4', terms: terms('dns record cname domain') }];
    expect(clusterIssues({ clusters, issues, corpus: first.corpus })).toEqual(clusterIssues({ clusters: [...clusters].reverse(), issues, corpus: first.corpus }));
  });

  it('keeps centroids and the corpus bounded', () => {
    const wide = Array.from({ length: 3 }, (_, index) => ({ id: `x${index}`, terms: Object.fromEntries(Array.from({ length: 400 }, (__, k) => [`term${k}`, 1 + ((k + index) % 3)])) }));
    const result = clusterIssues({ clusters: [], issues: wide, corpus: emptyCorpus() });
    for (const cluster of result.created) expect(Object.keys(cluster.centroid).length).toBeLessThanOrEqual(MAX_CENTROID_TERMS);
    const many = addToCorpus(emptyCorpus(), [Object.fromEntries(Array.from({ length: MAX_CORPUS_TERMS + 10 }, (_, k) => [`t${k}`, 1]))]);
    expect(Object.keys(many.frequencies)).toHaveLength(MAX_CORPUS_TERMS);
  });
});

describe('clusterIssues with embeddings', () => {
  const same = (count: number, prefix: string): IssueTerms[] => Array.from({ length: count }, (_, i) => ({ id: `${prefix}${i}`, terms: terms('webhook signature verify header') }));
  const embeddings = (vectors: number[][], model = 'embed-1') => ({ model, similarity: 0.5, vectors });

  it('groups by the embeddings when a batch has them, and keeps each new cluster’s embedding centroid', () => {
    // The same words for all four: only the embeddings tell them apart.
    const result = clusterIssues({ clusters: [], issues: same(4, 's'), corpus: emptyCorpus(), embeddings: embeddings([[1, 0], [0, 2], [0.9, 0.1], [0.1, 0.9]]) });
    expect(result.assignments.map(({ cluster }) => cluster)).toEqual([{ created: 0 }, { created: 1 }, { created: 0 }, { created: 1 }]);
    expect(result.created[0]!.embedding!.model).toBe('embed-1');
    expect(result.created[0]!.embedding!.count).toBe(2);
    // The mean of unit vectors: [1, 0] and [0.9, 0.1] scaled to length 1.
    const unit = [0.9, 0.1].map((v) => v / Math.hypot(0.9, 0.1));
    expect(result.created[0]!.embedding!.mean).toEqual([(1 + unit[0]!) / 2, unit[1]! / 2].map((v) => Math.round(v * 1e6) / 1e6));
    expect(clusterIssues({ clusters: [], issues: same(4, 's'), corpus: emptyCorpus() }).created).toHaveLength(1);
  });

  it('joins a cluster by its embedding centroid of the same model, and by terms one of another model', () => {
    const clusters: ClusterState[] = [
      { id: 'a', centroid: terms('webhook signature verify header'), issueCount: 3, embedding: { model: 'embed-1', count: 3, mean: [0, 1] } },
      { id: 'b', centroid: terms('domain dns record verify cname'), issueCount: 2, embedding: { model: 'embed-0', count: 2, mean: [1, 0] } },
    ];
    const corpus = addToCorpus(emptyCorpus(), [...webhooks, ...domains].map((issue) => issue.terms));
    const issues = [
      { id: 'n1', terms: terms('domain dns record txt') },
      { id: 'n2', terms: terms('domain dns cname ssl') },
    ];
    // n1 points where cluster a does; n2 nowhere near it: it goes by its words to b, whose embedding is another model's.
    const result = clusterIssues({ clusters, issues, corpus, embeddings: embeddings([[0.1, 1], [1, 0]]) });
    expect(result.assignments.map(({ cluster }) => cluster)).toEqual([{ existing: 'a' }, { existing: 'b' }]);
    const [a, b] = result.clusters;
    expect(a!.embedding!.count).toBe(4);
    // b's centroid of the other model is replaced by this model's, of the one issue embedded with it.
    expect(b!.embedding).toEqual({ model: 'embed-1', count: 1, mean: [1, 0] });
  });

  it('places a batch without embeddings by terms and keeps the clusters’ embedding centroids', () => {
    const stored = { model: 'embed-1', count: 3, mean: [0, 1] };
    const clusters: ClusterState[] = [{ id: 'a', centroid: terms('webhook signature verify header'), issueCount: 3, embedding: stored }];
    const corpus = addToCorpus(emptyCorpus(), [...webhooks, ...domains].map((issue) => issue.terms));
    const result = clusterIssues({ clusters, issues: [{ id: 'w9', terms: terms('webhook signature secret') }], corpus });
    expect(result.assignments[0]!.cluster).toEqual({ existing: 'a' });
    expect(result.clusters[0]!.embedding).toEqual(stored);
  });

  it('gives the same answer for the same input', () => {
    const input = { clusters: [], issues: same(6, 'd'), corpus: emptyCorpus(), embeddings: embeddings([[1, 0], [0, 1], [1, 1], [0.2, 1], [1, 0.2], [0.5, 0.5]]) };
    expect(JSON.stringify(clusterIssues(input))).toBe(JSON.stringify(clusterIssues(structuredClone(input))));
  });
});

describe('tfidf and cosine', () => {
  it('weighs rare terms more and compares unit vectors', () => {
    const corpus = addToCorpus(emptyCorpus(), [terms('api webhook'), terms('api domain'), terms('api billing'), terms('webhook retry')]);
    const vector = tfidf(terms('api webhook'), corpus);
    expect(vector.get('webhook')!).toBeGreaterThan(vector.get('api')!);
    expect(cosine(vector, vector)).toBeCloseTo(1, 9);
    expect(cosine(vector, tfidf(terms('retry'), corpus))).toBe(0);
  });
});

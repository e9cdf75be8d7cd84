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

describe('tfidf and cosine', () => {
  it('weighs rare terms more and compares unit vectors', () => {
    const corpus = addToCorpus(emptyCorpus(), [terms('api webhook'), terms('api domain'), terms('api billing'), terms('webhook retry')]);
    const vector = tfidf(terms('api webhook'), corpus);
    expect(vector.get('webhook')!).toBeGreaterThan(vector.get('api')!);
    expect(cosine(vector, vector)).toBeCloseTo(1, 9);
    expect(cosine(vector, tfidf(terms('retry'), corpus))).toBe(0);
  });
});

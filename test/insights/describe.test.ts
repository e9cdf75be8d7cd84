import { describe, expect, it } from 'vitest';
import { clusterImpact, DEFAULT_ICON, describeCluster, type DescribedIssue } from '../../src/insights/describe.ts';
import { addToCorpus, emptyCorpus } from '../../src/insights/vectors.ts';

/** An issue whose terms are `words` (comma-separated, so that a term may be a pair of words). */
const issue = (title: string, words: string, impact: DescribedIssue['impact'] = 'medium'): DescribedIssue => ({
  title,
  details: `${title}. The page does not say.`,
  terms: Object.fromEntries(words.split(',').map((word) => [word, 1])),
  impact,
});

describe('describeCluster', () => {
  it('labels a cluster by its telling terms, picks its icon and summarises it', () => {
    const issues = [
      issue('Signature never matches', 'webhook,signature,webhook signature,secret,acme'),
      issue('What is signed?', 'webhook,signature,webhook signature,hmac,acme'),
      issue('Signature header format', 'webhook,header,signature,webhook signature,acme'),
    ];
    // Other issues of the corpus: about other things, all naming the product ("acme").
    const others = ['domain', 'invoice', 'role', 'export', 'cli', 'sdk'].map((word) => ({ acme: 1, [word]: 1 }));
    const corpus = addToCorpus(emptyCorpus(), [...issues.map((one) => one.terms), ...others]);
    const description = describeCluster(issues, corpus);
    expect(description.label).toBe('Webhook signature');
    expect(description.icon).toBe('bell');
    expect(description.summary).toMatch(/^3 conversations about webhook signature, such as /);
    expect(description.impact).toBe('medium');
    expect(describeCluster(issues, corpus)).toEqual(description);
  });

  it('falls back to a default icon and label', () => {
    expect(describeCluster([issue('Odd question', 'zebra')])).toMatchObject({ icon: DEFAULT_ICON, label: 'Zebra' });
    expect(describeCluster([])).toMatchObject({ label: 'Other documentation questions', icon: DEFAULT_ICON });
  });
});

describe('clusterImpact', () => {
  it('is the highest impact a fifth of the issues have, and at least medium for ten issues', () => {
    expect(clusterImpact(['high'])).toBe('high');
    expect(clusterImpact(['high', 'low', 'low', 'low', 'low'])).toBe('high');
    expect(clusterImpact(['high', 'low', 'low', 'low', 'low', 'low'])).toBe('low');
    expect(clusterImpact(['high', 'medium', 'low', 'low', 'low', 'low'])).toBe('medium');
    expect(clusterImpact(Array.from({ length: 10 }, () => 'low' as const))).toBe('medium');
  });
});

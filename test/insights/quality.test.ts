/**
 * Floors under the default engine's measured quality on the labelled set
 * (docs/decisions.md, "The labelled set"): a change that breaks extraction or
 * clustering fails here. The floors sit a little under what was measured, so
 * that a change for the better can still move the numbers about.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { extractAll, loadLabelledSet, measureQuality, type Extracted } from './labelled-set.ts';

/** Measured 2026-11-28 (test/insights/measure-quality.ts): precision 0.972, recall 0.927; ARI 0.407 in batches of 50, 0.431 in one batch. */
const FLOORS = { precision: 0.93, recall: 0.88, ariInBatches: 0.35, ariInOneBatch: 0.37 };

let extracted: Extracted;
beforeAll(() => {
  const { conversations, unreadable } = loadLabelledSet();
  expect(unreadable).toEqual([]);
  extracted = extractAll(conversations);
});

describe('the default insights engine on the labelled set', () => {
  it('reads a set of at least 300 conversations over at least 10 topics, some without an issue', () => {
    const { conversations } = extracted;
    expect(conversations.length).toBeGreaterThanOrEqual(300);
    expect(new Set(conversations.map((conversation) => conversation.label.topic)).size).toBeGreaterThanOrEqual(10);
    expect(conversations.filter((conversation) => !conversation.label.hasDocIssue).length).toBeGreaterThan(0);
  });

  it('tells conversations with a documentation issue from the others', () => {
    const quality = measureQuality(extracted, 50);
    expect(quality.precision).toBeGreaterThanOrEqual(FLOORS.precision);
    expect(quality.recall).toBeGreaterThanOrEqual(FLOORS.recall);
  });

  it('clusters the issues by topic, in batches as they arrive and in one batch', () => {
    expect(measureQuality(extracted, 50).adjustedRandIndex).toBeGreaterThanOrEqual(FLOORS.ariInBatches);
    expect(measureQuality(extracted, Infinity).adjustedRandIndex).toBeGreaterThanOrEqual(FLOORS.ariInOneBatch);
  });
});

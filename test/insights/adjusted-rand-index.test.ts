import { describe, expect, it } from 'vitest';
import { adjustedRandIndex } from './adjusted-rand-index.ts';

describe('adjustedRandIndex', () => {
  it('is 1 for the same partition, whatever the names', () => {
    expect(adjustedRandIndex(['a', 'a', 'b', 'b', 'c'], ['x', 'x', 'y', 'y', 'z'])).toBe(1);
    expect(adjustedRandIndex(['a', 'b'], ['a', 'b'])).toBe(1);
  });

  it('matches known values (scikit-learn adjusted_rand_score examples)', () => {
    expect(adjustedRandIndex(['0', '0', '1', '1'], ['0', '0', '1', '2'])).toBeCloseTo(0.5714285714, 9);
    expect(adjustedRandIndex(['0', '0', '1', '2'], ['0', '0', '1', '1'])).toBeCloseTo(0.5714285714, 9);
    expect(adjustedRandIndex(['0', '0', '0', '0'], ['0', '1', '2', '3'])).toBe(0);
    expect(adjustedRandIndex(['0', '0', '1', '1'], ['0', '1', '0', '1'])).toBeCloseTo(-0.5, 9);
  });

  it('matches a contingency table worked by hand', () => {
    // Table rows (truth) a, b; columns (predicted) x, y: [[2, 1], [0, 3]]. Index 1 + 3 = 4; rows 3 + 3 = 6; columns 1 + 6 = 7;
    // expected 6·7/15 = 2.8; maximum 6.5; ARI (4 − 2.8) / (6.5 − 2.8).
    const truth = ['a', 'a', 'a', 'b', 'b', 'b'];
    const predicted = ['x', 'x', 'y', 'y', 'y', 'y'];
    expect(adjustedRandIndex(truth, predicted)).toBeCloseTo(1.2 / 3.7, 12);
  });

  it('refuses labellings of different lengths', () => {
    expect(() => adjustedRandIndex(['a'], ['a', 'b'])).toThrow();
  });
});

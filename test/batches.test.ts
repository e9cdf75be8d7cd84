import { describe, expect, it } from 'vitest';
import { batches } from '../src/batches.ts';

describe('batches', () => {
  it('cuts at the item limit, keeping the order', () => {
    expect(batches([1, 2, 3, 4, 5], 2, Infinity)).toEqual([[1, 2], [3, 4], [5]]);
  });

  it('cuts before the item that would pass the size limit', () => {
    expect(batches(['aaa', 'bb', 'c', 'dddd'], 10, 5)).toEqual([['aaa', 'bb'], ['c', 'dddd']]);
  });

  it('sends an item larger than the size limit alone', () => {
    expect(batches(['a', 'bbbbbbbb', 'c'], 10, 4)).toEqual([['a'], ['bbbbbbbb'], ['c']]);
  });

  it('measures with the given size', () => {
    const rows = [{ n: 3 }, { n: 3 }, { n: 3 }];
    expect(batches(rows, 10, 6, (row) => row.n)).toEqual([[rows[0], rows[1]], [rows[2]]]);
  });

  it('gives no batch for no items', () => {
    expect(batches([], 3, 10)).toEqual([]);
  });
});

/**
 * The adjusted Rand index (Hubert and Arabie, 1985) of two labellings of the
 * same items, from their contingency table: 1 for the same partition, about 0
 * for a random one (it can go below). Label values are compared as strings.
 */
const pairs = (n: number) => (n * (n - 1)) / 2;

export function adjustedRandIndex(truth: readonly string[], predicted: readonly string[]): number {
  if (truth.length !== predicted.length) throw new Error('adjustedRandIndex: labellings of different lengths');
  const n = truth.length;
  const cells = new Map<string, number>();
  const rows = new Map<string, number>();
  const columns = new Map<string, number>();
  for (let i = 0; i < n; i++) {
    const cell = JSON.stringify([truth[i], predicted[i]]);
    cells.set(cell, (cells.get(cell) ?? 0) + 1);
    rows.set(truth[i], (rows.get(truth[i]) ?? 0) + 1);
    columns.set(predicted[i], (columns.get(predicted[i]) ?? 0) + 1);
  }
  let index = 0;
  for (const count of cells.values()) index += pairs(count);
  let rowPairs = 0;
  for (const count of rows.values()) rowPairs += pairs(count);
  let columnPairs = 0;
  for (const count of columns.values()) columnPairs += pairs(count);
  const total = pairs(n);
  const expected = total === 0 ? 0 : (rowPairs * columnPairs) / total;
  const maximum = (rowPairs + columnPairs) / 2;
  // Both labellings put everything together, or everything apart: they agree.
  if (maximum === expected) return 1;
  return (index - expected) / (maximum - expected);
}

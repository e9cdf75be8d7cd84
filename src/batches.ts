/**
 * Splits items into consecutive batches of at most `maxItems` items and about
 * `maxSize` of `size` (an item that alone exceeds it goes alone), in order:
 * rows per INSERT, texts per translation request.
 */
export function batches<T>(items: readonly T[], maxItems: number, maxSize: number, size: (item: T) => number = (item) => String(item).length): T[][] {
  const out: T[][] = [];
  let current: T[] = [];
  let total = 0;
  for (const item of items) {
    const length = size(item);
    if (current.length && (current.length >= maxItems || total + length > maxSize)) {
      out.push(current);
      current = [];
      total = 0;
    }
    current.push(item);
    total += length;
  }
  if (current.length) out.push(current);
  return out;
}

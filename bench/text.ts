/**
 * Deterministic generated text for the benchmarks' content
 * (bench/seed-content.ts: the pages written through the API;
 * bench/seed-repository.ts: the Git repository imported): a seeded PRNG
 * (mulberry32), so every run writes the same words, and the pieces both
 * build their Markdown from.
 */

export type Rng = () => number;

/** mulberry32: a small, fast, seeded PRNG with floats in [0, 1). */
export function mulberry32(seed: number): Rng {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A 32-bit seed from any parts (FNV-1a). */
export function seedOf(...parts: Array<string | number>): number {
  let h = 0x811c9dc5;
  for (const ch of parts.join('\u0000')) {
    h ^= ch.codePointAt(0)!;
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h;
}

export const pick = <T>(rng: Rng, list: readonly T[]): T => list[Math.floor(rng() * list.length)]!;
/** A word of `list`, the first ones far more often (a rough Zipf law: some words are everywhere, many are rare). */
export const pickSkewed = <T>(rng: Rng, list: readonly T[]): T => list[Math.floor(rng() * rng() * list.length)]!;
export const between = (rng: Rng, min: number, max: number) => min + Math.floor(rng() * (max - min + 1));

/** `count` distinct items of `list` (a partial Fisher-Yates shuffle). */
export function sample<T>(rng: Rng, list: readonly T[], count: number): T[] {
  const copy = [...list];
  for (let i = 0; i < count && i < copy.length; i++) {
    const j = i + Math.floor(rng() * (copy.length - i));
    [copy[i], copy[j]] = [copy[j]!, copy[i]!];
  }
  return copy.slice(0, count);
}

/** A sentence of 8 to 16 words of `words` (skewed), with `extra` words inserted, sometimes a comma. */
export function sentence(rng: Rng, words: readonly string[], extra: string[] = []): string {
  const out = Array.from({ length: between(rng, 8, 16) }, () => pickSkewed(rng, words));
  for (const w of extra) out.splice(between(rng, 1, out.length), 0, w);
  if (out.length > 10 && rng() < 0.4) out[between(rng, 3, out.length - 3)] += ',';
  const text = out.join(' ');
  return `${text[0]!.toUpperCase()}${text.slice(1)}.`;
}

/** `sentences` sentences; the i-th with the words of `extra[i]` inserted. */
export const paragraph = (rng: Rng, words: readonly string[], sentences: number, extra: string[][] = []) =>
  Array.from({ length: sentences }, (_, i) => sentence(rng, words, extra[i] ?? [])).join(' ');

/** A URL path segment from an ASCII title, as the app makes page paths and as Git Sync names files: `Getting started` -> `getting-started`. */
export const slug = (title: string) =>
  title
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');

/** The word an edit of a benchmark leaves in a page (one token: letters and digits). */
export const editMarker = (label: string, index: number) => `edit${label}p${index}`;

export const VERBS = ['Configuring', 'Scaling', 'Debugging', 'Securing', 'Migrating', 'Testing', 'Monitoring', 'Tuning', 'Deploying', 'Extending', 'Backing up', 'Rotating', 'Auditing', 'Indexing'];
export const NOUNS = ['webhooks', 'access tokens', 'replicas', 'caches', 'queues', 'schemas', 'exports', 'retries', 'sessions', 'alerts', 'rate limits', 'snapshots', 'audit logs', 'feature flags', 'search indexes'];
export const HEADINGS = ['Overview', 'Before you begin', 'Prerequisites', 'How it works', 'Options', 'Examples', 'Limits', 'Known issues', 'Best practices', 'Security considerations', 'Performance', 'Next steps'];
export const LANGUAGES = ['yaml', 'bash', 'json', 'js'];

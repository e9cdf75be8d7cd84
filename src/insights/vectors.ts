/**
 * TF-IDF vectors over lemmas and their cosine similarity. Term frequency is
 * sublinear (1 + ln tf: the fifth "webhook" says less than the first); the
 * inverse document frequency is smoothed, ln((1 + N) / (1 + df)) + 1, over
 * the issues counted in a CorpusStats, so a term no issue held yet weighs
 * most and one every issue holds still weighs a little. Vectors are sparse
 * (term → weight) and unit length, so cosine similarity is a dot product.
 * Embeddings (the model engine's) are dense arrays, compared the same way
 * once scaled to unit length.
 */
import type { CorpusStats, Terms } from './types.ts';

/** Terms a corpus keeps at most: past it the rarest go first (a term seen once says little about clusters). */
export const MAX_CORPUS_TERMS = 50_000;

/** A unit-length sparse vector. */
export type Vector = Map<string, number>;

export function emptyCorpus(): CorpusStats {
  return { documents: 0, frequencies: {} };
}

/**
 * The corpus with `documents` counted in, as a new object. Past
 * MAX_CORPUS_TERMS, the terms held by fewest issues are dropped (ties: the
 * last in code-unit order first), so the result depends only on its input.
 */
export function addToCorpus(corpus: CorpusStats, documents: Terms[]): CorpusStats {
  const frequencies: Record<string, number> = { ...corpus.frequencies };
  for (const terms of documents) {
    for (const term of Object.keys(terms)) {
      if (terms[term] > 0) frequencies[term] = (frequencies[term] ?? 0) + 1;
    }
  }
  const keys = Object.keys(frequencies);
  if (keys.length > MAX_CORPUS_TERMS) {
    keys.sort((a, b) => frequencies[b] - frequencies[a] || compareStrings(a, b));
    for (const term of keys.slice(MAX_CORPUS_TERMS)) delete frequencies[term];
  }
  return { documents: corpus.documents + documents.length, frequencies };
}

/** Smoothed inverse document frequency of a term. */
export function idf(corpus: CorpusStats, term: string): number {
  return Math.log((1 + corpus.documents) / (1 + (corpus.frequencies[term] ?? 0))) + 1;
}

/** Sublinear term frequency: 1 + ln tf for tf ≥ 1, tf itself below (half-weight code words). */
export function sublinear(count: number): number {
  return count >= 1 ? 1 + Math.log(count) : count;
}

/** Terms with sublinear frequencies, the profile a centroid averages. */
export function termProfile(terms: Terms): Terms {
  const profile: Terms = {};
  for (const term of Object.keys(terms)) if (terms[term] > 0) profile[term] = sublinear(terms[term]);
  return profile;
}

/**
 * Issues a term must be in to weigh anything: a term only one issue holds
 * cannot make two issues alike, and with the highest idf it would only
 * dilute the rest (names, one-off details).
 */
export const MIN_DOCUMENT_FREQUENCY = 2;

/** A profile (already sublinear) weighted by the corpus's idf and scaled to unit length; terms under MIN_DOCUMENT_FREQUENCY left out. */
export function weightProfile(profile: Terms, corpus: CorpusStats): Vector {
  const vector: Vector = new Map();
  let norm = 0;
  for (const term of Object.keys(profile)) {
    if ((corpus.frequencies[term] ?? 0) < MIN_DOCUMENT_FREQUENCY) continue;
    const weight = profile[term] * idf(corpus, term);
    if (weight <= 0) continue;
    vector.set(term, weight);
    norm += weight * weight;
  }
  if (norm === 0) return vector;
  const scale = 1 / Math.sqrt(norm);
  for (const [term, weight] of vector) vector.set(term, weight * scale);
  return vector;
}

/** The TF-IDF vector of an issue's terms. */
export function tfidf(terms: Terms, corpus: CorpusStats): Vector {
  return weightProfile(termProfile(terms), corpus);
}

/** Cosine similarity of two unit vectors (0 when either is empty). */
export function cosine(a: Vector, b: Vector): number {
  const [small, large] = a.size <= b.size ? [a, b] : [b, a];
  let dot = 0;
  for (const [term, weight] of small) {
    const other = large.get(term);
    if (other !== undefined) dot += weight * other;
  }
  // Rounded so that sums taken in another order cannot flip a comparison.
  return Math.round(dot * 1e9) / 1e9;
}

/** A dense vector (an embedding) scaled to unit length; null for a zero vector, which points nowhere. */
export function unitLength(vector: number[]): number[] | null {
  let norm = 0;
  for (const value of vector) norm += value * value;
  if (!(norm > 0) || !Number.isFinite(norm)) return null;
  const scale = 1 / Math.sqrt(norm);
  return vector.map((value) => value * scale);
}

/** Dot product of two dense vectors of one length: the cosine of unit ones, rounded as `cosine` is. */
export function dot(a: number[], b: number[]): number {
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += a[i] * b[i];
  return Math.round(sum * 1e9) / 1e9;
}

/** Code-unit order, the same in every locale. */
export function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

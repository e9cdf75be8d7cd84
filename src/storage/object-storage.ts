/**
 * Where a space's files (images, attachments) and generated PDFs are kept.
 * Callers see only `ObjectStorage`: objects are content-addressed (the key is
 * the SHA-256 of the bytes), so an object store (S3, GCS, ...) can replace the
 * disk without touching them.
 */

/** Content-addressed, immutable objects. */
export interface ObjectStorage {
  /** Stores `bytes` under their SHA-256 (lowercase hex). Idempotent: storing the same bytes twice keeps one object. */
  put(bytes: Uint8Array): Promise<{ key: string; size: number }>;
  /** The object's bytes, or null when there is none under `key`. Throws InvalidInputError for a key that is not 64 hex digits. */
  get(key: string): Promise<Uint8Array | null>;
  /** Whether an object is stored under `key`. Throws InvalidInputError for a malformed key. */
  has(key: string): Promise<boolean>;
  /**
   * Every object with when it was last stored: `put` of bytes already there counts as storing
   * them again, so an object someone is about to refer to looks new to the collector.
   */
  list(): AsyncIterable<{ key: string; storedAt: Date }>;
  /**
   * Deletes the object if it was last stored before `storedBefore`; false when it was stored since
   * (or is gone). A `put` racing with it either finds the object and keeps it, or stores it again.
   */
  collect(key: string, storedBefore: Date): Promise<boolean>;
}

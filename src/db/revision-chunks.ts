/**
 * How a revision's pages and files are stored: as chunks shared between revisions.
 *
 * A revision lists its page entries (and, separately, its file entries) sorted by id and cut
 * into runs, "chunks"; each chunk is stored once, under the sha-256 of its canonical JSON
 * (RevisionChunk), and the revision keeps the list of its chunks' hashes (Revision.pageChunks,
 * Revision.fileChunks). Where a run ends depends only on the ids in it (an entry whose id hashes
 * to 0 mod CHUNK_TARGET closes its chunk, content-defined chunking as in rsync, restic or Dolt's
 * prolly trees), never on positions: an edit of one page changes one chunk, adding or removing
 * a page changes one or two, and every other chunk of the revision is the parent's, already
 * stored. A revision of a 1,000-page space that changes one page stores one chunk of about 16
 * entries and its list of about 60 hashes, where copying every page row wrote 1,000 rows.
 *
 * Chunks, like documents, are never rewritten: a hash names one content forever.
 */
import { createHash } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import { LRUCache } from 'lru-cache';
import { stringify } from 'safe-stable-stringify';
import { batches } from '../batches.ts';
import { Prisma, type Db, type Tx } from './client.ts';

/** A page of a revision as stored (what a RevisionPage row held, without its revision and derived path). */
export interface PageEntry {
  pageId: string;
  parentPageId: string | null;
  index: number;
  kind: string;
  title: string;
  slug: string;
  description: string | null;
  emoji: string | null;
  icon: string | null;
  hidden: boolean;
  /** Present only when true (entries written before these flags have neither). */
  noIndex?: boolean;
  noRobotsIndex?: boolean;
  documentHash: string | null;
  /** ContentRef of a link page. */
  linkTarget: Prisma.JsonValue | null;
  /** RevisionPageLayoutOptions; null for the default layout. */
  layout: Prisma.JsonValue | null;
  /** The page settings (PAGE_SETTINGS), each present only when set: entries written before them have none. */
  cover?: Prisma.JsonValue;
  metaLinks?: Prisma.JsonValue;
  variables?: Prisma.JsonValue;
  computed?: Prisma.JsonValue;
  computedSeed?: string;
  /** [{ tag, primary? }] (RevisionPageTag by slug). */
  tags?: Prisma.JsonValue;
  /** ISO 8601. */
  createdAt: string;
  updatedAt: string;
}

/** A file of a revision as stored; the bytes are in the object storage under storageKey. */
export interface FileEntry {
  fileId: string;
  name: string;
  contentType: string;
  size: number;
  /** sha-256 of the bytes, the object storage key. */
  storageKey: string;
  width: number | null;
  height: number | null;
}

export interface Chunk<E> {
  hash: string;
  entries: E[];
}

/** Entries per chunk on average (a boundary after one id in CHUNK_TARGET); at most CHUNK_MAX. */
const CHUNK_TARGET = 16;
const CHUNK_MAX = 64;

/**
 * `entries` cut into chunks, in id order. About 16 entries a chunk balances what one edit
 * writes (a chunk of ~4 KB) against the revision's hash list (N/16 hashes). `fresh` are the chunks
 * not found in `stored` (the chunks the content was read from), the only ones hashed, and the
 * only ones that may need storing.
 */
export function chunkEntries<E extends PageEntry | FileEntry>(
  entries: readonly E[],
  idOf: (entry: E) => string,
  stored?: StoredChunks,
): { chunks: Chunk<E>[]; fresh: Chunk<E>[] } {
  const sorted = [...entries].sort((a, b) => (idOf(a) < idOf(b) ? -1 : idOf(a) > idOf(b) ? 1 : 0));
  const chunks: Chunk<E>[] = [];
  const fresh: Chunk<E>[] = [];
  let run: E[] = [];
  const close = () => {
    const { chunk, reused } = reuseStoredChunk(run, stored);
    chunks.push(chunk);
    if (!reused) fresh.push(chunk);
    run = [];
  };
  for (const entry of sorted) {
    run.push(entry);
    if (fnv1a(idOf(entry)) % CHUNK_TARGET === 0 || run.length >= CHUNK_MAX) close();
  }
  if (run.length) close();
  return { chunks, fresh };
}

export const pageEntryId = (entry: PageEntry): string => entry.pageId;
export const fileEntryId = (entry: FileEntry): string => entry.fileId;

function chunkHash(entries: readonly unknown[]): string {
  return createHash('sha256').update(stringify(entries) ?? '[]').digest('hex');
}

/** FNV-1a (32 bits): a fast, well-spread hash of an id, for chunk boundaries only. */
function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

/** Chunks per INSERT, and at most about this many bytes of JSON in one. */
const CHUNK_BATCH = 500;
const CHUNK_BATCH_BYTES = 4 * 1024 * 1024;

/**
 * Stores the chunks not stored yet: one SELECT of the hashes, then multi-row INSERTs of the
 * new ones only (ON CONFLICT DO NOTHING: a concurrent writer of the same chunk is harmless).
 */
export async function storeChunks(tx: Db | Tx, chunks: readonly Chunk<PageEntry | FileEntry>[]): Promise<void> {
  const byHash = new Map(chunks.map((chunk) => [chunk.hash, chunk]));
  if (byHash.size === 0) return;
  const existing = await tx.revisionChunk.findMany({ where: { hash: { in: [...byHash.keys()] } }, select: { hash: true } });
  for (const { hash } of existing) byHash.delete(hash);
  // A chunk stored before (by a revision deleted since, maybe) counts as stored now: the storage
  // collector deletes only chunks no revision lists and stored before its grace period.
  if (existing.length) await tx.revisionChunk.updateMany({ where: { hash: { in: existing.map((row) => row.hash) } }, data: { createdAt: new Date() } });
  // The JSON goes as text: the column types it (jsonb on PostgreSQL, text on SQLite), as for documents.
  const rows = [...byHash.values()].map((chunk) => ({ hash: chunk.hash, json: stringify(chunk.entries) ?? '[]' }));
  for (const batch of batches(rows, CHUNK_BATCH, CHUNK_BATCH_BYTES, (row) => row.json.length)) {
    const values = batch.map((row) => Prisma.sql`(${row.hash}, ${row.json})`);
    await tx.$executeRaw`INSERT INTO "RevisionChunk" ("hash", "entries") VALUES ${Prisma.join(values)} ON CONFLICT ("hash") DO NOTHING`;
  }
}

/**
 * Decoded chunks by hash, kept for the requests of one process (the app makes one). A hash names
 * one content forever, so what is kept never goes stale and no write has to forget it: it spares
 * reading and decoding again the ~60 chunks of a 1,000-page revision that every edit, merge and
 * page listing of it reads. Bounded by the entries it holds (a chunk counts its entries); the
 * entries are frozen, since every reader shares them.
 */
export class RevisionChunkCache {
  private readonly chunks: LRUCache<string, readonly unknown[]> | null;

  /** `maxEntries` 0: nothing is kept. */
  constructor(maxEntries: number) {
    this.chunks = maxEntries >= CHUNK_MAX ? new LRUCache({ maxSize: maxEntries, sizeCalculation: (entries) => Math.max(1, entries.length) }) : null;
  }

  get(hash: string): readonly unknown[] | undefined {
    return this.chunks?.get(hash);
  }

  /** Keeps `entries` (frozen, deeply) and returns them. */
  keep(hash: string, entries: unknown[]): readonly unknown[] {
    if (!this.chunks) return entries;
    const frozen = deepFreeze(entries);
    this.chunks.set(hash, frozen);
    return frozen;
  }
}

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    for (const child of Object.values(value)) deepFreeze(child);
    Object.freeze(value);
  }
  return value;
}

/**
 * The entries of the chunks `hashes`, from `cache` where it has them, read (and kept there)
 * otherwise; any that is missing is an error: a revision never lists one it did not store.
 */
export async function loadChunks(db: Db | Tx, hashes: readonly string[], cache?: RevisionChunkCache): Promise<Map<string, readonly unknown[]>> {
  const byHash = await readChunks(db, hashes, cache);
  for (const hash of hashes) if (!byHash.has(hash)) throw new Error(`Revision chunk ${hash} is missing`);
  return byHash;
}

/** The entries of those of the chunks `hashes` that exist, from `cache` first (as loadChunks). */
export async function readChunks(db: Db | Tx, hashes: readonly string[], cache?: RevisionChunkCache): Promise<Map<string, readonly unknown[]>> {
  const byHash = new Map<string, readonly unknown[]>();
  const missing: string[] = [];
  for (const hash of new Set(hashes)) {
    const kept = cache?.get(hash);
    if (kept) byHash.set(hash, kept);
    else missing.push(hash);
  }
  if (missing.length === 0) return byHash;
  const rows = await db.revisionChunk.findMany({ where: { hash: { in: missing } } });
  for (const row of rows) byHash.set(row.hash, cache ? cache.keep(row.hash, row.entries as unknown[]) : (row.entries as unknown[]));
  return byHash;
}

/**
 * Stored chunks by the id of their first entry: where a revision's content came from
 * (RevisionSnapshot.storedChunks), so that writing it again finds, for each chunk it cuts, a
 * stored one with the same entries, and takes its hash instead of hashing it anew.
 */
export type StoredChunks = Map<string, Chunk<PageEntry | FileEntry>[]>;

/** A chunk's key in StoredChunks: the id of its first entry, pages and files apart. */
function storedChunkKey(first: PageEntry | FileEntry): string {
  return 'pageId' in first ? `p:${first.pageId}` : `f:${first.fileId}`;
}

/** Adds `chunks` (stored ones: listed by a revision, or just written) to `stored`, by first id. */
export function addStoredChunks(stored: StoredChunks, chunks: Iterable<Chunk<PageEntry | FileEntry>>): StoredChunks {
  for (const chunk of chunks) {
    const first = chunk.entries[0];
    if (!first) continue;
    const key = storedChunkKey(first);
    const list = stored.get(key);
    if (!list) stored.set(key, [chunk]);
    else if (!list.some((other) => other.hash === chunk.hash)) list.push(chunk);
  }
  return stored;
}

/** The stored chunks of both contents (a merge's result was made of either side's). */
export function joinStoredChunks(a: StoredChunks | undefined, b: StoredChunks | undefined): StoredChunks | undefined {
  if (!a || !b) return a ?? b;
  const joined: StoredChunks = new Map([...a].map(([id, list]) => [id, [...list]]));
  return addStoredChunks(joined, [...b.values()].flat());
}

/**
 * `chunk` with the hash of a stored chunk holding the same entries, if `stored` has one (then
 * `reused` is true and nothing needs storing); otherwise with its hash computed. Same entries,
 * field by field, means the same canonical JSON, hence the same hash.
 */
export function reuseStoredChunk<E extends PageEntry | FileEntry>(
  entries: E[],
  stored: StoredChunks | undefined,
): { chunk: Chunk<E>; reused: boolean } {
  const first = entries[0]!;
  const candidates = stored?.get(storedChunkKey(first)) ?? [];
  for (const candidate of candidates) {
    if (candidate.entries.length === entries.length && candidate.entries.every((entry, i) => sameEntry(entry, entries[i]!))) {
      return { chunk: { hash: candidate.hash, entries }, reused: true };
    }
  }
  return { chunk: { hash: chunkHash(entries), entries }, reused: false };
}

function sameEntry(a: PageEntry | FileEntry, b: PageEntry | FileEntry): boolean {
  if (a === b) return true; // an unchanged page of a kept chunk is written as the entry it was read from
  const keys = Object.keys(a) as (keyof typeof a)[];
  if (keys.length !== Object.keys(b).length) return false;
  for (const key of keys) {
    const x = a[key];
    const y = (b as typeof a)[key];
    if (x === y) continue;
    if (x === null || y === null || typeof x !== 'object' || typeof y !== 'object' || !isDeepStrictEqual(x, y)) return false;
  }
  return true;
}

/** A revision's chunk list (Revision.pageChunks / fileChunks) as hashes. */
export function chunkList(value: Prisma.JsonValue): string[] {
  return Array.isArray(value) ? value.filter((hash): hash is string => typeof hash === 'string') : [];
}

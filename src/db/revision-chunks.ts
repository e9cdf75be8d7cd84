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
  documentHash: string | null;
  /** ContentRef of a link page. */
  linkTarget: Prisma.JsonValue | null;
  /** RevisionPageLayoutOptions; null for the default layout. */
  layout: Prisma.JsonValue | null;
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
 * writes (a chunk of ~4 KB) against the revision's hash list (N/16 hashes).
 */
export function chunkEntries<E extends PageEntry | FileEntry>(entries: readonly E[], idOf: (entry: E) => string): Chunk<E>[] {
  const sorted = [...entries].sort((a, b) => (idOf(a) < idOf(b) ? -1 : idOf(a) > idOf(b) ? 1 : 0));
  const chunks: Chunk<E>[] = [];
  let run: E[] = [];
  const close = () => {
    chunks.push({ hash: chunkHash(run), entries: run });
    run = [];
  };
  for (const entry of sorted) {
    run.push(entry);
    if (fnv1a(idOf(entry)) % CHUNK_TARGET === 0 || run.length >= CHUNK_MAX) close();
  }
  if (run.length) close();
  return chunks;
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
  // The JSON goes as text: the column types it (jsonb on PostgreSQL, text on SQLite), as for documents.
  const rows = [...byHash.values()].map((chunk) => ({ hash: chunk.hash, json: stringify(chunk.entries) ?? '[]' }));
  for (const batch of batches(rows, CHUNK_BATCH, CHUNK_BATCH_BYTES, (row) => row.json.length)) {
    const values = batch.map((row) => Prisma.sql`(${row.hash}, ${row.json})`);
    await tx.$executeRaw`INSERT INTO "RevisionChunk" ("hash", "entries") VALUES ${Prisma.join(values)} ON CONFLICT ("hash") DO NOTHING`;
  }
}

/** The entries of the chunks `hashes` (any that is missing is an error: a revision never lists one it did not store). */
export async function loadChunks(db: Db | Tx, hashes: readonly string[]): Promise<Map<string, unknown[]>> {
  const unique = [...new Set(hashes)];
  if (unique.length === 0) return new Map();
  const rows = await db.revisionChunk.findMany({ where: { hash: { in: unique } } });
  const byHash = new Map(rows.map((row) => [row.hash, row.entries as unknown[]]));
  for (const hash of unique) if (!byHash.has(hash)) throw new Error(`Revision chunk ${hash} is missing`);
  return byHash;
}

/** A revision's chunk list (Revision.pageChunks / fileChunks) as hashes. */
export function chunkList(value: Prisma.JsonValue): string[] {
  return Array.isArray(value) ? value.filter((hash): hash is string => typeof hash === 'string') : [];
}

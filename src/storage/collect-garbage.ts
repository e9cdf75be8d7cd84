/**
 * Storage garbage collection: deletes the stored objects nothing refers to any
 * more (files of revisions that were deleted, PDFs whose links expired, the
 * bytes of an upload whose batch was refused).
 *
 * What refers to an object: a file entry of a revision (`storageKey` in the
 * file chunks of RevisionChunk), whichever space or change request, in the bin
 * or not; an OpenAPI spec's text (`sourceTextKey`) and its versions' files
 * (`key` in OpenAPISpecVersion.files). Nothing else holds a key: comments and documents name files by id,
 * PDFs are reached through a signed link only. Chunks no revision lists any
 * more (those of purged spaces) are deleted first, under the same grace
 * period (storing a chunk again refreshes it, src/db/revision-chunks.ts), so
 * their files are collected in the same run.
 *
 * Safe beside writers: an object stored (or stored again: `put` of bytes
 * already there refreshes them) within the grace period is never a candidate,
 * so an upload or an import that has put its bytes and not yet written the
 * revision naming them keeps them; the references are read after the objects
 * are listed, and `collect` deletes an object only if it still was not stored
 * again since (object-storage.ts).
 */
import type { Db, Prisma } from '../db/client.ts';
import { chunkList } from '../db/revision-chunks.ts';
import type { ObjectStorage } from './object-storage.ts';

/** Rows of RevisionChunk read per statement while looking for references. */
const CHUNK_BATCH = 500;

export interface CollectGarbageOptions {
  db: Db;
  storage: ObjectStorage;
  /** Objects stored less than this long ago are kept, referenced or not. */
  graceMs: number;
  now?: Date;
}

export interface GarbageCollection {
  /** Objects in the storage. */
  objects: number;
  /** Those stored before the grace period. */
  old: number;
  /** Those deleted: old and referenced by nothing. */
  deleted: number;
  /** Revision chunks deleted: no revision listed them, and they were stored before the grace period. */
  chunks: number;
}

/** Revisions read per statement for the chunks they list. */
const REVISION_BATCH = 1000;

/** Deletes the revision chunks no revision lists and stored before `storedBefore`; returns how many. */
async function collectChunks(db: Db, storedBefore: Date): Promise<number> {
  const listed = new Set<string>();
  let afterId: string | null = null;
  for (;;) {
    const revisions: { id: string; pageChunks: Prisma.JsonValue; fileChunks: Prisma.JsonValue }[] = await db.revision.findMany({
      where: afterId === null ? {} : { id: { gt: afterId } },
      orderBy: { id: 'asc' },
      take: REVISION_BATCH,
      select: { id: true, pageChunks: true, fileChunks: true },
    });
    for (const revision of revisions) for (const hash of [...chunkList(revision.pageChunks), ...chunkList(revision.fileChunks)]) listed.add(hash);
    if (revisions.length < REVISION_BATCH) break;
    afterId = revisions[revisions.length - 1]!.id;
  }
  let deleted = 0;
  let afterHash: string | null = null;
  for (;;) {
    const chunks: { hash: string }[] = await db.revisionChunk.findMany({
      where: { createdAt: { lt: storedBefore }, ...(afterHash === null ? {} : { hash: { gt: afterHash } }) },
      orderBy: { hash: 'asc' },
      take: CHUNK_BATCH,
      select: { hash: true },
    });
    const orphans = chunks.map((chunk) => chunk.hash).filter((hash) => !listed.has(hash));
    // The age is checked again by the DELETE itself: a writer storing one of them since made it new.
    if (orphans.length) deleted += (await db.revisionChunk.deleteMany({ where: { hash: { in: orphans }, createdAt: { lt: storedBefore } } })).count;
    if (chunks.length < CHUNK_BATCH) break;
    afterHash = chunks[chunks.length - 1]!.hash;
  }
  return deleted;
}

/** Deletes every object older than the grace period that no revision's file refers to. */
export async function collectGarbage(options: CollectGarbageOptions): Promise<GarbageCollection> {
  const storedBefore = new Date((options.now ?? new Date()).getTime() - options.graceMs);
  const chunks = await collectChunks(options.db, storedBefore);
  const candidates = new Set<string>();
  let objects = 0;
  for await (const { key, storedAt } of options.storage.list()) {
    objects++;
    if (storedAt.getTime() < storedBefore.getTime()) candidates.add(key);
  }
  const old = candidates.size;
  if (old === 0) return { objects, old, deleted: 0, chunks };

  // Every chunk, page and file chunks alike (a page entry has no storageKey), in batches by hash.
  let after: string | null = null;
  for (;;) {
    const rows: { hash: string; entries: unknown }[] = await options.db.revisionChunk.findMany({
      where: after === null ? {} : { hash: { gt: after } },
      orderBy: { hash: 'asc' },
      take: CHUNK_BATCH,
      select: { hash: true, entries: true },
    });
    for (const row of rows) {
      if (!Array.isArray(row.entries)) continue;
      for (const entry of row.entries) {
        const key = (entry as { storageKey?: unknown } | null)?.storageKey;
        if (typeof key === 'string') candidates.delete(key);
      }
    }
    if (rows.length < CHUNK_BATCH || candidates.size === 0) break;
    after = rows[rows.length - 1]!.hash;
  }

  if (candidates.size > 0) for (const key of await openAPIStorageKeys(options.db)) candidates.delete(key);

  let deleted = 0;
  for (const key of candidates) if (await options.storage.collect(key, storedBefore)) deleted++;
  return { objects, old, deleted, chunks };
}

/** OpenAPI spec versions read per statement. */
const VERSION_BATCH = 500;

/** Every storage key an OpenAPI spec refers to: the texts of `text` sources and its versions' files. */
export async function openAPIStorageKeys(db: Db): Promise<Set<string>> {
  const keys = new Set<string>();
  const specs = await db.openAPISpec.findMany({ where: { sourceTextKey: { not: null } }, select: { sourceTextKey: true } });
  for (const spec of specs) keys.add(spec.sourceTextKey!);
  let afterId: string | null = null;
  for (;;) {
    const versions: { id: string; files: Prisma.JsonValue }[] = await db.openAPISpecVersion.findMany({
      where: afterId === null ? {} : { id: { gt: afterId } },
      orderBy: { id: 'asc' },
      take: VERSION_BATCH,
      select: { id: true, files: true },
    });
    for (const version of versions) {
      if (!Array.isArray(version.files)) continue;
      for (const file of version.files) {
        const key = (file as { key?: unknown } | null)?.key;
        if (typeof key === 'string') keys.add(key);
      }
    }
    if (versions.length < VERSION_BATCH) return keys;
    afterId = versions[versions.length - 1]!.id;
  }
}

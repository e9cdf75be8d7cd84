/**
 * The import cache: what the last Git import of a space made of each page file, so that the next
 * import reuses a page's document instead of parsing its Markdown again (./layout.ts). Stored per
 * space (GitImportCache, written by src/services/git-sync-jobs.ts with the import's revision).
 *
 * A page's converted document depends on three things, and an entry records all three:
 * - the file's bytes (`blob`, their sha-256) and how the file was read: the conversion's version
 *   and Markdown limits (the cache's `key`), and whether a table-of-contents title made the
 *   heading stay in the text (`kept`);
 * - what each of its links and images resolved to (`refs`: every href the conversion asked about,
 *   with the answer, in order), since a link to another page becomes that page's id, one to a file
 *   of the repository that file, and one to something missing stays a URL;
 * - the space file each referenced repository file became (`assets`).
 * An entry is used only when the file hashes the same, every recorded href resolves now to what it
 * resolved to then, and every asset is the same space file: a page whose file did not change but
 * whose link target was renamed, moved or removed is converted again. A href the conversion did
 * not ask about cannot change its result, so nothing else is compared.
 *
 * A reused page keeps its document by hash, without the document being read or sent: documents are
 * stored once and never deleted, and the cache is written in the transaction of the revision that
 * holds its documents. The table of contents is kept too, parsed, under the hash of its bytes.
 */
import { createHash } from 'node:crypto';
import { stringify } from 'safe-stable-stringify';
import type { MarkdownLimits } from '../content/document/markdown-limits.ts';
import type { PageMeta } from '../content/page-frontmatter.ts';
import type { SummaryItem } from './summary.ts';

/**
 * The version of a page's conversion (Markdown -> document, links resolved): raise it when the
 * same file and links would now convert differently, or the parsed table of contents holds more,
 * so that entries written before no longer match (4: summary items carry emoji, icon, anchor, computed;
 * 5: a page's frontmatter meta carries its tags).
 */
export const IMPORT_CACHE_VERSION = 5;

/** What the last import made of one page file. */
export interface ImportCacheEntry {
  /** sha-256 (hex) of the file's bytes. */
  blob: string;
  /** Whether the text was converted with its heading kept (a table-of-contents title differed from it). */
  kept: boolean;
  /** Every href the conversion resolved, in order, with what it resolved to (canonical JSON of the ContentRef before files got their ids, or null). */
  refs: [href: string, resolved: string | null][];
  /** The repository files the document references, with the space file id each became. */
  assets: [path: string, fileId: string][];
  /** The document's hash (a document of the revision the import wrote). */
  documentHash: string;
  /** The file's leading heading, null when none. */
  title: string | null;
  /** The page fields its YAML frontmatter gives. */
  meta: PageMeta;
}

export interface ImportCache {
  /** The conversion's version and limits, hashed: entries of another key are not used. */
  key: string;
  files: Record<string, ImportCacheEntry>;
  /** The table of contents (structure.summary) as parsed, and the sha-256 of its bytes. */
  summary?: { blob: string; items: SummaryItem[] };
}

/** The key of the cache an import with these settings reads and writes. */
export function importCacheKey(limits: MarkdownLimits): string {
  return createHash('sha256')
    .update(stringify([IMPORT_CACHE_VERSION, limits]) ?? '')
    .digest('hex');
}

/** sha-256 of a file's bytes, the `blob` of its entry. */
export function blobHash(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** A stored cache (GitImportCache.entries) when it is one of `key`; null otherwise. */
export function readImportCache(value: unknown, key: string): ImportCache | null {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return null;
  const cache = value as Partial<ImportCache>;
  return cache.key === key && cache.files !== null && typeof cache.files === 'object' ? (cache as ImportCache) : null;
}

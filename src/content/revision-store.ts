/**
 * Reads and writes revisions: the database side of RevisionSnapshot.
 *
 * A revision's pages and files are stored as chunks shared with the revisions it was made from
 * (src/db/revision-chunks.ts): writing a revision stores only the chunks and documents that are
 * new, so an edit of one page of 1,000 writes one chunk of about 16 entries, one document and the
 * revision row. Documents are content-addressed too. The references of a document (links to
 * pages, files, URLs) are extracted once, when the document is first stored; a page's links in
 * any revision are the references of its document.
 */
import { batches } from '../batches.ts';
import { Prisma, type Db, type Tx } from '../db/client.ts';
import {
  addStoredChunks,
  chunkEntries,
  chunkList,
  fileEntryId,
  loadChunks,
  pageEntryId,
  storeChunks,
  type FileEntry,
  type PageEntry,
  type RevisionChunkCache,
} from '../db/revision-chunks.ts';
import { isOneOf, REFERENCE_TARGET_KINDS, type ReferenceTargetKind, type RevisionType } from '../db/value-sets.ts';
import { newId } from '../ids.ts';
import { hashDocument, canonicalDocumentJson } from './document/hash.ts';
import { type ContentRef, type JSONDocument } from './document/model.ts';
import { extractReferences } from './document/references.ts';
import { storedTag, tagsOf } from './tags.ts';
import { fileSnapshot, PAGE_SETTINGS, type FileSnapshot, type PageSnapshot, type ReusableContentSnapshot, type RevisionSnapshot, type Variables } from './snapshot.ts';

type DbOrTx = Db | Tx;

export type { RevisionType };

export function emptySnapshot(): RevisionSnapshot {
  return { pages: new Map(), reusableContents: new Map(), tags: new Map(), files: new Map(), documents: new Map(), variables: {}, redirects: new Map() };
}

/**
 * A stored document (ContentDocument.json, which holds what writeRevision stored, a JSONDocument)
 * as it was stored: its keys in canonical order (sorted, canonicalDocumentJson). SQLite gives the
 * stored text back as it is; PostgreSQL's jsonb orders keys by length first, which would change
 * what follows key order (the columns of a table without a view, the JSON answered).
 */
export function storedDocument(json: Prisma.JsonValue): JSONDocument {
  return withSortedKeys(json) as unknown as JSONDocument;
}

/** `value` with the keys of every object in sorted order; objects already in order are kept (and filled in place). */
function withSortedKeys(value: Prisma.JsonValue): Prisma.JsonValue {
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) value[i] = withSortedKeys(value[i]!);
    return value;
  }
  const keys = Object.keys(value);
  if (keys.every((key, i) => i === 0 || keys[i - 1]! < key)) {
    for (const key of keys) value[key] = withSortedKeys(value[key]!);
    return value;
  }
  const sorted: Prisma.JsonObject = {};
  for (const key of keys.sort()) sorted[key] = withSortedKeys(value[key]!);
  return sorted;
}

/** A stored page entry as a page snapshot (the inverse of `pageEntry`). */
export function pageFromEntry(entry: PageEntry): PageSnapshot {
  return {
    id: entry.pageId,
    kind: entry.kind as PageSnapshot['kind'],
    parentId: entry.parentPageId,
    index: entry.index,
    title: entry.title,
    slug: entry.slug,
    description: entry.description,
    emoji: entry.emoji,
    icon: entry.icon,
    hidden: entry.hidden,
    noIndex: entry.noIndex === true,
    noRobotsIndex: entry.noRobotsIndex === true,
    documentHash: entry.documentHash,
    linkTarget: (entry.linkTarget ?? null) as ContentRef | null,
    layout: (entry.layout ?? null) as Record<string, unknown> | null,
    cover: (entry.cover ?? null) as PageSnapshot['cover'],
    metaLinks: (entry.metaLinks ?? null) as PageSnapshot['metaLinks'],
    variables: (entry.variables ?? null) as PageSnapshot['variables'],
    computed: (entry.computed ?? null) as PageSnapshot['computed'],
    computedSeed: entry.computedSeed ?? null,
    tags: (entry.tags ?? null) as PageSnapshot['tags'],
    createdAt: new Date(entry.createdAt),
    updatedAt: new Date(entry.updatedAt),
  };
}

/** A page snapshot as it is stored: for a page of a kept chunk, the entry it was made from. */
function pageEntry(page: PageSnapshot): PageEntry {
  const kept = entryOfKeptPage.get(page);
  if (kept) return kept;
  return {
    pageId: page.id,
    parentPageId: page.parentId,
    index: page.index,
    kind: page.kind,
    title: page.title,
    slug: page.slug,
    description: page.description,
    emoji: page.emoji,
    icon: page.icon,
    hidden: page.hidden,
    // Only when set: an entry without them is the same bytes (and chunk) as before they existed.
    ...(page.noIndex && { noIndex: true }),
    ...(page.noRobotsIndex && { noRobotsIndex: true }),
    documentHash: page.documentHash,
    linkTarget: (page.linkTarget ?? null) as PageEntry['linkTarget'],
    layout: (page.layout ?? null) as PageEntry['layout'],
    ...pageSettingsEntry(page),
    createdAt: page.createdAt.toISOString(),
    updatedAt: page.updatedAt.toISOString(),
  };
}

/** The page settings that are set, as entry fields (unset ones are left out, as noIndex is). */
function pageSettingsEntry(page: PageSnapshot): Partial<PageEntry> {
  const out: Record<string, unknown> = {};
  for (const field of PAGE_SETTINGS) if (page[field] !== null && page[field] !== undefined) out[field] = page[field];
  return out as Partial<PageEntry>;
}

/** A revision row's `reusableContents` (entries of another shape are left out). */
export function reusableContentsOf(json: Prisma.JsonValue): ReusableContentSnapshot[] {
  if (!Array.isArray(json)) return [];
  return json.flatMap((entry) => {
    const e = entry as Record<string, unknown> | null;
    return e && typeof e.id === 'string' && typeof e.title === 'string' && typeof e.documentHash === 'string' ? [{ id: e.id, title: e.title, documentHash: e.documentHash }] : [];
  });
}

/** A revision row's `redirects` ([{ source, page }], in order) as a map (entries of another shape are left out). */
export function redirectsOf(json: Prisma.JsonValue): Map<string, string> {
  const out = new Map<string, string>();
  if (!Array.isArray(json)) return out;
  for (const entry of json) {
    const e = entry as Record<string, unknown> | null;
    if (e && typeof e.source === 'string' && typeof e.page === 'string') out.set(e.source, e.page);
  }
  return out;
}

/** A revision row's `variables` as a map of variable values (anything else stored reads as none). */
export function variablesOf(json: Prisma.JsonValue): Variables {
  if (json === null || typeof json !== 'object' || Array.isArray(json)) return {};
  const out: Variables = {};
  for (const [name, value] of Object.entries(json)) if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') out[name] = value;
  return out;
}

/** A stored file entry as a file snapshot. */
export function fileFromEntry(entry: FileEntry): FileSnapshot {
  return fileSnapshot(entry.fileId, entry);
}

function fileEntry(file: FileSnapshot): FileEntry {
  return {
    fileId: file.id,
    name: file.name,
    contentType: file.contentType,
    size: file.size,
    storageKey: file.storageKey,
    width: file.width,
    height: file.height,
  };
}

/** The stored chunks of a revision, as the pages and files they hold. */
export interface RevisionChunks {
  pageChunks: Prisma.JsonValue;
  fileChunks: Prisma.JsonValue;
}

/**
 * Page snapshots made from entries the process's chunk cache keeps (frozen, shared by every
 * reader), made once per chunk and shared the same way (frozen too): reading a revision again
 * converts nothing, and two revisions that share a chunk share its page objects, which lets
 * reindexSpace skip them by identity. Keyed by the frozen entries, so it lives as long as they
 * are kept.
 */
const pagesOfKeptChunk = new WeakMap<readonly unknown[], readonly PageSnapshot[]>();
/** The entry each of those pages was made from: writing an unchanged page converts nothing, and its chunk is found by identity. */
const entryOfKeptPage = new WeakMap<PageSnapshot, PageEntry>();

/** The page snapshots of a chunk's entries (shared and frozen when the entries are). */
function pagesOfChunk(entries: readonly unknown[]): readonly PageSnapshot[] {
  if (!Object.isFrozen(entries)) return (entries as PageEntry[]).map(pageFromEntry);
  let pages = pagesOfKeptChunk.get(entries);
  if (!pages) {
    pages = Object.freeze(
      (entries as PageEntry[]).map((entry) => {
        const page = Object.freeze(pageFromEntry(entry));
        entryOfKeptPage.set(page, entry);
        return page;
      }),
    );
    pagesOfKeptChunk.set(entries, pages);
  }
  return pages;
}

/** The pages and files of revisions whose chunks are in `chunks` (loaded by loadChunks or a loader). */
export function entriesOf(revision: RevisionChunks, chunks: ReadonlyMap<string, readonly unknown[]>): { pages: PageSnapshot[]; files: FileSnapshot[] } {
  const pages = chunkList(revision.pageChunks).flatMap((hash) => pagesOfChunk(chunks.get(hash) ?? []));
  const files = chunkList(revision.fileChunks).flatMap((hash) => (chunks.get(hash) ?? []) as FileEntry[]).map(fileFromEntry);
  return { pages, files };
}

/** Options of loadSnapshot. */
export interface LoadSnapshotOptions {
  /** Whether to load every document of its pages too. */
  documents: boolean;
  /** The process's decoded chunks (the context's `revisionChunks`), consulted before the database. */
  chunks?: RevisionChunkCache;
}

/**
 * The pages and files of a revision, and (when `documents` is true) every
 * document of its pages. Three statements at most (the revision's chunk lists, its chunks not
 * in the cache, its documents). The snapshot remembers its chunks (`storedChunks`).
 */
export async function loadSnapshot(db: DbOrTx, revisionId: string, options: LoadSnapshotOptions): Promise<RevisionSnapshot> {
  const revision = await db.revision.findUniqueOrThrow({
    where: { id: revisionId },
    select: { pageChunks: true, fileChunks: true, variables: true, reusableContents: true, redirects: true, tags: true },
  });
  const pageHashes = chunkList(revision.pageChunks);
  const fileHashes = chunkList(revision.fileChunks);
  const chunks = await loadChunks(db, [...pageHashes, ...fileHashes], options.chunks);
  const { pages, files } = entriesOf(revision, chunks);
  const snapshot = emptySnapshot();
  snapshot.variables = variablesOf(revision.variables);
  snapshot.redirects = redirectsOf(revision.redirects);
  for (const tag of tagsOf(revision.tags)) snapshot.tags.set(tag.slug, tag);
  for (const content of reusableContentsOf(revision.reusableContents)) snapshot.reusableContents.set(content.id, content);
  for (const page of pages) snapshot.pages.set(page.id, page);
  for (const file of files) snapshot.files.set(file.id, file);
  snapshot.storedLists = { pageChunks: pageHashes, fileChunks: fileHashes };
  snapshot.storedChunks = addStoredChunks(
    new Map(),
    [...pageHashes, ...fileHashes].map((hash) => ({ hash, entries: chunks.get(hash) as (PageEntry | FileEntry)[] })),
  );
  if (options.documents) {
    const hashes = [
      ...new Set([...pages.map((p) => p.documentHash), ...[...snapshot.reusableContents.values()].map((c) => c.documentHash)].filter((h): h is string => h !== null)),
    ];
    const docs = await loadDocuments(db, hashes);
    for (const [hash, doc] of docs) snapshot.documents.set(hash, doc);
  }
  return snapshot;
}

export async function loadDocuments(db: DbOrTx, hashes: readonly string[]): Promise<Map<string, JSONDocument>> {
  if (hashes.length === 0) return new Map();
  const rows = await db.contentDocument.findMany({ where: { hash: { in: [...hashes] } } });
  return new Map(rows.map((r) => [r.hash, storedDocument(r.json)]));
}

/** Adds a document to a snapshot (or finds it there) and returns its hash. */
export function putDocument(snapshot: RevisionSnapshot, document: JSONDocument): string {
  const hash = hashDocument(document);
  if (!snapshot.documents.has(hash)) snapshot.documents.set(hash, document);
  return hash;
}

/**
 * The target string a reference is stored and looked up under; null for a reference that is not
 * stored (an anchor within the page, or content of a kind outside REFERENCE_TARGET_KINDS).
 */
export function referenceTarget(ref: ContentRef): { kind: ReferenceTargetKind; target: string } | null {
  switch (ref.kind) {
    case 'page':
      return typeof ref.page === 'string' ? { kind: 'page', target: ref.page } : null;
    case 'file':
      return typeof ref.file === 'string' ? { kind: 'file', target: ref.file } : null;
    case 'url':
      return typeof ref.url === 'string' ? { kind: 'url', target: ref.url } : null;
    case 'anchor':
      return null; // an anchor within the same page is not a link between pages
    case 'openapi':
      return typeof ref.spec === 'string' ? { kind: 'openapi', target: ref.spec } : null;
    default: {
      const id = (ref as Record<string, unknown>)[ref.kind];
      return isOneOf(REFERENCE_TARGET_KINDS, ref.kind) && typeof id === 'string' ? { kind: ref.kind, target: id } : null;
    }
  }
}

/**
 * Rows per multi-row INSERT of documents and references: few statements for a revision of
 * thousands of pages (an import of 1,000 pages sent 4,000 single-row INSERTs), well under both
 * databases' limits on bound values (SQLite 32,766, PostgreSQL 65,535), and a document batch also
 * stops at DOCUMENT_BATCH_BYTES of JSON so a batch of large documents stays a reasonable statement.
 */
const DOCUMENT_BATCH = 500;
const DOCUMENT_BATCH_BYTES = 4 * 1024 * 1024;
const REFERENCE_BATCH = 1000;

/**
 * Stores documents that are not stored yet, with their references. Idempotent
 * and safe under concurrency: `ON CONFLICT DO NOTHING` on both databases.
 */
async function storeDocuments(tx: Tx, documents: Map<string, JSONDocument>, needed: Set<string>): Promise<void> {
  const hashes = [...needed].filter((h) => documents.has(h));
  if (hashes.length === 0) return;
  const existing = new Set(
    (await tx.contentDocument.findMany({ where: { hash: { in: hashes } }, select: { hash: true } })).map((r) => r.hash),
  );
  const documentRows: Prisma.Sql[] = [];
  const referenceRows: Prisma.Sql[] = [];
  for (const hash of hashes) {
    if (existing.has(hash)) continue;
    const document = documents.get(hash)!;
    documentRows.push(Prisma.sql`(${hash}, ${canonicalDocumentJson(document)})`);
    const seen = new Set<string>();
    for (const { ref, nodeKey } of extractReferences(document)) {
      const target = referenceTarget(ref);
      if (!target) continue;
      const key = `${target.kind}\u0000${target.target}`;
      if (seen.has(key)) continue;
      seen.add(key);
      referenceRows.push(Prisma.sql`(${hash}, ${target.kind}, ${target.target}, ${nodeKey ?? null})`);
    }
  }
  // Documents first: a reference row needs its document (foreign key). The JSON goes as text: the
  // column types it (PostgreSQL infers the untyped parameter as jsonb; SQLite stores the text).
  for (const batch of batches(documentRows, DOCUMENT_BATCH, DOCUMENT_BATCH_BYTES, boundSize)) {
    await tx.$executeRaw`INSERT INTO "ContentDocument" ("hash", "json") VALUES ${Prisma.join(batch)} ON CONFLICT ("hash") DO NOTHING`;
  }
  for (const batch of batches(referenceRows, REFERENCE_BATCH, Infinity, boundSize)) {
    await tx.$executeRaw`INSERT INTO "DocumentReference" ("documentHash", "targetKind", "target", "nodeKey") VALUES ${Prisma.join(batch)} ON CONFLICT DO NOTHING`;
  }
}

/** What a row binds, for batching: its string values' length, 8 for any other value. */
function boundSize(row: Prisma.Sql): number {
  return row.values.reduce<number>((n, v) => n + (typeof v === 'string' ? v.length : 8), 0);
}

export interface WriteRevisionInput {
  /** The new revision's id (default: a new one). */
  id?: string;
  spaceId: string;
  parentId: string | null;
  mergedParentId?: string | null;
  type: RevisionType;
  changeRequestId?: string | null;
  createdById?: string | null;
  snapshot: RevisionSnapshot;
  /**
   * The snapshot is, unchanged, the content of a stored revision whose chunk lists these are (a
   * fast-forward merge writes the change request's content as the space's): they are the new
   * revision's, with nothing to cut, hash or store.
   */
  unchangedFrom?: { pageChunks: string[]; fileChunks: string[] };
}

/**
 * Writes a new immutable revision with all its pages and files; returns its id. Call inside a
 * transaction. Only what is new is sent: documents and chunks the revisions before already stored
 * are found by their hashes.
 */
export async function writeRevision(tx: Tx, input: WriteRevisionInput): Promise<string> {
  const id = input.id ?? newId();
  const { snapshot } = input;
  const needed = new Set<string>();
  for (const page of snapshot.pages.values()) if (page.documentHash) needed.add(page.documentHash);
  for (const content of snapshot.reusableContents.values()) needed.add(content.documentHash);
  await storeDocuments(tx, snapshot.documents, needed);
  // Runs of entries equal to a chunk the content was read from keep its hash: only the chunks an
  // edit changed are hashed, looked up and stored.
  let lists = input.unchangedFrom;
  if (!lists) {
    const pageChunks = chunkEntries([...snapshot.pages.values()].map(pageEntry), pageEntryId, snapshot.storedChunks);
    const fileChunks = chunkEntries([...snapshot.files.values()].map(fileEntry), fileEntryId, snapshot.storedChunks);
    await storeChunks(tx, [...pageChunks.fresh, ...fileChunks.fresh]);
    lists = { pageChunks: pageChunks.chunks.map((chunk) => chunk.hash), fileChunks: fileChunks.chunks.map((chunk) => chunk.hash) };
  }
  await tx.revision.create({
    data: {
      id,
      spaceId: input.spaceId,
      parentId: input.parentId,
      mergedParentId: input.mergedParentId ?? null,
      type: input.type,
      changeRequestId: input.changeRequestId ?? null,
      createdById: input.createdById ?? null,
      variables: snapshot.variables,
      redirects: [...snapshot.redirects].map(([source, page]) => ({ source, page })),
      tags: [...snapshot.tags.values()].map(storedTag),
      reusableContents: [...snapshot.reusableContents.values()]
        .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
        .map((c) => ({ id: c.id, title: c.title, documentHash: c.documentHash })),
      pageChunks: lists.pageChunks,
      fileChunks: lists.fileChunks,
    },
  });
  return id;
}

/**
 * Copies a snapshot so edits to the copy never touch the original: its maps. Page and file objects
 * are shared, since writers replace an object rather than change it (src/content/page-tree.ts,
 * apply-changes.ts); those of cached chunks are frozen, so one that did would fail loudly.
 */
export function cloneSnapshot(snapshot: RevisionSnapshot): RevisionSnapshot {
  return {
    pages: new Map(snapshot.pages),
    reusableContents: new Map(snapshot.reusableContents),
    tags: new Map(snapshot.tags),
    files: new Map(snapshot.files),
    documents: new Map(snapshot.documents),
    variables: { ...snapshot.variables },
    redirects: new Map(snapshot.redirects),
    storedChunks: snapshot.storedChunks,
  };
}

/**
 * Reads and writes revisions: the database side of RevisionSnapshot.
 *
 * Writing a revision copies every page row (a page row is small) and stores
 * only the documents that are new: documents are content-addressed, so a
 * merge touching 100 pages of 1,000 writes 1,000 small rows and 100 documents.
 * The references of a document (links to pages, files, URLs) are extracted
 * once, when the document is first stored; a page's links in any revision are
 * the references of its document.
 */
import { stringify } from 'safe-stable-stringify';
import { newId } from '../ids.ts';
import { Prisma, type Db, type Tx } from '../db/client.ts';
import { isOneOf, REFERENCE_TARGET_KINDS, type ReferenceTargetKind, type RevisionType } from '../db/value-sets.ts';
import { hashDocument, canonicalDocumentJson } from './document/hash.ts';
import { extractReferences } from './document/references.ts';
import type { ContentRef, FileSnapshot, JSONDocument, PageSnapshot, RevisionSnapshot } from './snapshot.ts';
import { pagePaths } from './page-tree.ts';

type DbOrTx = Db | Tx;

export type { RevisionType };

export interface RevisionRow {
  id: string;
  spaceId: string;
  parentId: string | null;
  mergedParentId: string | null;
  type: string;
  changeRequestId: string | null;
  createdById: string | null;
  variables: Prisma.JsonValue;
  createdAt: Date;
}

export function emptySnapshot(): RevisionSnapshot {
  return { pages: new Map(), files: new Map(), documents: new Map() };
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

export function pageFromRow(row: {
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
  linkTarget: Prisma.JsonValue | null;
  layout: Prisma.JsonValue | null;
  createdAt: Date;
  updatedAt: Date;
}): PageSnapshot {
  return {
    id: row.pageId,
    kind: row.kind as PageSnapshot['kind'],
    parentId: row.parentPageId,
    index: row.index,
    title: row.title,
    slug: row.slug,
    description: row.description,
    emoji: row.emoji,
    icon: row.icon,
    hidden: row.hidden,
    documentHash: row.documentHash,
    linkTarget: (row.linkTarget ?? null) as ContentRef | null,
    layout: (row.layout ?? null) as Record<string, unknown> | null,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
}

export function fileFromRow(row: {
  fileId: string;
  name: string;
  contentType: string;
  size: number;
  storageKey: string;
  width: number | null;
  height: number | null;
}): FileSnapshot {
  return {
    id: row.fileId,
    name: row.name,
    contentType: row.contentType,
    size: row.size,
    storageKey: row.storageKey,
    width: row.width,
    height: row.height,
  };
}

/**
 * The pages and files of a revision, and (when `documents` is true) every
 * document of its pages. Three statements at most.
 */
export async function loadSnapshot(db: DbOrTx, revisionId: string, options: { documents: boolean }): Promise<RevisionSnapshot> {
  const [pages, files] = await Promise.all([
    db.revisionPage.findMany({ where: { revisionId } }),
    db.revisionFile.findMany({ where: { revisionId } }),
  ]);
  const snapshot = emptySnapshot();
  for (const row of pages) snapshot.pages.set(row.pageId, pageFromRow(row));
  for (const row of files) snapshot.files.set(row.fileId, fileFromRow(row));
  if (options.documents) {
    const hashes = [...new Set(pages.map((p) => p.documentHash).filter((h): h is string => h !== null))];
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
  for (const batch of batches(documentRows, DOCUMENT_BATCH, DOCUMENT_BATCH_BYTES)) {
    await tx.$executeRaw`INSERT INTO "ContentDocument" ("hash", "json") VALUES ${Prisma.join(batch)} ON CONFLICT ("hash") DO NOTHING`;
  }
  for (const batch of batches(referenceRows, REFERENCE_BATCH, Infinity)) {
    await tx.$executeRaw`INSERT INTO "DocumentReference" ("documentHash", "targetKind", "target", "nodeKey") VALUES ${Prisma.join(batch)} ON CONFLICT DO NOTHING`;
  }
}

/** Consecutive slices of `rows` of at most `maxRows` rows and (past the first row) `maxBytes` of bound string values. */
function* batches(rows: Prisma.Sql[], maxRows: number, maxBytes: number): Generator<Prisma.Sql[]> {
  let batch: Prisma.Sql[] = [];
  let bytes = 0;
  for (const row of rows) {
    const size = row.values.reduce<number>((n, v) => n + (typeof v === 'string' ? v.length : 8), 0);
    if (batch.length > 0 && (batch.length >= maxRows || bytes + size > maxBytes)) {
      yield batch;
      batch = [];
      bytes = 0;
    }
    batch.push(row);
    bytes += size;
  }
  if (batch.length > 0) yield batch;
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
   * A stored revision the new one mostly repeats (the one it was made from):
   * pages whose row would be identical are copied inside the database rather
   * than sent again, so a revision changing 100 pages of 1,000 sends 100 rows.
   */
  copyFrom?: { revisionId: string; snapshot: RevisionSnapshot };
}

/** The columns of RevisionPage after `revisionId`, in the order INSERT ... SELECT copies them. */
const PAGE_COLUMNS = [
  'pageId', 'parentPageId', 'index', 'kind', 'title', 'slug', 'path', 'description', 'emoji', 'icon',
  'hidden', 'documentHash', 'linkTarget', 'layout', 'createdAt', 'updatedAt',
] as const;

/** Pages per INSERT ... SELECT (well under both databases' limits on bound values). */
const COPY_BATCH = 5000;

function samePage(a: PageSnapshot | undefined, b: PageSnapshot): boolean {
  return (
    a !== undefined &&
    a.parentId === b.parentId &&
    a.index === b.index &&
    a.kind === b.kind &&
    a.title === b.title &&
    a.slug === b.slug &&
    a.description === b.description &&
    a.emoji === b.emoji &&
    a.icon === b.icon &&
    a.hidden === b.hidden &&
    a.documentHash === b.documentHash &&
    // Key order aside: a page read back from jsonb (PostgreSQL) has its keys in jsonb's order.
    stringify(a.linkTarget) === stringify(b.linkTarget) &&
    stringify(a.layout) === stringify(b.layout) &&
    a.createdAt.getTime() === b.createdAt.getTime() &&
    a.updatedAt.getTime() === b.updatedAt.getTime()
  );
}

/** Writes a new immutable revision with all its pages and files; returns its id. Call inside a transaction. */
export async function writeRevision(tx: Tx, input: WriteRevisionInput): Promise<string> {
  const id = input.id ?? newId();
  const { snapshot } = input;
  const paths = pagePaths(snapshot.pages);
  const needed = new Set<string>();
  for (const page of snapshot.pages.values()) if (page.documentHash) needed.add(page.documentHash);
  await storeDocuments(tx, snapshot.documents, needed);
  await tx.revision.create({
    data: {
      id,
      spaceId: input.spaceId,
      parentId: input.parentId,
      mergedParentId: input.mergedParentId ?? null,
      type: input.type,
      changeRequestId: input.changeRequestId ?? null,
      createdById: input.createdById ?? null,
    },
  });
  const sourcePaths = input.copyFrom ? pagePaths(input.copyFrom.snapshot.pages) : null;
  const copied: string[] = [];
  const written: PageSnapshot[] = [];
  for (const page of snapshot.pages.values()) {
    const unchanged = input.copyFrom && samePage(input.copyFrom.snapshot.pages.get(page.id), page) && sourcePaths!.get(page.id) === paths.get(page.id);
    if (unchanged) copied.push(page.id);
    else written.push(page);
  }
  const columns = Prisma.raw(PAGE_COLUMNS.map((c) => `"${c}"`).join(', '));
  for (let i = 0; i < copied.length; i += COPY_BATCH) {
    await tx.$executeRaw`INSERT INTO "RevisionPage" ("revisionId", ${columns})
      SELECT ${id}, ${columns} FROM "RevisionPage"
      WHERE "revisionId" = ${input.copyFrom!.revisionId} AND "pageId" IN (${Prisma.join(copied.slice(i, i + COPY_BATCH))})`;
  }
  if (written.length) {
    await tx.revisionPage.createMany({
      data: written.map((p) => ({
        revisionId: id,
        pageId: p.id,
        parentPageId: p.parentId,
        index: p.index,
        kind: p.kind,
        title: p.title,
        slug: p.slug,
        path: paths.get(p.id) ?? p.slug,
        description: p.description,
        emoji: p.emoji,
        icon: p.icon,
        hidden: p.hidden,
        documentHash: p.documentHash,
        linkTarget: p.linkTarget ? (p.linkTarget as Prisma.InputJsonValue) : Prisma.DbNull,
        layout: p.layout ? (p.layout as Prisma.InputJsonValue) : Prisma.DbNull,
        createdAt: p.createdAt,
        updatedAt: p.updatedAt,
      })),
    });
  }
  if (snapshot.files.size) {
    await tx.revisionFile.createMany({
      data: [...snapshot.files.values()].map((f) => ({
        revisionId: id,
        fileId: f.id,
        name: f.name,
        contentType: f.contentType,
        size: f.size,
        storageKey: f.storageKey,
        width: f.width,
        height: f.height,
      })),
    });
  }
  return id;
}

/** Copies a snapshot so edits to the copy never touch the original (maps and page objects). */
export function cloneSnapshot(snapshot: RevisionSnapshot): RevisionSnapshot {
  return {
    pages: new Map([...snapshot.pages].map(([id, p]) => [id, { ...p }])),
    files: new Map([...snapshot.files].map(([id, f]) => [id, { ...f }])),
    documents: new Map(snapshot.documents),
  };
}

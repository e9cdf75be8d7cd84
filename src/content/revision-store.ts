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
import { batches } from '../batches.ts';
import { Prisma, type Db, type Tx } from '../db/client.ts';
import { nullableJsonInput } from '../db/json.ts';
import { isOneOf, REFERENCE_TARGET_KINDS, type ReferenceTargetKind, type RevisionType } from '../db/value-sets.ts';
import { newId } from '../ids.ts';
import { hashDocument, canonicalDocumentJson } from './document/hash.ts';
import { type ContentRef, type JSONDocument } from './document/model.ts';
import { extractReferences } from './document/references.ts';
import { pagePaths } from './page-tree.ts';
import { fileSnapshot, type FileSnapshot, type PageSnapshot, type RevisionSnapshot } from './snapshot.ts';

type DbOrTx = Db | Tx;

export type { RevisionType };

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

/** A RevisionPage row as a page snapshot (the inverse of `pageColumns`). */
export function pageFromRow(row: Prisma.RevisionPageModel): PageSnapshot {
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

/** A RevisionFile row as a file snapshot. */
export function fileFromRow(row: Prisma.RevisionFileModel): FileSnapshot {
  return fileSnapshot(row.fileId, row);
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
] as const satisfies readonly (keyof PageColumns)[];

/** Pages per INSERT ... SELECT (well under both databases' limits on bound values). */
const COPY_BATCH = 5000;

/** A RevisionPage row without its revision, as written (SQL NULL in a Json column is Prisma.DbNull). */
type PageColumns = Omit<Prisma.RevisionPageModel, 'revisionId' | 'linkTarget' | 'layout'> & {
  linkTarget: Prisma.InputJsonValue | typeof Prisma.DbNull;
  layout: Prisma.InputJsonValue | typeof Prisma.DbNull;
};

/** The RevisionPage columns of a page at `path`, as they are written. */
function pageColumns(page: PageSnapshot, path: string): PageColumns {
  return {
    pageId: page.id,
    parentPageId: page.parentId,
    index: page.index,
    kind: page.kind,
    title: page.title,
    slug: page.slug,
    path,
    description: page.description,
    emoji: page.emoji,
    icon: page.icon,
    hidden: page.hidden,
    documentHash: page.documentHash,
    linkTarget: nullableJsonInput(page.linkTarget),
    layout: nullableJsonInput(page.layout),
    createdAt: page.createdAt,
    updatedAt: page.updatedAt,
  };
}

/** Whether two pages are written as the same row. */
function sameColumns(a: PageColumns, b: PageColumns): boolean {
  return PAGE_COLUMNS.every((column) => {
    const x = a[column];
    const y = b[column];
    if (x instanceof Date && y instanceof Date) return x.getTime() === y.getTime();
    // A Json column: the same value in any key order (a page read back from jsonb has jsonb's order).
    if (column === 'linkTarget' || column === 'layout') return x === y || (x !== Prisma.DbNull && y !== Prisma.DbNull && stringify(x) === stringify(y));
    return x === y;
  });
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
  const source = input.copyFrom?.snapshot.pages;
  const sourcePaths = source ? pagePaths(source) : null;
  const copied: string[] = [];
  const written: PageColumns[] = [];
  for (const page of snapshot.pages.values()) {
    const row = pageColumns(page, paths.get(page.id) ?? page.slug);
    const before = source?.get(page.id);
    if (before && sameColumns(pageColumns(before, sourcePaths!.get(page.id) ?? before.slug), row)) copied.push(page.id);
    else written.push(row);
  }
  const columns = Prisma.raw(PAGE_COLUMNS.map((c) => `"${c}"`).join(', '));
  for (let i = 0; i < copied.length; i += COPY_BATCH) {
    await tx.$executeRaw`INSERT INTO "RevisionPage" ("revisionId", ${columns})
      SELECT ${id}, ${columns} FROM "RevisionPage"
      WHERE "revisionId" = ${input.copyFrom!.revisionId} AND "pageId" IN (${Prisma.join(copied.slice(i, i + COPY_BATCH))})`;
  }
  if (written.length) {
    await tx.revisionPage.createMany({
      data: written.map((row) => ({ revisionId: id, ...row })),
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

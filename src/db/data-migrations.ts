/**
 * Data migrations: work a SQL migration cannot do (hashing, JSON built the app's way), run by
 * migrate() between two SQL migrations: after every migration before `before` is applied and
 * before `before` itself is. Each is idempotent and resumable (it only converts what is left),
 * so a crash in the middle is finished by the next start.
 */
import { stringify } from 'safe-stable-stringify';
import { createDb, Prisma, type Db } from './client.ts';
import { type DatabaseConfig } from './provider/config.ts';
import { chunkEntries, fileEntryId, pageEntryId, storeChunks, type FileEntry, type PageEntry } from './revision-chunks.ts';

export interface DataMigration {
  /** The SQL migration this one must run before (it removes what this one reads). */
  before: string;
  name: string;
  run(db: Db, log?: (msg: string) => void): Promise<void>;
}

export const DATA_MIGRATIONS: readonly DataMigration[] = [
  {
    before: '20261127031508_revision_rows_into_chunks',
    name: 'revision pages and files into chunks',
    run: revisionRowsIntoChunks,
  },
];

export async function runDataMigration(config: DatabaseConfig, migration: DataMigration, log?: (msg: string) => void): Promise<void> {
  const db = createDb(config);
  try {
    await migration.run(db, log);
  } finally {
    await db.$disconnect();
  }
}

/** Revisions converted per transaction. */
const REVISION_BATCH = 100;

/**
 * Every revision's RevisionPage and RevisionFile rows become its chunk lists (src/db/revision-chunks.ts);
 * the rows of each converted revision are deleted in the same transaction, so what is left is what
 * remains to do. Unchanged pages of consecutive revisions land in the same chunks, stored once.
 */
async function revisionRowsIntoChunks(db: Db, log?: (msg: string) => void): Promise<void> {
  let converted = 0;
  for (;;) {
    const ids = (
      await db.$queryRawUnsafe<{ revisionId: string }[]>(
        `SELECT "revisionId" FROM (SELECT "revisionId" FROM "RevisionPage" UNION SELECT "revisionId" FROM "RevisionFile") AS pending ORDER BY "revisionId" LIMIT ${REVISION_BATCH}`,
      )
    ).map((row) => row.revisionId);
    if (ids.length === 0) break;
    await db.$transaction(
      async (tx) => {
        const placeholders = ids.map((id) => Prisma.sql`${id}`);
        const pages = await tx.$queryRaw<Record<string, unknown>[]>`SELECT * FROM "RevisionPage" WHERE "revisionId" IN (${Prisma.join(placeholders)})`;
        const files = await tx.$queryRaw<Record<string, unknown>[]>`SELECT * FROM "RevisionFile" WHERE "revisionId" IN (${Prisma.join(placeholders)})`;
        for (const id of ids) {
          const pageChunks = chunkEntries(pages.filter((row) => row.revisionId === id).map(legacyPageEntry), pageEntryId).chunks;
          const fileChunks = chunkEntries(files.filter((row) => row.revisionId === id).map(legacyFileEntry), fileEntryId).chunks;
          await storeChunks(tx, [...pageChunks, ...fileChunks]);
          // updateMany answers a count, never the row: columns added by later migrations do not exist yet here.
          await tx.revision.updateMany({
            where: { id },
            data: { pageChunks: pageChunks.map((c) => c.hash), fileChunks: fileChunks.map((c) => c.hash) },
          });
        }
        await tx.$executeRaw`DELETE FROM "RevisionPage" WHERE "revisionId" IN (${Prisma.join(placeholders)})`;
        await tx.$executeRaw`DELETE FROM "RevisionFile" WHERE "revisionId" IN (${Prisma.join(placeholders)})`;
      },
      { timeout: 120_000 },
    );
    converted += ids.length;
  }
  if (converted) log?.(`stored the pages and files of ${converted} revisions as chunks`);
}

// Raw rows come back as each database keeps them: SQLite has booleans as 0/1, dates as text or
// milliseconds, JSON as text; PostgreSQL real booleans, Dates and parsed JSON.

function legacyPageEntry(row: Record<string, unknown>): PageEntry {
  return {
    pageId: String(row.pageId),
    parentPageId: nullableString(row.parentPageId),
    index: Number(row.index),
    kind: String(row.kind),
    title: String(row.title),
    slug: String(row.slug),
    description: nullableString(row.description),
    emoji: nullableString(row.emoji),
    icon: nullableString(row.icon),
    hidden: row.hidden === true || Number(row.hidden) === 1,
    documentHash: nullableString(row.documentHash),
    linkTarget: legacyJson(row.linkTarget),
    layout: legacyJson(row.layout),
    createdAt: legacyDate(row.createdAt),
    updatedAt: legacyDate(row.updatedAt),
  };
}

function legacyFileEntry(row: Record<string, unknown>): FileEntry {
  return {
    fileId: String(row.fileId),
    name: String(row.name),
    contentType: String(row.contentType),
    size: Number(row.size),
    storageKey: String(row.storageKey),
    width: row.width === null ? null : Number(row.width),
    height: row.height === null ? null : Number(row.height),
  };
}

function nullableString(value: unknown): string | null {
  return value === null || value === undefined ? null : String(value);
}

function legacyJson(value: unknown): Prisma.JsonValue | null {
  if (value === null || value === undefined) return null;
  // Canonical key order, as the app writes entries (jsonb gives keys back by length).
  return JSON.parse(stringify(typeof value === 'string' ? JSON.parse(value) : value) ?? 'null') as Prisma.JsonValue;
}

function legacyDate(value: unknown): string {
  const date = value instanceof Date ? value : new Date(typeof value === 'bigint' ? Number(value) : (value as string | number));
  return date.toISOString();
}

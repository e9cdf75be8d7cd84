/**
 * Per-request DataLoaders for lookups that plugin-prisma relations cannot
 * batch (ancestor walks for permissions, ...). Built per request in the
 * context, never at module level, so nothing is cached across callers.
 */
import DataLoader from 'dataloader';
import type { Db } from './db/client.ts';
import { hashShareKey } from './auth/share-keys.ts';
import { fileFromRow, pageFromRow } from './content/revision-store.ts';
import type { JSONDocument } from './content/snapshot.ts';
import type { StoredReference } from './content/links.ts';

export interface PublishableSite {
  id: string;
  organizationId: string;
  basename: string;
  hostname: string | null;
  published: boolean;
}

/** The columns of a site its published URLs are made of, and its default section. */
export const SITE_FACTS_SELECT = { id: true, organizationId: true, basename: true, hostname: true, published: true, defaultSectionId: true } as const;
export type SiteFacts = PublishableSite & { defaultSectionId: string | null };

/** Where a space is published: a site space of it on a published site. */
export interface PublishedPlace {
  siteId: string;
  sectionId: string | null;
  path: string;
}

export function createLoaders(db: Db) {
  /** revision id -> its pages (any order; src/content/page-tree.ts orders them) */
  const pagesByRevisionId = new DataLoader(async (revisionIds: readonly string[]) => {
    const rows = await db.revisionPage.findMany({ where: { revisionId: { in: [...revisionIds] } } });
    return groupBy(revisionIds, rows, (r) => r.revisionId, pageFromRow);
  });
  return {
    collectionById: new DataLoader(async (ids: readonly string[]) => {
      const rows = await db.collection.findMany({
        where: { id: { in: [...ids] } },
        select: { id: true, organizationId: true, parentId: true, defaultLevel: true },
      });
      const byId = new Map(rows.map((r) => [r.id, r]));
      return ids.map((id) => byId.get(id) ?? null);
    }),
    /** share key -> the site it opens (see src/schema/site/share-key.ts), or null. */
    siteIdByShareKey: new DataLoader(async (keys: readonly string[]) => {
      const hashes = keys.map(hashShareKey);
      const links = await db.siteShareLink.findMany({
        where: { keyHash: { in: hashes } },
        select: { keyHash: true, active: true, site: { select: { id: true, published: true, visibility: true } } },
      });
      const byHash = new Map(links.map((l) => [l.keyHash, l]));
      return hashes.map((hash) => {
        const link = byHash.get(hash);
        return link?.active && link.site.published && link.site.visibility === 'share-link' ? link.site.id : null;
      });
    }),
    /**
     * The few columns of sites that sections and site spaces need for `default`
     * and `urls` (one query for a whole response; the site read at the root of a
     * request is primed, see src/schema/site-structure/access.ts).
     */
    siteFactsById: new DataLoader(async (ids: readonly string[]) => {
      const rows = await db.site.findMany({ where: { id: { in: [...ids] } }, select: SITE_FACTS_SELECT });
      const byId = new Map(rows.map((r) => [r.id, r]));
      return ids.map((id) => byId.get(id) ?? new Error(`Site ${id} not found`));
    }),
    sectionPathById: new DataLoader(async (ids: readonly string[]) => {
      const rows = await db.siteSection.findMany({ where: { id: { in: [...ids] } }, select: { id: true, path: true } });
      const byId = new Map(rows.map((r) => [r.id, r.path]));
      return ids.map((id) => byId.get(id) ?? null);
    }),
    /** space id -> its site spaces on published sites, oldest first */
    publishedPlacesBySpaceId: new DataLoader(
      async (spaceIds: readonly string[]) => {
        const rows = await db.siteSpace.findMany({
          where: { spaceId: { in: [...spaceIds] }, site: { published: true } },
          orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
          select: { spaceId: true, siteId: true, sectionId: true, path: true },
        });
        const bySpace = new Map<string, PublishedPlace[]>();
        for (const row of rows) {
          const list = bySpace.get(row.spaceId) ?? [];
          list.push(row);
          bySpace.set(row.spaceId, list);
        }
        return spaceIds.map((id) => bySpace.get(id) ?? []);
      },
      // Prisma refuses a statement with more bound values than the database takes (32,766: src/db/provider.ts).
      { maxBatchSize: 30_000 },
    ),
    /** space id -> how many change requests it has in each status (one statement for every space of a response) */
    changeRequestCountsBySpaceId: new DataLoader(async (spaceIds: readonly string[]) => {
      const rows = await db.changeRequest.groupBy({ by: ['spaceId', 'status'], where: { spaceId: { in: [...spaceIds] } }, _count: { _all: true } });
      const bySpace = new Map<string, Record<string, number>>();
      for (const row of rows) bySpace.set(row.spaceId, { ...bySpace.get(row.spaceId), [row.status]: row._count._all });
      return spaceIds.map((id) => bySpace.get(id) ?? {});
    }),
    revisionById: new DataLoader(async (ids: readonly string[]) => {
      const rows = await db.revision.findMany({ where: { id: { in: [...ids] } } });
      const byId = new Map(rows.map((r) => [r.id, r]));
      return ids.map((id) => byId.get(id) ?? null);
    }),
    pagesByRevisionId,
    /** revision id -> its files, by name */
    filesByRevisionId: new DataLoader(async (revisionIds: readonly string[]) => {
      const rows = await db.revisionFile.findMany({ where: { revisionId: { in: [...revisionIds] } }, orderBy: [{ name: 'asc' }, { fileId: 'asc' }] });
      return groupBy(revisionIds, rows, (r) => r.revisionId, fileFromRow);
    }),
    /**
     * revision id -> the references of its pages' documents, by document hash: one statement
     * for the documents of every revision asked, however many pages they have.
     */
    referencesByRevisionId: new DataLoader(async (revisionIds: readonly string[]) => {
      const [rows, pagesOf] = await Promise.all([
        db.documentReference.findMany({
          where: { document: { pages: { some: { revisionId: { in: [...revisionIds] } } } } },
          select: { documentHash: true, targetKind: true, target: true },
        }),
        pagesByRevisionId.loadMany(revisionIds),
      ]);
      const byHash = new Map<string, StoredReference[]>();
      for (const row of rows) {
        const list = byHash.get(row.documentHash) ?? [];
        list.push({ targetKind: row.targetKind, target: row.target });
        byHash.set(row.documentHash, list);
      }
      // A batch of several revisions reads their documents together; each keeps its own.
      return pagesOf.map((pages) => {
        if (pages instanceof Error) return pages;
        const own = new Map<string, StoredReference[]>();
        for (const page of pages) if (page.documentHash) own.set(page.documentHash, byHash.get(page.documentHash) ?? []);
        return own;
      });
    }),
    /** document hash -> the document */
    documentByHash: new DataLoader(async (hashes: readonly string[]) => {
      const rows = await db.contentDocument.findMany({ where: { hash: { in: [...hashes] } } });
      const byHash = new Map(rows.map((r) => [r.hash, JSON.parse(r.json) as JSONDocument]));
      return hashes.map((h) => byHash.get(h) ?? null);
    }),
  };
}

function groupBy<Row, Out>(keys: readonly string[], rows: Row[], keyOf: (row: Row) => string, map: (row: Row) => Out): Out[][] {
  const byKey = new Map<string, Out[]>();
  for (const row of rows) {
    const list = byKey.get(keyOf(row)) ?? [];
    list.push(map(row));
    byKey.set(keyOf(row), list);
  }
  return keys.map((k) => byKey.get(k) ?? []);
}


export type Loaders = ReturnType<typeof createLoaders>;

/**
 * Per-request DataLoaders for lookups that plugin-prisma relations cannot
 * batch (ancestor walks for permissions, ...). Built per request in the
 * context, never at module level, so nothing is cached across callers.
 */
import DataLoader from 'dataloader';
import type { Db } from './db/client.ts';
import { hashShareKey } from './schema/site/share-key.ts';

export function createLoaders(db: Db) {
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
  };
}

export type Loaders = ReturnType<typeof createLoaders>;

/**
 * Per-request DataLoaders for lookups that plugin-prisma relations cannot
 * batch (ancestor walks for permissions, ...). Built per request in the
 * context, never at module level, so nothing is cached across callers.
 */
import DataLoader from 'dataloader';
import type { Db } from './db/client.ts';

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
  };
}

export type Loaders = ReturnType<typeof createLoaders>;

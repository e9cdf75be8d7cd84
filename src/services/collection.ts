/** Collections: loading one the caller may act on, a target parent, and a collection's subtree. */
import { authorize, type Action } from '../auth/policies.ts';
import type { Context } from '../context.ts';
import { InvalidInputError, NotFoundError } from '../errors/index.ts';

/** Loads a collection the caller may act on, or answers 404/403. */
export async function loadCollection<Q extends object>(ctx: Context, id: string, action: Action, query?: Q) {
  ctx.access.requireViewer();
  const collection = await ctx.db.collection.findUnique({ ...(query ?? {}), where: { id } });
  if (!collection) throw new NotFoundError('Collection', id);
  authorize(await ctx.access.collection(collection), action, { type: 'Collection', id });
  return collection;
}

/** Ids of a collection and all collections below it (one query per level). */
export async function collectionSubtree(db: Pick<Context['db'], 'collection'>, rootId: string): Promise<string[]> {
  const ids = [rootId];
  let frontier = [rootId];
  while (frontier.length) {
    const children = await db.collection.findMany({ where: { parentId: { in: frontier } }, select: { id: true } });
    frontier = children.map((c) => c.id);
    ids.push(...frontier);
  }
  return ids;
}

/** Checks a target parent collection: same organization and the caller may create in it. */
export async function loadParentCollection(ctx: Context, organizationId: string, parentId: string) {
  const parent = await loadCollection(ctx, parentId, 'collection:create').catch((error: unknown) => {
    if (error instanceof NotFoundError) throw new InvalidInputError(`parent: no collection ${JSON.stringify(parentId)}`);
    throw error;
  });
  if (parent.organizationId !== organizationId) {
    throw new InvalidInputError('parent: the collection belongs to another organization');
  }
  return parent;
}

/**
 * What share keys open in a request: a share-link site (and the spaces it
 * publishes) for reading, remembered in ctx.access.shareGrants so that the
 * published URLs of that site's items carry the key.
 */
import type { Context } from '../context.ts';

/**
 * The site a share key opens, or null: the key must belong to an active share
 * link of a published site whose visibility is `share-link`. Batched and
 * cached per request (ctx.loaders.siteIdByShareKey).
 */
export async function siteIdForShareKey(ctx: Context, key: string | null | undefined): Promise<string | null> {
  return key ? ctx.loaders.siteIdByShareKey.load(key) : null;
}

/**
 * Whether `shareKey` opens a site that publishes `space` (a site space of the
 * space on the site the key opens). When it does, the caller may read the
 * space, and its published URL carries the key.
 */
export async function openSpaceWithShareKey(ctx: Context, space: { id: string; organizationId: string }, shareKey: string): Promise<boolean> {
  const siteId = await siteIdForShareKey(ctx, shareKey);
  if (!siteId) return false;
  // A key opens only a published site, and a site publishes spaces of its own organization only.
  const places = await ctx.loaders.publishedPlacesBySpaceId.load(space.id);
  if (!places.some((p) => p.siteId === siteId)) return false;
  const g = ctx.access.shareGrants;
  g.sites.set(siteId, shareKey);
  g.spaces.add(space.id);
  return true;
}

/**
 * Whether the caller reads `spaceId` through a share key rather than as a
 * member: opened with GET /v1/spaces/{spaceId}?shareKey=, or published on a
 * site a key opened in this request.
 */
export async function isSpaceShared(ctx: Context, spaceId: string): Promise<boolean> {
  const g = ctx.access.shareGrants;
  if (g.spaces.has(spaceId)) return true;
  if (g.sites.size === 0) return false;
  return (await ctx.loaders.publishedPlacesBySpaceId.load(spaceId)).some((p) => g.sites.has(p.siteId));
}

/**
 * Reading a site's structure: as a member (site:read), or as a visitor holding
 * the share key of a share-link site. What a key opened is remembered for the
 * request (ctx.access.shareGrants), so the `urls.published` of every item of
 * that site, and of its spaces, carry the key.
 *
 * No GraphQL types here: src/schema/space/* imports this module too.
 */
import { can } from '../../auth/policies.ts';
import type { Context } from '../../context.ts';
import { NotFoundError } from '../../errors/index.ts';
import { SITE_FACTS_SELECT, type PublishableSite, type SiteFacts } from '../../loaders.ts';
import { siteIdForShareKey, withShareKey } from '../site/share-key.ts';

/** The share key that opened `siteId` in this request, if any. */
export function shareKeyFor(ctx: Context, siteId: string): string | null {
  return ctx.access.shareGrants.sites.get(siteId) ?? null;
}

/** Ids of the organizations whose sites the caller may read as a member. */
export function readableOrganizationIds(ctx: Context): string[] {
  const memberships = ctx.access.viewer?.memberships;
  if (!memberships) return [];
  return [...memberships.keys()].filter((id) => can(ctx.access.organization(id), 'site:read'));
}

/**
 * Loads a site for reading: members with site:read read it; anyone else needs
 * `shareKey`, the key of an active share link of this site (published, with
 * `share-link` visibility), and reads it read-only. Otherwise 404, so nothing
 * about the site is revealed. A key that does not open this site is ignored
 * for members.
 */
export async function loadReadableSite<Q extends object>(
  ctx: Context,
  organizationId: string,
  siteId: string,
  shareKey: string | null | undefined,
  query?: Q,
) {
  ctx.access.requireViewer();
  const site = await ctx.db.site.findUnique({ ...(query ?? {}), where: { id: siteId } });
  if (!site || site.organizationId !== organizationId) throw new NotFoundError('Site', siteId);
  const opened = shareKey ? (await siteIdForShareKey(ctx, shareKey)) === siteId : false;
  if (opened) ctx.access.shareGrants.sites.set(siteId, shareKey!);
  else if (!can(ctx.access.organization(organizationId), 'site:read')) throw new NotFoundError('Site', siteId);
  primeSite(ctx, site);
  return site;
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

/**
 * What a visitor of the published site sees: site spaces that are not hidden
 * and whose space is not in the bin; sections with at least one of those;
 * section groups with at least one such section (directly or in a sub-group).
 */
export const VISIBLE_SITE_SPACE = { hidden: false, space: { deletedAt: null } };
export const VISIBLE_SECTION = { siteSpaces: { some: VISIBLE_SITE_SPACE } };
export const VISIBLE_SECTION_GROUP = {
  OR: [{ sections: { some: VISIBLE_SECTION } }, { groups: { some: { sections: { some: VISIBLE_SECTION } } } }],
};

function primeSite(ctx: Context, row: Partial<SiteFacts>): void {
  if (Object.keys(SITE_FACTS_SELECT).every((k) => k in row)) ctx.loaders.siteFactsById.prime(row.id!, row as SiteFacts);
}

/** The facts of a site for its sections and site spaces (batched, cached per request). */
export function siteFacts(ctx: Context, siteId: string): Promise<SiteFacts> {
  return ctx.loaders.siteFactsById.load(siteId);
}

/** The path of a section (batched, cached per request). */
export function sectionPath(ctx: Context, sectionId: string): Promise<string | null> {
  return ctx.loaders.sectionPathById.load(sectionId);
}

/** Forgets what this request read of sites, sections and site spaces: a mutation calls it after changing them. */
export function forgetSiteFacts(ctx: Context): void {
  for (const loader of [ctx.loaders.siteFactsById, ctx.loaders.sectionPathById, ctx.loaders.publishedPlacesBySpaceId]) loader.clearAll();
}

/**
 * The published address of a site, or of a section / site space on it (`paths`),
 * with the share key when one opened the site in this request; null while the
 * site is not published.
 */
export function publishedUrl(ctx: Context, site: PublishableSite, ...paths: Array<string | null | undefined>): string | null {
  if (!site.published) return null;
  return withShareKey(ctx.urls.publishedSite(site, ...paths.filter((p): p is string => Boolean(p))), shareKeyFor(ctx, site.id));
}

/**
 * The published URL of a space: that of its site space on the site a share
 * key opened in this request, else (for members of its organization) that of
 * its first site space on a published site; null when there is none.
 */
export async function publishedSpaceUrl(ctx: Context, space: { id: string; organizationId: string }): Promise<string | null> {
  const places = await ctx.loaders.publishedPlacesBySpaceId.load(space.id);
  const opened = ctx.access.shareGrants.sites;
  const place =
    places.find((p) => opened.has(p.siteId)) ??
    (can(ctx.access.organization(space.organizationId), 'site:read') ? places[0] : undefined);
  if (!place) return null;
  // Sites and section paths through the per-request loaders: often already read for the same response.
  const [site, section] = await Promise.all([siteFacts(ctx, place.siteId), place.sectionId ? sectionPath(ctx, place.sectionId) : null]);
  return publishedUrl(ctx, site, section, place.path);
}

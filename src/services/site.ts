/**
 * Sites: loading one to act on (members), or to read (members, or visitors
 * with the share key of a share-link site); what visitors of a published site
 * see; the per-request facts of sites and sections that URLs are made of.
 */
import { authorize, can, type Action } from '../auth/policies.ts';
import type { Context } from '../context.ts';
import { NotFoundError } from '../errors/index.ts';
import { SITE_FACTS_SELECT, type SiteFacts } from '../loaders.ts';
import { siteIdForShareKey } from './share-grants.ts';

/**
 * Loads a site of an organization that the caller may act on, or answers
 * 404 (no such site in that organization, or not visible) / 403.
 */
export async function loadSite<Q extends object>(ctx: Context, organizationId: string, siteId: string, action: Action, query?: Q) {
  ctx.access.requireViewer();
  const site = await ctx.db.site.findUnique({ ...(query ?? {}), where: { id: siteId } });
  if (!site || site.organizationId !== organizationId) throw new NotFoundError('Site', siteId);
  authorize(ctx.access.organization(site.organizationId), action, { type: 'Site', id: siteId });
  return site;
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

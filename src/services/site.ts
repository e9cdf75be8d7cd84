/**
 * Sites: loading one to act on (members), or to read (members, or visitors
 * with the share key of a share-link site), and what visitors of a published
 * site see.
 */
import { authorize, can, type Action } from '../auth/policies.ts';
import type { Context } from '../context.ts';
import { withColumns } from '../db/select.ts';
import { NotFoundError } from '../errors/index.ts';
import { SITE_FACTS_SELECT, type SiteFacts } from '../loaders.ts';

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
  return ctx.access.memberOrganizationIds().filter((id) => can(ctx.access.organization(id), 'site:read'));
}

/**
 * Loads a site for reading: members with site:read read it; anyone else needs
 * `shareKey`, the key of an active share link of this site (published, with
 * `share-link` visibility), and reads it read-only; so does the holder of its
 * site token, while it is published. Otherwise 404, so nothing about the site is revealed. A key that does not open this site is ignored
 * for members.
 */
export async function loadReadableSite<Q extends object>(
  ctx: Context,
  organizationId: string,
  siteId: string,
  shareKey: string | null | undefined,
  query?: Q,
) {
  ctx.access.requireCaller();
  // What the check below reads, besides what the document selects (Site is in select mode).
  const site = await ctx.db.site.findUnique({ ...withColumns(query ?? {}, { organizationId: true, published: true }), where: { id: siteId } });
  if (!site || site.organizationId !== organizationId) throw new NotFoundError('Site', siteId);
  authorize(await ctx.access.site(site, shareKey), 'site:read', { type: 'Site', id: siteId });
  // The facts of the site its sections and site spaces read for their URLs, without another statement.
  if (Object.keys(SITE_FACTS_SELECT).every((k) => k in site)) ctx.loaders.siteFactsById.prime(site.id, site as unknown as SiteFacts);
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

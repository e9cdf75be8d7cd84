/**
 * Sites: loading one to act on (members), or to read (members, or visitors
 * with the share key of a share-link site), and what visitors of a published
 * site see.
 */
import { authorize, can, type Action } from '../auth/policies.ts';
import type { Context } from '../context.ts';
import { withColumns } from '../db/select.ts';
import { NotFoundError } from '../errors/index.ts';
import { conditionHolds } from '../content/document/evaluate.ts';
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
  if (ctx.access.siteVisitor?.siteId === site.id) await noteVisitorHidden(ctx, site.id, ctx.access.siteVisitor.claims);
  // The facts of the site its sections and site spaces read for their URLs, without another statement.
  if (Object.keys(SITE_FACTS_SELECT).every((k) => k in site)) ctx.loaders.siteFactsById.prime(site.id, site as unknown as SiteFacts);
  return site;
}

/**
 * Notes what the visitor of a site token does not see of its site (Access.visitorHidden): the
 * site spaces and sections whose condition is false for their claims. One statement, for sites
 * with conditions as for those without.
 */
async function noteVisitorHidden(ctx: Context, siteId: string, claims: Readonly<Record<string, unknown>>): Promise<void> {
  const guarded = await ctx.db.siteSpace.findMany({
    where: { siteId, OR: [{ condition: { not: null } }, { section: { condition: { not: null } } }] },
    select: { id: true, condition: true, section: { select: { id: true, condition: true } } },
  });
  for (const siteSpace of guarded) {
    if (!conditionHolds(siteSpace.condition, claims)) ctx.access.visitorHidden.siteSpaces.add(siteSpace.id);
    if (siteSpace.section && !conditionHolds(siteSpace.section.condition, claims)) ctx.access.visitorHidden.sections.add(siteSpace.section.id);
  }
}

/** What every visitor sees of a site's site spaces, whoever they are (not hidden, space not in the bin). */
export const SHOWN_SITE_SPACE = { hidden: false, space: { deletedAt: null } };

/**
 * What a visitor of the published site sees: site spaces that are not hidden, whose space is not
 * in the bin and whose condition holds for the visitor of a site token (Access.visitorHidden);
 * sections with at least one of those (and whose own condition holds); section groups with at
 * least one such section (directly or in a sub-group).
 */
export function visibleSiteSpaceWhere(ctx: Pick<Context, 'access'>) {
  const hidden = [...ctx.access.visitorHidden.siteSpaces];
  return { ...SHOWN_SITE_SPACE, ...(hidden.length ? { id: { notIn: hidden } } : {}) };
}

export function visibleSectionWhere(ctx: Pick<Context, 'access'>) {
  const hidden = [...ctx.access.visitorHidden.sections];
  return { siteSpaces: { some: visibleSiteSpaceWhere(ctx) }, ...(hidden.length ? { id: { notIn: hidden } } : {}) };
}

export function visibleSectionGroupWhere(ctx: Pick<Context, 'access'>) {
  const section = visibleSectionWhere(ctx);
  return { OR: [{ sections: { some: section } }, { groups: { some: { sections: { some: section } } } }] };
}

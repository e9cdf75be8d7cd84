/**
 * Published URLs: where a site, a section, a site space or a space is served
 * to visitors, with the share key when one opened the site in this request.
 * The key is the first path segment after the site's base, where GitBook's
 * site renderer reads it (`<site>/<key>/<section>/<site space>/<page>`,
 * resolved by src/services/published-content.ts).
 */
import { can } from '../auth/policies.ts';
import { pagePaths } from '../content/page-tree.ts';
import type { Context } from '../context.ts';
import type { Prisma } from '../db/client.ts';
import { jsonObject } from '../db/json.ts';
import type { PublishableSite, PublishedPlace } from '../loaders.ts';
import type { Urls } from '../urls.ts';

/** The address of a site (and of `paths` on it) opened with a share key: the key is the first segment after the site's base. */
export function sharedSiteUrl(urls: Urls, site: Parameters<Urls['publishedSite']>[0], key: string | null | undefined, ...paths: string[]): string {
  if (!key) return urls.publishedSite(site, ...paths);
  // The site's own address ends with "/"; so does the address of its root opened with a key.
  const url = urls.publishedSite(site, encodeURIComponent(key), ...paths);
  return paths.length ? url : `${url}/`;
}

/**
 * The published address of a site, or of a section / site space on it (`paths`),
 * with the share key when one opened the site in this request; null while the
 * site is not published.
 */
export function publishedUrl(ctx: Context, site: PublishableSite, ...paths: Array<string | null | undefined>): string | null {
  if (!site.published) return null;
  return sharedSiteUrl(ctx.urls, site, ctx.access.shareKeyFor(site.id), ...paths.filter((p): p is string => Boolean(p)));
}

/**
 * The published URL a site redirect's destination (SiteRedirectDestination: a section, a site
 * space, or a page of one) leads to; null when it is gone or the site is not published.
 */
export async function redirectTargetUrl(
  ctx: Context,
  site: PublishableSite & { organizationId: string },
  destination: Prisma.JsonValue,
): Promise<string | null> {
  const d = (destination ?? {}) as Record<string, unknown>;
  if (d.kind === 'site-section') {
    const section = await ctx.db.siteSection.findFirst({ where: { id: String(d.siteSectionId), siteId: site.id }, select: { path: true } });
    return section ? publishedUrl(ctx, site, section.path) : null;
  }
  const siteSpace = await ctx.db.siteSpace.findFirst({
    where: { id: String(d.siteSpaceId), siteId: site.id },
    select: { path: true, section: { select: { path: true } }, space: { select: { revisionId: true } } },
  });
  if (!siteSpace) return null;
  if (d.kind === 'site-space') return publishedUrl(ctx, site, siteSpace.section?.path, siteSpace.path);
  const pages = await ctx.loaders.pagesByRevisionId.load(siteSpace.space.revisionId);
  const path = pagePaths(new Map(pages.map((p) => [p.id, p]))).get(String(d.pageId));
  return path === undefined ? null : publishedUrl(ctx, site, siteSpace.section?.path, siteSpace.path, path);
}

/**
 * Where a space is published for this caller: its site space on the site a share key or site
 * token opened in this request, else (for members of its organization) its first site space on a published site;
 * null when there is none. One statement for every space of a response, with each place's site
 * and section.
 */
async function publishedPlaceOf(ctx: Context, space: { id: string; organizationId: string }): Promise<PublishedPlace | null> {
  const places = await ctx.loaders.publishedPlacesOf(space.id);
  return (
    places.find((p) => ctx.access.opened(p.siteId)) ??
    (can(ctx.access.organization(space.organizationId), 'site:read') ? places[0] : undefined) ??
    null
  );
}

/** The published URL of a space (publishedPlaceOf); null when it is published nowhere the caller may see. */
export async function publishedSpaceUrl(ctx: Context, space: { id: string; organizationId: string }): Promise<string | null> {
  const place = await publishedPlaceOf(ctx, space);
  return place ? publishedUrl(ctx, place.site, place.sectionPath, place.path) : null;
}

/** The published URL of a space when the site publishing it is open to anyone (`public`); else null. */
export async function publicSpaceUrl(ctx: Context, space: { id: string; organizationId: string }): Promise<string | null> {
  const place = await publishedPlaceOf(ctx, space);
  return place?.site.visibility === 'public' ? publishedUrl(ctx, place.site, place.sectionPath, place.path) : null;
}

/**
 * The icon of a space: the image of the favicon of the site it is published on (its light
 * variant; CustomizationFavicon `{icon: {light, dark}}`), as its visitors see it; null when the
 * space is published nowhere the caller may see, or the site's icon is an emoji or unset.
 */
export async function spaceIconUrl(ctx: Context, space: { id: string; organizationId: string }): Promise<string | null> {
  const place = await publishedPlaceOf(ctx, space);
  const favicon = jsonObject(place?.site.customizations)?.favicon as { icon?: { light?: unknown } } | undefined;
  const light = favicon?.icon?.light;
  return typeof light === 'string' && light !== '' ? light : null;
}

/**
 * How visitors of the space's published site authenticate, when its site asks them to
 * (`visitor-auth`): `custom`, signed visitor tokens checked against the organization's published
 * keys (src/auth/visitor-claims.ts), not an integration's; else null.
 */
export async function spaceVisitorAuth(ctx: Context, space: { id: string; organizationId: string }): Promise<{ backend: 'custom' } | null> {
  const place = await publishedPlaceOf(ctx, space);
  return place?.site.visibility === 'visitor-auth' ? { backend: 'custom' } : null;
}

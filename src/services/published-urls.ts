/**
 * Published URLs: where a site, a section, a site space or a space is served
 * to visitors, with the share key when one opened the site in this request.
 */
import { can } from '../auth/policies.ts';
import type { Context } from '../context.ts';
import { jsonObject } from '../db/json.ts';
import type { PublishableSite, PublishedPlace } from '../loaders.ts';

/** The query parameter a published URL carries the key in. */
export const SHARE_KEY_PARAM = 'share';

/** A published URL opened with a share key. */
export function withShareKey(url: string, key: string | null | undefined): string {
  if (!key) return url;
  const u = new URL(url);
  u.searchParams.set(SHARE_KEY_PARAM, key);
  return u.toString();
}

/**
 * The published address of a site, or of a section / site space on it (`paths`),
 * with the share key when one opened the site in this request; null while the
 * site is not published.
 */
export function publishedUrl(ctx: Context, site: PublishableSite, ...paths: Array<string | null | undefined>): string | null {
  if (!site.published) return null;
  return withShareKey(ctx.urls.publishedSite(site, ...paths.filter((p): p is string => Boolean(p))), ctx.access.shareKeyFor(site.id));
}

/**
 * Where a space is published for this caller: its site space on the site a share key opened in
 * this request, else (for members of its organization) its first site space on a published site;
 * null when there is none. One statement for every space of a response, with each place's site
 * and section.
 */
async function publishedPlaceOf(ctx: Context, space: { id: string; organizationId: string }): Promise<PublishedPlace | null> {
  const places = await ctx.loaders.publishedPlacesOf(space.id);
  return (
    places.find((p) => ctx.access.shareKeyFor(p.siteId) !== null) ??
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

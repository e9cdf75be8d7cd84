/**
 * Reading a site's structure: as a member (site:read), or as a visitor holding
 * the share key of a share-link site. What a key opened is remembered per
 * request (keyed by the context object), so the `urls.published` of every item
 * of that site, and of its spaces, carry the key.
 *
 * No GraphQL types here: src/schema/space/* imports this module too.
 */
import DataLoader from 'dataloader';
import { can } from '../../auth/policies.ts';
import type { Context } from '../../context.ts';
import { NotFoundError } from '../../errors/index.ts';
import { siteIdForShareKey, withShareKey } from '../site/share-key.ts';

/** Per-request state of this module, keyed by the context object (src/context.ts stays untouched). */
function perRequest<T>(create: (ctx: Context) => T): (ctx: Context) => T {
  const byContext = new WeakMap<object, T>();
  return (ctx) => {
    let value = byContext.get(ctx);
    if (value === undefined) {
      value = create(ctx);
      byContext.set(ctx, value);
    }
    return value;
  };
}

interface ShareGrants {
  /** site id -> the share key that opened it in this request */
  sites: Map<string, string>;
  /** spaces opened through a share key (GET /v1/spaces/{id}?shareKey=) */
  spaces: Set<string>;
}

const grants = perRequest<ShareGrants>(() => ({ sites: new Map(), spaces: new Set() }));

/** The share key that opened `siteId` in this request, if any. */
export function shareKeyFor(ctx: Context, siteId: string): string | null {
  return grants(ctx).sites.get(siteId) ?? null;
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
  if (opened) grants(ctx).sites.set(siteId, shareKey!);
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
  const places = await publishedPlaces(ctx).load(space.id);
  if (!places.some((p) => p.siteId === siteId)) return false;
  const g = grants(ctx);
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
  const g = grants(ctx);
  if (g.spaces.has(spaceId)) return true;
  if (g.sites.size === 0) return false;
  return (await publishedPlaces(ctx).load(spaceId)).some((p) => g.sites.has(p.siteId));
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

export interface PublishableSite {
  id: string;
  organizationId: string;
  basename: string;
  hostname: string | null;
  published: boolean;
}

/** The columns of a site its published URLs are made of. */
export const PUBLISHED_URL_SELECT = { id: true, organizationId: true, basename: true, hostname: true, published: true } as const;

type SiteFacts = PublishableSite & { defaultSectionId: string | null };
const SITE_FACTS_SELECT = { ...PUBLISHED_URL_SELECT, defaultSectionId: true } as const;

interface PublishedPlace {
  siteId: string;
  sectionId: string | null;
  path: string;
}

/**
 * Per request: the few columns of sites and sections that sections and site
 * spaces need for `default` and `urls` (one query per kind for a whole
 * response, instead of one per branch of the structure; the site read at the
 * root of a request is primed, so reading a structure costs none), and where
 * spaces are published.
 */
const loaders = perRequest((ctx) => ({
  site: new DataLoader(async (ids: readonly string[]) => {
    const rows = await ctx.db.site.findMany({ where: { id: { in: [...ids] } }, select: SITE_FACTS_SELECT });
    const byId = new Map(rows.map((r) => [r.id, r]));
    return ids.map((id) => byId.get(id) ?? new Error(`Site ${id} not found`));
  }),
  sectionPath: new DataLoader(async (ids: readonly string[]) => {
    const rows = await ctx.db.siteSection.findMany({ where: { id: { in: [...ids] } }, select: { id: true, path: true } });
    const byId = new Map(rows.map((r) => [r.id, r.path]));
    return ids.map((id) => byId.get(id) ?? null);
  }),
  /** space id -> its site spaces on published sites, oldest first */
  publishedPlaces: new DataLoader(
    async (spaceIds: readonly string[]) => {
      const rows = await ctx.db.siteSpace.findMany({
        where: { spaceId: { in: [...spaceIds] }, site: { published: true } },
        orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
        select: { spaceId: true, siteId: true, sectionId: true, path: true },
      });
      const bySpace = new Map<string, PublishedPlace[]>();
      for (const row of rows) {
        const list = bySpace.get(row.spaceId) ?? [];
        list.push(row);
        bySpace.set(row.spaceId, list);
      }
      return spaceIds.map((id) => bySpace.get(id) ?? []);
    },
    // Prisma refuses a statement with more bound values than the database takes (32,766: src/db/provider.ts).
    { maxBatchSize: 30_000 },
  ),
}));

const publishedPlaces = (ctx: Context) => loaders(ctx).publishedPlaces;

function primeSite(ctx: Context, row: Partial<SiteFacts>): void {
  if (Object.keys(SITE_FACTS_SELECT).every((k) => k in row)) loaders(ctx).site.prime(row.id!, row as SiteFacts);
}

/** The facts of a site for its sections and site spaces (batched, cached per request). */
export function siteFacts(ctx: Context, siteId: string): Promise<SiteFacts> {
  return loaders(ctx).site.load(siteId);
}

/** The path of a section (batched, cached per request). */
export function sectionPath(ctx: Context, sectionId: string): Promise<string | null> {
  return loaders(ctx).sectionPath.load(sectionId);
}

/** Forgets what this request read of sites, sections and site spaces: a mutation calls it after changing them. */
export function forgetSiteFacts(ctx: Context): void {
  for (const loader of Object.values(loaders(ctx))) loader.clearAll();
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
  const places = await publishedPlaces(ctx).load(space.id);
  const opened = grants(ctx).sites;
  const place =
    places.find((p) => opened.has(p.siteId)) ??
    (can(ctx.access.organization(space.organizationId), 'site:read') ? places[0] : undefined);
  if (!place) return null;
  // Sites and section paths through the per-request loaders: often already read for the same response.
  const [site, section] = await Promise.all([siteFacts(ctx, place.siteId), place.sectionId ? sectionPath(ctx, place.sectionId) : null]);
  return publishedUrl(ctx, site, section, place.path);
}

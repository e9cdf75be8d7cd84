/**
 * Resolving a URL of a published site (`POST /v1/urls/published`): which site, section, site
 * space and space it shows, what is left of it (the page path), and a site token to read them
 * with (src/auth/site-tokens.ts). What a site renderer asks first on every page view.
 *
 * A site's address is its custom hostname (`https://<hostname>/`) or `<SITES_URL>/<organization
 * id>/<basename>/`; under it come, in order: the key of a share link (share-link sites only), the
 * path of a section (sites with sections), the path of a site space of that section, then the
 * page path. A level whose segment matches nothing takes its default (the site's default
 * section, the section's default site space) and leaves the segment to the page path.
 */
import { createHash } from 'node:crypto';
import { signSiteToken, type VisitorType } from '../auth/site-tokens.ts';
import { verifyVisitorClaims } from '../auth/visitor-claims.ts';
import { conditionHolds } from '../content/document/evaluate.ts';
import type { Context } from '../context.ts';
import { jsonObject } from '../db/json.ts';
import { InvalidInputError, NotFoundError, UnauthenticatedError } from '../errors/index.ts';
import { signingKeySealer } from './member.ts';
import { redirectTargetUrl } from './published-urls.ts';
import { STRUCTURE_ORDER } from './site-structure.ts';

export interface VisitorPayload {
  jwtToken?: string | null;
  unsignedClaims?: unknown;
  type?: string | null;
}

export interface ResolveInput {
  url: string;
  visitor?: VisitorPayload | null;
  redirectOnError?: boolean | null;
}

/** PublishedSiteContent of the wire contract. */
export interface PublishedSiteContent {
  kind: 'content';
  site: string;
  siteSection: string | null;
  siteSpace: string;
  space: string;
  organization: string;
  pathname: string;
  basePath: string;
  siteBasePath: string;
  canonicalUrl: string;
  complete: boolean;
  apiToken: string;
  shareKey: string | null;
  contextId: string | null;
}

/** The Redirect answer of the wire contract. */
export interface PublishedContentRedirect {
  kind: 'redirect';
  target: 'application' | 'content' | 'external';
  redirect: string;
}

const notFound = (url: string) => new NotFoundError('Published content for', url, 'no published site has this address');

/** The URL's path segments, decoded; a `..` or an empty segment is dropped, as a browser would. */
function segmentsOf(pathname: string): string[] {
  return pathname
    .split('/')
    .filter((segment) => segment !== '' && segment !== '.' && segment !== '..')
    .map((segment) => {
      try {
        return decodeURIComponent(segment);
      } catch {
        return segment;
      }
    });
}

/** The URL to resolve, or 400. */
function parseUrl(text: string): URL {
  // The contract's URL: at most 2048 characters.
  if (text.length > 2048) throw new InvalidInputError('url: must be at most 2048 characters');
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new InvalidInputError('url: must be an absolute URL');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new InvalidInputError('url: must be an http or https URL');
  return url;
}

const SITE_SELECT = {
  id: true,
  organizationId: true,
  basename: true,
  hostname: true,
  published: true,
  visibility: true,
  adaptiveSchema: true,
  defaultSectionId: true,
} as const;

/**
 * The site an address names and the segments after its base, or null: under SITES_URL, by
 * organization and basename; on another host, by custom hostname (one statement either way).
 */
async function siteOf(ctx: Context, url: URL) {
  const sites = new URL(ctx.config.sitesUrl);
  if (url.origin !== sites.origin) {
    const byHost = await ctx.db.site.findUnique({ where: { hostname: url.hostname.toLowerCase() }, select: SITE_SELECT });
    return byHost && { site: byHost, origin: url.origin, base: [] as string[], rest: segmentsOf(url.pathname) };
  }
  const prefix = segmentsOf(sites.pathname);
  const segments = segmentsOf(url.pathname);
  if (prefix.some((segment, i) => segments[i] !== segment)) return null;
  const [organizationId, basename, ...rest] = segments.slice(prefix.length);
  if (!organizationId || !basename) return null;
  const site = await ctx.db.site.findUnique({ where: { organizationId_basename: { organizationId, basename } }, select: SITE_SELECT });
  return site && { site, origin: url.origin, base: [...prefix, organizationId, basename], rest };
}

/**
 * The visitor's claims: those of a visitor token the organization signed (src/auth/visitor-claims.ts;
 * a `visitor-auth` site admits no one without), and the unsigned claims the site's visitor schema
 * declares under `unsigned` (as `unsigned`).
 */
async function visitorClaims(ctx: Context, site: { organizationId: string; visibility: string; adaptiveSchema: unknown }, visitor: VisitorPayload | null | undefined) {
  const claims: Record<string, unknown> = {};
  if (visitor?.jwtToken) {
    const signed = await verifyVisitorClaims(ctx.db, site.organizationId, visitor.jwtToken);
    if (!signed) throw new UnauthenticatedError('visitor.jwtToken: not a valid visitor token of this organization (POST /v1/orgs/{organizationId}/ping gives one)');
    Object.assign(claims, signed);
  } else if (site.visibility === 'visitor-auth') {
    throw new UnauthenticatedError(
      'This site admits signed-in visitors only: send visitor.jwtToken, the visitor token of a member (POST /v1/orgs/{organizationId}/ping)',
    );
  }
  if (visitor?.unsignedClaims !== undefined && visitor.unsignedClaims !== null && jsonObject(visitor.unsignedClaims as never) === null) {
    throw new InvalidInputError('visitor.unsignedClaims: must be an object');
  }
  const declared = jsonObject(jsonObject(jsonObject(jsonObject(site.adaptiveSchema as never)?.properties as never)?.unsigned as never)?.properties as never);
  const given = jsonObject(visitor?.unsignedClaims as never);
  if (declared && given) {
    const unsigned: Record<string, unknown> = {};
    for (const [name, value] of Object.entries(given)) {
      const type = jsonObject(declared[name] as never)?.type;
      if (type !== undefined && typeof value === type) unsigned[name] = value;
    }
    if (Object.keys(unsigned).length) claims.unsigned = unsigned;
  }
  return claims;
}

interface Placed {
  id: string;
  path: string;
}

/**
 * Picks an item of one level of the structure by the next segment: `matched` when the segment is
 * its path; else the default, and `decided` tells whether more segments could still change the
 * choice: with no segment left, a longer URL could name an item of this level (the default's own
 * path included: published URLs spell it), so it is not decided.
 */
function pick<T extends Placed>(items: readonly T[], fallback: T | undefined, segment: string | undefined): { item: T; matched: boolean; decided: boolean } | null {
  const matched = segment === undefined ? undefined : items.find((item) => item.path === segment);
  if (matched) return { item: matched, matched: true, decided: true };
  if (!fallback) return null;
  return { item: fallback, matched: false, decided: segment !== undefined };
}

const joinPath = (segments: readonly string[]) => (segments.length ? `/${segments.map(encodeURIComponent).join('/')}/` : '/');

/** Resolves a URL of a published site for a visitor; 404 when it is no published site's, 401 when the site refuses the visitor. */
export async function resolvePublishedContent(ctx: Context, input: ResolveInput): Promise<PublishedSiteContent | PublishedContentRedirect> {
  const url = parseUrl(input.url);
  const found = await siteOf(ctx, url);
  if (!found || !found.site.published) throw notFound(input.url);
  const { site } = found;
  let rest = found.rest;

  // A share-link site is read through one of its keys, the first segment after its base; the
  // `share` query parameter (published URLs of earlier versions) is taken too.
  let shareKey: string | null = null;
  if (site.visibility === 'share-link') {
    const fromPath = rest[0];
    if (fromPath && (await ctx.loaders.siteIdByShareKey.load(fromPath)) === site.id) {
      shareKey = fromPath;
      rest = rest.slice(1);
    } else {
      const fromQuery = url.searchParams.get('share');
      if (fromQuery && (await ctx.loaders.siteIdByShareKey.load(fromQuery)) === site.id) shareKey = fromQuery;
    }
    if (!shareKey) throw notFound(input.url);
    // Opened for this request: the URLs it answers (a redirect's) carry the key.
    await ctx.access.site(site, shareKey);
  }
  const claims = await visitorClaims(ctx, site, input.visitor);

  if (input.redirectOnError) {
    const source = `/${rest.map(encodeURIComponent).join('/')}`;
    const redirect = rest.length ? await ctx.db.siteRedirect.findUnique({ where: { siteId_source: { siteId: site.id, source } }, select: { destination: true } }) : null;
    if (redirect) {
      const target = await redirectTargetUrl(ctx, site, redirect.destination);
      if (target) return { kind: 'redirect', target: 'content', redirect: target };
    }
  }

  const siteSpaces = (
    await ctx.db.siteSpace.findMany({
      where: { siteId: site.id, space: { deletedAt: null } },
      select: {
        id: true,
        sectionId: true,
        spaceId: true,
        path: true,
        isDefault: true,
        hidden: true,
        condition: true,
        section: { select: { id: true, path: true, condition: true, position: true } },
      },
      orderBy: STRUCTURE_ORDER,
    })
  ).filter((siteSpace) => conditionHolds(siteSpace.condition, claims) && conditionHolds(siteSpace.section?.condition, claims));

  const consumed: string[] = [];
  let complete = true;
  // Sections: those with a site space this visitor sees, in their order.
  const sections = [...new Map(siteSpaces.flatMap((s) => (s.section ? [[s.section.id, s.section] as const] : []))).values()].sort(
    (a, b) => a.position - b.position || (a.id < b.id ? -1 : 1),
  );
  let section: (typeof sections)[number] | null = null;
  if (sections.length) {
    const chosen = pick(sections, sections.find((s) => s.id === site.defaultSectionId) ?? sections[0], rest[0]);
    section = chosen!.item;
    complete &&= chosen!.decided;
    if (chosen!.matched) consumed.push(rest.shift()!);
  }
  const candidates = siteSpaces.filter((s) => s.sectionId === (section?.id ?? null));
  const shown = candidates.filter((s) => !s.hidden);
  const chosen = pick(candidates, shown.find((s) => s.isDefault) ?? shown[0] ?? candidates[0], rest[0]);
  if (!chosen) throw notFound(input.url);
  complete &&= chosen.decided;
  if (chosen.matched) consumed.push(rest.shift()!);
  const siteSpace = chosen.item;

  const siteBase = [...found.base, ...(shareKey ? [shareKey] : [])];
  const basePath = joinPath([...siteBase, ...consumed]);
  const pathname = rest.map(encodeURIComponent).join('/');
  const now = new Date();
  const apiToken = await signSiteToken(ctx.db, signingKeySealer(ctx.config), {
    issuer: ctx.urls.api(`/orgs/${site.organizationId}`),
    organizationId: site.organizationId,
    siteId: site.id,
    siteSectionId: section?.id ?? null,
    siteSpaceId: siteSpace.id,
    spaceId: siteSpace.spaceId,
    shareKey,
    authenticated: Boolean(input.visitor?.jwtToken),
    claims,
    visitorType: visitorTypeOf(input.visitor?.type),
    now,
  });
  return {
    kind: 'content',
    site: site.id,
    siteSection: section?.id ?? null,
    siteSpace: siteSpace.id,
    space: siteSpace.spaceId,
    organization: site.organizationId,
    pathname,
    basePath,
    siteBasePath: joinPath(siteBase),
    canonicalUrl: `${found.origin}${basePath}${pathname}`,
    complete,
    apiToken,
    shareKey,
    contextId: Object.keys(claims).length ? createHash('sha256').update(JSON.stringify(claims)).digest('base64url').slice(0, 22) : null,
  };
}

function visitorTypeOf(type: string | null | undefined): VisitorType {
  if (type === undefined || type === null || type === 'human') return 'human';
  if (type === 'agent') return 'agent';
  throw new InvalidInputError('visitor.type: must be human or agent');
}

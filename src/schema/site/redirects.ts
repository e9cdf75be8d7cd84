/**
 * Redirects of a site: a path under the site's published address (`/old/page`)
 * sends its visitors to a section, a site space or a page of a site space
 * (SiteRedirectDestination). One per source in a site. Listing and editing
 * them needs site:update; looking one up by its source (what the renderer does
 * for a path it cannot find) needs site:read, or the site's share key.
 */
import { z } from 'zod';
import { authorize } from '../../auth/policies.ts';
import { builder } from '../../builder.ts';
import { pagePaths } from '../../content/page-tree.ts';
import type { Context } from '../../context.ts';
import type { Prisma } from '../../db/client.ts';
import { jsonInput } from '../../db/json.ts';
import { paginate } from '../../db/pagination.ts';
import { ConflictError, InvalidInputError, NotFoundError } from '../../errors/index.ts';
import { isUniqueViolation } from '../../errors/prisma.ts';
import { newId } from '../../ids.ts';
import { redirectTargetUrl } from '../../services/published-urls.ts';
import { revalidateRenderer } from '../../services/renderer-revalidation.ts';
import { loadReadableSite, loadSite } from '../../services/site.ts';
import { listType, pageArgs } from '../shared/pagination.ts';
import { readableSiteArgs, siteArgs } from './args.ts';
import { Site } from './type.ts';

/** SiteRedirectDestination of @gitbook/api 0.146.0. */
type Destination =
  | { kind: 'site-section'; siteSectionId: string }
  | { kind: 'site-space'; siteSpaceId: string }
  | { kind: 'site-page'; siteSpaceId: string; pageId: string };

interface RedirectRow {
  id: string;
  siteId: string;
  source: string;
  destination: Prisma.JsonValue;
  createdAt: Date;
  updatedAt: Date;
}

/** SiteRedirectSourcePath: `/` then URL path segments (unreserved characters or %XX), at most 512 characters. */
const SOURCE = z
  .string()
  .max(512, 'must be at most 512 characters')
  .regex(/^\/(?:[A-Za-z0-9\-._~]|%[0-9A-Fa-f]{2})+(?:\/(?:[A-Za-z0-9\-._~]|%[0-9A-Fa-f]{2})+)*$/, 'must be a path: "/" then segments of letters, digits, "-", ".", "_", "~" or %XX joined by "/"');

const SiteRedirectUrls = builder.objectRef<{ location: string }>('SiteRedirectUrls').implement({
  fields: (t) => ({ location: t.exposeString('location', { description: 'URL of the redirect in the API' }) }),
});

const SiteRedirect = builder.objectRef<RedirectRow>('SiteRedirect').implement({
  description: "A path of a site's published address that sends its visitors elsewhere on the site",
  fields: (t) => ({
    object: t.string({ resolve: () => 'site-redirect' }),
    id: t.exposeID('id'),
    source: t.exposeString('source', { description: 'The path redirected from (`/old/page`), under the site\'s address' }),
    destination: t.field({ type: 'JSON', description: 'Where it leads: a site section, a site space or a page of a site space', resolve: (r) => r.destination }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
    urls: t.field({
      type: SiteRedirectUrls,
      resolve: async (r, _a, ctx) => {
        const site = await ctx.loaders.siteFactsById.load(r.siteId);
        return { location: ctx.urls.api(`/orgs/${site.organizationId}/sites/${r.siteId}/redirects/${r.id}`) };
      },
    }),
  }),
});

const SiteRedirectList = listType<RedirectRow>('SiteRedirect', SiteRedirect);

const SiteRedirectMatch = builder.objectRef<{ redirect: RedirectRow; target: string }>('SiteRedirectMatch').implement({
  fields: (t) => ({
    redirect: t.field({ type: SiteRedirect, resolve: (m) => m.redirect }),
    target: t.exposeString('target', { description: 'The published URL the redirect leads to' }),
  }),
});

const CreateSiteRedirectInput = builder.inputType('CreateSiteRedirectInput', {
  fields: (t) => ({
    source: t.string({ required: true, validate: SOURCE }),
    destination: t.field({ type: 'JSON', required: true, description: 'SiteRedirectDestination' }),
  }),
});

const UpdateSiteRedirectInput = builder.inputType('UpdateSiteRedirectInput', {
  fields: (t) => ({
    source: t.string({ validate: SOURCE }),
    destination: t.field({ type: 'JSON', description: 'SiteRedirectDestination' }),
  }),
});

/** A destination as sent, checked to name a section, site space or page of the site; 400 otherwise. */
async function checkedDestination(ctx: Context, siteId: string, value: unknown): Promise<Destination> {
  const bad = (message: string): never => {
    throw new InvalidInputError(`destination: ${message}`);
  };
  if (value === null || typeof value !== 'object' || Array.isArray(value)) bad('must be an object { kind, ... }');
  const d = value as Record<string, unknown>;
  const id = (name: string) => (typeof d[name] === 'string' && d[name] !== '' ? (d[name] as string) : bad(`${name}: required, a string`));
  const siteSpace = async () => {
    const found = await ctx.db.siteSpace.findFirst({ where: { id: id('siteSpaceId'), siteId }, select: { id: true, space: { select: { revisionId: true } } } });
    return found ?? bad(`siteSpaceId: no site space ${String(d.siteSpaceId)} on this site`);
  };
  switch (d.kind) {
    case 'site-section': {
      const section = await ctx.db.siteSection.findFirst({ where: { id: id('siteSectionId'), siteId }, select: { id: true } });
      if (!section) bad(`siteSectionId: no section ${String(d.siteSectionId)} on this site`);
      return { kind: 'site-section', siteSectionId: section!.id };
    }
    case 'site-space':
      return { kind: 'site-space', siteSpaceId: (await siteSpace()).id };
    case 'site-page': {
      const found = await siteSpace();
      const pageId = id('pageId');
      const page = (await ctx.loaders.pagesByRevisionId.load(found.space.revisionId)).find((p) => p.id === pageId);
      if (!page || page.kind === 'link') bad(`pageId: no document page or group ${pageId} in the site space's content`);
      return { kind: 'site-page', siteSpaceId: found.id, pageId };
    }
    default:
      return bad('kind: must be site-section, site-space or site-page');
  }
}

async function loadRedirect(ctx: Context, siteId: string, redirectId: string): Promise<RedirectRow> {
  const redirect = await ctx.db.siteRedirect.findFirst({ where: { id: redirectId, siteId } });
  if (!redirect) throw new NotFoundError('Site redirect', redirectId);
  return redirect;
}

/** A write that would give the site two redirects from one source is a 409. */
async function uniqueSource<T>(source: string | null | undefined, write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (error) {
    if (isUniqueViolation(error)) throw new ConflictError(`source: the site already redirects ${JSON.stringify(source)}`);
    throw error;
  }
}

builder.prismaObjectFields(Site, (t) => ({
  redirects: t.field({
    type: SiteRedirectList,
    description: 'The redirects of the site, in creation order (needs site:update)',
    args: { ...pageArgs, search: t.arg.string({ description: 'Only redirects whose source contains this text' }) },
    resolve: (site, args, ctx) => {
      authorize(ctx.access.organization(site.organizationId), 'site:update', { type: 'Site', id: site.id });
      const where = { siteId: site.id, ...(args.search ? { source: { contains: args.search } } : {}) };
      return paginate({
        ...args,
        orderBy: [['createdAt', 'asc'], ['id', 'asc']],
        where,
        findMany: (a) => ctx.db.siteRedirect.findMany(a),
        count: (a) => ctx.db.siteRedirect.count(a),
      });
    },
  }),
}));

builder.queryFields((t) => ({
  siteRedirectBySource: t.field({
    type: SiteRedirectMatch,
    description: 'The redirect of a published site from `source`, and the URL it leads to (needs site:read, or the site\'s share key)',
    authScopes: { caller: true },
    args: { ...readableSiteArgs, source: t.arg.string({ required: true, validate: SOURCE }) },
    resolve: async (_root, { organizationId, siteId, source, shareKey }, ctx) => {
      const site = await loadReadableSite(ctx, String(organizationId), String(siteId), shareKey);
      const redirect = await ctx.db.siteRedirect.findUnique({ where: { siteId_source: { siteId: site.id, source } } });
      const target = redirect ? await redirectTargetUrl(ctx, site, redirect.destination) : null;
      if (!redirect || target === null) throw new NotFoundError('Site redirect', source);
      return { redirect, target };
    },
  }),
}));

builder.mutationFields((t) => ({
  createSiteRedirect: t.field({
    type: SiteRedirect,
    authScopes: { authenticated: true },
    args: { ...siteArgs, input: t.arg({ type: CreateSiteRedirectInput, required: true }) },
    resolve: async (_root, { organizationId, siteId, input }, ctx) => {
      const site = await loadSite(ctx, String(organizationId), String(siteId), 'site:update');
      const destination = await checkedDestination(ctx, site.id, input.destination);
      const created = await uniqueSource(input.source, () =>
        ctx.db.siteRedirect.create({ data: { id: newId(), siteId: site.id, source: input.source, destination: jsonInput(destination) } }),
      );
      await revalidateRenderer(ctx, { kind: 'site', site });
      return created;
    },
  }),

  updateSiteRedirect: t.field({
    type: SiteRedirect,
    authScopes: { authenticated: true },
    args: { ...siteArgs, siteRedirectId: t.arg.id({ required: true }), input: t.arg({ type: UpdateSiteRedirectInput, required: true }) },
    resolve: async (_root, { organizationId, siteId, siteRedirectId, input }, ctx) => {
      const site = await loadSite(ctx, String(organizationId), String(siteId), 'site:update');
      if (input.source === null) throw new InvalidInputError('source: must be a path');
      if (input.destination === null) throw new InvalidInputError('destination: must be an object { kind, ... }');
      if (input.source === undefined && input.destination === undefined) throw new InvalidInputError('give `source`, `destination` or both');
      const redirect = await loadRedirect(ctx, site.id, String(siteRedirectId));
      const destination = input.destination === undefined ? undefined : jsonInput(await checkedDestination(ctx, site.id, input.destination));
      const updated = await uniqueSource(input.source, () => ctx.db.siteRedirect.update({ where: { id: redirect.id }, data: { source: input.source ?? undefined, destination } }));
      await revalidateRenderer(ctx, { kind: 'site', site });
      return updated;
    },
  }),

  deleteSiteRedirect: t.boolean({
    description: 'Delete a redirect. False when there was nothing to delete.',
    authScopes: { authenticated: true },
    args: { ...siteArgs, siteRedirectId: t.arg.id({ required: true }) },
    resolve: async (_root, { organizationId, siteId, siteRedirectId }, ctx) => {
      const site = await loadSite(ctx, String(organizationId), String(siteId), 'site:update');
      const deleted = await ctx.db.siteRedirect.deleteMany({ where: { id: String(siteRedirectId), siteId: site.id } });
      if (deleted.count > 0) await revalidateRenderer(ctx, { kind: 'site', site });
      return deleted.count > 0;
    },
  }),
}));

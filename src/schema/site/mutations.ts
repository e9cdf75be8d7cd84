/**
 * Docs sites: create, update (PATCH), delete, publish and unpublish, and the
 * customizations. Roles (src/auth/policies.ts): create needs site:create;
 * title and the default section / site space need site:update; every other
 * setting (visibility, basename, hostname, proxy, adaptive content, agents
 * context, customizations) needs site:configure; publishing site:publish;
 * deletion site:delete.
 */
import { z } from 'zod';
import { authorize } from '../../auth/policies.ts';
import { builder } from '../../builder.ts';
import type { Context } from '../../context.ts';
import { jsonInput } from '../../db/json.ts';
import { ConflictError, InvalidInputError } from '../../errors/index.ts';
import { isUniqueViolation } from '../../errors/prisma.ts';
import { newId } from '../../ids.ts';
import { loadOrganization } from '../../services/organization.ts';
import { revalidateRenderer } from '../../services/renderer-revalidation.ts';
import { loadSite } from '../../services/site.ts';
import { slugify, uniqueSlug } from '../../slug.ts';
import { SiteAgentsContext, SiteType, SiteVisibility } from '../shared/enums.ts';
import { applySiteCustomizations } from './customizations.ts';
import { Site } from './type.ts';

export const DEFAULT_SITE_TITLE = 'Docs site';
export const SITE_TITLE = z.string().min(2, 'must be between 2 and 128 characters').max(128, 'must be between 2 and 128 characters');
/** A basename is one path segment of the published URL. */
export const SITE_BASENAME = z
  .string()
  .min(1, 'must be between 1 and 100 characters')
  .max(100, 'must be between 1 and 100 characters')
  .regex(/^[A-Za-z0-9][A-Za-z0-9._-]*$/, 'must be letters, digits, ".", "_" or "-", starting with a letter or digit');
export const SITE_HOSTNAME = z
  .string()
  .max(512, 'must be at most 512 characters')
  .regex(/^([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?[.]){2,}[a-z0-9][a-z0-9-]{0,61}[a-z0-9]$/, 'must be a host name such as docs.example.com (lowercase, at least three labels)');
export const SITE_PROXY = z
  .string()
  .max(512, 'must be at most 512 characters')
  .regex(/^([\w-]+\.)*[\w-]+\.[a-zA-Z]{2,}(\/[\w-]+)+$/, 'must be a host name followed by one or more path segments, such as example.com/docs');

const SiteAdaptiveContentInput = builder.inputType('SiteAdaptiveContentInput', {
  fields: (t) => ({ enabled: t.boolean({ required: true }) }),
});

const CreateSiteInput = builder.inputType('CreateSiteInput', {
  fields: (t) => ({
    type: t.field({ type: SiteType, description: 'Default basic' }),
    title: t.string({ validate: SITE_TITLE, description: `Default "${DEFAULT_SITE_TITLE}"` }),
    visibility: t.field({ type: SiteVisibility, description: 'Default public' }),
    spaces: t.stringList({ description: 'Ids of spaces of the organization, each added as a site space at the root of the site' }),
  }),
});

const UpdateSiteInput = builder.inputType('UpdateSiteInput', {
  fields: (t) => ({
    title: t.string({ validate: SITE_TITLE }),
    visibility: t.field({ type: SiteVisibility }),
    basename: t.string({ validate: SITE_BASENAME, description: 'Unique among the sites of the organization' }),
    hostname: t.string({ validate: SITE_HOSTNAME, description: 'Custom hostname; null removes it' }),
    proxy: t.string({ validate: SITE_PROXY, description: 'Proxy origin (host/path); null removes it' }),
    adaptiveContent: t.field({ type: SiteAdaptiveContentInput }),
    agentsContext: t.field({ type: SiteAgentsContext }),
    defaultSiteSpace: t.string({ description: "Id of a site space: the default at the root, or in the site's default section when it has sections" }),
    defaultSiteSection: t.string({ description: 'Id of a section of the site: the default section' }),
    customizations: t.field({ type: 'JSON', description: 'Extension: a partial SiteCustomizationSettings, deep-merged into the current one' }),
  }),
});

/** Throws 400 when a body member that must not be null is. */
function notNull<T>(name: string, value: T | null | undefined): T | undefined {
  if (value === null) throw new InvalidInputError(`${name}: must not be null`);
  return value;
}

type SiteQuery = Record<string, unknown>;

/**
 * Deep-merges `patch` into the stored customizations of a site and writes the
 * result, compare-and-set on the stored value so that two concurrent partial
 * updates both land (the loser merges again on top of the winner's value).
 * The comparison is Prisma's Json `equals`: jsonb equality on PostgreSQL (key
 * order and spacing do not matter), the text on SQLite, which holds exactly
 * what Prisma wrote (JSON.stringify of the value, so the read value written
 * again compares equal).
 */
async function writeCustomizations(ctx: Context, siteId: string, patch: unknown): Promise<void> {
  for (let attempt = 1; attempt <= 5; attempt++) {
    const { customizations } = await ctx.db.site.findUniqueOrThrow({ where: { id: siteId }, select: { customizations: true } });
    const next = applySiteCustomizations(customizations, patch);
    const written = await ctx.db.site.updateMany({
      where: { id: siteId, customizations: { equals: jsonInput(customizations) } },
      data: { customizations: jsonInput(next) },
    });
    if (written.count > 0) return;
  }
  throw new ConflictError('customizations: the site was changed concurrently too many times; try again');
}

async function createSiteRow(
  ctx: Context,
  query: SiteQuery,
  data: { organizationId: string; title: string; type: string; visibility: string; spaces: Array<{ id: string; title: string }> },
) {
  const base = slugify(data.title, 'site');
  // The basename is unique per organization: a concurrent creation taking the same one makes the insert fail; try again.
  for (let attempt = 1; ; attempt++) {
    try {
      return await ctx.db.$transaction(async (tx) => {
        const existing = await tx.site.findMany({
          where: { organizationId: data.organizationId, basename: { startsWith: base.slice(0, 90) } },
          select: { basename: true },
        });
        const basename = uniqueSlug(base, new Set(existing.map((s) => s.basename)));
        const id = newId();
        await tx.site.create({
          data: { id, organizationId: data.organizationId, title: data.title, type: data.type, visibility: data.visibility, basename },
        });
        const paths = new Set<string>();
        for (const [index, space] of data.spaces.entries()) {
          const path = uniqueSlug(slugify(space.title, 'space'), paths);
          paths.add(path);
          await tx.siteSpace.create({
            data: { id: newId(), siteId: id, sectionId: null, spaceId: space.id, path, isDefault: index === 0, position: index + 1 },
          });
        }
        return tx.site.findUniqueOrThrow({ ...query, where: { id } });
      });
    } catch (error) {
      if (!isUniqueViolation(error) || attempt >= 5) throw error;
    }
  }
}

/** Checks the `defaultSiteSpace` of a PATCH and returns what to change. */
async function resolveDefaultSiteSpace(ctx: Context, site: { id: string; defaultSectionId: string | null }, siteSpaceId: string, defaultSectionId: string | null) {
  const siteSpace = await ctx.db.siteSpace.findFirst({ where: { id: siteSpaceId, siteId: site.id }, select: { id: true, sectionId: true } });
  if (!siteSpace) throw new InvalidInputError(`defaultSiteSpace: the site has no site space ${JSON.stringify(siteSpaceId)}`);
  const sections = await ctx.db.siteSection.findMany({ where: { siteId: site.id }, orderBy: [{ position: 'asc' }, { id: 'asc' }], select: { id: true } });
  if (sections.length === 0) return siteSpace;
  const defaultSection = (defaultSectionId && sections.find((s) => s.id === defaultSectionId)) || sections[0]!;
  if (siteSpace.sectionId !== defaultSection.id) {
    throw new InvalidInputError(
      `defaultSiteSpace: site space ${JSON.stringify(siteSpaceId)} is not in the default section ${JSON.stringify(defaultSection.id)} of the site`,
    );
  }
  return siteSpace;
}

builder.mutationFields((t) => ({
  createSite: t.prismaField({
    type: Site,
    authScopes: { authenticated: true },
    args: { organizationId: t.arg.id({ required: true }), input: t.arg({ type: CreateSiteInput, required: true }) },
    resolve: async (query, _root, { organizationId, input }, ctx) => {
      const orgId = String(organizationId);
      await loadOrganization(ctx, orgId, 'site:create');
      const spaceIds = [...new Set(input.spaces ?? [])];
      const found = spaceIds.length
        ? await ctx.db.space.findMany({ where: { id: { in: spaceIds }, organizationId: orgId, deletedAt: null }, select: { id: true, title: true } })
        : [];
      const byId = new Map(found.map((s) => [s.id, s]));
      const missing = spaceIds.find((id) => !byId.has(id));
      if (missing) throw new InvalidInputError(`spaces: the organization has no space ${JSON.stringify(missing)}`);
      return createSiteRow(ctx, query, {
        organizationId: orgId,
        title: input.title ?? DEFAULT_SITE_TITLE,
        type: input.type ?? 'basic',
        visibility: input.visibility ?? 'public',
        spaces: spaceIds.map((id) => byId.get(id)!),
      });
    },
  }),

  updateSite: t.prismaField({
    type: Site,
    authScopes: { authenticated: true },
    args: {
      organizationId: t.arg.id({ required: true }),
      siteId: t.arg.id({ required: true }),
      input: t.arg({ type: UpdateSiteInput, required: true }),
    },
    resolve: async (query, _root, { organizationId, siteId, input }, ctx) => {
      const orgId = String(organizationId);
      const id = String(siteId);
      const site = await loadSite(ctx, orgId, id, 'site:update');
      const settings = ['visibility', 'basename', 'hostname', 'proxy', 'adaptiveContent', 'agentsContext', 'customizations'] as const;
      if (settings.some((k) => input[k] !== undefined)) authorize(ctx.access.organization(orgId), 'site:configure', { type: 'Site', id });

      const data: Record<string, unknown> = {
        title: notNull('title', input.title),
        visibility: notNull('visibility', input.visibility),
        agentsContext: notNull('agentsContext', input.agentsContext),
        adaptiveContent: notNull('adaptiveContent', input.adaptiveContent)?.enabled,
      };
      if (input.proxy !== undefined) data.proxy = input.proxy;

      const basename = notNull('basename', input.basename);
      if (basename !== undefined && basename !== site.basename) {
        const taken = await ctx.db.site.findFirst({ where: { organizationId: orgId, basename, id: { not: id } }, select: { id: true } });
        if (taken) throw new ConflictError(`basename: ${JSON.stringify(basename)} is already used by another site of this organization`);
        data.basename = basename;
      }
      if (input.hostname !== undefined && input.hostname !== site.hostname) {
        if (input.hostname !== null) {
          // The host every site is published under (SITES_URL) is no one site's: its URLs name the site in their path.
          if (input.hostname.toLowerCase() === new URL(ctx.config.sitesUrl).hostname) {
            throw new InvalidInputError(`hostname: ${JSON.stringify(input.hostname)} is the address of every site (SITES_URL), not one site's`);
          }
          const taken = await ctx.db.site.findFirst({ where: { hostname: input.hostname, id: { not: id } }, select: { id: true } });
          if (taken) throw new ConflictError(`hostname: ${JSON.stringify(input.hostname)} is already used by another site`);
        }
        data.hostname = input.hostname;
      }
      // Validated now (400 before anything is written), written last, compare-and-set.
      const customizations = notNull('customizations', input.customizations);
      if (customizations !== undefined) applySiteCustomizations(site.customizations, customizations);

      const sectionId = notNull('defaultSiteSection', input.defaultSiteSection);
      if (sectionId !== undefined) {
        const section = await ctx.db.siteSection.findFirst({ where: { id: sectionId, siteId: id }, select: { id: true } });
        if (!section) throw new InvalidInputError(`defaultSiteSection: the site has no section ${JSON.stringify(sectionId)}`);
        data.defaultSectionId = section.id;
      }
      const siteSpaceId = notNull('defaultSiteSpace', input.defaultSiteSpace);
      const defaultSiteSpace =
        siteSpaceId === undefined ? null : await resolveDefaultSiteSpace(ctx, site, siteSpaceId, sectionId ?? site.defaultSectionId);

      if (customizations !== undefined) await writeCustomizations(ctx, id, customizations);
      const updated = await ctx.db.$transaction(async (tx) => {
        if (defaultSiteSpace) {
          await tx.siteSpace.updateMany({ where: { siteId: id, sectionId: defaultSiteSpace.sectionId, id: { not: defaultSiteSpace.id } }, data: { isDefault: false } });
          await tx.siteSpace.update({ where: { id: defaultSiteSpace.id }, data: { isDefault: true } });
          if (defaultSiteSpace.sectionId) {
            await tx.siteSection.update({ where: { id: defaultSiteSpace.sectionId }, data: { defaultSiteSpaceId: defaultSiteSpace.id } });
          }
        }
        return tx.site.update({ ...query, where: { id }, data });
      });
      await revalidateRenderer(ctx, { kind: 'site', site });
      return updated;
    },
  }),

  updateSiteCustomizations: t.prismaField({
    type: Site,
    description: 'Deep-merge a partial SiteCustomizationSettings into the site\'s (null members go back to their default)',
    authScopes: { authenticated: true },
    args: {
      organizationId: t.arg.id({ required: true }),
      siteId: t.arg.id({ required: true }),
      customizations: t.arg({ type: 'JSON', required: true }),
    },
    resolve: async (query, _root, { organizationId, siteId, customizations }, ctx) => {
      const id = String(siteId);
      const site = await loadSite(ctx, String(organizationId), id, 'site:configure');
      await writeCustomizations(ctx, id, customizations);
      await revalidateRenderer(ctx, { kind: 'site', site });
      return ctx.db.site.findUniqueOrThrow({ ...query, where: { id } });
    },
  }),

  deleteSite: t.boolean({
    description: 'Delete a site with its sections, section groups, site spaces and share links (not the spaces). False when there was nothing to delete.',
    authScopes: { authenticated: true },
    args: { organizationId: t.arg.id({ required: true }), siteId: t.arg.id({ required: true }) },
    resolve: async (_root, { organizationId, siteId }, ctx) => {
      const orgId = String(organizationId);
      const id = String(siteId);
      ctx.access.requireViewer();
      // Not a member of the organization: 404, whether or not the site exists.
      authorize(ctx.access.organization(orgId), 'site:read', { type: 'Site', id });
      const found = await ctx.db.site.findUnique({ where: { id }, select: { id: true } });
      if (!found) return false;
      const site = await loadSite(ctx, orgId, id, 'site:delete');
      const deleted = await ctx.db.$transaction(async (tx) => {
        await tx.siteShareLink.deleteMany({ where: { siteId: id } });
        await tx.siteRedirect.deleteMany({ where: { siteId: id } });
        await tx.siteSpace.deleteMany({ where: { siteId: id } });
        await tx.siteSection.deleteMany({ where: { siteId: id } });
        await tx.siteSectionGroup.deleteMany({ where: { siteId: id } });
        // The organization's default content was this site: it has none now.
        await tx.organization.updateMany({ where: { id: orgId, defaultSiteId: id }, data: { defaultSiteId: null } });
        return tx.site.deleteMany({ where: { id } });
      });
      // The site as it was: the renderer drops what it cached of it, published until now.
      if (deleted.count > 0) await revalidateRenderer(ctx, { kind: 'site', site });
      return deleted.count > 0;
    },
  }),

  publishSite: t.prismaField({
    type: Site,
    description: 'Publish the site to the audience its visibility sets; publishing a published site changes nothing',
    authScopes: { authenticated: true },
    args: { organizationId: t.arg.id({ required: true }), siteId: t.arg.id({ required: true }) },
    resolve: async (query, _root, { organizationId, siteId }, ctx) => {
      const id = String(siteId);
      const site = await loadSite(ctx, String(organizationId), id, 'site:publish', query);
      if (site.published) return site;
      const published = await ctx.db.site.update({ ...query, where: { id }, data: { published: true, publishedAt: new Date() } });
      await revalidateRenderer(ctx, { kind: 'site-publication', site, published: true });
      return published;
    },
  }),

  unpublishSite: t.prismaField({
    type: Site,
    description: 'Take the site offline; unpublishing an unpublished site changes nothing',
    authScopes: { authenticated: true },
    args: { organizationId: t.arg.id({ required: true }), siteId: t.arg.id({ required: true }) },
    resolve: async (query, _root, { organizationId, siteId }, ctx) => {
      const id = String(siteId);
      const site = await loadSite(ctx, String(organizationId), id, 'site:publish', query);
      if (!site.published) return site;
      const unpublished = await ctx.db.site.update({ ...query, where: { id }, data: { published: false, unpublishedAt: new Date() } });
      await revalidateRenderer(ctx, { kind: 'site-publication', site, published: false });
      return unpublished;
    },
  }),
}));

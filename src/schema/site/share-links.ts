/**
 * Share links of a site: secret keys that open a `share-link` site. The key
 * is shown once, in `urls.published` of the creation response; only its hash
 * is stored (see ./share-key.ts). Everything here needs site:update.
 */
import { z } from 'zod';
import { authorize } from '../../auth/policies.ts';
import { generateShareKey } from '../../auth/share-keys.ts';
import { builder } from '../../builder.ts';
import type { Context } from '../../context.ts';
import { paginate } from '../../db/pagination.ts';
import { InvalidInputError, NotFoundError } from '../../errors/index.ts';
import { newId } from '../../ids.ts';
import { sharedSiteUrl } from '../../services/published-urls.ts';
import { revalidateRenderer } from '../../services/renderer-revalidation.ts';
import { loadSite } from '../../services/site.ts';
import { listType, pageArgs } from '../shared/pagination.ts';
import { siteArgs } from './args.ts';
import { Site } from './type.ts';

interface ShareLinkShape {
  id: string;
  name: string;
  active: boolean;
  createdAt: Date;
  /** Only right after creation: the published URL carrying the key. */
  published?: string | null;
  /** Only right after creation: the link's URL in the API. */
  location?: string;
}

const SHARE_LINK_NAME = z.string().max(50, 'must be at most 50 characters');

const ShareLinkUrls = builder.objectRef<{ published: string | null; location: string | null }>('ShareLinkUrls').implement({
  fields: (t) => ({
    location: t.exposeString('location', { nullable: true, description: 'URL of the link in the API; only in the response that creates the link' }),
    published: t.exposeString('published', {
      nullable: true,
      description: 'The published site opened with the key; only in the response that creates the link (the key is not stored)',
    }),
  }),
});

export const ShareLink = builder.objectRef<ShareLinkShape>('ShareLink').implement({
  description: 'A secret link to a site whose visibility is share-link',
  fields: (t) => ({
    object: t.string({ resolve: () => 'share-link' }),
    id: t.exposeID('id'),
    name: t.exposeString('name'),
    active: t.exposeBoolean('active'),
    createdAt: t.field({ type: 'DateTime', resolve: (l) => l.createdAt }),
    urls: t.field({ type: ShareLinkUrls, resolve: (l) => ({ published: l.published ?? null, location: l.location ?? null }) }),
  }),
});

export const ShareLinkList = listType<ShareLinkShape>('ShareLink', ShareLink);

const CreateSiteShareLinkInput = builder.inputType('CreateSiteShareLinkInput', {
  fields: (t) => ({ name: t.string({ required: true, validate: SHARE_LINK_NAME }) }),
});

const UpdateSiteShareLinkInput = builder.inputType('UpdateSiteShareLinkInput', {
  fields: (t) => ({
    active: t.boolean({ description: 'false: the key stops opening the site' }),
    name: t.string({ validate: SHARE_LINK_NAME }),
  }),
});

const linkSelect = { id: true, name: true, active: true, createdAt: true } as const;

async function loadShareLink(ctx: Context, siteId: string, shareLinkId: string) {
  return ctx.db.siteShareLink.findFirst({ where: { id: shareLinkId, siteId }, select: linkSelect });
}

builder.prismaObjectFields(Site, (t) => ({
  shareLinks: t.field({
    type: ShareLinkList,
    description: 'The share links of the site, in creation order (needs site:update)',
    args: pageArgs,
    resolve: (site, args, ctx) => {
      authorize(ctx.access.organization(site.organizationId), 'site:update', { type: 'Site', id: site.id });
      return paginate({
        ...args,
        orderBy: [['createdAt', 'asc'], ['id', 'asc']],
        where: { siteId: site.id },
        findMany: (a) => ctx.db.siteShareLink.findMany({ ...a, select: linkSelect }),
        count: (a) => ctx.db.siteShareLink.count(a),
      });
    },
  }),
}));

builder.mutationFields((t) => ({
  createSiteShareLink: t.field({
    type: ShareLink,
    description: 'Create a share link; its key is only in `urls.published` of this response',
    authScopes: { authenticated: true },
    args: { ...siteArgs, input: t.arg({ type: CreateSiteShareLinkInput, required: true }) },
    resolve: async (_root, { organizationId, siteId, input }, ctx) => {
      const site = await loadSite(ctx, String(organizationId), String(siteId), 'site:update');
      const { key, hash } = generateShareKey();
      const link = await ctx.db.siteShareLink.create({
        data: { id: newId(), siteId: site.id, name: input.name, keyHash: hash },
        select: linkSelect,
      });
      return {
        ...link,
        published: sharedSiteUrl(ctx.urls, site, key),
        location: ctx.urls.api(`/orgs/${site.organizationId}/sites/${site.id}/share-links/${link.id}`),
      };
    },
  }),

  updateSiteShareLink: t.field({
    type: ShareLink,
    authScopes: { authenticated: true },
    args: { ...siteArgs, shareLinkId: t.arg.id({ required: true }), input: t.arg({ type: UpdateSiteShareLinkInput, required: true }) },
    resolve: async (_root, { organizationId, siteId, shareLinkId, input }, ctx) => {
      const site = await loadSite(ctx, String(organizationId), String(siteId), 'site:update');
      if (input.active === undefined && input.name === undefined) throw new InvalidInputError('give `active`, `name` or both');
      if (input.active === null) throw new InvalidInputError('active: must be true or false');
      if (input.name === null) throw new InvalidInputError('name: must be a string');
      const link = await loadShareLink(ctx, site.id, String(shareLinkId));
      if (!link) throw new NotFoundError('Share link', String(shareLinkId));
      const updated = await ctx.db.siteShareLink.update({ where: { id: link.id }, data: { active: input.active, name: input.name }, select: linkSelect });
      // The renderer keeps what it read with the key: a key turned off must stop opening it there too.
      if (updated.active !== link.active) await revalidateRenderer(ctx, { kind: 'site', site });
      return updated;
    },
  }),

  deleteSiteShareLink: t.boolean({
    description: 'Delete a share link; its key stops opening the site. False when there was nothing to delete.',
    authScopes: { authenticated: true },
    args: { ...siteArgs, shareLinkId: t.arg.id({ required: true }) },
    resolve: async (_root, { organizationId, siteId, shareLinkId }, ctx) => {
      const site = await loadSite(ctx, String(organizationId), String(siteId), 'site:update');
      const deleted = await ctx.db.siteShareLink.deleteMany({ where: { id: String(shareLinkId), siteId: site.id } });
      if (deleted.count > 0) await revalidateRenderer(ctx, { kind: 'site', site });
      return deleted.count > 0;
    },
  }),
}));

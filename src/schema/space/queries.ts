import { authorize, requireScope } from '../../auth/policies.ts';
import { builder } from '../../builder.ts';
import { paginate } from '../../db/pagination.ts';
import { readableContent, readableIn, spacesOpened } from '../../services/content-grant.ts';
import { resolveEmbed } from '../../services/embed.ts';
import { loadSpace } from '../../services/space.ts';
import { Collection } from '../collection/type.ts';
import { Organization } from '../organization/type.ts';
import { itemsQuery, listType, pageArgs } from '../shared/pagination.ts';
import { Space } from './type.ts';

export const SpaceList = listType('Space', Space);

/** List orders (paginate's sort keys). */
const CREATION_ORDER = [['createdAt', 'asc'], ['id', 'asc']] as const;
const POSITION_ORDER = [['position', 'asc'], ['id', 'asc']] as const;

builder.queryField('space', (t) =>
  t.prismaField({
    type: Space,
    authScopes: { caller: true },
    args: {
      id: t.arg.id({ required: true }),
      shareKey: t.arg.string({
        description: 'Share key of a share-link site publishing the space: lets a non-member read it, and goes into `urls.published`',
      }),
    },
    resolve: (query, _root, { id, shareKey }, ctx) => loadSpace(ctx, String(id), 'space:read', query, { shareKey }),
  }),
);

builder.prismaObjectFields(Organization, (t) => ({
  spaces: t.field({
    type: SpaceList,
    description: 'Spaces of the organization (not those in the bin)',
    args: pageArgs,
    resolve: async (org, args, ctx, info) => {
      const subject = ctx.access.organization(org.id);
      authorize(subject, 'organization:read', { type: 'Organization', id: org.id });
      requireScope(subject, 'space:read');
      // Members with a role read every space (default levels and grants only raise roles); guests what their grants open.
      const opened = await readableContent(ctx, org.id, 'space:read');
      const where = { organizationId: org.id, deletedAt: null, ...(opened ? spacesOpened(opened) : {}) };
      const query = itemsQuery(ctx, info, CREATION_ORDER);
      return paginate({
        ...args,
        orderBy: CREATION_ORDER,
        where,
        findMany: (a) => ctx.db.space.findMany({ ...query, ...a }),
        count: (a) => ctx.db.space.count(a),
      });
    },
  }),
}));

builder.prismaObjectFields(Collection, (t) => ({
  spaces: t.field({
    type: SpaceList,
    description: 'Spaces directly in the collection, in their order (those the caller may read)',
    args: pageArgs,
    resolve: async (collection, args, ctx, info) => {
      const opened = await readableIn(ctx, collection, 'space:read');
      const query = itemsQuery(ctx, info, POSITION_ORDER);
      return paginate({
        ...args,
        orderBy: POSITION_ORDER,
        where: { parentId: collection.id, deletedAt: null, ...(opened ? spacesOpened(opened) : {}) },
        findMany: (a) => ctx.db.space.findMany({ ...query, ...a }),
        count: (a) => ctx.db.space.count(a),
      });
    },
  }),
}));

builder.queryField('spaceEmbed', (t) =>
  t.field({
    type: 'JSON',
    description: 'What a URL embeds as in a space (Embed: a link, or rich HTML from its oEmbed endpoint), read from the page it names',
    authScopes: { caller: true },
    args: { spaceId: t.arg.id({ required: true }), url: t.arg.string({ required: true }) },
    resolve: async (_root, args, ctx) => {
      await loadSpace(ctx, String(args.spaceId), 'space:read');
      return resolveEmbed(args.url, { allowPrivateAddresses: ctx.config.fetch.allowPrivateAddresses, timeoutMs: ctx.config.fetch.timeoutMs });
    },
  }),
);

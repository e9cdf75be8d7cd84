import { authorize, requireScope } from '../../auth/policies.ts';
import { builder } from '../../builder.ts';
import { paginate } from '../../db/pagination.ts';
import { loadCollection } from '../../services/collection.ts';
import { readableContent, readableIn } from '../../services/content-grant.ts';
import { Organization } from '../organization/type.ts';
import { itemsQuery, listType, pageArgs } from '../shared/pagination.ts';
import { Collection } from './type.ts';

export const CollectionList = listType('Collection', Collection);

builder.queryField('collection', (t) =>
  t.prismaField({
    type: Collection,
    authScopes: { authenticated: true },
    args: { id: t.arg.id({ required: true }) },
    resolve: (query, _root, { id }, ctx) => loadCollection(ctx, String(id), 'collection:read', query),
  }),
);

builder.prismaObjectFields(Organization, (t) => ({
  collections: t.field({
    type: CollectionList,
    description: 'Collections of the organization',
    args: {
      ...pageArgs,
      nested: t.arg.boolean({ description: 'Include nested collections (default true); false lists only top-level ones' }),
    },
    resolve: async (org, args, ctx, info) => {
      const subject = ctx.access.organization(org.id);
      authorize(subject, 'organization:read', { type: 'Organization', id: org.id });
      requireScope(subject, 'collection:read');
      // Members with a role read every collection (default levels and grants only raise roles); guests what their grants open.
      const opened = await readableContent(ctx, org.id, 'collection:read');
      const where = {
        organizationId: org.id,
        ...(args.nested === false ? { parentId: null } : {}),
        ...(opened ? { id: { in: opened.collectionIds } } : {}),
      };
      const query = itemsQuery(ctx, info);
      return paginate({
        page: args.page,
        limit: args.limit,
        orderBy: [['createdAt', 'asc'], ['id', 'asc']],
        where,
        findMany: (a) => ctx.db.collection.findMany({ ...query, ...a }),
        count: (a) => ctx.db.collection.count(a),
      });
    },
  }),
}));

builder.prismaObjectFields(Collection, (t) => ({
  collections: t.field({
    type: CollectionList,
    description: 'Collections directly inside this one, in their order (those the caller may read)',
    args: pageArgs,
    resolve: async (collection, args, ctx, info) => {
      const opened = await readableIn(ctx, collection, 'collection:read');
      const query = itemsQuery(ctx, info);
      return paginate({
        ...args,
        orderBy: [['position', 'asc'], ['id', 'asc']],
        where: { parentId: collection.id, ...(opened ? { id: { in: opened.collectionIds } } : {}) },
        findMany: (a) => ctx.db.collection.findMany({ ...query, ...a }),
        count: (a) => ctx.db.collection.count(a),
      });
    },
  }),
}));

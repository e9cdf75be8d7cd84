import { authorize, can, requireScope } from '../../auth/policies.ts';
import { builder } from '../../builder.ts';
import { paginate } from '../../db/pagination.ts';
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
    authScopes: { authenticated: true },
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
    resolve: (org, args, ctx, info) => {
      const subject = ctx.access.organization(org.id);
      authorize(subject, 'organization:read', { type: 'Organization', id: org.id });
      requireScope(subject, 'space:read');
      const where = can(subject, 'space:read') ? { organizationId: org.id, deletedAt: null } : { id: { in: [] as string[] } };
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
    description: 'Spaces directly in the collection, in their order',
    args: pageArgs,
    resolve: (collection, args, ctx, info) => {
      const query = itemsQuery(ctx, info, POSITION_ORDER);
      return paginate({
        ...args,
        orderBy: POSITION_ORDER,
        where: { parentId: collection.id, deletedAt: null },
        findMany: (a) => ctx.db.space.findMany({ ...query, ...a }),
        count: (a) => ctx.db.space.count(a),
      });
    },
  }),
}));

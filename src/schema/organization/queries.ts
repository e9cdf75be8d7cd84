import { authorize } from '../../auth/policies.ts';
import { builder } from '../../builder.ts';
import { paginate } from '../../db/pagination.ts';
import { loadOrganization } from '../../services/organization.ts';
import { itemsQuery, listType, pageArgs } from '../shared/pagination.ts';
import { Organization } from './type.ts';

export const OrganizationList = listType('Organization', Organization);

builder.queryFields((t) => ({
  organization: t.prismaField({
    type: Organization,
    description: 'An organization the caller belongs to',
    authScopes: { authenticated: true },
    args: { id: t.arg.id({ required: true }) },
    resolve: (query, _root, { id }, ctx) => loadOrganization(ctx, String(id), 'organization:read', query),
  }),
  organizations: t.field({
    type: OrganizationList,
    description: 'The organizations the caller belongs to',
    authScopes: { authenticated: true },
    args: pageArgs,
    resolve: (_root, args, ctx, info) => {
      const userId = ctx.access.requireViewer().userId;
      authorize(ctx.access.account(), 'account:list-organizations', { type: 'User', id: userId });
      const query = itemsQuery(ctx, info);
      return paginate({
        ...args,
        orderBy: [['createdAt', 'asc'], ['id', 'asc']],
        where: { members: { some: { userId } } },
        findMany: (a) => ctx.db.organization.findMany({ ...query, ...a }),
        count: (a) => ctx.db.organization.count(a),
      });
    },
  }),
}));

import { z } from 'zod';
import { authorize, can, requireScope } from '../../auth/policies.ts';
import { builder } from '../../builder.ts';
import { paginate } from '../../db/pagination.ts';
import { loadChangeRequest } from '../../services/change-request.ts';
import { loadSpace } from '../../services/space.ts';
import { Organization } from '../organization/type.ts';
import { itemsQuery, listType, pageArgs } from '../shared/pagination.ts';
import { Space } from '../space/type.ts';
import { ChangeRequest, ChangeRequestStatus } from './type.ts';

export const ChangeRequestList = listType('ChangeRequest', ChangeRequest);

const filterArgs = builder.args((t) => ({
  status: t.field({ type: ChangeRequestStatus, description: 'Only change requests in this status (default: open)' }),
  creator: t.string({ description: 'Only change requests created by this user' }),
  contributor: t.string({ description: 'Only change requests this user edited' }),
  requestedReviewer: t.string({ description: "Only change requests awaiting this user's review (a pending review request)" }),
  conversationsIssuesCluster: t.string({ description: 'Only change requests opened from this issues cluster (docs insights)' }),
}));

function filters(args: { status?: string | null; creator?: string | null; contributor?: string | null; requestedReviewer?: string | null; conversationsIssuesCluster?: string | null }) {
  return {
    status: args.status ?? 'open',
    ...(args.creator ? { createdById: args.creator } : {}),
    ...(args.contributor ? { contributors: { some: { userId: args.contributor } } } : {}),
    ...(args.requestedReviewer ? { reviewRequests: { some: { reviewerId: args.requestedReviewer } } } : {}),
    ...(args.conversationsIssuesCluster ? { conversationsIssuesClusterId: args.conversationsIssuesCluster } : {}),
  };
}

builder.queryFields((t) => ({
  changeRequest: t.prismaField({
    type: ChangeRequest,
    authScopes: { authenticated: true },
    args: { spaceId: t.arg.id({ required: true }), changeRequestId: t.arg.string({ required: true, description: 'Id or number' }) },
    resolve: async (query, _root, args, ctx) => {
      const { changeRequest } = await loadChangeRequest(ctx, String(args.spaceId), args.changeRequestId, 'change-request:read');
      return ctx.db.changeRequest.findUniqueOrThrow({ ...query, where: { id: changeRequest.id } });
    },
  }),
}));

builder.queryField('spaceChangeRequests', (t) =>
  t.field({
    type: ChangeRequestList,
    description: 'Change requests of a space, newest first, a page at a time',
    authScopes: { authenticated: true },
    args: { spaceId: t.arg.id({ required: true }), ...filterArgs, ...pageArgs },
    resolve: async (_root, args, ctx, info) => {
      const space = await loadSpace(ctx, String(args.spaceId), 'change-request:read');
      const query = itemsQuery(ctx, info);
      return paginate({
        ...args,
        orderBy: [['createdAt', 'desc'], ['id', 'desc']],
        where: { spaceId: space.id, ...filters(args) },
        findMany: (a) => ctx.db.changeRequest.findMany({ ...query, ...a }),
        count: (a) => ctx.db.changeRequest.count(a),
      });
    },
  }),
);

// In a graph of spaces, a relation: loaded with the spaces (no query per space).
builder.prismaObjectFields(Space, (t) => ({
  changeRequests: t.relation('changeRequests', {
    description: 'Change requests of the space, newest first (all statuses unless `status` is given; at most `limit`)',
    args: {
      status: t.arg({ type: ChangeRequestStatus }),
      limit: t.arg.int({ defaultValue: 100, validate: z.number().int().min(1).max(1000) }),
    },
    query: (args) => ({
      where: args.status ? { status: args.status } : {},
      orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
      take: args.limit ?? 100,
    }),
  }),
}));

builder.prismaObjectFields(Organization, (t) => ({
  changeRequests: t.field({
    type: ChangeRequestList,
    description: 'Change requests of every space of the organization the caller may read, newest first',
    args: { ...filterArgs, ...pageArgs },
    resolve: async (org, args, ctx, info) => {
      const subject = ctx.access.organization(org.id);
      authorize(subject, 'organization:read', { type: 'Organization', id: org.id });
      requireScope(subject, 'change-request:read');
      // Members who may read content see every space's change requests; others (guests) none.
      const where = can(subject, 'change-request:read')
        ? { space: { organizationId: org.id, deletedAt: null }, ...filters(args) }
        : { id: { in: [] as string[] } };
      const query = itemsQuery(ctx, info);
      return paginate({
        ...args,
        orderBy: [['createdAt', 'desc'], ['id', 'desc']],
        where,
        findMany: (a) => ctx.db.changeRequest.findMany({ ...query, ...a }),
        count: (a) => ctx.db.changeRequest.count(a),
      });
    },
  }),
}));

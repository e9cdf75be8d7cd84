import { authorize } from '../../auth/policies.ts';
import { builder } from '../../builder.ts';
import type { Context } from '../../context.ts';
import { paginate } from '../../db/pagination.ts';
import { containsInsensitive, escapeLike } from '../../db/provider/like.ts';
import { loadMember } from '../../services/member.ts';
import { Organization } from '../organization/type.ts';
import { MemberRole, ROLES_DESCENDING, SortDirection } from '../shared/enums.ts';
import { itemsQuery, listType, pageArgs } from '../shared/pagination.ts';
import { Member } from './type.ts';

export const MemberList = listType('Member', Member);

const MemberSort = builder.enumType('MemberSort', { values: ['joinedAt', 'lastSeenAt'] as const });
const MemberRoleFilter = builder.enumType('MemberRoleFilter', {
  description: 'A member role, or `guest` for members without one',
  values: [...ROLES_DESCENDING, 'guest'] as const,
});

/**
 * The `where` part for members whose display name or e-mail contains `search`
 * literally (`%` and `_` included), ignoring case. Where Prisma's `contains`
 * cannot match literally (SQLite with `%` or `_` in the search, see
 * containsInsensitive), the matching members are found with raw SQL using
 * LIKE's ESCAPE clause and filtered by id. That id list is bounded by SQLite's
 * 32766 bound parameters: past that many matching members the query fails.
 */
async function searchFilter(ctx: Context, organizationId: string, search: string): Promise<Record<string, unknown>> {
  const filter = containsInsensitive(ctx.provider, search);
  if (filter) return { user: { OR: [{ displayName: filter }, { email: filter }] } };
  const pattern = `%${escapeLike(search)}%`;
  const rows = await ctx.db.$queryRaw<Array<{ id: string }>>`
    SELECT m."id" AS "id" FROM "Member" m JOIN "User" u ON u."id" = m."userId"
    WHERE m."organizationId" = ${organizationId}
      AND (u."displayName" LIKE ${pattern} ESCAPE '\\' OR u."email" LIKE ${pattern} ESCAPE '\\')`;
  return { id: { in: rows.map((r) => r.id) } };
}

builder.prismaObjectFields(Organization, (t) => ({
  members: t.field({
    type: MemberList,
    description: 'The members of the organization',
    args: {
      ...pageArgs,
      order: t.arg({ type: SortDirection, description: 'Default desc' }),
      sort: t.arg({ type: MemberSort, description: 'Default joinedAt; lastSeenAt lists only members seen at least once' }),
      role: t.arg({ type: MemberRoleFilter }),
      search: t.arg.string({ description: 'Matches display name or e-mail, case-insensitively' }),
    },
    resolve: async (org, args, ctx, info) => {
      authorize(ctx.access.organization(org.id), 'organization:list-members', { type: 'Organization', id: org.id });
      const direction = args.order ?? 'desc';
      const sort = args.sort ?? 'joinedAt';
      const where: Record<string, unknown> = { organizationId: org.id };
      if (sort === 'lastSeenAt') where.lastSeenAt = { not: null };
      if (args.role) where.role = args.role === 'guest' ? null : args.role;
      if (args.search) Object.assign(where, await searchFilter(ctx, org.id, args.search));
      const query = itemsQuery(ctx, info);
      return paginate({
        page: args.page,
        limit: args.limit,
        orderBy: [[sort, direction], ['id', direction]],
        where,
        findMany: (a) => ctx.db.member.findMany({ ...query, ...a }),
        count: (a) => ctx.db.member.count(a),
      });
    },
  }),
}));

builder.queryField('member', (t) =>
  t.prismaField({
    type: Member,
    authScopes: { authenticated: true },
    args: { organizationId: t.arg.id({ required: true }), userId: t.arg.id({ required: true }) },
    resolve: (query, _root, args, ctx) => loadMember(ctx, String(args.organizationId), String(args.userId), query),
  }),
);

export { MemberRole };

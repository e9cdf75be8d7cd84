import type { GraphQLResolveInfo } from 'graphql';
import { queryFromInfo } from '@pothos/plugin-prisma';
import { authorize } from '../../auth/policies.ts';
import { isMemberRole } from '../../auth/roles.ts';
import { builder } from '../../builder.ts';
import type { Context } from '../../context.ts';
import { paginate, sliceList, type ListResult } from '../../db/pagination.ts';
import { withColumns } from '../../db/select.ts';
import {
  accessKey,
  authorizeGrantTarget,
  grantsOf,
  memberRolesOn,
  spacesReachedWhere,
  whoReaches,
  type ContentKind,
  type GrantTarget,
} from '../../services/content-grant.ts';
import { SPACE_ACCESS_SELECT } from '../../auth/access.ts';
import { Collection } from '../collection/type.ts';
import { Member } from '../member/type.ts';
import { MemberRole, SortDirection } from '../shared/enums.ts';
import { pageArgs } from '../shared/pagination.ts';
import { Space } from '../space/type.ts';
import {
  MemberContentPermissionList,
  TeamContentPermissionList,
  UserContentPermissionList,
  type SpacePermissionShape,
  type TeamPermissionShape,
  type UserPermissionShape,
} from './type.ts';

interface PageArgs {
  page?: string | null;
  limit?: number | null;
}

/** Grants are listed oldest first. */
const GRANT_ORDER = [['createdAt', 'asc'], ['id', 'asc']] as const;

/** Rows of `ids` read with one statement, by id. */
async function rowsById<Row extends { id: string }>(ids: string[], read: (ids: string[]) => Promise<Row[]>): Promise<Map<string, Row>> {
  const rows = ids.length ? await read([...new Set(ids)]) : [];
  return new Map(rows.map((row) => [row.id, row]));
}

/** The users holding a grant of their own on the target, a page of them. */
async function userGrants(ctx: Context, target: GrantTarget, args: PageArgs): Promise<ListResult<UserPermissionShape>> {
  const list = await paginate({
    ...args,
    orderBy: GRANT_ORDER,
    where: grantsOf(target, 'user'),
    findMany: (a) => ctx.db.contentGrant.findMany({ ...a, select: { id: true, createdAt: true, granteeId: true, role: true } }),
    count: (a) => ctx.db.contentGrant.count(a),
  });
  const users = await ctx.loaders.userById.loadMany(list.items.map((g) => g.granteeId));
  const items = list.items.flatMap((g, i) => {
    const user = users[i];
    return user && !(user instanceof Error) && isMemberRole(g.role) ? [{ permission: g.role, user, sources: [{ type: 'user' as const, role: g.role }] }] : [];
  });
  return { ...list, items };
}

/** The teams holding a grant on the target, a page of them. */
async function teamGrants(ctx: Context, info: GraphQLResolveInfo, target: GrantTarget, args: PageArgs): Promise<ListResult<TeamPermissionShape>> {
  const list = await paginate({
    ...args,
    orderBy: GRANT_ORDER,
    where: grantsOf(target, 'team'),
    findMany: (a) => ctx.db.contentGrant.findMany({ ...a, select: { id: true, createdAt: true, granteeId: true, role: true } }),
    count: (a) => ctx.db.contentGrant.count(a),
  });
  const query = queryFromInfo({ context: ctx, info, path: ['items', 'team'] }) as object;
  const teams = await rowsById(
    list.items.map((g) => g.granteeId),
    (ids) => ctx.db.team.findMany({ ...query, where: { id: { in: ids } } }),
  );
  const items = list.items.flatMap((g) => {
    const team = teams.get(g.granteeId);
    return team && isMemberRole(g.role) ? [{ permission: g.role, team }] : [];
  });
  return { ...list, items };
}

/** Every user who reaches the target, a page of them (strongest role first). */
async function aggregate(
  ctx: Context,
  target: GrantTarget,
  args: PageArgs & { role?: string | null },
): Promise<ListResult<UserPermissionShape>> {
  const all = (await whoReaches(ctx, target)).filter((a) => !args.role || a.role === args.role);
  const page = sliceList(all, args.page, args.limit, accessKey);
  const users = await ctx.loaders.userById.loadMany(page.items.map((a) => a.userId));
  const items = page.items.flatMap((a, i) => {
    const user = users[i];
    return user && !(user instanceof Error) ? [{ permission: a.role, user, sources: a.sources }] : [];
  });
  return { ...page, items };
}

/** The three grant lists of a space or collection type. */
function grantFields(kind: ContentKind) {
  const name = kind === 'space' ? 'space' : 'collection';
  return (t: any) => ({
    userPermissions: t.field({
      type: UserContentPermissionList,
      description: `Users holding a role on the ${name} of their own (grants), oldest grant first`,
      args: pageArgs,
      resolve: async (row: any, args: PageArgs, ctx: Context) => userGrants(ctx, await authorizeGrantTarget(ctx, kind, row, 'list'), args),
    }),
    teamPermissions: t.field({
      type: TeamContentPermissionList,
      description: `Teams holding a role on the ${name}, oldest grant first`,
      args: pageArgs,
      resolve: async (row: any, args: PageArgs, ctx: Context, info: GraphQLResolveInfo) => teamGrants(ctx, info, await authorizeGrantTarget(ctx, kind, row, 'list'), args),
    }),
    permissionsAggregate: t.field({
      type: UserContentPermissionList,
      description: `Every user who can reach the ${name}, with their effective role and its sources; strongest role first, then by user id`,
      args: { ...pageArgs, role: t.arg({ type: MemberRole, description: 'Only users with this effective role' }) },
      resolve: async (row: any, args: PageArgs & { role?: string | null }, ctx: Context) =>
        aggregate(ctx, await authorizeGrantTarget(ctx, kind, row, 'list'), args),
    }),
  });
}

builder.prismaObjectFields(Space, grantFields('space'));
builder.prismaObjectFields(Collection, grantFields('collection'));

builder.prismaObjectFields(Member, (t) => ({
  spaceAccess: t.field({
    type: MemberContentPermissionList,
    description:
      "Every space of the organization the member can reach (not those in the bin), with their effective role on it; newest first by default. A disabled member's is empty.",
    args: { ...pageArgs, order: t.arg({ type: SortDirection, description: 'By creation date; default desc' }) },
    resolve: async (member, args, ctx, info): Promise<ListResult<SpacePermissionShape>> => {
      authorize(ctx.access.organization(member.organizationId), 'member:read', { type: 'Member', id: member.userId });
      const direction = args.order ?? 'desc';
      const orderBy = [['createdAt', direction], ['id', direction]] as const;
      const query = withColumns(queryFromInfo({ context: ctx, info, path: ['items', 'space'] }) as object, { id: true, createdAt: true, ...SPACE_ACCESS_SELECT });
      const list = await paginate({
        page: args.page,
        limit: args.limit,
        orderBy,
        where: await spacesReachedWhere(ctx, member),
        findMany: (a) => ctx.db.space.findMany({ ...query, ...a }) as Promise<Array<{ id: string; parentId: string | null; defaultLevel: string | null; createdAt: Date }>>,
        count: (a) => ctx.db.space.count(a),
      });
      const roles = await memberRolesOn(ctx, member, list.items);
      const items = list.items.flatMap((space, i) => {
        const role = roles[i];
        return isMemberRole(role) ? [{ permission: role, space }] : [];
      });
      return { ...list, items };
    },
  }),
}));

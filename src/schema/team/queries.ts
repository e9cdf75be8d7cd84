import { authorize } from '../../auth/policies.ts';
import { builder } from '../../builder.ts';
import type { Prisma } from '../../db/client.ts';
import { DEFAULT_PAGE_SIZE, paginate, type SortKey } from '../../db/pagination.ts';
import {
  firstPagesOfMemberTeams,
  firstPagesOfTeamMembers,
  loadTeam,
  MEMBER_TEAMS_ORDER,
  TEAM_MEMBERS_ORDER,
  teamsManageableBy,
  teamTitleFilter,
} from '../../services/team.ts';
import { Member } from '../member/type.ts';
import { Organization } from '../organization/type.ts';
import { itemsQuery, listType, pageArgs } from '../shared/pagination.ts';
import { Team, TeamMembership } from './type.ts';

export const TeamList = listType('Team', Team);
export const TeamMembershipList = listType('TeamMembership', TeamMembership);

const TITLE_DESCRIPTION = 'Only teams whose title contains this, case-insensitively';

/** Teams in the order they were made. */
const TEAM_ORDER: readonly SortKey[] = [
  ['createdAt', 'asc'],
  ['id', 'asc'],
];

builder.prismaObjectFields(Organization, (t) => ({
  teams: t.field({
    type: TeamList,
    description: 'The teams of the organization, oldest first',
    args: {
      ...pageArgs,
      owner: t.arg.string({ description: 'The id of a member of the organization: only the teams they can manage (every team for an admin)' }),
      title: t.arg.string({ description: TITLE_DESCRIPTION }),
    },
    resolve: async (org, args, ctx, info) => {
      authorize(ctx.access.organization(org.id), 'organization:list-teams', { type: 'Organization', id: org.id });
      const filters: Prisma.TeamWhereInput[] = [{ organizationId: org.id }];
      if (args.owner) filters.push(await teamsManageableBy(ctx, org.id, args.owner));
      if (args.title) filters.push(await teamTitleFilter(ctx, org.id, args.title));
      const query = itemsQuery(ctx, info, TEAM_ORDER);
      return paginate({
        page: args.page,
        limit: args.limit,
        orderBy: TEAM_ORDER,
        where: filters.length === 1 ? filters[0]! : { AND: filters },
        findMany: (a) => ctx.db.team.findMany({ ...query, ...a }),
        count: (a) => ctx.db.team.count(a),
      });
    },
  }),
}));

builder.prismaObjectFields(Team, (t) => ({
  memberships: t.field({
    type: TeamMembershipList,
    description: 'The members of the team (members of the organization), in the order they joined it',
    args: { ...pageArgs },
    resolve: async (team, args, ctx, info) => {
      authorize(ctx.access.organization(team.organizationId), 'team:read', { type: 'Team', id: team.id });
      const query = itemsQuery(ctx, info, TEAM_MEMBERS_ORDER);
      const findMany = (a: Prisma.TeamMemberFindManyArgs) => ctx.db.teamMember.findMany({ ...query, ...a });
      if (args.page) {
        return paginate({
          page: args.page,
          limit: args.limit,
          orderBy: TEAM_MEMBERS_ORDER,
          // A membership whose user left the organization is not listed (nor counted: Team.members).
          where: { teamId: team.id, user: { memberships: { some: { organizationId: team.organizationId } } } },
          findMany,
          count: (a) => ctx.db.teamMember.count(a),
        });
      }
      // A first page: batched with those of every other team of the response (two statements for all).
      const limit = args.limit ?? DEFAULT_PAGE_SIZE;
      const first = await ctx.loaders
        .batch(`team:memberships ${limit} ${JSON.stringify(query)}`, (teamIds: readonly string[]) =>
          firstPagesOfTeamMembers(ctx, teamIds, limit, (where) => findMany({ where })),
        )
        .load(team.id);
      return { ...first, count: async () => (await ctx.loaders.teamCounts.load(team.id)).members };
    },
  }),
}));

builder.prismaObjectFields(Member, (t) => ({
  teamMemberships: t.field({
    type: TeamMembershipList,
    description: 'The teams of the organization the member is in, with their role in each, in the order they joined them',
    args: { ...pageArgs, title: t.arg.string({ description: TITLE_DESCRIPTION }) },
    resolve: async (member, args, ctx, info) => {
      authorize(ctx.access.organization(member.organizationId), 'organization:list-teams', { type: 'Organization', id: member.organizationId });
      const query = itemsQuery(ctx, info, MEMBER_TEAMS_ORDER);
      const findMany = (a: Prisma.TeamMemberFindManyArgs) => ctx.db.teamMember.findMany({ ...query, ...a });
      if (args.page || args.title) {
        const team: Prisma.TeamWhereInput = { organizationId: member.organizationId };
        if (args.title) Object.assign(team, await teamTitleFilter(ctx, member.organizationId, args.title));
        return paginate({
          page: args.page,
          limit: args.limit,
          orderBy: MEMBER_TEAMS_ORDER,
          where: { userId: member.userId, team },
          findMany,
          count: (a) => ctx.db.teamMember.count(a),
        });
      }
      // A first page without a filter: batched with those of every other member of the response.
      const limit = args.limit ?? DEFAULT_PAGE_SIZE;
      const key = `${member.organizationId}:${member.userId}`;
      const first = await ctx.loaders
        .batch(`member:team-memberships ${limit} ${JSON.stringify(query)}`, (members: readonly string[]) =>
          firstPagesOfMemberTeams(ctx, members, limit, (where) => findMany({ where })),
        )
        .load(key);
      return { ...first, count: async () => (await ctx.loaders.memberCounts.load(key)).teams };
    },
  }),
}));

builder.queryField('team', (t) =>
  t.prismaField({
    type: Team,
    description: 'A team of an organization the caller is a member of',
    authScopes: { authenticated: true },
    args: { organizationId: t.arg.id({ required: true }), teamId: t.arg.id({ required: true }) },
    resolve: (query, _root, args, ctx) => loadTeam(ctx, String(args.organizationId), String(args.teamId), 'team:read', query),
  }),
);

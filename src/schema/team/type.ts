import { queryFromInfo } from '@pothos/plugin-prisma';
import { can } from '../../auth/policies.ts';
import { builder } from '../../builder.ts';
import type { Db } from '../../db/client.ts';
import { TEAM_MEMBER_ROLES, type TeamMemberRole as TeamMemberRoleValue } from '../../db/value-sets.ts';
import { NotFoundError } from '../../errors/index.ts';
import { Member } from '../member/type.ts';
import { User } from '../user/type.ts';

export const TeamMemberRole = builder.enumType('TeamMemberRole', {
  description: 'A role in a team: `owner` manages the team\'s members; `member` is in it',
  values: TEAM_MEMBER_ROLES,
});

const TeamPermissions = builder.objectRef<{ admin: boolean; view: boolean }>('TeamPermissions').implement({
  description: 'What the caller may do with the team',
  fields: (t) => ({
    admin: t.exposeBoolean('admin', { description: "May manage the team's members (an admin of the organization, or an owner of the team)" }),
    view: t.exposeBoolean('view', { description: 'May see the team and list its members' }),
  }),
});

const TeamUrls = builder.objectRef<{ location: string }>('TeamUrls').implement({
  fields: (t) => ({ location: t.exposeString('location', { description: 'The team in the API' }) }),
});

export const Team = builder.prismaObject('Team', {
  description: 'A team of an organization: its members share the grants the team holds on spaces and collections',
  fields: (t) => ({
    object: t.string({ resolve: () => 'team' }),
    id: t.exposeID('id'),
    title: t.exposeString('title'),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    members: t.int({
      description: 'How many members of the organization are in the team',
      resolve: async (team, _args, ctx) => (await ctx.loaders.teamCounts.load(team.id)).members,
    }),
    spaces: t.int({
      description: 'How many spaces the team holds a grant on',
      resolve: async (team, _args, ctx) => (await ctx.loaders.teamCounts.load(team.id)).spaces,
    }),
    permissions: t.field({
      type: TeamPermissions,
      resolve: async (team, _args, ctx) => {
        const subject = await ctx.access.team(team);
        return { admin: can(subject, 'team:manage-members'), view: can(subject, 'team:read') };
      },
    }),
    urls: t.field({
      type: TeamUrls,
      resolve: (team, _args, ctx) => ({ location: ctx.urls.api(`/orgs/${team.organizationId}/teams/${team.id}`) }),
    }),
  }),
});

/** GitBook's `TeamMember`: a user's place in a team, as the REST shapes carry it. */
const TeamMemberInfo = builder.objectRef<{ role: TeamMemberRoleValue }>('TeamMember').implement({
  description: "A user's role in a team (GitBook's TeamMember object)",
  fields: (t) => ({ role: t.field({ type: TeamMemberRole, resolve: (m) => m.role }) }),
});

const TeamMembershipPermissions = builder.objectRef<{ view: boolean }>('TeamMembershipPermissions').implement({
  fields: (t) => ({ view: t.exposeBoolean('view', { description: 'May see the team member' }) }),
});

type MemberRow = Awaited<ReturnType<Db['member']['findMany']>>[number];

export const TeamMembership = builder.prismaObject('TeamMember', {
  name: 'TeamMembership',
  description: 'A user in a team, with their team role',
  fields: (t) => ({
    role: t.field({ type: TeamMemberRole, resolve: (m) => m.role as TeamMemberRoleValue }),
    createdAt: t.expose('createdAt', { type: 'DateTime', description: 'When they joined the team' }),
    team: t.relation('team', { type: Team }),
    user: t.relation('user', { type: User }),
    teamMember: t.field({
      type: TeamMemberInfo,
      description: 'The role as GitBook shapes it (`{role}`)',
      resolve: (m) => ({ role: m.role as TeamMemberRoleValue }),
    }),
    member: t.field({
      type: Member,
      description: 'Their membership of the organization',
      select: { team: { select: { organizationId: true } } },
      resolve: (m, _args, ctx, info) => {
        // Batched with every other membership of the response asking the same selection (one statement), not cached.
        const query = queryFromInfo({ context: ctx, info, typeName: 'Member' }) as Record<string, unknown>;
        return ctx.loaders
          .batch<string, MemberRow>(`team-membership:member ${JSON.stringify(query)}`, async (keys) => {
            const pairs = keys.map((key) => key.split(':') as [string, string]);
            const rows = await ctx.db.member.findMany({
              ...query,
              where: { organizationId: { in: [...new Set(pairs.map(([o]) => o))] }, userId: { in: [...new Set(pairs.map(([, u]) => u))] } },
            });
            const byKey = new Map(rows.map((r) => [`${r.organizationId}:${r.userId}`, r]));
            return keys.map((key) => byKey.get(key) ?? new NotFoundError('Member', key.slice(key.indexOf(':') + 1)));
          })
          .load(`${m.team.organizationId}:${m.userId}`);
      },
    }),
    permissions: t.field({
      type: TeamMembershipPermissions,
      select: { team: { select: { organizationId: true } } },
      resolve: (m, _args, ctx) => ({ view: can(ctx.access.organization(m.team.organizationId), 'team:read') }),
    }),
  }),
});

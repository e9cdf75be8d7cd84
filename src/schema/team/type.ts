import { can } from '../../auth/policies.ts';
import { builder } from '../../builder.ts';

const TeamPermissions = builder.objectRef<{ admin: boolean; view: boolean }>('TeamPermissions').implement({
  description: 'What the caller may do with the team',
  fields: (t) => ({
    admin: t.exposeBoolean('admin', { description: "May manage the team's members (an admin of the organization, or an owner of the team)" }),
    view: t.exposeBoolean('view', { description: 'See the team and list its members' }),
  }),
});

export const Team = builder.prismaObject('Team', {
  description: 'A group of members of an organization; it can hold roles on spaces and collections',
  fields: (t) => ({
    object: t.string({ resolve: () => 'team' }),
    id: t.exposeID('id'),
    title: t.exposeString('title'),
    organizationId: t.exposeID('organizationId'),
    members: t.relationCount('members', { description: 'How many members the team has' }),
    spaces: t.int({
      description: 'On how many spaces the team holds a role',
      resolve: (team, _args, ctx) => ctx.loaders.teamSpaceCount.load(team.id),
    }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    permissions: t.field({
      type: TeamPermissions,
      resolve: async (team, _args, ctx) => {
        const subject = await ctx.access.team(team);
        return { admin: can(subject, 'team:manage-members'), view: can(subject, 'team:read') };
      },
    }),
  }),
});

import { can } from '../../auth/policies.ts';
import { builder } from '../../builder.ts';

const TeamPermissions = builder.objectRef<{ admin: boolean; view: boolean }>('TeamPermissions').implement({
  description: 'What the caller may do with the team',
  fields: (t) => ({
    admin: t.exposeBoolean('admin', { description: 'Manage the team (rename, delete)' }),
    view: t.exposeBoolean('view', { description: 'See the team and list its members' }),
  }),
});

export const Team = builder.prismaObject('Team', {
  description: 'A team of members of an organization; grants given to it reach every member',
  fields: (t) => ({
    object: t.string({ resolve: () => 'team' }),
    id: t.exposeID('id'),
    title: t.exposeString('title'),
    members: t.relationCount('members', { description: 'Members of the team' }),
    spaces: t.int({
      description: 'Spaces the team was given access to (grants of the team on spaces)',
      resolve: (team, _args, ctx) => ctx.db.contentGrant.count({ where: { organizationId: team.organizationId, granteeKind: 'team', granteeId: team.id, resourceKind: 'space' } }),
    }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    permissions: t.field({
      type: TeamPermissions,
      resolve: (team, _args, ctx) => {
        const subject = ctx.access.organization(team.organizationId);
        return { admin: can(subject, 'team:update'), view: can(subject, 'team:read') };
      },
    }),
  }),
});

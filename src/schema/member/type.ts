import { builder } from '../../builder.ts';
import { MemberRole } from '../shared/enums.ts';
import { User } from '../user/type.ts';

export const Member = builder.prismaObject('Member', {
  description: "A user's membership of an organization. Its id is the user's id.",
  fields: (t) => ({
    object: t.string({ resolve: () => 'member' }),
    id: t.exposeID('userId'),
    role: t.field({ type: MemberRole, nullable: true, description: 'null: a guest', resolve: (m) => m.role as never }),
    user: t.relation('user', { type: User }),
    disabled: t.exposeBoolean('disabled'),
    joinedAt: t.expose('joinedAt', { type: 'DateTime' }),
    lastSeenAt: t.expose('lastSeenAt', { type: 'DateTime', nullable: true }),
    sso: t.exposeBoolean('sso'),
    spaces: t.int({
      description: 'Spaces the member was given access to individually (grants of their own on spaces)',
      resolve: async (m, _args, ctx) => (await ctx.loaders.memberCounts.load(`${m.organizationId}:${m.userId}`)).spaces,
    }),
    teams: t.int({
      description: 'Teams of the organization the member belongs to',
      resolve: async (m, _args, ctx) => (await ctx.loaders.memberCounts.load(`${m.organizationId}:${m.userId}`)).teams,
    }),
  }),
});

import { authorize, can } from '../../auth/policies.ts';
import { NotFoundError } from '../../errors/index.ts';
import { builder } from '../../builder.ts';

export const User = builder.prismaObject('User', {
  description: 'A person using the service',
  fields: (t) => ({
    object: t.string({ resolve: () => 'user' }),
    id: t.exposeID('id'),
    displayName: t.exposeString('displayName'),
    email: t.exposeString('email', { nullable: true }),
    photoURL: t.exposeString('photoURL', { nullable: true }),
    urls: t.field({
      type: UserUrls,
      resolve: (user, _args, ctx) => ({ location: ctx.urls.api(`/users/${user.id}`) }),
    }),
  }),
});

const UserUrls = builder.objectRef<{ location: string }>('UserUrls').implement({
  fields: (t) => ({ location: t.exposeString('location') }),
});

builder.queryField('viewer', (t) =>
  t.prismaField({
    type: User,
    description: 'The authenticated user',
    authScopes: { authenticated: true },
    resolve: async (query, _root, _args, ctx) => {
      const { userId } = ctx.access.requireViewer();
      authorize(ctx.access.account(), 'account:read', { type: 'User', id: userId });
      return ctx.db.user.findUniqueOrThrow({ ...query, where: { id: userId } });
    },
  }),
);

builder.queryField('user', (t) =>
  t.prismaField({
    type: User,
    description: 'A user: the caller, or someone who is a member of an organization whose members the caller may list; else not found',
    authScopes: { authenticated: true },
    args: { userId: t.arg.id({ required: true }) },
    resolve: async (query, _root, { userId }, ctx) => {
      const viewer = ctx.access.requireViewer();
      const id = String(userId);
      if (id !== viewer.userId) {
        // The organizations both belong to, of which the caller may see the members.
        const shared = await ctx.db.member.findMany({ where: { userId: id, organizationId: { in: ctx.access.memberOrganizationIds() } }, select: { organizationId: true } });
        if (!shared.some((m) => can(ctx.access.organization(m.organizationId), 'member:read'))) throw new NotFoundError('User', id);
      }
      const user = await ctx.db.user.findUnique({ ...query, where: { id } });
      if (!user) throw new NotFoundError('User', id);
      return user;
    },
  }),
);

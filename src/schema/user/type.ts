import { authorize } from '../../auth/policies.ts';
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

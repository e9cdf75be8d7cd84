import { can } from '../../auth/policies.ts';
import { builder } from '../../builder.ts';
import { readableParent } from '../../services/content-grant.ts';
import { DefaultLevel } from '../shared/enums.ts';

const CollectionUrls = builder.objectRef<{ location: string; app: string }>('CollectionUrls').implement({
  fields: (t) => ({ location: t.exposeString('location'), app: t.exposeString('app') }),
});

const CollectionPermissions = builder
  .objectRef<{ view: boolean; admin: boolean; viewInviteLinks: boolean; create: boolean }>('CollectionPermissions')
  .implement({
    fields: (t) => ({
      view: t.exposeBoolean('view'),
      admin: t.exposeBoolean('admin'),
      viewInviteLinks: t.exposeBoolean('viewInviteLinks'),
      create: t.exposeBoolean('create'),
    }),
  });

export const Collection = builder.prismaObject('Collection', {
  description: 'A group of spaces and collections',
  fields: (t) => ({
    object: t.string({ resolve: () => 'collection' }),
    id: t.exposeID('id'),
    title: t.exposeString('title'),
    description: t.exposeString('description', { nullable: true }),
    organizationId: t.exposeID('organizationId'),
    organization: t.relation('organization'),
    parentId: t.exposeID('parentId', { nullable: true }),
    defaultLevel: t.field({ type: DefaultLevel, nullable: true, resolve: (c) => c.defaultLevel as never }),
    urls: t.field({
      type: CollectionUrls,
      resolve: (c, _args, ctx) => ({ location: ctx.urls.api(`/collections/${c.id}`), app: ctx.urls.app(`/o/${c.organizationId}/c/${c.id}`) }),
    }),
    permissions: t.field({
      type: CollectionPermissions,
      resolve: async (c, _args, ctx) => {
        const subject = await ctx.access.collection(c);
        return {
          view: can(subject, 'collection:read'),
          admin: can(subject, 'collection:admin'),
          viewInviteLinks: can(subject, 'collection:admin'),
          create: can(subject, 'collection:create'),
        };
      },
    }),
  }),
});

builder.prismaObjectFields(Collection, (t) => ({
  parent: t.field({
    type: Collection,
    nullable: true,
    description: 'The parent collection (null at the top level, and when the caller may not read it)',
    resolve: (c, _args, ctx) => readableParent(ctx, c),
  }),
}));

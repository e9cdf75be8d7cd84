import { authorize } from '../../auth/policies.ts';
import { builder } from '../../builder.ts';
import { paginate } from '../../db/pagination.ts';
import { isActiveProvider, loadSamlProvider, serviceProviderOf } from '../../services/saml-provider.ts';
import { Organization } from '../organization/type.ts';
import { itemsQuery, listType, pageArgs } from '../shared/pagination.ts';
import { SamlProvider } from './type.ts';

export const SamlProviderList = listType('SamlProvider', SamlProvider);

const SsoProviderLogin = builder.objectRef<{ id: string; label: string; startURL: string }>('SsoProviderLogin').implement({
  description: 'An identity provider a member can sign in through',
  fields: (t) => ({
    id: t.exposeID('id'),
    label: t.exposeString('label'),
    startURL: t.exposeString('startURL', { description: 'Where the sign-in starts (a browser goes there)' }),
  }),
});

const SsoProviderLoginList = builder.objectRef<{ items: Array<{ id: string; label: string; startURL: string }> }>('SsoProviderLoginList').implement({
  fields: (t) => ({ items: t.field({ type: [SsoProviderLogin], resolve: (list) => list.items }) }),
});

builder.prismaObjectFields(Organization, (t) => ({
  samlProviders: t.field({
    type: SamlProviderList,
    description: "The organization's SAML providers, oldest first (admins)",
    args: { ...pageArgs },
    resolve: (org, args, ctx, info) => {
      authorize(ctx.access.organization(org.id), 'organization:manage-sso', { type: 'Organization', id: org.id });
      const query = itemsQuery(ctx, info);
      return paginate({
        page: args.page,
        limit: args.limit,
        orderBy: [['createdAt', 'asc'], ['id', 'asc']],
        where: { organizationId: org.id },
        findMany: (a) => ctx.db.samlProvider.findMany({ ...query, ...a }),
        count: (a) => ctx.db.samlProvider.count(a),
      });
    },
  }),
  ssoLogins: t.field({
    type: SsoProviderLoginList,
    description: 'The identity providers members can sign in through: the active SAML providers, oldest first',
    resolve: async (org, _args, ctx) => {
      authorize(ctx.access.organization(org.id), 'organization:list-sso-logins', { type: 'Organization', id: org.id });
      const providers = await ctx.db.samlProvider.findMany({
        where: { organizationId: org.id },
        orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
        select: { id: true, label: true, ssoURL: true, entityID: true, certificate: true },
      });
      return { items: providers.filter(isActiveProvider).map((p) => ({ id: p.id, label: p.label, startURL: serviceProviderOf(ctx.urls, p.id).startURL })) };
    },
  }),
}));

builder.queryField('samlProvider', (t) =>
  t.prismaField({
    type: SamlProvider,
    description: 'A SAML provider of an organization (admins)',
    authScopes: { authenticated: true },
    args: { organizationId: t.arg.id({ required: true }), samlProviderId: t.arg.id({ required: true }) },
    resolve: (query, _root, args, ctx) => loadSamlProvider(ctx, String(args.organizationId), String(args.samlProviderId), query),
  }),
);

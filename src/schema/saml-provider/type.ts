import { queryFromInfo } from '@pothos/plugin-prisma';
import { builder } from '../../builder.ts';
import { samlProviderStatus, serviceProviderOf } from '../../services/saml-provider.ts';
import { MemberRole } from '../shared/enums.ts';
import { Team } from '../team/type.ts';

const SamlServiceProvider = builder.objectRef<{ acsURL: string; startURL: string; entityID: string }>('SamlServiceProvider').implement({
  description: 'This service as the SAML service provider of one identity provider: what the identity provider is configured with',
  fields: (t) => ({
    acsURL: t.exposeString('acsURL', { description: 'Assertion Consumer Service URL: where the identity provider has the browser POST its response' }),
    startURL: t.exposeString('startURL', { description: 'Where a sign-in starts: redirects to the identity provider with an AuthnRequest' }),
    entityID: t.exposeString('entityID', { description: "This service provider's entity ID (it serves the metadata)" }),
  }),
});

const SamlProviderUrls = builder.objectRef<{ location: string }>('SamlProviderUrls').implement({
  fields: (t) => ({ location: t.exposeString('location') }),
});

export const SamlProviderStatus = builder.enumType('SamlProviderStatus', {
  description: '`active`: ssoURL, entityID and certificate are set, members can sign in; `pending`: not yet',
  values: ['active', 'pending'] as const,
});

export const SamlProvider = builder.prismaObject('SamlProvider', {
  description: "An identity provider an organization's members sign in through (SAML 2.0)",
  fields: (t) => ({
    object: t.string({ resolve: () => 'saml-provider' }),
    id: t.exposeID('id'),
    label: t.exposeString('label'),
    ssoURL: t.exposeString('ssoURL', { nullable: true, description: "The identity provider's single sign-on URL (null until set)" }),
    entityID: t.exposeString('entityID', { nullable: true, description: "The identity provider's entity ID: the issuer of its assertions (null until set)" }),
    certificate: t.exposeString('certificate', { nullable: true, description: "PEM of the identity provider's signing certificate (null until set)" }),
    defaultRole: t.field({ type: MemberRole, nullable: true, description: 'The role of members it signs in for the first time; null: guests', resolve: (p) => p.defaultRole as never }),
    defaultTeam: t.field({
      type: Team,
      nullable: true,
      description: 'The team members it signs in for the first time join',
      resolve: async (p, _args, ctx, info) => {
        if (!p.defaultTeamId) return null;
        const query = queryFromInfo({ context: ctx, info, typeName: 'Team' }) as Record<string, unknown>;
        const team = await ctx.db.team.findUnique({ ...query, where: { id: p.defaultTeamId } });
        return team && team.organizationId === p.organizationId ? team : null;
      },
    }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    status: t.field({ type: SamlProviderStatus, resolve: (p) => samlProviderStatus(p) }),
    service: t.field({ type: SamlServiceProvider, resolve: (p, _args, ctx) => serviceProviderOf(ctx.urls, p.id) }),
    urls: t.field({ type: SamlProviderUrls, resolve: (p, _args, ctx) => ({ location: ctx.urls.api(`/orgs/${p.organizationId}/saml/${p.id}`) }) }),
  }),
});

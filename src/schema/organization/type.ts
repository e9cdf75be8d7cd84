import { can } from '../../auth/policies.ts';
import { builder } from '../../builder.ts';
import { storedOrganizationMergeRules } from '../../services/merge-rules.ts';
import { storedEmailDomains } from '../../services/organization.ts';
import { MemberRole, OrganizationCommunityType, OrganizationType, OrganizationUseCase } from '../shared/enums.ts';

const OrganizationUrls = builder.objectRef<{ location: string; app: string; logo: string | null }>('OrganizationUrls').implement({
  fields: (t) => ({
    location: t.exposeString('location'),
    app: t.exposeString('app'),
    logo: t.exposeString('logo', { nullable: true }),
  }),
});

const OrganizationTrial = builder.objectRef<{ status: string; count: number }>('OrganizationTrial').implement({
  description: 'Billing trial state. This service has no billing, so it is always `notapplicable`.',
  fields: (t) => ({ status: t.exposeString('status'), count: t.exposeInt('count') }),
});

const OrganizationDefaultContent = builder.objectRef<{ type: 'site'; site: string }>('OrganizationDefaultContent').implement({
  fields: (t) => ({ type: t.exposeString('type'), site: t.exposeString('site') }),
});

const ORGANIZATION_PERMISSIONS = {
  view: 'organization:read',
  access: 'organization:list-members',
  admin: 'organization:update',
  createContent: 'organization:create-content',
  createOpenAPISpec: 'openapi:create',
  ingestConversations: 'conversation:ingest',
  viewBilling: 'organization:view-billing',
  listMembers: 'organization:list-members',
  listTeams: 'organization:list-teams',
  listIntegrations: 'organization:list-members',
  listInstallations: 'organization:update',
  installIntegration: 'organization:update',
} as const;

type OrganizationPermissionFlags = Record<keyof typeof ORGANIZATION_PERMISSIONS | 'ownTeam', boolean>;

const OrganizationPermissions = builder.objectRef<OrganizationPermissionFlags>('OrganizationPermissions').implement({
  description: 'What the caller may do with the organization',
  fields: (t) => ({
    ...(Object.fromEntries(Object.keys(ORGANIZATION_PERMISSIONS).map((k) => [k, t.exposeBoolean(k as keyof typeof ORGANIZATION_PERMISSIONS)])) as object),
    ownTeam: t.exposeBoolean('ownTeam', {
      description: "Whether the caller may manage some team's members: an admin (every team), or an owner of one of its teams",
    }),
  }) as never,
});

export const Organization = builder.prismaObject('Organization', {
  description: 'An organization: members, collections and spaces',
  fields: (t) => ({
    object: t.string({ resolve: () => 'organization' }),
    id: t.exposeID('id'),
    title: t.exposeString('title'),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    emailDomains: t.stringList({ resolve: (org) => storedEmailDomains(org.emailDomains) }),
    hostname: t.exposeString('hostname', { nullable: true }),
    type: t.field({ type: OrganizationType, resolve: (org) => org.type as 'business' | 'community' }),
    useCase: t.field({ type: OrganizationUseCase, nullable: true, resolve: (org) => org.useCase as never }),
    communityType: t.field({ type: OrganizationCommunityType, nullable: true, resolve: (org) => org.communityType as never }),
    defaultRole: t.field({ type: MemberRole, nullable: true, resolve: (org) => org.defaultRole as never }),
    defaultContent: t.field({
      type: OrganizationDefaultContent,
      nullable: true,
      resolve: (org) => (org.defaultSiteId ? { type: 'site' as const, site: org.defaultSiteId } : null),
    }),
    customHostname: t.string({
      nullable: true,
      description: "The custom hostname of the organization's default site (`defaultContent`), where its published documentation is; null when it has none",
      resolve: async (org, _args, ctx) => (org.defaultSiteId ? ((await ctx.loaders.siteFactsById.load(org.defaultSiteId))?.hostname ?? null) : null),
    }),
    sso: t.exposeBoolean('sso'),
    ai: t.exposeBoolean('ai'),
    inviteLinks: t.exposeBoolean('inviteLinks'),
    plan: t.exposeString('plan'),
    mergeRules: t.field({ type: 'JSON', resolve: (org) => storedOrganizationMergeRules(org.mergeRules) }),
    urls: t.field({
      type: OrganizationUrls,
      resolve: (org, _args, ctx) => ({ location: ctx.urls.api(`/orgs/${org.id}`), app: ctx.urls.app(`/o/${org.id}`), logo: org.logo }),
    }),
    trial: t.field({ type: OrganizationTrial, resolve: () => ({ status: 'notapplicable', count: 0 }) }),
    permissions: t.field({
      type: OrganizationPermissions,
      resolve: async (org, _args, ctx) => {
        const subject = ctx.access.organization(org.id);
        const flags = Object.fromEntries(Object.entries(ORGANIZATION_PERMISSIONS).map(([k, action]) => [k, can(subject, action)]));
        // Whether the caller owns a team is read only when their role alone does not let them manage every team.
        const ownTeam = can(subject, 'team:manage-members') || can(await ctx.access.teams(org.id), 'team:manage-members');
        return { ...flags, ownTeam } as OrganizationPermissionFlags;
      },
    }),
  }),
});

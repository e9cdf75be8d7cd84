import { can, type Action } from '../../auth/policies.ts';
import { builder } from '../../builder.ts';
import { SITE_FACTS_SELECT } from '../../loaders.ts';
import { DefaultLevel, SiteAgentsContext, SiteType, SiteVisibility } from '../shared/enums.ts';
import { readSiteCustomizations, siteIcon } from './customizations.ts';

const SiteUrls = builder.objectRef<{ location: string; app: string; published: string | null; preview: string }>('SiteUrls').implement({
  fields: (t) => ({
    location: t.exposeString('location', { description: 'URL of the site in the API' }),
    app: t.exposeString('app', { description: 'URL of the site in the application' }),
    published: t.exposeString('published', { nullable: true, description: 'Published address; only while the site is published' }),
    preview: t.exposeString('preview', {
      description: "The site's preview: its published profile in the API (GET .../published), which members who may read the site get while it is unpublished too",
    }),
  }),
});

/** What `Site.permissions` answers (GitBook's 0.202.0 members), each the policy action it asks `can`. */
const SITE_PERMISSIONS = {
  view: 'site:read',
  // As a space's `access`: whoever reads the site (a share key's or site token's visitor too).
  access: 'site:read',
  // No part of a site is edited below the create role here (structure, sections, site spaces): `edit` is `create`.
  edit: 'site:update',
  create: 'site:update',
  admin: 'site:configure',
  // As a space's: no integrations here, the site's admins would install them.
  installIntegration: 'site:configure',
  // Asked without the request's share key, as GET .../adaptive-schema asks (it takes none): a share key's visitor may not.
  viewAdaptiveSchema: 'site:read',
  editAdaptiveSchema: 'site:configure',
} as const satisfies Record<string, Action>;
/** The permissions whose endpoints take no share key: asked of the caller as they are without one. */
const KEYLESS_SITE_PERMISSIONS: ReadonlySet<string> = new Set(['viewAdaptiveSchema', 'editAdaptiveSchema']);
type SitePermissionName = keyof typeof SITE_PERMISSIONS;

const SitePermissions = builder.objectRef<Record<SitePermissionName, boolean>>('SitePermissions').implement({
  description: 'What the caller may do with the site',
  fields: (t) => Object.fromEntries(Object.keys(SITE_PERMISSIONS).map((k) => [k, t.exposeBoolean(k as SitePermissionName)])) as never,
});

const SiteProxy = builder.objectRef<{ origin: string; target: string }>('SiteProxy').implement({
  description: 'A proxy serving the site under another address (e.g. company.com/docs)',
  fields: (t) => ({
    origin: t.exposeString('origin'),
    target: t.exposeString('target', { description: 'Where requests at the origin are proxied to' }),
  }),
});

const SiteAdaptiveContent = builder.objectRef<{ enabled: boolean }>('SiteAdaptiveContent').implement({
  fields: (t) => ({ enabled: t.exposeBoolean('enabled') }),
});

const SiteFeature = builder.objectRef<{ id: string; plan: string; frozen: boolean }>('SiteFeature').implement({
  description: 'A premium feature enabled on the site',
  fields: (t) => ({ id: t.exposeString('id'), plan: t.field({ type: SiteType, resolve: (f) => f.plan }), frozen: t.exposeBoolean('frozen') }),
});

// Select mode (see Space): a site row always carries the facts its URLs and access checks are
// made of (SITE_FACTS_SELECT: loadSite and loadReadableSite read them, and prime the per-request
// site facts with them) and its title, read straight off the row; other fields select their columns.
export const Site = builder.prismaObject('Site', {
  description: 'A docs site: sections and site spaces, published to an audience',
  select: { ...SITE_FACTS_SELECT, title: true },
  fields: (t) => ({
    object: t.string({ resolve: () => 'site' }),
    id: t.id({ resolve: (s) => s.id }),
    type: t.field({ type: SiteType, select: { type: true }, resolve: (s) => s.type }),
    // No plan freezes a site here (see `features`), so the type applied is the type chosen.
    appliedType: t.field({ type: SiteType, select: { type: true }, description: 'The type the site runs with (a frozen site runs as basic; none is frozen here)', resolve: (s) => s.type }),
    title: t.string({ resolve: (s) => s.title }),
    icon: t.field({
      type: 'JSON',
      nullable: true,
      description: 'The favicon of the site (CustomizationFavicon: `{icon: {light, dark}}` or `{emoji}`), from its customizations; null when none is set',
      select: { customizations: true },
      resolve: (s) => siteIcon(s.customizations),
    }),
    hostname: t.string({ nullable: true, resolve: (s) => s.hostname }),
    basename: t.string({ resolve: (s) => s.basename }),
    proxy: t.field({
      type: SiteProxy,
      nullable: true,
      select: { proxy: true },
      resolve: (s, _args, ctx) => (s.proxy ? { origin: s.proxy, target: ctx.urls.publishedSite(s) } : null),
    }),
    visibility: t.field({ type: SiteVisibility, select: { visibility: true }, resolve: (s) => s.visibility }),
    // Sites follow the organization role (auth/policies.ts): no level of their own, they inherit it.
    defaultLevel: t.field({ type: DefaultLevel, description: "`inherit`: a site's readers and editors are those of its organization", resolve: () => 'inherit' as const }),
    permissions: t.field({
      type: SitePermissions,
      resolve: async (s, _args, ctx) => {
        // The share key that opened the site in this request (if any) makes the caller a reader of what takes it.
        const [keyed, keyless] = await Promise.all([ctx.access.site(s, ctx.access.shareKeyFor(s.id)), ctx.access.site(s)]);
        return Object.fromEntries(
          Object.entries(SITE_PERMISSIONS).map(([k, action]) => [k, can(KEYLESS_SITE_PERMISSIONS.has(k) ? keyless : keyed, action)]),
        ) as Record<SitePermissionName, boolean>;
      },
    }),
    published: t.boolean({ resolve: (s) => s.published }),
    publishedAt: t.expose('publishedAt', { type: 'DateTime', nullable: true, description: 'When the site was last published' }),
    unpublishedAt: t.expose('unpublishedAt', { type: 'DateTime', nullable: true, description: 'When the site was last unpublished' }),
    siteSpacesCount: t.relationCount('siteSpaces', { description: 'How many site spaces the site has (REST: `siteSpaces`)' }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
    adaptiveContent: t.field({ type: SiteAdaptiveContent, select: { adaptiveContent: true }, resolve: (s) => ({ enabled: s.adaptiveContent }) }),
    agentsContext: t.field({ type: SiteAgentsContext, select: { agentsContext: true }, resolve: (s) => s.agentsContext as 'excluded' | 'included' }),
    // No plan gates features in this service, so no site has premium features to list.
    features: t.field({ type: [SiteFeature], resolve: () => [] }),
    urls: t.field({
      type: SiteUrls,
      resolve: (s, _args, ctx) => ({
        location: ctx.urls.api(`/orgs/${s.organizationId}/sites/${s.id}`),
        app: ctx.urls.app(`/o/${s.organizationId}/sites/${s.id}`),
        published: s.published ? ctx.urls.publishedSite(s) : null,
        preview: ctx.urls.api(`/orgs/${s.organizationId}/sites/${s.id}/published`),
      }),
    }),
    customizations: t.field({
      type: 'JSON',
      description: 'The full SiteCustomizationSettings of the site: what was set over the defaults',
      select: { customizations: true },
      resolve: (s) => readSiteCustomizations(s.customizations),
    }),
    organizationId: t.id({ resolve: (s) => s.organizationId }),
    organization: t.relation('organization'),
  }),
});

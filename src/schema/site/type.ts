import { builder } from '../../builder.ts';
import { SITE_FACTS_SELECT } from '../../loaders.ts';
import { SiteAgentsContext, SiteType, SiteVisibility } from '../shared/enums.ts';
import { readSiteCustomizations, siteIcon } from './customizations.ts';

const SiteUrls = builder.objectRef<{ location: string; app: string; published: string | null }>('SiteUrls').implement({
  fields: (t) => ({
    location: t.exposeString('location', { description: 'URL of the site in the API' }),
    app: t.exposeString('app', { description: 'URL of the site in the application' }),
    published: t.exposeString('published', { nullable: true, description: 'Published address; only while the site is published' }),
  }),
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

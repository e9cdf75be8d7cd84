import { builder } from '../../builder.ts';
import { publishedUrl } from '../../services/published-urls.ts';
import { readSiteSpaceCustomizations } from '../site/customizations.ts';

const SiteSpaceUrls = builder.objectRef<{ published: string | null; location: string }>('SiteSpaceUrls').implement({
  fields: (t) => ({
    location: t.exposeString('location', { description: 'URL of the site space in the API' }),
    published: t.exposeString('published', {
      nullable: true,
      description: 'Published address of the site space (with the share key when one opened the site); only while the site is published',
    }),
  }),
});

// Select mode (see Space): a site space row always carries its keys, path and flags, read straight
// off the row (spaceId also tells SiteStructureItem a site space from the other items of a
// structure); other fields select their columns.
export const SiteSpace = builder.prismaObject('SiteSpace', {
  description: 'A space published on a site: at the root of a site without sections, or as a variant in a section',
  select: { id: true, path: true, siteId: true, sectionId: true, spaceId: true, isDefault: true, hidden: true },
  fields: (t) => ({
    object: t.string({ resolve: () => 'site-space' }),
    // No drafts here: every section, group and site space is live once created (docs/decisions.md, Sites).
    draft: t.boolean({ description: 'Whether the site space is a draft, not live: never here', resolve: () => false }),
    id: t.id({ resolve: (siteSpace) => siteSpace.id }),
    path: t.string({ description: 'Path of the site space on the site, unique within its section (or the root)', resolve: (siteSpace) => siteSpace.path }),
    siteId: t.id({ resolve: (siteSpace) => siteSpace.siteId }),
    site: t.relation('site'),
    sectionId: t.id({ nullable: true, description: 'Id of its section; null at the root of a site without sections', resolve: (siteSpace) => siteSpace.sectionId }),
    section: t.relation('section', { nullable: true }),
    spaceId: t.id({ resolve: (siteSpace) => siteSpace.spaceId }),
    space: t.relation('space', { description: 'The space the site space publishes' }),
    title: t.string({
      description: "The space's title",
      select: { space: { select: { title: true } } },
      resolve: (siteSpace) => siteSpace.space.title,
    }),
    default: t.boolean({ resolve: (siteSpace) => siteSpace.isDefault, description: 'Whether this is the default site space of its section (or of the root of the site)' }),
    condition: t.exposeString('condition', { nullable: true, description: 'Expression deciding whether a visitor sees the site space' }),
    hidden: t.boolean({ resolve: (siteSpace) => siteSpace.hidden, description: 'Left out of the navigation (still published)' }),
    hasAdvancedCustomizationFeature: t.boolean({ description: 'No plan gates features here: always false', resolve: () => false }),
    customizations: t.field({
      type: 'JSON',
      description: "The full SiteSpaceCustomizationSettings of the site space: its overrides over the site's customizations, and `hasOverrides`",
      select: { customizations: true, site: { select: { customizations: true } } },
      resolve: (siteSpace) => readSiteSpaceCustomizations(siteSpace.customizations, siteSpace.site.customizations),
    }),
    urls: t.field({
      type: SiteSpaceUrls,
      resolve: async (siteSpace, _args, ctx) => {
        const [site, section] = await Promise.all([
          ctx.loaders.siteFactsById.load(siteSpace.siteId),
          siteSpace.sectionId ? ctx.loaders.sectionPathById.load(siteSpace.sectionId) : null,
        ]);
        return {
          published: publishedUrl(ctx, site, section, siteSpace.path),
          location: ctx.urls.api(`/orgs/${site.organizationId}/sites/${site.id}/site-spaces/${siteSpace.id}`),
        };
      },
    }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
  }),
});

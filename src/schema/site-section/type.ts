import { builder } from '../../builder.ts';
import { publishedUrl } from '../../services/published-urls.ts';
import { SECTION_SITE_SPACES_ORDER } from '../../services/site-structure.ts';
import { visibleSiteSpaceWhere } from '../../services/site.ts';

const SiteSectionUrls = builder.objectRef<{ published: string | null; location: string }>('SiteSectionUrls').implement({
  fields: (t) => ({
    location: t.exposeString('location', { description: 'URL of the section in the API' }),
    published: t.exposeString('published', {
      nullable: true,
      description: 'Published address of the section (with the share key when one opened the site); only while the site is published',
    }),
  }),
});

// Select mode (see Space): a section row always carries its keys, title and path, read straight off
// the row (defaultSiteSpaceId also tells SiteStructureItem a section from the other items of a
// structure); other fields select their columns.
export const SiteSection = builder.prismaObject('SiteSection', {
  description: 'A section of a site: a set of site spaces (variants), one of them the default',
  select: { id: true, title: true, path: true, siteId: true, sectionGroupId: true, defaultSiteSpaceId: true },
  fields: (t) => ({
    object: t.string({ resolve: () => 'site-section' }),
    // No drafts here: every section, group and site space is live once created (docs/decisions.md, Sites).
    draft: t.boolean({ description: 'Whether the section is a draft, not live: never here', resolve: () => false }),
    id: t.id({ resolve: (section) => section.id }),
    title: t.string({ resolve: (section) => section.title }),
    description: t.exposeString('description', { nullable: true }),
    default: t.boolean({
      description: 'Whether this is the default section of the site',
      resolve: async (section, _args, ctx) => (await ctx.loaders.siteFactsById.load(section.siteId)).defaultSectionId === section.id,
    }),
    path: t.string({ description: 'Path of the section on the site, unique in the site', resolve: (section) => section.path }),
    condition: t.exposeString('condition', { nullable: true, description: 'Expression deciding whether a visitor sees the section' }),
    icon: t.exposeString('icon', { nullable: true }),
    // Named as on the wire, so REST documents need no alias; the edge is `group`.
    sectionGroup: t.id({ nullable: true, description: 'Id of the section group the section is in', resolve: (section) => section.sectionGroupId }),
    group: t.relation('sectionGroup', { nullable: true, description: 'The section group the section is in' }),
    defaultSiteSpaceId: t.id({ nullable: true, resolve: (section) => section.defaultSiteSpaceId }),
    siteSpaces: t.relation('siteSpaces', {
      description: 'The site spaces (variants) of the section, in their order',
      args: {
        onlyVisible: t.arg.boolean({
          defaultValue: false,
          description: 'Only what visitors see: no hidden site spaces, none whose space is in the bin',
        }),
      },
      query: (args, ctx) => ({ where: args.onlyVisible ? visibleSiteSpaceWhere(ctx) : {}, orderBy: SECTION_SITE_SPACES_ORDER }),
    }),
    siteSpacesCount: t.relationCount('siteSpaces', { description: 'How many site spaces the section has' }),
    siteId: t.id({ resolve: (section) => section.siteId }),
    site: t.relation('site'),
    urls: t.field({
      type: SiteSectionUrls,
      resolve: async (section, _args, ctx) => {
        const site = await ctx.loaders.siteFactsById.load(section.siteId);
        return { published: publishedUrl(ctx, site, section.path), location: ctx.urls.api(`/orgs/${site.organizationId}/sites/${site.id}/sections/${section.id}`) };
      },
    }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
  }),
});

/**
 * The structure of a site: its sections and section groups (nested, in their
 * order), or its root site spaces when it has no sections; the published
 * profile (what a visitor sees); and the site's edges to them.
 */
import { builder } from '../../builder.ts';
import { STRUCTURE_ORDER } from '../../services/site-structure.ts';
import { SHOWN_SITE_SPACE } from '../../services/site.ts';
import { SiteSection } from '../site-section/type.ts';
import { SiteSpace } from '../site-space/type.ts';
import { readSiteCustomizations, readSiteSpaceCustomizations } from '../site/customizations.ts';
import { Site } from '../site/type.ts';
import { groupChildren, groupSections, loadStructure, STRUCTURE_COUNTS } from './tree.ts';

const ONLY_VISIBLE = {
  defaultValue: false,
  description: 'Only what visitors of the published site see: sections and groups with at least one visible site space (not hidden, space not in the bin)',
};

export const SiteSectionGroup = builder.prismaObject('SiteSectionGroup', {
  description: 'A group of sections (and of nested groups) in the structure of a site',
  fields: (t) => ({
    object: t.string({ resolve: () => 'site-section-group' }),
    // No drafts here: every section, group and site space is live once created (docs/decisions.md, Sites).
    draft: t.boolean({ description: 'Whether the group is a draft, not live: never here', resolve: () => false }),
    id: t.exposeID('id'),
    title: t.exposeString('title'),
    icon: t.exposeString('icon', { nullable: true }),
    // Named as on the wire; the edge is `parentGroup`.
    sectionGroup: t.exposeID('parentGroupId', { nullable: true, description: 'Id of the parent group; null at the top of the structure' }),
    parentGroup: t.relation('parentGroup', { nullable: true }),
    siteId: t.exposeID('siteId'),
    site: t.relation('site'),
    // Read with the structure the group came in (tree.ts), not as a relation of its own.
    sections: t.field({
      type: [SiteSection],
      description: 'The sections directly in the group, in their order',
      deprecationReason: 'Use `children`, which also holds the nested groups',
      args: { onlyVisible: t.arg.boolean(ONLY_VISIBLE) },
      resolve: (group, args, ctx, info) => groupSections(ctx, info, group, args.onlyVisible ?? false),
    }),
    position: t.exposeFloat('position', { description: 'Order among the sections and groups of the same parent' }),
  }),
});

/** An item of a site's structure. */
export const SiteStructureItem = builder.unionType('SiteStructureItem', {
  description: 'An item of the structure of a site: a site space, a section or a section group',
  types: [SiteSpace, SiteSection, SiteSectionGroup],
  resolveType: (item) => {
    const row = item as Record<string, unknown>;
    if ('spaceId' in row) return 'SiteSpace';
    if ('defaultSiteSpaceId' in row) return 'SiteSection';
    return 'SiteSectionGroup';
  },
});

// Added once the union exists (the union includes the group itself).
builder.prismaObjectFields(SiteSectionGroup, (t) => ({
  children: t.field({
    type: [SiteStructureItem],
    description: 'The sections and nested groups of the group, in their order',
    args: { onlyVisible: t.arg.boolean(ONLY_VISIBLE) },
    // Read with the structure the group came in (tree.ts), not as relations of its own.
    resolve: (group, args, ctx, info) => groupChildren(ctx, info, group, args.onlyVisible ?? false),
  }),
}));

/**
 * The structure, as a variant of the Site row: the counts of its sections and
 * groups ride on the statement loading the site, then `structure` reads each
 * level that has rows once, for every place of the document (tree.ts): one
 * statement per level (sections, their site spaces, their spaces, groups; or
 * root site spaces), whatever the size of the site.
 */
export const SiteStructure = builder.prismaObject('Site', {
  variant: 'SiteStructure',
  description: "The structure of a site: `sections` (sections and section groups) when it has sections, else `siteSpaces` (its root site spaces)",
  fields: (t) => ({
    type: t.string({
      description: '`sections` or `siteSpaces`',
      select: { _count: { select: { sections: true } } },
      resolve: (site) => (site._count.sections > 0 ? 'sections' : 'siteSpaces'),
    }),
    structure: t.field({
      type: [SiteStructureItem],
      description: 'The top-level items, in their order (section groups hold theirs in `children`)',
      args: { onlyVisible: t.arg.boolean(ONLY_VISIBLE) },
      select: STRUCTURE_COUNTS,
      resolve: (site, args, ctx, info) => loadStructure(ctx, info, site, args.onlyVisible ?? false),
    }),
  }),
});

const SiteIntegrationScript = builder
  .objectRef<{ script: string; contentSecurityPolicy: string | null; cookies: boolean }>('SiteIntegrationScript')
  .implement({
    description: 'A script an integration adds to the published site',
    fields: (t) => ({
      script: t.exposeString('script'),
      contentSecurityPolicy: t.exposeString('contentSecurityPolicy', { nullable: true }),
      cookies: t.exposeBoolean('cookies'),
    }),
  });

/** The published profile of a site: what the site renderer needs to serve it to a visitor. */
export const PublishedContentSite = builder.prismaObject('Site', {
  variant: 'PublishedContentSite',
  description: 'The published profile of a site: the site, its structure, its customizations and integration scripts',
  fields: (t) => ({
    object: t.string({ resolve: () => 'published-content-site' }),
    site: t.variant(Site),
    structure: t.variant(SiteStructure, {
      description: 'The structure; select `structure(onlyVisible: true)` (and the same on nested lists) for what visitors see',
    }),
    customizations: t.field({
      type: 'JSON',
      description:
        '`{site, siteSpaces}`: the full SiteCustomizationSettings of the site, and the SiteSpaceCustomizationSettings of each site space visitors see (its overrides over the site, and `hasOverrides`)',
      // Planned before the site is read, so before what a site token's visitor does not see is known: that is filtered when resolved.
      select: {
        customizations: true,
        siteSpaces: { where: SHOWN_SITE_SPACE, orderBy: STRUCTURE_ORDER, select: { id: true, customizations: true } },
      },
      resolve: (site, _args, ctx) => ({
        site: readSiteCustomizations(site.customizations),
        siteSpaces: Object.fromEntries(
          site.siteSpaces
            .filter((siteSpace) => !ctx.access.visitorHidden.siteSpaces.has(siteSpace.id))
            .map((siteSpace) => [siteSpace.id, readSiteSpaceCustomizations(siteSpace.customizations, site.customizations)]),
        ),
      }),
    }),
    scripts: t.field({
      type: [SiteIntegrationScript],
      description: 'Scripts of the integrations installed on the site (none: integrations are not part of this service)',
      resolve: () => [],
    }),
  }),
});

builder.prismaObjectFields(Site, (t) => ({
  structure: t.variant(SiteStructure, { description: 'The ordered tree of sections, section groups and site spaces' }),
  sectionGroups: t.relation('sectionGroups', {
    description: 'Every section group of the site (nested ones too), in position order; `structure` has them as a tree',
    query: { orderBy: STRUCTURE_ORDER },
  }),
}));

import { builder } from '../../builder.ts';
import { paginate } from '../../db/pagination.ts';
import { STRUCTURE_ORDER } from '../../services/site-structure.ts';
import { loadReadableSite } from '../../services/site.ts';
import { itemsQuery, listType, pageArgs } from '../shared/pagination.ts';
import { readableSiteArgs } from '../site/args.ts';
import { Site } from '../site/type.ts';
import { SiteSpace } from './type.ts';

/** List order (paginate's sort keys). */
const LIST_ORDER = [['position', 'asc'], ['id', 'asc']] as const;

export const SiteSpaceList = listType('SiteSpace', SiteSpace);

/**
 * The site's default site space: the default at the root of a site without
 * sections (whose defaultSectionId is null, like the sectionId of its root
 * site spaces), or the default of the site's default section.
 */
function defaultFilter(site: { defaultSectionId: string | null }, wantDefault: boolean): Record<string, unknown> {
  if (wantDefault) return { isDefault: true, sectionId: site.defaultSectionId };
  const otherSection = site.defaultSectionId === null ? [{ sectionId: { not: null } }] : [{ sectionId: null }, { sectionId: { not: site.defaultSectionId } }];
  return { OR: [{ isDefault: false }, ...otherSection] };
}

builder.queryField('siteSpaces', (t) =>
  t.field({
    type: SiteSpaceList,
    description: 'The site spaces of a site (at its root and in every section), in position order',
    authScopes: { authenticated: true },
    args: {
      ...readableSiteArgs,
      ...pageArgs,
      default: t.arg.boolean({
        description: "true: only the site's default site space (of its default section when it has sections); false: only the others; unset: all",
      }),
    },
    resolve: async (_root, args, ctx, info) => {
      const site = await loadReadableSite(ctx, String(args.organizationId), String(args.siteId), args.shareKey);
      const where: Record<string, unknown> = { siteId: site.id };
      if (args.default !== null && args.default !== undefined) Object.assign(where, defaultFilter(site, args.default));
      const query = itemsQuery(ctx, info, LIST_ORDER);
      return paginate({
        page: args.page,
        limit: args.limit,
        orderBy: LIST_ORDER,
        where,
        findMany: (a) => ctx.db.siteSpace.findMany({ ...query, ...a }),
        count: (a) => ctx.db.siteSpace.count(a),
      });
    },
  }),
);

builder.prismaObjectFields(Site, (t) => ({
  siteSpaces: t.relation('siteSpaces', {
    description: 'The site spaces at the root of the site (a site without sections), in their order (`Site.siteSpacesCount` counts every site space of the site)',
    query: { where: { sectionId: null }, orderBy: STRUCTURE_ORDER },
  }),
}));

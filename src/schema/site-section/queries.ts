import { builder } from '../../builder.ts';
import { paginate } from '../../db/pagination.ts';
import { STRUCTURE_ORDER } from '../../services/site-structure.ts';
import { loadReadableSite } from '../../services/site.ts';
import { listType, pageArgs, itemsQuery } from '../shared/pagination.ts';
import { readableSiteArgs } from '../site/args.ts';
import { Site } from '../site/type.ts';
import { SiteSection } from './type.ts';

/** List order (paginate's sort keys). */
const LIST_ORDER = [['position', 'asc'], ['id', 'asc']] as const;

export const SiteSectionList = listType('SiteSection', SiteSection);

builder.queryField('siteSections', (t) =>
  t.field({
    type: SiteSectionList,
    description: 'The sections of a site, in position order (`siteStructure` gives them as a tree with their groups)',
    authScopes: { authenticated: true },
    args: { ...readableSiteArgs, ...pageArgs },
    resolve: async (_root, args, ctx, info) => {
      const site = await loadReadableSite(ctx, String(args.organizationId), String(args.siteId), args.shareKey);
      const query = itemsQuery(ctx, info, LIST_ORDER);
      return paginate({
        page: args.page,
        limit: args.limit,
        orderBy: LIST_ORDER,
        where: { siteId: site.id },
        findMany: (a) => ctx.db.siteSection.findMany({ ...query, ...a }),
        count: (a) => ctx.db.siteSection.count(a),
      });
    },
  }),
);

builder.prismaObjectFields(Site, (t) => ({
  sections: t.relation('sections', {
    description: 'Every section of the site (those in groups too), in position order',
    query: { orderBy: STRUCTURE_ORDER },
  }),
  sectionsCount: t.relationCount('sections', { description: 'How many sections the site has' }),
}));

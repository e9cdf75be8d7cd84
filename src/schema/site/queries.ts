import { authorize, can, requireScope } from '../../auth/policies.ts';
import { builder } from '../../builder.ts';
import type { Context } from '../../context.ts';
import { paginate } from '../../db/pagination.ts';
import { containsInsensitive, escapeLike } from '../../db/provider/like.ts';
import { loadSite } from '../../services/site.ts';
import { Organization } from '../organization/type.ts';
import { SiteType } from '../shared/enums.ts';
import { itemsQuery, listType, pageArgs } from '../shared/pagination.ts';
import { Site } from './type.ts';

/** List order (paginate's sort keys). */
const SITE_LIST_ORDER = [['createdAt', 'asc'], ['id', 'asc']] as const;

builder.queryField('site', (t) =>
  t.prismaField({
    type: Site,
    authScopes: { authenticated: true },
    args: { organizationId: t.arg.id({ required: true }), id: t.arg.id({ required: true }) },
    resolve: (query, _root, args, ctx) => loadSite(ctx, String(args.organizationId), String(args.id), 'site:read', query),
  }),
);

export const SiteList = listType('Site', Site);

/**
 * The `where` part for sites whose title contains `title` literally, ignoring
 * case (as the member search does: raw SQL with LIKE's ESCAPE clause where
 * Prisma's `contains` cannot match `%` or `_` literally, see containsInsensitive).
 */
async function titleFilter(ctx: Context, organizationId: string, title: string): Promise<Record<string, unknown>> {
  const filter = containsInsensitive(ctx.provider, title);
  if (filter) return { title: filter };
  const pattern = `%${escapeLike(title)}%`;
  const rows = await ctx.db.$queryRaw<Array<{ id: string }>>`
    SELECT s."id" AS "id" FROM "Site" s WHERE s."organizationId" = ${organizationId} AND s."title" LIKE ${pattern} ESCAPE '\\'`;
  return { id: { in: rows.map((r) => r.id) } };
}

builder.prismaObjectFields(Organization, (t) => ({
  sites: t.field({
    type: SiteList,
    description: 'Docs sites of the organization, in creation order',
    args: {
      ...pageArgs,
      space: t.arg.string({ description: 'Only sites publishing this space (in any section)' }),
      title: t.arg.string({ description: 'Only sites whose title contains this text, ignoring case' }),
      published: t.arg.boolean({ description: 'Only published (true) or unpublished (false) sites' }),
      type: t.arg({ type: [SiteType], description: 'Only sites of these types' }),
    },
    resolve: async (org, args, ctx, info) => {
      const subject = ctx.access.organization(org.id);
      authorize(subject, 'organization:read', { type: 'Organization', id: org.id });
      requireScope(subject, 'site:read');
      const where: Record<string, unknown> = can(subject, 'site:read') ? { organizationId: org.id } : { id: { in: [] as string[] } };
      if (args.space) where.siteSpaces = { some: { spaceId: args.space } };
      if (args.published !== null && args.published !== undefined) where.published = args.published;
      if (args.type?.length) where.type = { in: args.type };
      if (args.title) Object.assign(where, await titleFilter(ctx, org.id, args.title));
      const query = itemsQuery(ctx, info, SITE_LIST_ORDER);
      return paginate({
        page: args.page,
        limit: args.limit,
        orderBy: SITE_LIST_ORDER,
        where,
        findMany: (a) => ctx.db.site.findMany({ ...query, ...a }),
        count: (a) => ctx.db.site.count(a),
      });
    },
  }),
}));

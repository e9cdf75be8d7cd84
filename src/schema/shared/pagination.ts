/**
 * Lists in GraphQL: the `XList` types of the List envelope, the `page` and
 * `limit` arguments, and the query planned for a list's items. The pagination
 * itself is src/db/pagination.ts.
 */
import type { GraphQLResolveInfo } from 'graphql';
import { queryFromInfo } from '@pothos/plugin-prisma';
import { z } from 'zod';
import { builder } from '../../builder.ts';
import type { Context } from '../../context.ts';
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE, type ListResult, type SortKey } from '../../db/pagination.ts';
import { withColumns } from '../../db/select.ts';

export const ListNext = builder.objectRef<{ page: string }>('ListNext').implement({
  description: 'Where the next page starts',
  fields: (t) => ({ page: t.exposeString('page', { description: 'Pass as `page` to get the next page' }) }),
});

/** `XList` object type for items of `itemRef`. */
export function listType<T>(name: string, itemRef: Parameters<typeof builder.objectRef>[0] extends never ? never : any) {
  return builder.objectRef<ListResult<T>>(`${name}List`).implement({
    description: `A page of ${name} items`,
    fields: (t) => ({
      items: t.field({ type: [itemRef], resolve: (list) => list.items as never }),
      next: t.field({ type: ListNext, nullable: true, resolve: (list) => list.next }),
      count: t.int({
        description: 'How many items match, across all pages',
        resolve: (list) => (typeof list.count === 'function' ? list.count() : list.count),
      }),
    }),
  });
}

/** The `page` and `limit` arguments every list field takes. */
export const pageArgs = builder.args((t) => ({
  page: t.string({ required: false, description: 'The cursor of the page to fetch (`next.page` of the previous one)' }),
  limit: t.int({
    required: false,
    description: `Items per page, 1 to ${MAX_PAGE_SIZE} (default ${DEFAULT_PAGE_SIZE})`,
    validate: z.number().int().min(1, `must be between 1 and ${MAX_PAGE_SIZE}`).max(MAX_PAGE_SIZE, `must be between 1 and ${MAX_PAGE_SIZE}`),
  }),
}));

/**
 * The plugin-prisma query (select/include) for the `items` of a list field, so relations load in
 * the same round trip. Give the list's sort keys (`orderBy` of paginate) when its type is in
 * select mode: the cursor of the next page is made of them, whether or not the document asks for them.
 */
export function itemsQuery(ctx: Context, info: GraphQLResolveInfo, orderBy: readonly SortKey[] = []): Record<string, unknown> {
  const query = queryFromInfo({ context: ctx, info, path: ['items'] }) as Record<string, unknown>;
  return withColumns(query, Object.fromEntries(orderBy.map(([field]) => [field, true as const])));
}

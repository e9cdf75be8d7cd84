/**
 * Lists: the List envelope of the wire contract (`items`, `next.page`,
 * `count`) with keyset pagination. A `page` cursor holds the sort values of
 * the last item served, so it stays valid while rows are added or removed.
 */
import type { GraphQLResolveInfo } from 'graphql';
import { queryFromInfo } from '@pothos/plugin-prisma';
import { z } from 'zod';
import { builder } from '../../builder.ts';
import type { Context } from '../../context.ts';
import { InvalidInputError } from '../../errors/index.ts';
import { withColumns } from './select.ts';

export const DEFAULT_PAGE_SIZE = 100;
export const MAX_PAGE_SIZE = 1000;

export interface ListResult<T> {
  items: T[];
  next: { page: string } | null;
  /** A number, or a function that counts only when `count` is selected (a COUNT query is not free). */
  count: number | (() => Promise<number>);
}

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

type SortValue = string | number | Date | null;
export type SortKey = readonly [field: string, direction: 'asc' | 'desc'];

function encodeCursor(values: SortValue[]): string {
  return Buffer.from(JSON.stringify(values.map((v) => (v instanceof Date ? { d: v.toISOString() } : v)))).toString('base64url');
}

function decodeCursor(page: string, keys: readonly SortKey[]): SortValue[] {
  try {
    const raw = JSON.parse(Buffer.from(page, 'base64url').toString('utf8')) as unknown;
    if (!Array.isArray(raw) || raw.length !== keys.length) throw new Error('shape');
    return raw.map((v) => {
      if (v && typeof v === 'object' && typeof (v as { d?: unknown }).d === 'string') return new Date((v as { d: string }).d);
      if (v === null || typeof v === 'string' || typeof v === 'number') return v;
      throw new Error('value');
    });
  } catch {
    throw new InvalidInputError('page: not a valid page cursor (use `next.page` of a previous response)');
  }
}

/** The Prisma `where` for "rows strictly after this cursor" in the sort order. */
function afterCursor(keys: readonly SortKey[], values: SortValue[]): Record<string, unknown> {
  const or = keys.map((_, i) => {
    const and: Record<string, unknown>[] = keys.slice(0, i).map(([field], j) => ({ [field]: values[j] }));
    const [field, direction] = keys[i]!;
    and.push({ [field]: { [direction === 'asc' ? 'gt' : 'lt']: values[i] } });
    return { AND: and };
  });
  return { OR: or };
}

export interface PaginateOptions<Row> {
  page?: string | null;
  limit?: number | null;
  /** Sort keys; the last one must be unique (use `id`). */
  orderBy: readonly SortKey[];
  where: Record<string, unknown>;
  findMany: (args: { where: Record<string, unknown>; orderBy: Record<string, 'asc' | 'desc'>[]; take: number }) => Promise<Row[]>;
  count: (args: { where: Record<string, unknown> }) => Promise<number>;
}

export async function paginate<Row extends Record<string, unknown>>(options: PaginateOptions<Row>): Promise<ListResult<Row>> {
  const limit = options.limit ?? DEFAULT_PAGE_SIZE;
  const where = options.page
    ? { AND: [options.where, afterCursor(options.orderBy, decodeCursor(options.page, options.orderBy))] }
    : options.where;
  const rows = await options.findMany({ where, orderBy: options.orderBy.map(([f, d]) => ({ [f]: d })), take: limit + 1 });
  const items = rows.slice(0, limit);
  const last = items[items.length - 1];
  const missing = last && options.orderBy.find(([f]) => !(f in last));
  if (missing) throw new Error(`paginate: the rows lack the sort column ${missing[0]} (select it: itemsQuery(ctx, info, orderBy))`);
  const next = rows.length > limit && last ? { page: encodeCursor(options.orderBy.map(([f]) => last[f] as SortValue)) } : null;
  return { items, next, count: () => options.count({ where: options.where }) };
}

/**
 * The plugin-prisma query (select/include) for the `items` of a list field, so relations load in
 * the same round trip. Give the list's sort keys (`orderBy` of paginate) when its type is in
 * select mode: the cursor of the next page is made of them, whether or not the document asks for them.
 */
export function itemsQuery(ctx: Context, info: GraphQLResolveInfo, orderBy: readonly SortKey[] = []): Record<string, unknown> {
  const query = queryFromInfo({ context: ctx, info, path: ['items'] }) as Record<string, unknown>;
  return withColumns(query, Object.fromEntries(orderBy.map(([field]) => [field, true as const])));
}

/**
 * Lists: the List envelope of the wire contract (`items`, `next.page`,
 * `count`). Keyset pagination over a Prisma model: a `page` cursor holds the
 * sort values of the last item served, so it stays valid while rows are added
 * or removed; `sliceList` pages a list already in memory (a revision's pages,
 * which never change).
 */
import { InvalidInputError } from '../errors/index.ts';

export const DEFAULT_PAGE_SIZE = 100;
export const MAX_PAGE_SIZE = 1000;

export interface ListResult<T> {
  items: T[];
  next: { page: string } | null;
  /** A number, or a function that counts only when `count` is selected (a COUNT query is not free). */
  count: number | (() => Promise<number>);
}

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
  return { ...pageOfRows(rows, limit, options.orderBy), count: () => options.count({ where: options.where }) };
}

/**
 * A page of `rows`: up to `limit + 1` rows already in the sort order of `orderBy`, read however
 * the caller batched them (the first page of several lists in one statement); `next` is the
 * cursor `paginate` continues from.
 */
export function pageOfRows<Row extends Record<string, unknown>>(rows: Row[], limit: number, orderBy: readonly SortKey[]): Pick<ListResult<Row>, 'items' | 'next'> {
  const items = rows.slice(0, limit);
  const last = items[items.length - 1];
  const missing = last && orderBy.find(([f]) => !(f in last));
  if (missing) throw new Error(`paginate: the rows lack the sort column ${missing[0]} (select it: itemsQuery(ctx, info, orderBy))`);
  const next = rows.length > limit && last ? { page: encodeCursor(orderBy.map(([f]) => last[f] as SortValue)) } : null;
  return { items, next };
}

/**
 * A page of an in-memory list. The cursor is an offset, valid for as long as
 * the list stays the same (a revision never changes). With `keyOf`, for a list
 * sorted by that unique key that may change between requests (what a space's
 * current revision holds), the cursor is the key of the last item served, so
 * items added or removed meanwhile shift nothing (as other lists' keyset cursors).
 */
export function sliceList<T>(
  all: T[],
  page: string | null | undefined,
  limit: number | null | undefined,
  keyOf?: (item: T) => string,
): ListResult<T> {
  let offset = 0;
  if (page) {
    const decoded = decodeListCursor(page, keyOf !== undefined);
    offset = typeof decoded === 'number' ? decoded : all.findIndex((item) => keyOf!(item) > decoded);
    if (offset < 0) offset = all.length;
  }
  const size = limit ?? DEFAULT_PAGE_SIZE;
  const items = all.slice(offset, offset + size);
  if (offset + size >= all.length) return { items, next: null, count: all.length };
  const cursor = keyOf ? JSON.stringify({ after: keyOf(items[items.length - 1]!) }) : String(offset + size);
  return { items, next: { page: Buffer.from(cursor).toString('base64url') }, count: all.length };
}

/** The offset, or with `keyed` the key, a cursor of sliceList holds. */
function decodeListCursor(page: string, keyed: boolean): number | string {
  const text = Buffer.from(page, 'base64url').toString('utf8');
  if (!keyed) {
    const offset = Number(text);
    if (Number.isInteger(offset) && offset >= 0) return offset;
  } else {
    try {
      const after = (JSON.parse(text) as { after?: unknown } | null)?.after;
      if (typeof after === 'string') return after;
    } catch {
      // not JSON: not one of our cursors
    }
  }
  throw new InvalidInputError('page: not a valid page cursor (use `next.page` of a previous response)');
}

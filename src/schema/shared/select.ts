/**
 * Types in plugin-prisma's select mode (Site, SiteSection, SiteSpace, Space)
 * load only the columns a document asks for, besides those of their type-level
 * `select` (src/db/select.ts). A field that returns such rows loaded
 * elsewhere with every column answers with `rowForSelection` /
 * `rowsForSelection`.
 */
import { queryFromInfo } from '@pothos/plugin-prisma';
import type { GraphQLResolveInfo } from 'graphql';
import type { Context } from '../../context.ts';

/** Whether `row` holds everything `query` selects: only columns, all of them on the row. */
function rowAnswers(query: { select?: Record<string, unknown> }, row: object): boolean {
  return !query.select || Object.entries(query.select).every(([column, value]) => value === true && column in row);
}

/**
 * For a field that returns a row of a type in select mode which was loaded elsewhere with every
 * column (not with a query planned for the field): plans the document's selection beneath the
 * field, so the fields beneath read the row instead of each reloading its columns, and answers
 * with the row itself when that selection is only columns; a selection with relations or counts
 * reloads the row with it (`reload`; findUnique calls of a tick are one statement).
 */
export function rowForSelection<Row extends object>(
  ctx: Context,
  info: GraphQLResolveInfo,
  typeName: string,
  row: Row,
  reload: (query: Record<string, unknown>) => Promise<Row>,
): Row | Promise<Row> {
  const query = queryFromInfo({ context: ctx, info, typeName }) as Record<string, unknown>;
  return rowAnswers(query, row) ? row : reload(query);
}

/**
 * `rowForSelection` for a list field: when the rows of `typeName` among `rows` must be reloaded,
 * they are, with those of every other field of the response reloading the same type with the
 * same selection (`reload`: the rows of `ids`, in any order).
 */
export async function rowsForSelection<Row extends { id: string }>(
  ctx: Context,
  info: GraphQLResolveInfo,
  typeName: string,
  rows: Row[],
  isOfType: (row: Row) => boolean,
  reload: (query: Record<string, unknown>, ids: string[]) => Promise<Row[]>,
): Promise<Row[]> {
  const ofType = rows.filter(isOfType);
  if (ofType.length === 0) return rows;
  const query = queryFromInfo({ context: ctx, info, typeName }) as Record<string, unknown>;
  if (rowAnswers(query, ofType[0]!)) return rows;
  // Batched with every other field of the response reloading the same type with the same selection; not cached,
  // so a write earlier in the request is never hidden.
  const loader = ctx.loaders.batch<string, Row | null>(`reload:${typeName} ${JSON.stringify(query)}`, async (ids) => {
    const byId = new Map((await reload(query, [...ids])).map((r) => [r.id, r]));
    return ids.map((id) => byId.get(id) ?? null);
  });
  const reloaded = await loader.loadMany(ofType.map((r) => r.id));
  const byId = new Map(reloaded.map((r) => [(r as Row).id, r as Row]));
  return rows.map((r) => (isOfType(r) ? (byId.get(r.id) ?? r) : r));
}

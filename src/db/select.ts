/**
 * Types in plugin-prisma's select mode (Site, SiteSection, SiteSpace, Space)
 * load only the columns a document asks for, besides those of their type-level
 * `select`. Code that loads such rows with a planned query and reads more
 * columns off them itself (an access check, a cursor, a tree built in memory)
 * adds them with `withColumns`.
 */

/**
 * `query` with `columns` added to its `select`. A query without a `select`
 * (no query, or a type in include mode) loads every column already and is
 * returned as it is.
 */
export function withColumns<Q extends object | undefined>(query: Q, columns: Readonly<Record<string, true>>): Q {
  const select = (query as { select?: Record<string, unknown> } | undefined)?.select;
  if (!select) return query;
  return { ...query, select: { ...select, ...columns } };
}

/**
 * Matching a user's text literally with LIKE, on both databases.
 */
import type { Provider } from './config.ts';

/**
 * `value` as the inside of a LIKE pattern that matches it literally: LIKE's
 * wildcards `%` and `_`, and the escape character `\` itself, are escaped
 * with `\`. PostgreSQL's LIKE/ILIKE use `\` as the escape character by
 * default; SQLite's LIKE needs `ESCAPE '\'` for it.
 */
export function escapeLike(value: string): string {
  return value.replace(/[\\%_]/g, '\\$&');
}

/**
 * A case-insensitive filter matching `value` literally anywhere in a string
 * column, or null where Prisma cannot express one: the caller then matches in
 * raw SQL with `LIKE ? ESCAPE '\'` and `%${escapeLike(value)}%`.
 *
 * Prisma 7.10 passes the value of `contains` through unescaped and writes no
 * ESCAPE clause: `col ILIKE ('%' || $1 || '%')` on PostgreSQL (with
 * `mode: 'insensitive'`, which the SQLite client's types do not know, hence
 * the cast), `col LIKE ('%' || ? || '%')` on SQLite (whose LIKE already ignores
 * ASCII case). So a `%` or `_` in a search would match any characters.
 * - PostgreSQL: `\` is LIKE's default escape character, so the escaped value
 *   is matched literally.
 * - SQLite: LIKE has no escape character without an ESCAPE clause, so a `%` or
 *   `_` cannot be matched literally through Prisma (null). Without them the
 *   plain value is exact (`\` is an ordinary character there).
 * test/rest/member.test.ts checks both against the real databases.
 */
export function containsInsensitive(provider: Provider, value: string): { contains: string } | null {
  if (provider === 'postgresql') return { contains: escapeLike(value), mode: 'insensitive' } as { contains: string };
  return /[%_]/.test(value) ? null : { contains: value };
}

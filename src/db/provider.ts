/**
 * How SQLite and PostgreSQL differ for us, each difference in one small
 * module of ./provider/; everything else (client.ts, migrate.ts, the app)
 * goes through them:
 * - provider/config.ts: how a DATABASE_URL is read (a SQLite file; PostgreSQL
 *   from discrete fields, optionally in a schema) and the `Provider` type;
 * - provider/adapters.ts: the Prisma driver adapter of each, with the adapter
 *   traps we work around (trap 1: PostgreSQL's `"char"` OID; trap 2: no
 *   shadow database on PostgreSQL; trap 3: SQLite's multi-statement
 *   executeRaw), and each SQLite connection's settings (WAL, 32,766 bound
 *   values, statements prepared once: provider/sqlite-statement-cache.ts);
 * - provider/setup.ts: how a database is prepared (a folder, a schema) and dropped;
 * - provider/statements.ts: which statements each adapter call sends, for counting;
 * - provider/like.ts: a case-insensitive literal `contains` (PostgreSQL's ILIKE
 *   escapes with `\`, SQLite's LIKE has no escape without ESCAPE).
 *
 * Import from the module that does the job; the names below are kept here for
 * the modules that import them from this one.
 */
export type { DatabaseConfig, Provider } from './provider/config.ts';
export { createAdapterFactory } from './provider/adapters.ts';
export { prepareDatabase } from './provider/setup.ts';

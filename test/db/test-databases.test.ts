/**
 * The suite's test databases are copies of a template `migrate` made (test/helpers/database.ts):
 * a copy must be the database `migrate` makes. Here one of each, compared in the database's own
 * catalog: every table, column (type, default, nullability, generated expression), index,
 * constraint, enum and trigger, and the migrations recorded as applied. A server started on a copy
 * finds nothing to apply.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrate } from '../../src/db/migrate.ts';
import { pgPoolConfig, requireSqliteFile, type DatabaseConfig } from '../../src/db/provider/config.ts';
import Database from 'better-sqlite3';
import { createMigratedDatabase, createTestDatabase, usingPostgres, type TestDatabase } from '../helpers/database.ts';

let copy: TestDatabase;
let migrated: TestDatabase;

beforeAll(async () => {
  [copy, migrated] = [await createTestDatabase(), await createMigratedDatabase()];
});
afterAll(async () => {
  await copy?.drop();
  await migrated?.drop();
});

/** The schema of a PostgreSQL database in its schema, with the schema's name taken out. */
async function postgresCatalog(config: DatabaseConfig) {
  const schema = config.pg!.schema!;
  const { options: _searchPath, ...settings } = pgPoolConfig(config);
  const client = new pg.Client(settings);
  await client.connect();
  const rows = async (sql: string) =>
    JSON.parse(JSON.stringify((await client.query(sql, sql.includes('$1') ? [schema] : [])).rows).replaceAll(schema, '<schema>'));
  try {
    return {
      columns: await rows(
        `SELECT table_name, column_name, data_type, udt_name, is_nullable, column_default, is_generated, generation_expression, character_maximum_length
           FROM information_schema.columns WHERE table_schema = $1 ORDER BY table_name, column_name`,
      ),
      indexes: await rows(`SELECT tablename, indexname, indexdef FROM pg_indexes WHERE schemaname = $1 ORDER BY tablename, indexname`),
      constraints: await rows(
        `SELECT c.conrelid::regclass::text AS table_name, c.conname, c.contype, pg_get_constraintdef(c.oid) AS definition
           FROM pg_constraint c JOIN pg_namespace n ON n.oid = c.connamespace WHERE n.nspname = $1 ORDER BY 1, 2`,
      ),
      enums: await rows(
        `SELECT t.typname, array_agg(e.enumlabel ORDER BY e.enumsortorder) AS labels
           FROM pg_type t JOIN pg_enum e ON e.enumtypid = t.oid JOIN pg_namespace n ON n.oid = t.typnamespace WHERE n.nspname = $1 GROUP BY t.typname ORDER BY 1`,
      ),
      triggers: await rows(
        `SELECT event_object_table, trigger_name, action_timing, event_manipulation, action_statement
           FROM information_schema.triggers WHERE trigger_schema = $1 ORDER BY 1, 2, 4`,
      ),
      functions: await rows(`SELECT p.proname, pg_get_functiondef(p.oid) AS definition FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace WHERE n.nspname = $1 ORDER BY 1`),
      migrations: await rows(`SELECT migration_name, checksum, finished_at IS NOT NULL AS finished, rolled_back_at FROM "${schema}"._prisma_migrations ORDER BY 1`),
    };
  } finally {
    await client.end();
  }
}

/** The schema of a SQLite database: its sqlite_master and the migrations recorded as applied. */
function sqliteCatalog(config: DatabaseConfig) {
  const db = new Database(requireSqliteFile(config), { readonly: true });
  try {
    return {
      objects: db.prepare(`SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY type, name`).all(),
      migrations: db.prepare(`SELECT migration_name, checksum, finished_at IS NOT NULL AS finished, rolled_back_at FROM _prisma_migrations ORDER BY migration_name`).all(),
    };
  } finally {
    db.close();
  }
}

describe(`a test database (${usingPostgres ? 'PostgreSQL' : 'SQLite'})`, () => {
  it('is what migrate makes of a new database', async () => {
    const catalog = (config: DatabaseConfig) => (config.provider === 'postgresql' ? postgresCatalog(config) : sqliteCatalog(config));
    const [ofCopy, ofMigrated] = [await catalog(copy.config), await catalog(migrated.config)];
    expect(ofCopy).toEqual(ofMigrated);
    expect((ofCopy.migrations as unknown[]).length).toBeGreaterThan(20);
  });

  it('has nothing left for migrate to apply', async () => {
    expect(await migrate(copy.config)).toEqual({ applied: [] });
  });
});

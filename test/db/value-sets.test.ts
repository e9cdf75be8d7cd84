/**
 * The fixed value sets of src/db/value-sets.ts against what the migrated
 * database enforces: every CHECK constraint of the database is read back and
 * must be exactly VALUE_SET_COLUMNS (no set missing, none different, no other
 * check), so the module and the migrations cannot drift apart, including when
 * a later SQLite table redefinition would leave a constraint out.
 *
 * SQLite always runs; PostgreSQL when TEST_DATABASE_URL is set.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeDb, createDb, type Db } from '../../src/db/client.ts';
import { diffSchemas } from '../../src/db/migrate.ts';
import { completeMigrationSql } from '../../src/db/migration-sql.ts';
import type { Provider } from '../../src/db/provider/config.ts';
import { JOB_KINDS, VALUE_SET_COLUMNS, valueSetConstraintName } from '../../src/db/value-sets.ts';
import { createTestDatabase, usingPostgres, type TestDatabase } from '../helpers/database.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const sqliteSchema = fs.readFileSync(path.join(root, 'prisma/schema.prisma'), 'utf8');

/** `table.column` -> the values the set allows, sorted. */
type EnforcedSets = Record<string, string[]>;

const moduleSets = (): EnforcedSets =>
  Object.fromEntries(
    Object.entries(VALUE_SET_COLUMNS).flatMap(([table, columns]) =>
      Object.entries(columns).map(([column, values]) => [`${table}.${column}`, [...values].sort()]),
    ),
  );

const quotedValues = (list: string) => [...list.matchAll(/'((?:[^']|'')*)'/g)].map((m) => m[1]!.replace(/''/g, "'")).sort();

/** The CHECK constraints of a SQLite database, from the table definitions it keeps (sqlite_master). */
async function sqliteChecks(db: Db): Promise<EnforcedSets> {
  const tables = await db.$queryRawUnsafe<{ name: string; sql: string }[]>(`SELECT name, sql FROM sqlite_master WHERE type = 'table' AND sql IS NOT NULL`);
  const sets: EnforcedSets = {};
  for (const { name, sql } of tables) {
    const checks = [...sql.matchAll(/CHECK \("(\w+)" IN \(((?:'(?:[^']|'')*'(?:, )?)+)\)\)/g)];
    // Any CHECK this reading does not understand fails the comparison rather than being missed.
    const all = sql.match(/\bCHECK\b/gi) ?? [];
    if (all.length !== checks.length) sets[`${name}.<unread CHECK>`] = [sql];
    for (const [, column, list] of checks) sets[`${name}.${column}`] = quotedValues(list!);
  }
  return sets;
}

/** The CHECK constraints of the PostgreSQL schema, as PostgreSQL prints them: `CHECK ((col = ANY (ARRAY['a'::text, ...])))`. */
async function postgresChecks(db: Db): Promise<EnforcedSets> {
  const rows = await db.$queryRawUnsafe<{ table_name: string; name: string; definition: string }[]>(
    `SELECT rel.relname AS table_name, con.conname AS name, pg_get_constraintdef(con.oid) AS definition
       FROM pg_constraint con JOIN pg_class rel ON rel.oid = con.conrelid JOIN pg_namespace ns ON ns.oid = rel.relnamespace
      WHERE con.contype = 'c' AND ns.nspname = current_schema()`,
  );
  const sets: EnforcedSets = {};
  for (const { table_name, name, definition } of rows) {
    const match = /^CHECK \(\("?(\w+)"? = ANY \(ARRAY\[(.*)\]\)\)\)$/.exec(definition);
    if (!match) {
      sets[`${table_name}.<unread CHECK ${name}>`] = [definition];
      continue;
    }
    const [, column, list] = match;
    expect(name, definition).toBe(valueSetConstraintName(table_name, column!));
    sets[`${table_name}.${column}`] = quotedValues(list!);
  }
  return sets;
}

const checksOf = (db: Db, provider: Provider) => (provider === 'sqlite' ? sqliteChecks(db) : postgresChecks(db));

describe(`the migrated database (${usingPostgres ? 'PostgreSQL' : 'SQLite'})`, () => {
  let database: TestDatabase;
  let db: Db;

  beforeAll(async () => {
    database = await createTestDatabase();
    db = createDb(database.config);
  });

  afterAll(async () => {
    await closeDb(db);
    await database.drop();
  });

  it('enforces exactly the value sets of src/db/value-sets.ts, with no other check', async () => {
    expect(await checksOf(db, database.config.provider)).toEqual(moduleSets());
  });

  it('refuses a value outside a set, and takes every value of it and NULL where the column is nullable', async () => {
    const insert = (id: string, type: string, role: string | null) =>
      db.$executeRawUnsafe(
        `INSERT INTO "Organization" ("id", "title", "type", "defaultRole", "updatedAt") VALUES ('${id}', 'Org', '${type}', ${role === null ? 'NULL' : `'${role}'`}, CURRENT_TIMESTAMP)`,
      );
    await expect(insert('o-bad-type', 'enterprise', null)).rejects.toThrow(/check/i);
    await expect(insert('o-bad-role', 'business', 'owner')).rejects.toThrow(/check/i);
    for (const [i, role] of VALUE_SET_COLUMNS.Organization.defaultRole.entries()) await insert(`o-${i}`, 'community', role);
    await insert('o-guest', 'business', null);
    expect(await db.organization.count()).toBe(VALUE_SET_COLUMNS.Organization.defaultRole.length + 1);
  });
});

describe('a later migration of a table with value sets', () => {
  // A new default for a column of Member makes SQLite redefine the table from the datamodel, which knows no CHECK.
  const changed = sqliteSchema.replace('  disabled       Boolean   @default(false)', '  disabled       Boolean   @default(true)');

  it('is a SQLite table redefinition that would drop the checks, which migration:create puts back', async () => {
    expect(changed).not.toBe(sqliteSchema);
    const engineSql = await diffSchemas('sqlite', sqliteSchema, changed);
    expect(engineSql).toContain('CREATE TABLE "new_Member"');
    expect(engineSql).not.toContain('CHECK');
    const completed = completeMigrationSql('sqlite', engineSql);
    expect(completed).toContain(`CONSTRAINT "Member_role_check" CHECK ("role" IN ('read', 'comment', 'edit', 'review', 'create', 'admin'))`);
  });

  it('is caught by the comparison above when its checks are left out', async () => {
    const database = await createTestDatabase();
    const db = createDb(database.config);
    try {
      if (database.config.provider === 'sqlite') {
        // What the engine's redefinition does, without completeMigrationSql.
        const engineSql = await diffSchemas('sqlite', sqliteSchema, changed);
        await db.$executeRawUnsafe(engineSql);
      } else {
        await db.$executeRawUnsafe(`ALTER TABLE "Member" DROP CONSTRAINT "Member_role_check"`);
      }
      const enforced = await checksOf(db, database.config.provider);
      expect(enforced['Member.role']).toBeUndefined();
      expect(enforced).not.toEqual(moduleSets());
    } finally {
      await closeDb(db);
      await database.drop();
    }
  });

  it('completes the SQL of new tables on both databases and quotes SQLite Json defaults', () => {
    const sql = 'CREATE TABLE "Job" (\n    "id" TEXT NOT NULL,\n    "kind" TEXT NOT NULL,\n    "input" JSONB NOT NULL DEFAULT {"a":"it\'s"},\n    "note" TEXT\n);\nCREATE TABLE "Other" (\n    "kind" TEXT NOT NULL\n);';
    const sqlite = completeMigrationSql('sqlite', sql);
    expect(sqlite).toContain(`"input" JSONB NOT NULL DEFAULT '{"a":"it''s"}',`);
    expect(sqlite).toContain(`"note" TEXT,\n    CONSTRAINT "Job_kind_check" CHECK ("kind" IN (${JOB_KINDS.map((kind) => `'${kind}'`).join(', ')}))\n);`);
    // Only the value-set columns the statement defines (Job.state is not in it), and no other table.
    expect(sqlite).not.toContain('Job_state_check');
    expect(sqlite).toContain('CREATE TABLE "Other" (\n    "kind" TEXT NOT NULL\n);');
    expect(completeMigrationSql('postgresql', sql)).toContain('DEFAULT {"a":"it\'s"}');
  });
});

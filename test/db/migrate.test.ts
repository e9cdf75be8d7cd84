/**
 * The database layer end to end: migrations on a fresh database, idempotence,
 * drift between migrations and prisma/schema.prisma, a row written and read
 * through the generated client, and exact statement counting.
 *
 * SQLite always runs (a temp file). PostgreSQL runs when TEST_DATABASE_URL is
 * set (test/helpers/services.ts), e.g. postgresql://postgres@127.0.0.1:5432/test,
 * in a fresh random schema of that database that is dropped afterwards.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeDb, createDb, Prisma, type Db } from '../../src/db/client.ts';
import { diffDatabaseToSchema, diffSchemas, migrate, migrationsDir, readMigrationsList, UNMODELLED_TABLES } from '../../src/db/migrate.ts';
import { parseDatabaseUrl, type DatabaseConfig, type Provider } from '../../src/db/provider/config.ts';
import { dropDatabase } from '../../src/db/provider/setup.ts';
import { derivePostgresSchema } from '../../src/db/schema-files.ts';
import { TEST_DATABASE_URL } from '../helpers/database.ts';
import { servicesConfigured } from '../helpers/services.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const sqliteSchema = fs.readFileSync(path.join(root, 'prisma/schema.prisma'), 'utf8');
const schemaOf = (provider: Provider) => (provider === 'sqlite' ? sqliteSchema : derivePostgresSchema(sqliteSchema));
const checkedInMigrations = (provider: Provider) => readMigrationsList(provider).migrationDirectories.map((d) => d.path);

describe('parseDatabaseUrl', () => {
  it('defaults to ./data/app.db under the working directory', () => {
    expect(parseDatabaseUrl(undefined)).toEqual({ provider: 'sqlite', file: path.resolve('data/app.db') });
    expect(parseDatabaseUrl('')).toEqual(parseDatabaseUrl(undefined));
  });

  it('reads SQLite file URLs, relative and absolute', () => {
    expect(parseDatabaseUrl('file:./x.db')).toEqual({ provider: 'sqlite', file: path.resolve('x.db') });
    expect(parseDatabaseUrl('file:/var/lib/app.db')).toEqual({ provider: 'sqlite', file: '/var/lib/app.db' });
  });

  it('reads PostgreSQL URLs into discrete fields', () => {
    expect(parseDatabaseUrl('postgresql://app:p%40ss@db.local:6543/docs?schema=tenant_1')).toEqual({
      provider: 'postgresql',
      pg: { host: 'db.local', port: 6543, user: 'app', password: 'p@ss', database: 'docs', schema: 'tenant_1' },
    });
    expect(parseDatabaseUrl('postgres://postgres@127.0.0.1/test')).toEqual({
      provider: 'postgresql',
      pg: { host: '127.0.0.1', port: 5432, user: 'postgres', database: 'test' },
    });
  });

  it('rejects anything else with a clear message, without leaking passwords', () => {
    expect(() => parseDatabaseUrl('mysql://root@localhost/db')).toThrow(/Unsupported DATABASE_URL/);
    expect(() => parseDatabaseUrl('postgresql://u:secret@h/db?sslmode=require')).toThrow(/unsupported query parameter "sslmode"/);
    expect(() => parseDatabaseUrl('postgresql://u:secret@h/db?sslmode=require')).not.toThrow(/secret/);
    expect(() => parseDatabaseUrl('postgresql://u@h/db?schema=Bad-Name')).toThrow(/Invalid PostgreSQL schema name/);
  });
});

describe('checked-in migrations', () => {
  for (const provider of ['sqlite', 'postgresql'] as const) {
    it(`${provider}: prisma/schema.prisma has no change without a migration (npm run migration:create)`, async () => {
      const snapshot = fs.readFileSync(path.join(migrationsDir(provider), 'schema.snapshot.prisma'), 'utf8');
      expect(await diffSchemas(provider, snapshot, schemaOf(provider))).toBe('');
    });
  }

  it('diffSchemas builds from nothing, without a database and without naming a PostgreSQL schema', async () => {
    const sql = await diffSchemas('postgresql', null, schemaOf('postgresql'));
    expect(sql).toContain('CREATE TABLE "User"');
    expect(sql).not.toMatch(/CREATE SCHEMA/);
  });

  it('both providers have the same migration history', () => {
    expect(checkedInMigrations('postgresql')).toEqual(checkedInMigrations('sqlite'));
  });
});

/** The same checks for each provider, on one database migrated by `beforeAll`. */
function databaseSuite(provider: Provider, makeConfig: () => DatabaseConfig, cleanup: () => void = () => {}) {
  let config: DatabaseConfig;
  let firstRun: { applied: string[] };
  let db: Db;
  let statements: string[] = [];

  beforeAll(async () => {
    config = makeConfig();
    firstRun = await migrate(config);
    db = createDb(config, { onQuery: (sql) => statements.push(sql) });
  });

  afterAll(async () => {
    if (db) await closeDb(db);
    await dropDatabase(config);
    cleanup();
  });

  /** A new user of its own, for a test that writes. */
  const newUser = (name: string) => db.user.create({ data: { id: `u-${name}`, email: `${name}@example.com`, displayName: name } });

  it('applies every checked-in migration to a fresh database', () => {
    expect(firstRun.applied).toEqual(checkedInMigrations(provider));
    expect(firstRun.applied.length).toBeGreaterThan(0);
  });

  it('applies nothing on a second run, quickly', async () => {
    const started = performance.now();
    const { applied } = await migrate(config);
    const ms = performance.now() - started;
    console.log(`${provider}: no-op migrate took ${ms.toFixed(1)} ms`);
    expect(applied).toEqual([]);
  });

  it('builds exactly what prisma/schema.prisma describes', async () => {
    expect(await diffDatabaseToSchema(config, schemaOf(provider))).toBe('');
  });

  it('builds besides the models exactly UNMODELLED_TABLES (the search index), which the drift check leaves out', async () => {
    const reader = createDb(config);
    try {
      const tables = await reader.$queryRawUnsafe<{ name: string }[]>(
        provider === 'sqlite'
          ? `SELECT name FROM sqlite_master WHERE type = 'table'`
          : `SELECT tablename AS name FROM pg_tables WHERE schemaname = current_schema()`,
      );
      const models = new Set<string>([...Object.values(Prisma.ModelName), '_prisma_migrations']);
      expect(tables.map((t) => t.name).filter((name) => !models.has(name)).sort()).toEqual([...UNMODELLED_TABLES[provider]].sort());
    } finally {
      await closeDb(reader);
    }
  });

  it('writes and reads a user through the generated client', async () => {
    const created = await newUser('ada');
    expect(created.createdAt).toBeInstanceOf(Date);
    const read = await db.user.findUnique({ where: { email: 'ada@example.com' } });
    expect(read).toMatchObject({ id: 'u-ada', displayName: 'ada', photoURL: null });
    // The migrations table sits beside the models (on PostgreSQL: in the test's schema).
    const rows = await db.$queryRawUnsafe<{ migration_name: string }[]>('SELECT migration_name FROM _prisma_migrations ORDER BY migration_name');
    expect(rows.map((r) => r.migration_name)).toEqual(checkedInMigrations(provider));
  });

  it('reports every statement sent, exactly once', async () => {
    const count = async (fn: () => Promise<unknown>) => {
      statements = [];
      await fn();
      return [...statements];
    };
    const client = db;
    const { id } = await newUser('grace');
    expect(await count(() => client.user.findUnique({ where: { id } }))).toHaveLength(1);
    expect(await count(() => client.user.update({ where: { id }, data: { displayName: 'Grace H.' } }))).toHaveLength(1);

    // Interactive transaction: BEGIN (sent by the adapter itself), 2 queries, COMMIT.
    const itx = await count(() =>
      client.$transaction(async (tx) => {
        await tx.user.findUnique({ where: { id } });
        await tx.user.update({ where: { id }, data: { photoURL: 'https://example.com/a.png' } });
      }),
    );
    expect(itx).toHaveLength(4);
    expect(itx[0]).toBe('BEGIN');
    expect(itx.at(-1)).toMatch(/^COMMIT/);

    // A rolled-back one: BEGIN, the query, ROLLBACK.
    const rolledBack = await count(() =>
      client
        .$transaction(async (tx) => {
          await tx.user.count();
          throw new Error('abort');
        })
        .catch(() => undefined),
    );
    expect(rolledBack).toHaveLength(3);
    expect(rolledBack.at(-1)).toMatch(/^ROLLBACK/);

    // A batch transaction: BEGIN, 2 queries, COMMIT.
    expect(await count(() => client.$transaction([client.user.count(), client.user.findMany()]))).toHaveLength(4);

    // Raw SQL with two statements in one text counts two.
    const noop = `UPDATE "User" SET "displayName" = "displayName" WHERE 1 = 0`;
    expect(await count(() => client.$executeRawUnsafe(`${noop}; ${noop}`))).toEqual([noop, noop]);
  });

  // SQLite only: registered for it alone, so the PostgreSQL run has nothing to skip.
  if (provider === 'sqlite') it('opens SQLite in WAL mode with synchronous=NORMAL, without counting the setup as statements', async () => {
    statements = [];
    const [{ journal_mode }] = await db.$queryRawUnsafe<{ journal_mode: string }[]>('PRAGMA journal_mode');
    const [{ synchronous }] = await db.$queryRawUnsafe<{ synchronous: number | bigint }[]>('PRAGMA synchronous');
    expect(journal_mode).toBe('wal');
    expect(Number(synchronous)).toBe(1); // NORMAL
    expect(statements).toEqual(['PRAGMA journal_mode', 'PRAGMA synchronous']);
  });
}

describe('SQLite', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'db-test-'));
  // A folder that does not exist yet: migrate() must create it.
  databaseSuite('sqlite', () => parseDatabaseUrl(`file:${path.join(dir, 'nested', 'app.db')}`), () =>
    fs.rmSync(dir, { recursive: true, force: true }),
  );
});

describe.skipIf(!servicesConfigured('postgres'))('PostgreSQL (TEST_DATABASE_URL)', () => {
  databaseSuite('postgresql', () => {
    const base = parseDatabaseUrl(TEST_DATABASE_URL);
    if (base.provider !== 'postgresql' || !base.pg) throw new Error('TEST_DATABASE_URL must be a postgresql:// URL');
    // A fresh schema per run: runs never see each other's tables, and nothing else is touched.
    return { provider: 'postgresql', pg: { ...base.pg, schema: `t_${randomBytes(6).toString('hex')}` } };
  });
});

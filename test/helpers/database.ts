/**
 * A fresh, migrated database for one test file: a temporary SQLite file, or a
 * new schema in the PostgreSQL database of TEST_DATABASE_URL when it is set.
 *
 * Each is a copy of a template that `migrate` built once per test process: a test
 * database used to be migrated on its own, 0.5 s on SQLite and 1 s on PostgreSQL,
 * which is how long a pass of the suite spent on some 150 of them. SQLite copies the
 * template's file. PostgreSQL runs every migration's SQL in the new schema in one
 * transaction (0.35 s) and copies the template's `_prisma_migrations` rows, so a server
 * started on it finds nothing to apply, as on a migrated database; test/db/test-databases.test.ts
 * checks that such a copy has the template's tables, columns, indexes and constraints.
 * `migrate` itself is tested on fresh databases (test/db/migrate.test.ts, upgrade.test.ts)
 * and still runs at every server start. The templates go at the end of the run
 * (test/global-setup.ts, `dropTemplates`).
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { migrate, readMigrationsList } from '../../src/db/migrate.ts';
import { parseDatabaseUrl, requireSqliteFile, type DatabaseConfig } from '../../src/db/provider/config.ts';
import { dropDatabase, prepareDatabase, quoteIdent, withPgClient } from '../../src/db/provider/setup.ts';

export const TEST_DATABASE_URL = process.env.TEST_DATABASE_URL || undefined;
export const usingPostgres = Boolean(TEST_DATABASE_URL);

export interface TestDatabase {
  url: string;
  config: DatabaseConfig;
  drop(): Promise<void>;
}

/**
 * What the templates of a run are named by (a PostgreSQL schema, a folder in the temporary
 * folder): the pid of vitest's main process, the parent of every test process.
 */
export function templatePrefix(runPid: number): string {
  return `t_template_${runPid}_`;
}

/** A URL for a new, empty database: a schema of TEST_DATABASE_URL, or a file in a new folder. */
function newDatabaseUrl(options: { sqlite?: boolean; name?: string }): { url: string; dir?: string } {
  const name = options.name ?? `t_${randomBytes(6).toString('hex')}`;
  if (TEST_DATABASE_URL && !options.sqlite) {
    const u = new URL(TEST_DATABASE_URL);
    u.searchParams.set('schema', name);
    return { url: u.toString() };
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), options.name ? `${options.name}-` : 'docs-api-test-'));
  return { url: `file:${path.join(dir, 'test.db')}`, dir };
}

const templates = new Map<'sqlite' | 'postgresql', Promise<DatabaseConfig>>();

/** The template of this process for the provider, migrated by `migrate` on first use. */
function template(provider: 'sqlite' | 'postgresql'): Promise<DatabaseConfig> {
  let made = templates.get(provider);
  if (!made) {
    made = (async () => {
      const { url } = newDatabaseUrl({ sqlite: provider === 'sqlite', name: `${templatePrefix(process.ppid)}${process.pid}` });
      const config = parseDatabaseUrl(url);
      await prepareDatabase(config);
      await migrate(config);
      return config;
    })();
    templates.set(provider, made);
  }
  return made;
}

/** Makes the (new, empty) schema of `target` a migrated database, as `template` is. */
async function copyPostgresTemplate(template: DatabaseConfig, target: DatabaseConfig): Promise<void> {
  const [fromSchema, toSchema] = [template.pg?.schema, target.pg?.schema];
  if (!fromSchema || !toSchema) throw new Error('PostgreSQL databases in schemas of their own only');
  const migrations = readMigrationsList('postgresql').migrationDirectories.map((dir) => {
    if (dir.migrationFile.content.tag !== 'ok') throw new Error(`migration ${dir.path} cannot be read`);
    return dir.migrationFile.content.value;
  });
  await withPgClient(target, async (client) => {
    const [from, to] = [quoteIdent(fromSchema), quoteIdent(toSchema)];
    try {
      await client.query(`BEGIN; CREATE SCHEMA ${to}; SET LOCAL search_path TO ${to}`);
      for (const sql of migrations) await client.query(sql);
      await client.query(`CREATE TABLE ${to}._prisma_migrations (LIKE ${from}._prisma_migrations INCLUDING ALL)`);
      await client.query(`INSERT INTO ${to}._prisma_migrations SELECT * FROM ${from}._prisma_migrations`);
      await client.query('COMMIT');
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    }
  });
}

/** `sqlite`: a SQLite file even when TEST_DATABASE_URL is set (a test of SQLite's own behaviour). */
export async function createTestDatabase(options: { sqlite?: boolean } = {}): Promise<TestDatabase> {
  const { url, dir } = newDatabaseUrl(options);
  const config = parseDatabaseUrl(url);
  const from = await template(config.provider);
  if (config.provider === 'sqlite') fs.copyFileSync(requireSqliteFile(from), requireSqliteFile(config));
  else await copyPostgresTemplate(from, config);
  return testDatabase(url, config, dir);
}

/** The database of `url`, dropped with its folder (SQLite) by `drop`. */
function testDatabase(url: string, config: DatabaseConfig, dir: string | undefined): TestDatabase {
  return {
    url,
    config,
    async drop() {
      await dropDatabase(config);
      if (dir) await fs.promises.rm(dir, { recursive: true, force: true });
    },
  };
}

/** A migrated database made by `migrate` itself, not copied (a test of what `migrate` leaves). */
export async function createMigratedDatabase(): Promise<TestDatabase> {
  const { url, dir } = newDatabaseUrl({});
  const config = parseDatabaseUrl(url);
  await prepareDatabase(config);
  await migrate(config);
  return testDatabase(url, config, dir);
}

/** Drops the templates the test processes of run `runPid` made (vitest's global teardown). */
export async function dropTemplates(runPid: number): Promise<void> {
  const prefix = templatePrefix(runPid);
  for (const entry of fs.readdirSync(os.tmpdir())) {
    if (entry.startsWith(prefix)) fs.rmSync(path.join(os.tmpdir(), entry), { recursive: true, force: true });
  }
  if (!TEST_DATABASE_URL) return;
  await withPgClient(parseDatabaseUrl(TEST_DATABASE_URL), async (client) => {
    const { rows } = await client.query<{ name: string }>('SELECT nspname AS name FROM pg_namespace WHERE starts_with(nspname, $1)', [prefix]);
    for (const { name } of rows) await client.query(`DROP SCHEMA ${quoteIdent(name)} CASCADE`);
  });
}

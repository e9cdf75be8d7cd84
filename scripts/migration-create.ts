/**
 * `npm run migration:create -- <name>`: writes the next migration for both
 * providers after prisma/schema.prisma has changed.
 *
 * How the "previous" datamodel is known without a shadow database:
 *   every migration folder prisma/migrations/<provider>/ carries
 *   `schema.snapshot.prisma`, the provider's full schema text as of its newest
 *   migration (for PostgreSQL, the text derivePostgresSchema() makes). A new
 *   migration is the engine's diff snapshot -> current schema (datamodel ->
 *   datamodel, no database at all), and the snapshot is rewritten with it.
 *   Without the snapshot we would have to replay the migrations into a shadow
 *   database and introspect it, which is exactly what the offline traps make
 *   unsafe on PostgreSQL (see src/db/provider.ts).
 *
 * Rules that follow:
 *   - Never edit schema.snapshot.prisma by hand; it changes only with a new migration.
 *   - A hand-edited migration.sql (e.g. a data backfill) is fine as long as the
 *     resulting tables still match the snapshot. For SQLite this is checked
 *     here before anything is written: the existing migrations are applied to
 *     a temporary database file, which must match the snapshot exactly.
 *     (PostgreSQL migrations come from the same schema and are checked by the
 *     PostgreSQL tests in test/db/migrate.test.ts.)
 *   - Both providers get the same `<UTC timestamp>_<name>` folder name.
 *   - The engine's SQL is completed by completeMigrationSql (src/db/migration-sql.ts):
 *     CHECK constraints of value-set columns, SQLite Json defaults quoted.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { derivePostgresSchema } from '../src/db/schema-files.ts';
import {
  LOCKFILE_NAME,
  MIGRATION_DIR_PATTERN,
  diffDatabaseToSchema,
  diffSchemas,
  lockfileContent,
  migrate,
  migrationsDir,
} from '../src/db/migrate.ts';
import { completeMigrationSql } from '../src/db/migration-sql.ts';
import type { DatabaseConfig, Provider } from '../src/db/provider/config.ts';
import { dropDatabase } from '../src/db/provider/setup.ts';

export const SNAPSHOT_NAME = 'schema.snapshot.prisma';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const PROVIDERS: Provider[] = ['sqlite', 'postgresql'];

function currentSchema(provider: Provider): string {
  const sqlite = fs.readFileSync(path.join(root, 'prisma/schema.prisma'), 'utf8');
  return provider === 'sqlite' ? sqlite : derivePostgresSchema(sqlite);
}

function existingMigrations(provider: Provider): string[] {
  const dir = migrationsDir(provider);
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .filter((d) => d.isDirectory() && MIGRATION_DIR_PATTERN.test(d.name))
    .map((d) => d.name)
    .sort();
}

/** The datamodel the existing migrations produce: the snapshot, or nothing before the first migration. */
function previousSchema(provider: Provider): string | null {
  const snapshot = path.join(migrationsDir(provider), SNAPSHOT_NAME);
  if (fs.existsSync(snapshot)) return fs.readFileSync(snapshot, 'utf8');
  if (existingMigrations(provider).length > 0) {
    throw new Error(`${snapshot} is missing but ${provider} has migrations: cannot know the previous datamodel`);
  }
  return null;
}

/** 20261123143005: the CLI's format, in UTC so that folder order is time order across machines. */
function utcTimestamp(date: Date): string {
  return date.toISOString().replace(/[-:T]/g, '').slice(0, 14);
}

/** Guards against a snapshot that no longer describes what the SQLite migrations build. */
async function checkSqliteSnapshot(snapshot: string): Promise<void> {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'migration-check-'));
  const config: DatabaseConfig = { provider: 'sqlite', file: path.join(tmp, 'check.db') };
  try {
    await migrate(config);
    const drift = await diffDatabaseToSchema(config, snapshot);
    if (drift !== '') {
      throw new Error(
        `prisma/migrations/sqlite/${SNAPSHOT_NAME} does not match what the existing migrations build; ` +
          `the database would need:\n${drift}\nFix the migrations or the snapshot before creating a new migration.`,
      );
    }
  } finally {
    await dropDatabase(config);
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const rawName = process.argv.slice(2).find((a) => a !== '--');
  if (!rawName) {
    console.error('usage: npm run migration:create -- <name>   (e.g. add_page_table)');
    process.exit(2);
  }
  const name = rawName.trim().replace(/[\s-]+/g, '_');
  if (!/^[A-Za-z0-9_]+$/.test(name)) {
    console.error(`invalid migration name "${rawName}": letters, digits, _ and - only`);
    process.exit(2);
  }
  const folder = `${utcTimestamp(new Date())}_${name}`;

  // Compute everything first, write afterwards: a failure leaves no half-made migration.
  const plans: { provider: Provider; sql: string; schema: string }[] = [];
  for (const provider of PROVIDERS) {
    const previous = previousSchema(provider);
    const last = existingMigrations(provider).at(-1);
    if (last !== undefined && last.slice(0, 14) >= folder.slice(0, 14)) {
      throw new Error(`${provider}: the newest migration ${last} is not older than ${folder} (clock skew, or wait a second)`);
    }
    if (provider === 'sqlite' && previous !== null) await checkSqliteSnapshot(previous);
    const schema = currentSchema(provider);
    plans.push({ provider, sql: completeMigrationSql(provider, await diffSchemas(provider, previous, schema)), schema });
  }

  if (plans.every((p) => p.sql === '')) {
    console.log('no changes');
    return;
  }
  for (const { provider, sql, schema } of plans) {
    const dir = migrationsDir(provider);
    const rel = path.relative(root, path.join(dir, folder));
    if (sql === '') {
      // Cannot happen with schemas derived from one file, but would not be an error.
      console.log(`${provider}: no changes`);
      continue;
    }
    fs.mkdirSync(path.join(dir, folder), { recursive: true });
    fs.writeFileSync(path.join(dir, folder, 'migration.sql'), sql);
    const lock = path.join(dir, LOCKFILE_NAME);
    if (!fs.existsSync(lock)) fs.writeFileSync(lock, lockfileContent(provider));
    fs.writeFileSync(path.join(dir, SNAPSHOT_NAME), schema);
    console.log(`${provider}: wrote ${rel}/migration.sql`);
  }
  console.log('Review the SQL, then regenerate the clients: node --import tsx scripts/prisma-generate.ts');
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});

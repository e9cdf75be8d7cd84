/**
 * A fresh, migrated database for one test file: a temporary SQLite file, or a
 * new schema in the PostgreSQL database of TEST_DATABASE_URL when it is set.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { migrate } from '../../src/db/migrate.ts';
import { parseDatabaseUrl, type DatabaseConfig } from '../../src/db/provider/config.ts';
import { dropDatabase, prepareDatabase } from '../../src/db/provider/setup.ts';

export const TEST_DATABASE_URL = process.env.TEST_DATABASE_URL || undefined;
export const usingPostgres = Boolean(TEST_DATABASE_URL);

export interface TestDatabase {
  url: string;
  config: DatabaseConfig;
  drop(): Promise<void>;
}

/** `sqlite`: a SQLite file even when TEST_DATABASE_URL is set (a test of SQLite's own behaviour). */
export async function createTestDatabase(options: { sqlite?: boolean } = {}): Promise<TestDatabase> {
  let url: string;
  /** SQLite: the temporary folder holding the database file, removed with it. */
  let dir: string | undefined;
  if (TEST_DATABASE_URL && !options.sqlite) {
    const u = new URL(TEST_DATABASE_URL);
    u.searchParams.set('schema', `t_${randomBytes(6).toString('hex')}`);
    url = u.toString();
  } else {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'docs-api-test-'));
    url = `file:${path.join(dir, 'test.db')}`;
  }
  const config = parseDatabaseUrl(url);
  await prepareDatabase(config);
  await migrate(config);
  return {
    url,
    config,
    async drop() {
      await dropDatabase(config);
      if (dir) await fs.promises.rm(dir, { recursive: true, force: true });
    },
  };
}

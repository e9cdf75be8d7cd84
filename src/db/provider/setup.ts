/**
 * Preparing a database before it is migrated (the SQLite file's folder, the
 * PostgreSQL schema) and dropping it (tests, benchmarks).
 */
import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { pgPoolConfig, requirePg, requireSqliteFile, type DatabaseConfig } from './config.ts';

/** Quotes a (validated) identifier for DDL. */
export function quoteIdent(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

/** A client of the config's server and database, without its search_path (tests make and drop schemas with it too). */
export async function withPgClient<T>(config: DatabaseConfig, fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const { options: _searchPath, ...settings } = pgPoolConfig(config);
  // Without search_path: the schema may not exist yet (prepare) or is being dropped.
  const client = new pg.Client(settings);
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/** ensures the sqlite file's folder exists / the PG schema exists (CREATE SCHEMA IF NOT EXISTS) */
export async function prepareDatabase(config: DatabaseConfig): Promise<void> {
  if (config.provider === 'sqlite') {
    fs.mkdirSync(path.dirname(requireSqliteFile(config)), { recursive: true });
    return;
  }
  const schema = requirePg(config).schema;
  if (schema === undefined) return; // "public" always exists
  await withPgClient(config, async (client) => {
    try {
      await client.query(`CREATE SCHEMA IF NOT EXISTS ${quoteIdent(schema)}`);
    } catch (error) {
      // IF NOT EXISTS is not atomic: two servers starting at once can both try
      // to create it, and the loser gets a unique violation. It exists: fine.
      const code = (error as { code?: string }).code;
      if (code !== '23505' && code !== '42P06') throw error;
    }
  });
}

/** drop a PG schema (used by tests); no-op for sqlite except deleting the file */
export async function dropDatabase(config: DatabaseConfig): Promise<void> {
  if (config.provider === 'sqlite') {
    const file = requireSqliteFile(config);
    // The side files of the journal modes go with it, or a new file would replay a stale WAL.
    for (const f of [file, `${file}-journal`, `${file}-wal`, `${file}-shm`]) fs.rmSync(f, { force: true });
    return;
  }
  const schema = requirePg(config).schema;
  if (schema === undefined || schema === 'public') {
    // A guard: dropping "public" would wipe a shared database, never what a test wants.
    throw new Error('dropDatabase refuses to drop the "public" schema: give the config an explicit schema');
  }
  await withPgClient(config, async (client) => {
    await client.query(`DROP SCHEMA IF EXISTS ${quoteIdent(schema)} CASCADE`);
  });
}

/**
 * How SQLite and PostgreSQL differ for us, each difference in one small
 * module of this folder (src/db/provider/); everything else (client.ts,
 * migrate.ts, the app) goes through them:
 * - config.ts (this module): how a DATABASE_URL is read (a SQLite file; PostgreSQL
 *   from discrete fields, optionally in a schema) and the `Provider` type;
 * - adapters.ts: the Prisma driver adapter of each, with the adapter
 *   traps we work around (trap 1: PostgreSQL's `"char"` OID; trap 2: no
 *   shadow database on PostgreSQL; trap 3: SQLite's multi-statement
 *   executeRaw), each SQLite connection's settings (WAL, 32,766 bound
 *   values, statements prepared once: sqlite-statement-cache.ts), and the
 *   timeouts of each (`DatabaseTimeouts`, below: PostgreSQL's pool and
 *   connections, SQLite's busy timeout);
 * - setup.ts: how a database is prepared (a folder, a schema) and dropped;
 * - statements.ts: which statements each adapter call sends, for counting;
 * - like.ts: a case-insensitive literal `contains` (PostgreSQL's ILIKE
 *   escapes with `\`, SQLite's LIKE has no escape without ESCAPE).
 */
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type pg from 'pg';

/** The databases the service runs on. */
export type Provider = 'sqlite' | 'postgresql';

/** A parsed DATABASE_URL. */
export interface DatabaseConfig {
  provider: Provider;
  /** sqlite: absolute file path */
  file?: string;
  /** postgresql: discrete fields */
  pg?: { host: string; port: number; user: string; password?: string; database: string; schema?: string };
}

export const DEFAULT_DATABASE_URL = 'file:./data/app.db';

/**
 * How long the runtime client waits on the database before the request gets a
 * 503 (docs/decisions.md, "Text no database stores, and database outages").
 * Migrations run without them.
 */
export interface DatabaseTimeouts {
  /** PostgreSQL: opening a connection (TCP and startup), in milliseconds. */
  connectMs: number;
  /** PostgreSQL: one statement (statement_timeout on the server; the client gives up a second later). */
  statementMs: number;
  /** PostgreSQL: getting a connection from the pool, waiting for a free one included (and starting a transaction). */
  poolMs: number;
  /** SQLite: waiting for another connection's lock (busy timeout); the process waits synchronously. */
  busyMs: number;
}

export const DEFAULT_DATABASE_TIMEOUTS: DatabaseTimeouts = { connectMs: 5_000, statementMs: 30_000, poolMs: 10_000, busyMs: 5_000 };

/** Query parameters of a postgres:// URL that we understand; anything else is an error. */
const PG_URL_PARAMS = new Set(['schema', 'host', 'port', 'user', 'password']);

/**
 * Parses DATABASE_URL. undefined/'' -> file:./data/app.db (relative to process.cwd());
 * 'file:/x.db' or 'file:./x.db' -> sqlite; 'postgres://' or 'postgresql://' (with
 * optional ?schema=name) -> postgresql. Throws a clear Error on anything else.
 */
export function parseDatabaseUrl(url: string | undefined): DatabaseConfig {
  const raw = url === undefined || url.trim() === '' ? DEFAULT_DATABASE_URL : url.trim();

  if (raw.startsWith('file:')) {
    let file: string;
    if (raw.startsWith('file://')) {
      // A real file URL (file:///abs/x.db): let Node decode it (percent-escapes, etc.).
      file = fileURLToPath(raw.replace(/\?.*$/, ''));
    } else {
      // Prisma's own form, file:./x.db or file:/abs/x.db. Query strings such as
      // ?connection_limit=1 mean nothing to better-sqlite3, so they are dropped.
      file = raw.slice('file:'.length).replace(/\?.*$/, '');
    }
    if (file === '' || file === ':memory:') {
      throw new Error(`DATABASE_URL "${raw}": a SQLite URL needs a file path (in-memory databases cannot be migrated and shared)`);
    }
    return { provider: 'sqlite', file: path.resolve(process.cwd(), file) };
  }

  if (/^postgres(ql)?:\/\//i.test(raw)) {
    let u: URL;
    try {
      u = new URL(raw);
    } catch {
      throw new Error(`DATABASE_URL is not a valid PostgreSQL URL: ${redact(raw)}`);
    }
    for (const key of u.searchParams.keys()) {
      if (!PG_URL_PARAMS.has(key)) {
        // Silently ignoring e.g. sslmode=require would connect without TLS: refuse instead.
        throw new Error(
          `DATABASE_URL ${redact(raw)}: unsupported query parameter "${key}" (supported: ${[...PG_URL_PARAMS].join(', ')})`,
        );
      }
    }
    const q = (k: string) => u.searchParams.get(k) ?? undefined;
    // libpq defaults: the OS user name, and a database named after the user.
    const user = q('user') ?? (u.username ? decodeURIComponent(u.username) : os.userInfo().username);
    const password = q('password') ?? (u.password ? decodeURIComponent(u.password) : undefined);
    const database = decodeURIComponent(u.pathname.replace(/^\//, '')) || user;
    // [::1] -> ::1; ?host=/var/run/postgresql allows a Unix socket folder, as libpq does.
    const host = q('host') ?? (u.hostname.replace(/^\[(.*)\]$/, '$1') || 'localhost');
    const portText = q('port') ?? (u.port || '5432');
    const port = Number(portText);
    if (!Number.isInteger(port) || port <= 0 || port > 65535) {
      throw new Error(`DATABASE_URL ${redact(raw)}: invalid port "${portText}"`);
    }
    const schema = q('schema');
    if (schema !== undefined) assertSchemaName(schema);
    return {
      provider: 'postgresql',
      pg: { host, port, user, database, ...(password !== undefined && { password }), ...(schema !== undefined && { schema }) },
    };
  }

  throw new Error(
    `Unsupported DATABASE_URL ${redact(raw)}: expected "file:<path>" (SQLite) or "postgresql://user@host:port/db[?schema=name]"`,
  );
}

/** Hides a password in a URL before it goes into an error message or a log. */
function redact(url: string): string {
  return url.replace(/^([a-z]+:\/\/[^:@/]*:)[^@/]*@/i, '$1***@').replace(/([?&]password=)[^&]*/i, '$1***');
}

/**
 * Schema names end up in `search_path`, in CREATE/DROP SCHEMA and in the
 * engine's generated SQL. Plain identifiers only, so no quoting question arises
 * anywhere (and no case folding surprise: Postgres folds unquoted names to lower case).
 */
function assertSchemaName(schema: string): void {
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(schema)) {
    throw new Error(`Invalid PostgreSQL schema name "${schema}": use lower-case letters, digits and _ (max 63 chars)`);
  }
}

/** The SQLite file of a config; throws unless it is an absolute path. */
export function requireSqliteFile(config: DatabaseConfig): string {
  if (config.provider !== 'sqlite' || !config.file) throw new Error('SQLite config without a file path');
  if (!path.isAbsolute(config.file)) throw new Error(`SQLite file path must be absolute: ${config.file}`);
  return config.file;
}

/** The PostgreSQL fields of a config; throws on a missing one or a bad schema name. */
export function requirePg(config: DatabaseConfig): NonNullable<DatabaseConfig['pg']> {
  if (config.provider !== 'postgresql' || !config.pg) throw new Error('PostgreSQL config without connection fields');
  if (config.pg.schema !== undefined) assertSchemaName(config.pg.schema);
  return config.pg;
}

/**
 * Connection settings for node-postgres, always from discrete fields (adapters.ts, trap 2:
 * never a connection string). With a schema, `search_path` is set at connection
 * start so that raw SQL ($queryRaw, executeScript of a migration) resolves
 * unqualified table names in that schema too, not only the queries the client
 * qualifies itself (the client and the engine learn the schema from
 * getConnectionInfo().schemaName).
 */
export function pgPoolConfig(config: DatabaseConfig): pg.PoolConfig {
  const c = requirePg(config);
  return {
    host: c.host,
    port: c.port,
    user: c.user,
    database: c.database,
    ...(c.password !== undefined && { password: c.password }),
    ...(c.schema !== undefined && { options: `-c search_path=${c.schema}` }),
  };
}

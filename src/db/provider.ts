/**
 * The one module that knows how SQLite and PostgreSQL differ for us: how a
 * DATABASE_URL is read, how a Prisma driver adapter is built for each, which
 * adapter bugs we work around, and how a database is prepared or dropped.
 * Everything else (client.ts, migrate.ts, the app) goes through these helpers.
 *
 * Background: docs/prisma-offline.md. In short, Prisma 7 talks to
 * the database only through driver adapters (both for the runtime client and
 * for the wasm schema engine used by migrate.ts), and three adapter traps are
 * handled here:
 *  1. @prisma/adapter-pg cannot decode the `"char"` type (OID 18) that the
 *     schema engine's introspection queries return -> reported as a character.
 *  2. PrismaPg built from a connection string makes a "shadow" database that
 *     can be the main one -> we build PG adapters from discrete fields only,
 *     and refuse shadow databases on PostgreSQL altogether (we never need one:
 *     migrations are diffed datamodel -> datamodel).
 *  3. better-sqlite3 rejects a multi-statement string in executeRaw, which the
 *     engine sends when it replays migrations on a shadow database -> routed
 *     to executeScript.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { PrismaBetterSqlite3 } from '@prisma/adapter-better-sqlite3';
import { PrismaPg } from '@prisma/adapter-pg';
import { cacheSqliteStatements } from './sqlite-statement-cache.ts';
import { ColumnTypeEnum } from '@prisma/driver-adapter-utils';
import type {
  IsolationLevel,
  SqlDriverAdapter,
  SqlMigrationAwareDriverAdapterFactory,
  SqlQuery,
  SqlResultSet,
  Transaction,
} from '@prisma/driver-adapter-utils';

export type Provider = 'sqlite' | 'postgresql';

export interface DatabaseConfig {
  provider: Provider;
  /** sqlite: absolute file path */
  file?: string;
  /** postgresql: discrete fields */
  pg?: { host: string; port: number; user: string; password?: string; database: string; schema?: string };
}

export const DEFAULT_DATABASE_URL = 'file:./data/app.db';

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

function requireSqliteFile(config: DatabaseConfig): string {
  if (config.provider !== 'sqlite' || !config.file) throw new Error('SQLite config without a file path');
  if (!path.isAbsolute(config.file)) throw new Error(`SQLite file path must be absolute: ${config.file}`);
  return config.file;
}

function requirePg(config: DatabaseConfig): NonNullable<DatabaseConfig['pg']> {
  if (config.provider !== 'postgresql' || !config.pg) throw new Error('PostgreSQL config without connection fields');
  if (config.pg.schema !== undefined) assertSchemaName(config.pg.schema);
  return config.pg;
}

/**
 * Connection settings for node-postgres, always from discrete fields (trap 2:
 * never a connection string). With a schema, `search_path` is set at connection
 * start so that raw SQL ($queryRaw, executeScript of a migration) resolves
 * unqualified table names in that schema too, not only the queries the client
 * qualifies itself (the client and the engine learn the schema from
 * getConnectionInfo().schemaName).
 */
function pgPoolConfig(config: DatabaseConfig): pg.PoolConfig {
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

/** The `"char"` type OID; TEXT's OID. See trap 1. */
const PG_CHAR_OID = 18;
const PG_TEXT_OID = 25;

/**
 * The part of a pg query result that performIO returns and queryRaw reads. An
 * argument-less text with several statements goes through the simple query
 * protocol and yields one result per statement.
 */
type PgIOResult = { fields?: { dataTypeID: number }[] } | { fields?: { dataTypeID: number }[] }[];
/** adapter-pg's (TS-private) method that runs every queryRaw/executeRaw; patched for trap 1. */
interface HasPerformIO {
  performIO(query: SqlQuery): Promise<PgIOResult>;
  queryRaw(query: SqlQuery): Promise<SqlResultSet>;
}

/**
 * Trap 1: report `"char"` columns as characters. Patched on the instance, since
 * the adapter classes are not exported; queryRaw calls `this.performIO`, so an
 * own property wins. performIO hands queryRaw the column as text (the OID it
 * can decode) and remembers where it was; queryRaw's answer then says
 * Character there, which the engine needs to read a CHECK constraint's
 * `contype` (its foreign key actions accept either). `"char"` values already
 * arrive as strings (node-postgres has no parser for OID 18).
 */
function patchCharOid<T extends object>(queryable: T): T {
  const target = queryable as unknown as HasPerformIO;
  const original = target.performIO;
  const originalQueryRaw = target.queryRaw;
  if (typeof original !== 'function' || typeof originalQueryRaw !== 'function') {
    // Fail loudly if an upgrade of @prisma/adapter-pg renamed the method.
    throw new Error('@prisma/adapter-pg internals changed: performIO not found (see src/db/provider.ts, trap 1)');
  }
  /** The `"char"` columns of the answer to each query object, between performIO and queryRaw's return. */
  const charColumns = new WeakMap<SqlQuery, number[]>();
  target.performIO = async function performIO(query) {
    const result = await original.call(this, query);
    for (const one of Array.isArray(result) ? result : [result]) {
      (one.fields ?? []).forEach((field, i) => {
        if (field.dataTypeID !== PG_CHAR_OID) return;
        field.dataTypeID = PG_TEXT_OID;
        if (!Array.isArray(result)) charColumns.set(query, [...(charColumns.get(query) ?? []), i]);
      });
    }
    return result;
  };
  target.queryRaw = async function queryRaw(query) {
    const resultSet = await originalQueryRaw.call(this, query);
    for (const i of charColumns.get(query) ?? []) resultSet.columnTypes[i] = ColumnTypeEnum.Character;
    charColumns.delete(query);
    return resultSet;
  };
  return queryable;
}

function fixPgAdapter(adapter: SqlDriverAdapter): SqlDriverAdapter {
  patchCharOid(adapter);
  // Transactions are new objects with their own performIO: patch them too.
  const startTransaction = adapter.startTransaction.bind(adapter);
  adapter.startTransaction = async (isolationLevel?: IsolationLevel): Promise<Transaction> =>
    patchCharOid(await startTransaction(isolationLevel));
  return adapter;
}

/** better-sqlite3's refusal of a multi-statement string in prepare() (a RangeError, not a SQLite error). */
function isMultiStatementError(error: unknown): boolean {
  return error instanceof RangeError && error.message.includes('more than one statement');
}

/**
 * Trap 3: the schema engine sends whole migration scripts through executeRaw
 * with no arguments; better-sqlite3 only prepares single statements. prepare()
 * throws before running anything, so retrying the same text with exec() is
 * exact (nothing ran twice). Single statements keep the normal path and thus
 * their affected-row count.
 */
/**
 * better-sqlite3 bundles SQLite >= 3.32, whose limit of bound parameters is
 * 32,766. Without being told, Prisma assumes the old 999 and splits a larger
 * `IN (...)` (a relation loaded for 1,000 parents) into several statements
 * wrapped in a transaction.
 */
const SQLITE_MAX_BIND_VALUES = 32_766;

function fixSqliteAdapter(adapter: SqlDriverAdapter): SqlDriverAdapter {
  adapter.getConnectionInfo = () => ({ maxBindValues: SQLITE_MAX_BIND_VALUES, supportsRelationJoins: false });
  const executeRaw = adapter.executeRaw.bind(adapter);
  adapter.executeRaw = async (query: SqlQuery): Promise<number> => {
    try {
      return await executeRaw(query);
    } catch (error) {
      if (query.args.length === 0 && isMultiStatementError(error)) {
        await adapter.executeScript(query.sql);
        return 0;
      }
      throw error;
    }
  };
  return adapter;
}

/**
 * Every SQLite connection writes ahead (WAL) with synchronous=NORMAL, as Rails 8 and most embedded
 * deployments do. In the default rollback-journal mode each write transaction writes, syncs and
 * deletes a journal beside the database: 1.17 ms per small transaction on the project machine,
 * against 0.04 ms in WAL (2026-11-24). WAL also lets readers in other processes (a second server,
 * the CLI) read while one writes. NORMAL keeps the database consistent after a crash of the
 * process or the machine; a power cut may lose the last transactions. WAL needs the database on a
 * local file system (not a network share), which an embedded database is anyway.
 */
async function configureSqliteConnection(adapter: SqlDriverAdapter): Promise<SqlDriverAdapter> {
  await adapter.executeScript('PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL;');
  return adapter;
}

/**
 * A driver adapter factory for the runtime client and the migration engine
 * (PG built from discrete fields, with the "char" OID 18 -> text fix where
 * introspection needs it, and the SQLite multi-statement executeRaw ->
 * executeScript fix; on request, SQLite statements are prepared once and cached).
 */
export function createAdapterFactory(
  config: DatabaseConfig,
  options: { cacheStatements?: boolean } = {},
): SqlMigrationAwareDriverAdapterFactory {
  if (config.provider === 'sqlite') {
    const inner = new PrismaBetterSqlite3({ url: requireSqliteFile(config) });
    // The runtime client caches statements; the migration engine, which changes the schema under them, does not.
    const connected = (adapter: SqlDriverAdapter) => (options.cacheStatements ? cacheSqliteStatements(adapter) : adapter);
    return {
      provider: inner.provider,
      adapterName: inner.adapterName,
      connect: async () => connected(fixSqliteAdapter(await configureSqliteConnection(await inner.connect()))),
      // An in-memory database: harmless, and only used if someone diffs from a migrations folder.
      connectToShadowDb: async () => fixSqliteAdapter(await inner.connectToShadowDb()),
    };
  }
  if (config.provider === 'postgresql') {
    const schema = requirePg(config).schema;
    const inner = new PrismaPg(pgPoolConfig(config), schema !== undefined ? { schema } : undefined);
    return {
      provider: inner.provider,
      adapterName: inner.adapterName,
      connect: async () => fixPgAdapter(await inner.connect()),
      connectToShadowDb: () =>
        // PrismaPg's shadow database is created on the server and not dropped (trap 2).
        // Nothing of ours needs one: migrations are diffed datamodel -> datamodel.
        Promise.reject(new Error('Shadow databases are disabled for PostgreSQL (see src/db/provider.ts, trap 2)')),
    };
  }
  throw new Error(`Unknown provider: ${String((config as DatabaseConfig).provider)}`);
}

/** Quotes a (validated) identifier for DDL. */
function quoteIdent(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

async function withPgClient<T>(config: DatabaseConfig, fn: (client: pg.Client) => Promise<T>): Promise<T> {
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

// ---------------------------------------------------------------------------
// What each adapter call sends to the server, for client.ts's statement
// counting. Checked against @prisma/adapter-pg and @prisma/adapter-better-sqlite3
// 7.10.0; both are pinned, and test/db/migrate.test.ts counts statements.

/**
 * startTransaction runs its own statements, outside queryRaw/executeRaw:
 * `BEGIN`, and on PostgreSQL `SET TRANSACTION ISOLATION LEVEL ...` when a level
 * is given (better-sqlite3 only accepts SERIALIZABLE, which is what BEGIN gives).
 */
export function statementsOfStartTransaction(provider: Provider, isolationLevel?: IsolationLevel): string[] {
  return provider === 'postgresql' && isolationLevel
    ? ['BEGIN', `SET TRANSACTION ISOLATION LEVEL ${isolationLevel}`]
    : ['BEGIN'];
}

/**
 * executeScript: adapter-pg splits the script on every ';' (naively, even inside
 * strings) and sends each non-empty piece as its own query; better-sqlite3's
 * exec() runs each statement of the script.
 */
export function statementsOfScript(provider: Provider, script: string): string[] {
  if (provider === 'postgresql') {
    return script.split(';').map((s) => s.trim()).filter((s) => s.length > 0);
  }
  return splitSql(script, false);
}

/**
 * queryRaw/executeRaw: one statement when there are arguments (both drivers
 * prepare it, which refuses more than one). Without arguments, node-postgres
 * uses the simple query protocol, which runs every statement of the text, and
 * our SQLite executeRaw fix (trap 3) runs a multi-statement text with exec().
 */
export function statementsOfRawQuery(provider: Provider, query: SqlQuery): string[] {
  if (query.args.length > 0) return [query.sql];
  const statements = splitSql(query.sql, provider === 'postgresql');
  return statements.length > 1 ? statements : [query.sql];
}

/** `$$` or `$tag$` opening a PostgreSQL dollar-quoted string (a tag is an identifier, so not `$1`). */
const DOLLAR_TAG = /^\$(?:[A-Za-z_][A-Za-z0-9_]*)?\$/;

/**
 * Splits SQL text into statements on ';' outside string literals, quoted
 * identifiers, comments and (PostgreSQL) dollar quotes; drops pieces that hold
 * only whitespace or comments, which neither database runs. Not handled: the
 * ';' inside a SQLite CREATE TRIGGER body (BEGIN ... END), which we never send.
 */
function splitSql(text: string, dollarQuotes: boolean): string[] {
  const statements: string[] = [];
  let start = 0;
  let hasCode = false; // the current piece holds more than comments/whitespace
  const push = (end: number) => {
    if (hasCode) statements.push(text.slice(start, end).trim());
    start = end + 1;
    hasCode = false;
  };
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (ch === '-' && text[i + 1] === '-') {
      const end = text.indexOf('\n', i);
      i = end === -1 ? text.length : end;
    } else if (ch === '/' && text[i + 1] === '*') {
      const end = text.indexOf('*/', i + 2);
      i = end === -1 ? text.length : end + 1;
    } else if (ch === "'" || ch === '"' || ch === '`' || (ch === '[' && !dollarQuotes)) {
      // A doubled quote (an escaped one) just closes and reopens: same result.
      const close = ch === '[' ? ']' : ch;
      const end = text.indexOf(close, i + 1);
      i = end === -1 ? text.length : end;
      hasCode = true;
    } else if (ch === '$' && dollarQuotes && DOLLAR_TAG.test(text.slice(i, i + 65))) {
      const tag = DOLLAR_TAG.exec(text.slice(i, i + 65))![0];
      const end = text.indexOf(tag, i + tag.length);
      i = end === -1 ? text.length : end + tag.length - 1;
      hasCode = true;
    } else if (ch === ';') {
      push(i);
    } else if (!/\s/.test(ch)) {
      hasCode = true;
    }
  }
  push(text.length);
  return statements;
}

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

/**
 * The Prisma driver adapter of each provider, for the runtime client and for
 * the wasm schema engine used by migrate.ts (background:
 * docs/prisma-offline.md), with the three adapter traps handled here:
 *  1. @prisma/adapter-pg cannot decode the `"char"` type (OID 18) that the
 *     schema engine's introspection queries return -> reported as a character.
 *  2. PrismaPg built from a connection string makes a "shadow" database that
 *     can be the main one -> we build PG adapters from discrete fields only,
 *     and refuse shadow databases on PostgreSQL altogether (we never need one:
 *     migrations are diffed datamodel -> datamodel).
 *  3. better-sqlite3 rejects a multi-statement string in executeRaw, which the
 *     engine sends when it replays migrations on a shadow database -> routed
 *     to executeScript.
 * and the settings every SQLite connection gets (WAL, the bound-values limit).
 */
import { PrismaBetterSqlite3 } from '@prisma/adapter-better-sqlite3';
import { PrismaPg } from '@prisma/adapter-pg';
import { ColumnTypeEnum } from '@prisma/driver-adapter-utils';
import type {
  IsolationLevel,
  SqlDriverAdapter,
  SqlMigrationAwareDriverAdapterFactory,
  SqlQuery,
  SqlResultSet,
  Transaction,
} from '@prisma/driver-adapter-utils';
import { pgPoolConfig, requirePg, requireSqliteFile, type DatabaseConfig } from './config.ts';
import { cacheSqliteStatements } from './sqlite-statement-cache.ts';

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
 * own property wins. performIO hands queryRaw the column as text (an OID it
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
    throw new Error('@prisma/adapter-pg internals changed: performIO not found (see src/db/provider/adapters.ts, trap 1)');
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
 * better-sqlite3 bundles SQLite >= 3.32, whose limit of bound parameters is
 * 32,766. Without being told, Prisma assumes the old 999 and splits a larger
 * `IN (...)` (a relation loaded for 1,000 parents) into several statements
 * wrapped in a transaction.
 */
const SQLITE_MAX_BIND_VALUES = 32_766;

/**
 * Trap 3: the schema engine sends whole migration scripts through executeRaw
 * with no arguments; better-sqlite3 only prepares single statements. prepare()
 * throws before running anything, so retrying the same text with exec() is
 * exact (nothing ran twice). Single statements keep the normal path and thus
 * their affected-row count.
 */
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
 * (PG built from discrete fields, with the "char" OID 18 -> character fix where
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
        Promise.reject(new Error('Shadow databases are disabled for PostgreSQL (see src/db/provider/adapters.ts, trap 2)')),
    };
  }
  throw new Error(`Unknown provider: ${String((config as DatabaseConfig).provider)}`);
}

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
 * The runtime client's adapters also get the database timeouts (a pool and
 * connections that give up, a busy timeout) and, on PostgreSQL, send a read
 * or a BEGIN again on another connection when its pooled one turns out to be
 * dead.
 */
import { PrismaBetterSqlite3 } from '@prisma/adapter-better-sqlite3';
import { PrismaPg } from '@prisma/adapter-pg';
import pg from 'pg';
import { ColumnTypeEnum } from '@prisma/driver-adapter-utils';
import type {
  IsolationLevel,
  SqlDriverAdapter,
  SqlMigrationAwareDriverAdapterFactory,
  SqlQuery,
  SqlResultSet,
  Transaction,
} from '@prisma/driver-adapter-utils';
import { isLostConnection } from '../../errors/prisma.ts';
import { pgPoolConfig, requirePg, requireSqliteFile, type DatabaseConfig, type DatabaseTimeouts } from './config.ts';
import { preparedStatementNames } from './prepared-statements.ts';
import { cacheSqliteStatements } from './sqlite-statement-cache.ts';
import { isReadOnlyStatement } from './statements.ts';

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

/** Connections of a PostgreSQL pool (node-postgres's default, said here: the read retry below counts on it). */
const PG_POOL_SIZE = 10;

/**
 * A read outside a transaction whose pooled connection turns out to be dead
 * (reset by the server or a firewall while it sat idle, or cut under the
 * statement) is sent again, on another connection: the pool drops each dead
 * one as it finds it, so after a database restart, when every idle connection
 * is dead, the read is tried at most once per pooled connection and then on a
 * new one. Such failures come at once (a reset, not a wait). This is what
 * keeps a committed write from answering an error when its connection breaks
 * between COMMIT and the reads that build the answer (docs/decisions.md, "Text
 * no database stores, and database outages"). Starting a transaction is
 * retried the same way (BEGIN on a dead connection did nothing). Writes are
 * never resent (one may have been applied), nor statements inside a
 * transaction (its connection is gone), nor anything after a timeout (the wait
 * would repeat).
 */
function retryOnLostConnection(adapter: SqlDriverAdapter): SqlDriverAdapter {
  const retried = async <T>(run: () => Promise<T>): Promise<T> => {
    for (let attempt = 1; ; attempt++) {
      try {
        return await run();
      } catch (error) {
        if (attempt > PG_POOL_SIZE || !isLostConnection(error)) throw error;
      }
    }
  };
  const queryRaw = adapter.queryRaw.bind(adapter);
  adapter.queryRaw = (query: SqlQuery): Promise<SqlResultSet> => (isReadOnlyStatement(query.sql) ? retried(() => queryRaw(query)) : queryRaw(query));
  const startTransaction = adapter.startTransaction.bind(adapter);
  adapter.startTransaction = (isolationLevel?: IsolationLevel): Promise<Transaction> => retried(() => startTransaction(isolationLevel));
  return adapter;
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

/** How much longer than statement_timeout the client waits for an answer before giving up on the connection. */
export const PG_CLIENT_GRACE_MS = 1_000;

/**
 * node-postgres settings for `timeouts` (docs/decisions.md, "Text no database
 * stores, and database outages"):
 * - a new connection gives up after connectMs (the Client's own timer);
 * - the pool gives up after poolMs (waiting for a free connection, or for a
 *   new one to open);
 * - the server cancels a statement after statementMs (statement_timeout); the
 *   client stops waiting a little later (query_timeout), which is what ends a
 *   statement on a connection whose packets are being dropped;
 * - TCP keepalive probes idle connections, so a dead one is found by the
 *   operating system rather than by the next request; idle connections close
 *   after 10 s (node-postgres's default, said here).
 */
function pgTimeoutSettings(timeouts: DatabaseTimeouts): pg.PoolConfig {
  class ConnectTimeoutClient extends pg.Client {
    // The pool constructs its clients with its own options (the typings say with none).
    constructor(config?: pg.ClientConfig) {
      super({ ...config, connectionTimeoutMillis: timeouts.connectMs });
    }
  }
  return {
    Client: ConnectTimeoutClient,
    max: PG_POOL_SIZE,
    connectionTimeoutMillis: timeouts.poolMs,
    statement_timeout: timeouts.statementMs,
    query_timeout: timeouts.statementMs + PG_CLIENT_GRACE_MS,
    idleTimeoutMillis: 10_000,
    keepAlive: true,
    keepAliveInitialDelayMillis: 10_000,
  };
}

/**
 * A driver adapter factory for the runtime client and the migration engine
 * (PG built from discrete fields, with the "char" OID 18 -> character fix where
 * introspection needs it, and the SQLite multi-statement executeRaw ->
 * executeScript fix; on request, SQLite statements are prepared once and cached,
 * and `timeouts` apply, with PostgreSQL's reads and BEGINs resent on a lost connection:
 * the runtime client asks for both, the migration engine for neither).
 */
export function createAdapterFactory(
  config: DatabaseConfig,
  options: {
    cacheStatements?: boolean;
    /** PostgreSQL: name the statements it sends, so that each connection prepares them once (./prepared-statements.ts). */
    preparedStatements?: boolean;
    timeouts?: DatabaseTimeouts;
    /** Told each PostgreSQL pool the adapter opens (node-postgres's: its counts of connections), for metrics. */
    onPool?: (pool: { totalCount: number; idleCount: number; waitingCount: number }) => void;
  } = {},
): SqlMigrationAwareDriverAdapterFactory {
  const { timeouts } = options;
  if (config.provider === 'sqlite') {
    // better-sqlite3's `timeout` is SQLite's busy timeout (its default, 5 s, when not given).
    const inner = new PrismaBetterSqlite3({ url: requireSqliteFile(config), ...(timeouts && { timeout: timeouts.busyMs }) });
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
    const poolConfig = { ...pgPoolConfig(config), ...(timeouts && pgTimeoutSettings(timeouts)) };
    // PrismaPg's type says a name is always returned; node-postgres sends a statement without one unnamed.
    const statementNameGenerator = options.preparedStatements ? (preparedStatementNames() as (query: { sql: string; args: unknown[] }) => string) : undefined;
    const inner = new PrismaPg(poolConfig, { ...(schema !== undefined && { schema }), ...(statementNameGenerator && { statementNameGenerator }) });
    const connected = (adapter: SqlDriverAdapter) => (timeouts ? retryOnLostConnection(adapter) : adapter);
    return {
      provider: inner.provider,
      adapterName: inner.adapterName,
      connect: async () => {
        const adapter = await inner.connect();
        // PrismaPgAdapter keeps the pool it made as `client` (PgQueryable's): the only way to its counts.
        const pool = (adapter as unknown as { client?: pg.Pool }).client;
        if (pool && options.onPool) options.onPool(pool);
        return connected(fixPgAdapter(adapter));
      },
      connectToShadowDb: () =>
        // PrismaPg's shadow database is created on the server and not dropped (trap 2).
        // Nothing of ours needs one: migrations are diffed datamodel -> datamodel.
        Promise.reject(new Error('Shadow databases are disabled for PostgreSQL (see src/db/provider/adapters.ts, trap 2)')),
    };
  }
  throw new Error(`Unknown provider: ${String((config as DatabaseConfig).provider)}`);
}

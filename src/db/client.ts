/**
 * The runtime database client: the generated PrismaClient of the configured
 * provider, on the driver adapter from provider/adapters.ts, optionally
 * reporting every SQL statement it sends (for the `db_queries_total` counter
 * and for tests that count statements).
 *
 * Counting happens in a wrapper around the driver adapter, not with Prisma's
 * `query` log events: those are emitted per operation of the query engine and
 * miss the statements the adapters run by themselves (BEGIN inside
 * startTransaction, savepoints, the pieces of a script).
 */
import type {
  IsolationLevel,
  SqlDriverAdapter,
  SqlDriverAdapterFactory,
  SqlQuery,
  SqlQueryable,
  SqlResultSet,
  Transaction,
} from '@prisma/driver-adapter-utils';
import { PrismaClient as PostgresPrismaClient } from './generated/postgresql/client.ts';
import { PrismaClient as SqlitePrismaClient } from './generated/sqlite/client.ts';
import { createAdapterFactory } from './provider/adapters.ts';
import { DEFAULT_DATABASE_TIMEOUTS, type DatabaseConfig, type DatabaseTimeouts, type Provider } from './provider/config.ts';
import { statementsOfRawQuery, statementsOfScript, statementsOfStartTransaction, writtenTable } from './provider/statements.ts';

/**
 * The client type the app codes against. Both generated clients come from the
 * same models, so the PostgreSQL one has the same shape (cast in createDb).
 */
export type Db = SqlitePrismaClient;

/** SQL template helpers (`Prisma.sql`, `Prisma.join`) for tagged raw queries; both generated clients share this runtime. */
export { Prisma } from './generated/sqlite/client.ts';

/** The client inside `db.$transaction(async (tx) => ...)`. */
export type Tx = Parameters<Parameters<Db['$transaction']>[0]>[0];

export interface CreateDbOptions {
  /** Called once for every SQL statement sent to the database, with its text. */
  onQuery?: (sql: string) => void;
  /**
   * Called with the table a statement writes (INSERT, UPDATE, DELETE: Prisma's and raw
   * ones alike), once it has been sent; in a transaction, again for each table it wrote
   * once it has committed, when others can see the change. `sql` is the statement's text when
   * it is the statement (none at a commit).
   */
  onWrite?: (table: string, sql?: string) => void;
  /** PostgreSQL: named prepared statements (DATABASE_PREPARED_STATEMENTS); on unless false. */
  preparedStatements?: boolean;
  /** How long to wait on the database (DATABASE_*_TIMEOUT_MS); DEFAULT_DATABASE_TIMEOUTS when not given. */
  timeouts?: DatabaseTimeouts;
  /** Told the PostgreSQL pool the client opens (its connection counts, for metrics); never called on SQLite. */
  onPool?: (pool: { totalCount: number; idleCount: number; waitingCount: number }) => void;
}

export function createDb(config: DatabaseConfig, options: CreateDbOptions = {}): Db {
  const timeouts = options.timeouts ?? DEFAULT_DATABASE_TIMEOUTS;
  const base = createAdapterFactory(config, { cacheStatements: true, preparedStatements: options.preparedStatements ?? true, timeouts, onPool: options.onPool });
  const observer = options.onQuery || options.onWrite ? { onQuery: options.onQuery, onWrite: options.onWrite } : null;
  const adapter = observer ? observingFactory(base, config.provider, observer) : base;
  // An interactive transaction waits for its connection as long as any query does (Prisma's own default
  // is 2 s): on SQLite, where transactions of the process take turns on its one connection, 20 concurrent
  // edits of a change request on a busy machine waited longer than that and answered 503.
  const transactionOptions = { maxWait: timeouts.poolMs };
  if (config.provider === 'postgresql') return new PostgresPrismaClient({ adapter, transactionOptions }) as unknown as Db;
  return new SqlitePrismaClient({ adapter, transactionOptions });
}

export async function closeDb(db: Db): Promise<void> {
  await db.$disconnect();
}

// ---------------------------------------------------------------------------
// Statement observation
//
// Statements are reported as they are sent, whether or not they then succeed:
// a failing statement reached the database too. The wrappers are new objects
// that delegate to the adapter (its methods use private fields, so they must
// be called on the adapter itself, never re-bound to a proxy). What each
// adapter call sends is provider knowledge, kept in provider/statements.ts.
// Writes are observed here rather than with a Prisma query extension: an
// extended client costs every query result a second visit (12% on the site
// graph query, docs/decisions.md).

/** What the observing wrappers report to: the statements sent, and the tables written. */
interface Observer {
  onQuery?: (sql: string) => void;
  onWrite?: (table: string, sql?: string) => void;
}

/** Reports statements as sent; `written` collects the tables a transaction writes, reported again at its commit. */
function report(observer: Observer, statements: string[], written?: Set<string>): void {
  for (const sql of statements) {
    observer.onQuery?.(sql);
    const table = observer.onWrite ? writtenTable(sql) : null;
    if (!table) continue;
    written?.add(table);
    observer.onWrite!(table, sql);
  }
}

function observingFactory(inner: SqlDriverAdapterFactory, provider: Provider, observer: Observer): SqlDriverAdapterFactory {
  return {
    provider: inner.provider,
    adapterName: inner.adapterName,
    connect: async () => observingAdapter(await inner.connect(), provider, observer),
  };
}

/** The observed queries of an adapter or a transaction (both run raw queries the same way). */
function observingQueryable(inner: SqlQueryable, provider: Provider, observer: Observer, written?: Set<string>): SqlQueryable {
  return {
    provider: inner.provider,
    adapterName: inner.adapterName,
    queryRaw(query: SqlQuery): Promise<SqlResultSet> {
      report(observer, statementsOfRawQuery(provider, query), written);
      return inner.queryRaw(query);
    },
    executeRaw(query: SqlQuery): Promise<number> {
      report(observer, statementsOfRawQuery(provider, query), written);
      return inner.executeRaw(query);
    },
  };
}

function observingAdapter(inner: SqlDriverAdapter, provider: Provider, observer: Observer): SqlDriverAdapter {
  const adapter: SqlDriverAdapter = {
    ...observingQueryable(inner, provider, observer),
    executeScript(script: string): Promise<void> {
      report(observer, statementsOfScript(provider, script));
      return inner.executeScript(script);
    },
    async startTransaction(isolationLevel?: IsolationLevel): Promise<Transaction> {
      // The adapter runs BEGIN itself; reported once it went through (if the
      // pool cannot even hand out a connection, nothing was sent).
      const tx = await inner.startTransaction(isolationLevel);
      report(observer, statementsOfStartTransaction(provider, isolationLevel));
      return observingTransaction(tx, provider, observer);
    },
    dispose: () => inner.dispose(),
  };
  // The client reads the schema name (PostgreSQL) and join support from here.
  if (inner.getConnectionInfo) adapter.getConnectionInfo = () => inner.getConnectionInfo!();
  return adapter;
}

function observingTransaction(inner: Transaction, provider: Provider, observer: Observer): Transaction {
  // With usePhantomQuery (false for both our adapters), commit()/rollback()
  // would send COMMIT/ROLLBACK themselves; otherwise the client sends them
  // through executeRaw and commit()/rollback() only release the connection.
  const phantom = inner.options.usePhantomQuery;
  const written = new Set<string>();
  const statement = (sql: string) => report(observer, [sql], written);
  const tx: Transaction = {
    ...observingQueryable(inner, provider, observer, written),
    options: inner.options,
    async commit(): Promise<void> {
      if (phantom) statement('COMMIT');
      await inner.commit();
      // Committed: what others read of these tables may have changed only now.
      for (const table of written) observer.onWrite?.(table);
    },
    rollback(): Promise<void> {
      if (phantom) statement('ROLLBACK');
      return inner.rollback();
    },
  };
  // Nested transactions: each savepoint call is one statement in both adapters.
  // Only offered when the adapter has them, since the client checks for presence.
  if (inner.createSavepoint) {
    tx.createSavepoint = (name: string) => {
      statement(`SAVEPOINT ${name}`);
      return inner.createSavepoint!(name);
    };
  }
  if (inner.rollbackToSavepoint) {
    tx.rollbackToSavepoint = (name: string) => {
      statement(`ROLLBACK TO SAVEPOINT ${name}`);
      return inner.rollbackToSavepoint!(name);
    };
  }
  if (inner.releaseSavepoint) {
    tx.releaseSavepoint = (name: string) => {
      statement(`RELEASE SAVEPOINT ${name}`);
      return inner.releaseSavepoint!(name);
    };
  }
  return tx;
}

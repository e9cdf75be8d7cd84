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
import { type DatabaseConfig, type Provider } from './provider/config.ts';
import { statementsOfRawQuery, statementsOfScript, statementsOfStartTransaction } from './provider/statements.ts';

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
}

export function createDb(config: DatabaseConfig, options?: CreateDbOptions): Db {
  const base = createAdapterFactory(config, { cacheStatements: true });
  const onQuery = options?.onQuery;
  const adapter = onQuery ? countingFactory(base, config.provider, onQuery) : base;
  if (config.provider === 'postgresql') {
    return new PostgresPrismaClient({ adapter }) as unknown as Db;
  }
  return new SqlitePrismaClient({ adapter });
}

/** Operations that write rows of their model. */
const WRITES = new Set(['create', 'createMany', 'createManyAndReturn', 'update', 'updateMany', 'updateManyAndReturn', 'upsert', 'delete', 'deleteMany']);
/** Raw statements may write anything: they are reported as a write of every model. */
const RAW_WRITES = new Set(['$executeRaw', '$executeRawUnsafe']);

/**
 * `db`, reporting each write after it is done: the model written, or null for
 * a raw statement (it may have written any table). Inside interactive
 * transactions too. The app uses it to forget what the request's loaders
 * cached of that model (src/loaders.ts).
 */
export function reportingWrites(db: Db, onWrite: (model: string | null) => void): Db {
  return db.$extends({
    query: {
      async $allOperations({ model, operation, args, query }) {
        const result = await query(args);
        if (model && WRITES.has(operation)) onWrite(model);
        else if (!model && RAW_WRITES.has(operation)) onWrite(null);
        return result;
      },
    },
  }) as unknown as Db;
}

export async function closeDb(db: Db): Promise<void> {
  await db.$disconnect();
}

// ---------------------------------------------------------------------------
// Statement counting

type OnQuery = (sql: string) => void;

/**
 * Statements are reported as they are sent, whether or not they then succeed:
 * a failing statement reached the database too. The wrappers are new objects
 * that delegate to the adapter (its methods use private fields, so they must
 * be called on the adapter itself, never re-bound to a proxy). What each
 * adapter call sends is provider knowledge, kept in provider/statements.ts.
 */
function report(onQuery: OnQuery, statements: string[]): void {
  for (const sql of statements) onQuery(sql);
}

function countingFactory(inner: SqlDriverAdapterFactory, provider: Provider, onQuery: OnQuery): SqlDriverAdapterFactory {
  return {
    provider: inner.provider,
    adapterName: inner.adapterName,
    connect: async () => countingAdapter(await inner.connect(), provider, onQuery),
  };
}

/** The counting queries of an adapter or a transaction (both run raw queries the same way). */
function countingQueryable(inner: SqlQueryable, provider: Provider, onQuery: OnQuery): SqlQueryable {
  return {
    provider: inner.provider,
    adapterName: inner.adapterName,
    queryRaw(query: SqlQuery): Promise<SqlResultSet> {
      report(onQuery, statementsOfRawQuery(provider, query));
      return inner.queryRaw(query);
    },
    executeRaw(query: SqlQuery): Promise<number> {
      report(onQuery, statementsOfRawQuery(provider, query));
      return inner.executeRaw(query);
    },
  };
}

function countingAdapter(inner: SqlDriverAdapter, provider: Provider, onQuery: OnQuery): SqlDriverAdapter {
  const adapter: SqlDriverAdapter = {
    ...countingQueryable(inner, provider, onQuery),
    executeScript(script: string): Promise<void> {
      report(onQuery, statementsOfScript(provider, script));
      return inner.executeScript(script);
    },
    async startTransaction(isolationLevel?: IsolationLevel): Promise<Transaction> {
      // The adapter runs BEGIN itself; reported once it went through (if the
      // pool cannot even hand out a connection, nothing was sent).
      const tx = await inner.startTransaction(isolationLevel);
      report(onQuery, statementsOfStartTransaction(provider, isolationLevel));
      return countingTransaction(tx, provider, onQuery);
    },
    dispose: () => inner.dispose(),
  };
  // The client reads the schema name (PostgreSQL) and join support from here.
  if (inner.getConnectionInfo) adapter.getConnectionInfo = () => inner.getConnectionInfo!();
  return adapter;
}

function countingTransaction(inner: Transaction, provider: Provider, onQuery: OnQuery): Transaction {
  // With usePhantomQuery (false for both our adapters), commit()/rollback()
  // would send COMMIT/ROLLBACK themselves; otherwise the client sends them
  // through executeRaw and commit()/rollback() only release the connection.
  const phantom = inner.options.usePhantomQuery;
  const tx: Transaction = {
    ...countingQueryable(inner, provider, onQuery),
    options: inner.options,
    commit(): Promise<void> {
      if (phantom) onQuery('COMMIT');
      return inner.commit();
    },
    rollback(): Promise<void> {
      if (phantom) onQuery('ROLLBACK');
      return inner.rollback();
    },
  };
  // Nested transactions: each savepoint call is one statement in both adapters.
  // Only offered when the adapter has them, since the client checks for presence.
  if (inner.createSavepoint) {
    tx.createSavepoint = (name: string) => {
      onQuery(`SAVEPOINT ${name}`);
      return inner.createSavepoint!(name);
    };
  }
  if (inner.rollbackToSavepoint) {
    tx.rollbackToSavepoint = (name: string) => {
      onQuery(`ROLLBACK TO SAVEPOINT ${name}`);
      return inner.rollbackToSavepoint!(name);
    };
  }
  if (inner.releaseSavepoint) {
    tx.releaseSavepoint = (name: string) => {
      onQuery(`RELEASE SAVEPOINT ${name}`);
      return inner.releaseSavepoint!(name);
    };
  }
  return tx;
}

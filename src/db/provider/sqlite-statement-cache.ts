/**
 * A prepared-statement cache for @prisma/adapter-better-sqlite3.
 *
 * The adapter (7.10) calls `db.prepare(sql).bind(args)` for every query and
 * keeps nothing, so SQLite compiles the same few statements again on every
 * request: about 7% of a GET by id's CPU (bench/results/2026-11-23-rest.md).
 * better-sqlite3 statements are reusable, but `bind()` binds for good, so the
 * cache hands the adapter a light per-call view of a cached statement that
 * passes the arguments at run time instead.
 *
 * Only the statement methods the adapter calls are offered (`reader`,
 * `bind`, `columns`, `raw().all()`, `run`); anything else would fail loudly.
 * SQLite re-prepares a cached statement by itself after a schema change.
 */
import type BetterSqlite3 from 'better-sqlite3';
import { LRUCache } from 'lru-cache';

/** Distinct SQL texts kept. Prisma's texts repeat, except `IN (?, ?, …)` lists of each length. */
const MAX_STATEMENTS = 500;

type Statement = BetterSqlite3.Statement<unknown[], unknown>;

/** A prepared statement and its result columns, read once (the adapter asks on every call). */
interface CachedStatement {
  statement: Statement;
  columns?: BetterSqlite3.ColumnDefinition[];
}

/** One use of a cached statement with its own arguments and raw mode. */
class StatementCall {
  #rawMode = false;

  constructor(
    private readonly cached: CachedStatement,
    private readonly args: readonly unknown[] = [],
  ) {}

  private get statement(): Statement {
    return this.cached.statement;
  }

  get reader(): boolean {
    return this.statement.reader;
  }

  bind(args: readonly unknown[]): StatementCall {
    return new StatementCall(this.cached, args);
  }

  columns(): BetterSqlite3.ColumnDefinition[] {
    // Columns change only with the schema, which changes before the server starts (migrate.ts).
    this.cached.columns ??= this.statement.columns();
    return this.cached.columns;
  }

  raw(toggle = true): this {
    this.#rawMode = toggle;
    return this;
  }

  all(): unknown[] {
    return this.statement.raw(this.#rawMode).all(...this.args);
  }

  run(): BetterSqlite3.RunResult {
    return this.statement.run(...this.args);
  }
}

/** The better-sqlite3 handle inside the adapter (a plain property in 7.10). */
interface HasSqliteClient {
  client?: BetterSqlite3.Database;
}

/**
 * Replaces `prepare` on the adapter's database handle with a cached one.
 * Transactions share that handle, so they are covered too.
 */
export function cacheSqliteStatements<T extends object>(adapter: T): T {
  const db = (adapter as HasSqliteClient).client;
  if (!db || typeof db.prepare !== 'function') {
    // Fail loudly if an upgrade of the adapter renamed the field.
    throw new Error('@prisma/adapter-better-sqlite3 internals changed: client not found (see src/db/provider/sqlite-statement-cache.ts)');
  }
  const prepare = db.prepare.bind(db) as (sql: string) => Statement;
  const statements = new LRUCache<string, CachedStatement>({ max: MAX_STATEMENTS });
  const cachedPrepare = (sql: string): StatementCall => {
    let cached = statements.get(sql);
    if (!cached) {
      cached = { statement: prepare(sql) };
      statements.set(sql, cached);
    }
    return new StatementCall(cached);
  };
  (db as unknown as { prepare: typeof cachedPrepare }).prepare = cachedPrepare;
  return adapter;
}

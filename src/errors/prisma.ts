/**
 * The Prisma and database driver errors the service explains or acts on,
 * recognised in one place: by code for the query engine's known request
 * errors, by the driver adapter's own error where Prisma passes that through
 * (seen with 7.10), and by node-postgres's and the socket's own errors where
 * neither wraps them (a pool that cannot connect in time, a connection cut).
 */
import { DatabaseUnavailableError, type DatabaseFailure } from './external.ts';
import { type AppError, ConflictError, NotFoundError } from './index.ts';

interface PrismaLikeError {
  code?: unknown;
  name?: unknown;
  message?: unknown;
  cause?: { kind?: unknown; code?: unknown; originalCode?: unknown };
  meta?: { driverAdapterError?: unknown };
}

const fields = (error: unknown): PrismaLikeError => (error && typeof error === 'object' ? (error as PrismaLikeError) : {});

/** A write that broke a unique constraint (P2002). */
export function isUniqueViolation(error: unknown): boolean {
  return fields(error).code === 'P2002';
}

/** A write naming a row that does not exist (any more) through a foreign key (P2003). */
export function isForeignKeyViolation(error: unknown): boolean {
  return fields(error).code === 'P2003';
}

/**
 * A transaction the database aborted for a conflict with a concurrent one
 * (PostgreSQL 40001 or 40P01): Prisma's P2034 when a statement fails, the
 * driver adapter's own error when COMMIT does.
 */
export function isWriteConflict(error: unknown): boolean {
  const e = fields(error);
  return e.code === 'P2034' || (e.name === 'DriverAdapterError' && e.cause?.kind === 'TransactionWriteConflict');
}

// ---- The database unavailable: unreachable, cut off, or not answering in time

/** Prisma's codes: P1001 can't reach, P1017 connection closed; P1002 and P1008 timed out, P2024 no pooled connection in time. */
const PRISMA_CODES: Record<string, DatabaseFailure> = { P1001: 'unreachable', P1017: 'unreachable', P1002: 'timeout', P1008: 'timeout', P2024: 'timeout' };

/** The driver adapter's error kinds (SQLite's SQLITE_BUSY after its busy timeout is a SocketTimeout too). */
const ADAPTER_KINDS: Record<string, DatabaseFailure> = {
  DatabaseNotReachable: 'unreachable',
  ConnectionClosed: 'unreachable',
  TooManyConnections: 'unreachable',
  SocketTimeout: 'timeout',
};

/**
 * PostgreSQL's SQLSTATEs: 57014 a statement cancelled (statement_timeout),
 * 55P03 a lock not obtained in time; 57P01-57P03 the server shutting down or
 * starting; 53300 too many connections.
 */
const SQLSTATES: Record<string, DatabaseFailure> = {
  '57014': 'timeout',
  '55P03': 'timeout',
  '57P01': 'unreachable',
  '57P02': 'unreachable',
  '57P03': 'unreachable',
  '53300': 'unreachable',
};

/** Socket errors of the connection to the database. */
const SOCKET_CODES: Record<string, DatabaseFailure> = {
  ECONNREFUSED: 'unreachable',
  ECONNRESET: 'unreachable',
  EPIPE: 'unreachable',
  ENOTFOUND: 'unreachable',
  EAI_AGAIN: 'unreachable',
  EHOSTUNREACH: 'unreachable',
  ENETUNREACH: 'unreachable',
  ETIMEDOUT: 'timeout',
};

/** node-postgres's own errors, which carry no code. */
const PG_MESSAGES: [RegExp, DatabaseFailure][] = [
  [/^timeout exceeded when trying to connect/, 'timeout'], // the pool (connectionTimeoutMillis)
  [/^Connection terminated due to connection timeout/, 'timeout'], // a new connection, by the pool's timer
  [/^timeout expired$/, 'timeout'], // a new connection, by its own timer (connectionTimeoutMillis)
  [/^Query read timeout/, 'timeout'], // query_timeout
  [/^Connection terminated/, 'unreachable'],
  [/is not queryable/, 'unreachable'],
];

/** node-postgres's errors of a connection that died under a statement (the statement may not have run). */
const LOST_CONNECTION = /^Connection terminated unexpectedly|is not queryable/;

/** The errors a thrown value wraps, itself first: `cause` chains and Prisma's `meta.driverAdapterError`. */
function* chain(error: unknown): Generator<PrismaLikeError> {
  let at: unknown = error;
  for (let depth = 0; depth < 6 && at && typeof at === 'object'; depth++) {
    const e = at as PrismaLikeError;
    yield e;
    at = e.meta?.driverAdapterError ?? e.cause;
  }
}

/** Whether and why `error` says the database is unavailable, or null. */
export function databaseFailure(error: unknown): DatabaseFailure | null {
  for (const e of chain(error)) {
    if (typeof e.code === 'string' && e.code in PRISMA_CODES) return PRISMA_CODES[e.code]!;
    // P2028: an interactive transaction that could not start within maxWait (the pool acquire timeout).
    if (e.code === 'P2028' && typeof e.message === 'string' && e.message.includes('Unable to start a transaction in the given time')) return 'timeout';
    const kind = e.name === 'DriverAdapterError' ? e.cause?.kind : undefined;
    if (typeof kind === 'string' && kind in ADAPTER_KINDS) return ADAPTER_KINDS[kind]!;
    const sqlState = kind === 'postgres' ? e.cause?.originalCode : e.name === 'error' ? e.code : undefined; // node-postgres's server error is named 'error'
    if (typeof sqlState === 'string' && sqlState in SQLSTATES) return SQLSTATES[sqlState]!;
    if (typeof e.code === 'string' && e.code in SOCKET_CODES) return SOCKET_CODES[e.code]!;
    if (typeof e.message === 'string') {
      for (const [pattern, failure] of PG_MESSAGES) if (pattern.test(e.message)) return failure;
    }
  }
  return null;
}

/**
 * Whether `error` is the loss of a pooled connection under a statement (the
 * server reset it, or it died while idle): the statement can be sent again on
 * a new connection when it only reads (src/db/provider/adapters.ts).
 */
export function isLostConnection(error: unknown): boolean {
  for (const e of chain(error)) {
    const kind = e.name === 'DriverAdapterError' ? e.cause?.kind : undefined;
    if (kind === 'ConnectionClosed' || e.code === 'ECONNRESET' || e.code === 'EPIPE') return true;
    if (typeof e.message === 'string' && LOST_CONNECTION.test(e.message)) return true;
  }
  return false;
}

/** The caller's error a known Prisma request error stands for, a 503 for an unavailable database, or null (anything else is the server's). */
export function appErrorOfPrisma(error: unknown): AppError | null {
  const failure = databaseFailure(error);
  if (failure) return new DatabaseUnavailableError(failure, { cause: error });
  const e = fields(error);
  if (e.name !== 'PrismaClientKnownRequestError') return null;
  if (e.code === 'P2002') return new ConflictError('A resource with the same unique value already exists');
  if (e.code === 'P2025') return new NotFoundError('Resource');
  return null;
}

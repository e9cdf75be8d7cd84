/**
 * How the errors of an unavailable database are recognised (src/errors/prisma.ts),
 * in the shapes Prisma 7.10, its driver adapters and node-postgres throw them,
 * and which statements the PostgreSQL adapter may send again on a lost connection.
 * The same errors from a real database: test/db/outages.test.ts.
 */
import { GraphQLError } from 'graphql';
import { describe, expect, it } from 'vitest';
import { isReadOnlyStatement } from '../../src/db/provider/statements.ts';
import { DatabaseUnavailableError } from '../../src/errors/external.ts';
import { databaseFailure, isLostConnection } from '../../src/errors/prisma.ts';
import { toAppError } from '../../src/errors/to-app-error.ts';

/** A PrismaClientKnownRequestError as Prisma builds it. */
const known = (code: string, meta: Record<string, unknown> = {}) => Object.assign(new Error('prisma'), { name: 'PrismaClientKnownRequestError', code, meta });
/** The driver adapter's error (what Prisma passes through, or puts in `meta.driverAdapterError`). */
const adapterError = (cause: Record<string, unknown>) => Object.assign(new Error('adapter'), { name: 'DriverAdapterError', cause });
/** node-postgres's error of a statement the server refused, and a socket error. */
const pgServerError = (code: string) => Object.assign(new Error('server said no'), { name: 'error', code, severity: 'ERROR' });
const socketError = (code: string) => Object.assign(new Error(`connect ${code}`), { code, syscall: 'connect', errno: -1 });

describe('databaseFailure', () => {
  it.each([
    ['P1001 (cannot reach)', known('P1001'), 'unreachable'],
    ['P1017 (connection closed)', known('P1017'), 'unreachable'],
    ['P1008 (timed out)', known('P1008'), 'timeout'],
    ['P2024 (no pooled connection in time)', known('P2024'), 'timeout'],
    ['P2028 when a transaction could not start in time', Object.assign(known('P2028'), { message: 'Transaction API error: Unable to start a transaction in the given time.' }), 'timeout'],
    ['a raw query refused: P2010 with the adapter error in meta', known('P2010', { driverAdapterError: adapterError({ kind: 'DatabaseNotReachable', host: 'db', port: 5432 }) }), 'unreachable'],
    ['the adapter error itself: ConnectionClosed', adapterError({ kind: 'ConnectionClosed' }), 'unreachable'],
    ['the adapter error itself: SocketTimeout (SQLite busy too)', adapterError({ kind: 'SocketTimeout' }), 'timeout'],
    ['the adapter error itself: TooManyConnections', adapterError({ kind: 'TooManyConnections', cause: '' }), 'unreachable'],
    ['statement_timeout (57014) through the adapter', adapterError({ kind: 'postgres', originalCode: '57014', code: '57014' }), 'timeout'],
    ['a shutting-down server (57P01) from node-postgres', pgServerError('57P01'), 'unreachable'],
    ['ECONNREFUSED', socketError('ECONNREFUSED'), 'unreachable'],
    ['ETIMEDOUT', socketError('ETIMEDOUT'), 'timeout'],
    ['the pool giving up', new Error('timeout exceeded when trying to connect'), 'timeout'],
    ['a new connection giving up', Object.assign(new Error('timeout expired'), { clientVersion: '7.10.0' }), 'timeout'],
    ['query_timeout', new Error('Query read timeout'), 'timeout'],
    ['a connection cut under a statement', new Error('Connection terminated unexpectedly'), 'unreachable'],
    ['wrapped in a cause', new Error('outer', { cause: socketError('ECONNRESET') }), 'unreachable'],
  ])('%s: %s', (_name, error, failure) => {
    expect(databaseFailure(error)).toBe(failure);
  });

  it.each([
    ['a unique violation', known('P2002')],
    ['a record not found', known('P2025')],
    ['a raw query with a syntax error', known('P2010', { driverAdapterError: adapterError({ kind: 'postgres', originalCode: '42601', code: '42601' }) })],
    ['a write conflict', adapterError({ kind: 'TransactionWriteConflict' })],
    ['a plain error', new Error('boom')],
    ['an expired transaction (the app held it too long)', Object.assign(known('P2028'), { message: 'Transaction already closed: the timeout for this transaction was 5000 ms' })],
  ])('%s: not an outage', (_name, error) => {
    expect(databaseFailure(error)).toBeNull();
  });

  it('makes toAppError answer 503 with Retry-After, through GraphQL wrapping too', () => {
    const error = toAppError(new GraphQLError('wrapped', { originalError: known('P1001') }));
    expect(error).toBeInstanceOf(DatabaseUnavailableError);
    expect(error).toMatchObject({ status: 503, code: 'DATABASE_UNAVAILABLE', headers: { 'Retry-After': '5' } });
    expect(error!.message).toBe('The database cannot be reached; try again in 5 seconds');
  });
});

describe('a lost connection, and what may be sent again after one', () => {
  it('recognises a connection that died under a statement, not a refusal or a timeout', () => {
    expect(isLostConnection(new Error('Connection terminated unexpectedly'))).toBe(true);
    expect(isLostConnection(adapterError({ kind: 'ConnectionClosed' }))).toBe(true);
    expect(isLostConnection(new Error('Client has encountered a connection error and is not queryable'))).toBe(true);
    expect(isLostConnection(socketError('ECONNREFUSED'))).toBe(false);
    expect(isLostConnection(new Error('Query read timeout'))).toBe(false);
  });

  it('resends reads only', () => {
    expect(isReadOnlyStatement('SELECT "t0"."id", "t0"."updatedAt" FROM "s"."Space" AS "t0" WHERE "t0"."id" = $1')).toBe(true);
    expect(isReadOnlyStatement('\n  WITH RECURSIVE chain AS (SELECT 1) SELECT * FROM chain')).toBe(true);
    expect(isReadOnlyStatement('INSERT INTO "Space" ("id") VALUES ($1) RETURNING "id"')).toBe(false);
    expect(isReadOnlyStatement('WITH gone AS (DELETE FROM "Space" RETURNING id) SELECT count(*) FROM gone')).toBe(false);
    expect(isReadOnlyStatement('SELECT id FROM "Space" FOR UPDATE')).toBe(false);
    expect(isReadOnlyStatement('UPDATE "Space" SET "title" = $1')).toBe(false);
  });
});

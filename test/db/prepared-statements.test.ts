/**
 * Named prepared statements on PostgreSQL (src/db/provider/prepared-statements.ts): which
 * statements get a name, and that the connection prepares them (pg_prepared_statements) when
 * DATABASE_PREPARED_STATEMENTS is on and not when it is off.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeDb, createDb, type Db } from '../../src/db/client.ts';
import { preparedStatementNames } from '../../src/db/provider/prepared-statements.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/database.ts';
import { servicesConfigured } from '../helpers/services.ts';

describe('preparedStatementNames', () => {
  it('names a text the same every time, two texts apart, and within PostgreSQL identifiers', () => {
    const name = preparedStatementNames();
    const a = name({ sql: 'SELECT 1 WHERE $1 = $1', args: [1] });
    expect(a).toMatch(/^s[0-9a-f]{40}$/);
    expect(a!.length).toBeLessThanOrEqual(63);
    expect(name({ sql: 'SELECT 1 WHERE $1 = $1', args: [2] })).toBe(a);
    expect(name({ sql: 'SELECT 2 WHERE $1 = $1', args: [1] })).not.toBe(a);
    // Another process (another namer) gives the same text the same name.
    expect(preparedStatementNames()({ sql: 'SELECT 1 WHERE $1 = $1', args: [3] })).toBe(a);
  });

  it('leaves statements without parameters unnamed (simple queries: scripts of several commands, BEGIN, COMMIT)', () => {
    const name = preparedStatementNames();
    expect(name({ sql: 'COMMIT', args: [] })).toBeUndefined();
    expect(name({ sql: 'SET LOCAL statement_timeout = 0; SELECT 1', args: [] })).toBeUndefined();
  });

  it('leaves statements with many parameters unnamed, and every text past the limit, but keeps naming those it named', () => {
    const name = preparedStatementNames({ parameters: 3, statements: 2 });
    expect(name({ sql: 'SELECT $1, $2, $3, $4', args: [1, 2, 3, 4] })).toBeUndefined();
    const first = name({ sql: 'SELECT $1', args: [1] });
    const second = name({ sql: 'SELECT $1, $2', args: [1, 2] });
    expect(first).toBeDefined();
    expect(second).toBeDefined();
    expect(name({ sql: 'SELECT $1, $2, $3', args: [1, 2, 3] })).toBeUndefined();
    expect(name({ sql: 'SELECT $1', args: [5] })).toBe(first);
    expect(name({ sql: 'SELECT $1, $2', args: [5, 6] })).toBe(second);
  });
});

describe.skipIf(!servicesConfigured('postgres'))('on PostgreSQL (TEST_DATABASE_URL)', () => {
  let database: TestDatabase;
  const clients: Db[] = [];

  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(async () => {
    for (const db of clients) await closeDb(db);
    await database.drop();
  });

  /** The statements the connection of one transaction prepared, after reading the organizations twice in it. */
  async function preparedIn(preparedStatements: boolean): Promise<Array<{ name: string; statement: string }>> {
    const db = createDb(database.config, { preparedStatements });
    clients.push(db);
    // A transaction holds one connection: what it prepared is that session's.
    return db.$transaction(async (tx) => {
      await tx.organization.findMany({ where: { id: 'none' }, select: { id: true } });
      await tx.organization.findMany({ where: { id: 'other' }, select: { id: true } });
      return tx.$queryRaw<Array<{ name: string; statement: string }>>`SELECT name, statement FROM pg_prepared_statements`;
    });
  }

  it('prepares each statement once per connection when on (the default)', async () => {
    const prepared = await preparedIn(true);
    const reads = prepared.filter((p) => p.statement.includes('"Organization"'));
    expect(reads).toHaveLength(1);
    expect(reads[0]!.name).toMatch(/^s[0-9a-f]{40}$/);
  });

  it('prepares nothing when off (DATABASE_PREPARED_STATEMENTS=false)', async () => {
    expect(await preparedIn(false)).toEqual([]);
  });
});

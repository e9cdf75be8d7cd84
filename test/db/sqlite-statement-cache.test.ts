/**
 * The prepared-statement cache around @prisma/adapter-better-sqlite3: the
 * same results as the adapter alone (arguments, raw rows, writes, transactions,
 * errors), with each distinct SQL text prepared once.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { PrismaBetterSqlite3 } from '@prisma/adapter-better-sqlite3';
import type { SqlDriverAdapter, SqlQuery } from '@prisma/driver-adapter-utils';
import type BetterSqlite3 from 'better-sqlite3';
import { cacheSqliteStatements } from '../../src/db/provider/sqlite-statement-cache.ts';

const query = (sql: string, args: unknown[] = []): SqlQuery => ({
  sql,
  args,
  argTypes: args.map((arg) => ({ scalarType: typeof arg === 'number' ? 'int' : 'string', arity: 'scalar' }) as never),
});

describe('SQLite statement cache', () => {
  let dir: string;
  let adapter: SqlDriverAdapter;
  let prepare: ReturnType<typeof vi.fn>;

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'docs-api-stmt-cache-'));
    const raw = await new PrismaBetterSqlite3({ url: path.join(dir, 'cache.db') }).connect();
    const db = (raw as unknown as { client: BetterSqlite3.Database }).client;
    prepare = vi.fn(db.prepare.bind(db));
    db.prepare = prepare as never;
    adapter = cacheSqliteStatements(raw);
    await adapter.executeScript('CREATE TABLE item (id INTEGER PRIMARY KEY, title TEXT NOT NULL)');
    prepare.mockClear();
  });

  // Each test counts the statements it prepares itself.
  beforeEach(() => {
    prepare.mockClear();
  });

  afterAll(async () => {
    await adapter.dispose();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('prepares a statement once and runs it with each call’s own arguments', async () => {
    const insert = 'INSERT INTO item (id, title) VALUES (?, ?)';
    expect(await adapter.executeRaw(query(insert, [1, 'one']))).toBe(1);
    expect(await adapter.executeRaw(query(insert, [2, 'two']))).toBe(1);

    const select = 'SELECT id, title FROM item WHERE id = ?';
    const first = await adapter.queryRaw(query(select, [1]));
    const second = await adapter.queryRaw(query(select, [2]));
    expect(first.columnNames).toEqual(['id', 'title']);
    expect(first.rows).toEqual([[1, 'one']]);
    expect(second.rows).toEqual([[2, 'two']]);
    expect(second.columnNames).toEqual(['id', 'title']);

    expect(prepare.mock.calls.map(([sql]) => sql)).toEqual([insert, select]);
  });

  it('runs writes through queryRaw (no result rows) and inside transactions', async () => {
    await adapter.executeScript("INSERT INTO item (id, title) VALUES (10, 'ten')"); // a row of its own, outside the cache
    const update = 'UPDATE item SET title = ? WHERE id = ?';
    expect((await adapter.queryRaw(query(update, ['zehn', 10]))).rows).toEqual([]);

    const tx = await adapter.startTransaction();
    await tx.executeRaw(query(update, ['dix', 10]));
    await tx.executeRaw(query('ROLLBACK'));
    await tx.rollback();
    const rows = await adapter.queryRaw(query('SELECT title FROM item WHERE id = ?', [10]));
    expect(rows.rows).toEqual([['zehn']]);
  });

  it('reports SQL errors the way the adapter does, and caches nothing for them', async () => {
    await expect(adapter.queryRaw(query('SELECT nope FROM item'))).rejects.toMatchObject({ name: 'DriverAdapterError' });
    await expect(adapter.queryRaw(query('SELECT nope FROM item'))).rejects.toMatchObject({ name: 'DriverAdapterError' });
    expect(prepare).toHaveBeenCalledTimes(2);
  });
});

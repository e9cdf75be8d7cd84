import { describe, expect, it } from 'vitest';
import { statementsOfRawQuery, statementsOfScript, statementsOfStartTransaction, writtenTable } from '../../../src/db/provider/statements.ts';

const raw = (sql: string, args: unknown[] = []) => ({ sql, args, argTypes: [] });

describe('statementsOfScript', () => {
  it('splits on semicolons outside strings, quoted names and comments on SQLite', () => {
    const script = `CREATE TABLE "a;b" (x TEXT DEFAULT 'x;y'); -- a comment; still a comment
      /* block; comment */ INSERT INTO [c;d] VALUES (1);
      ;  -- only a comment here;
    `;
    expect(statementsOfScript('sqlite', script)).toEqual([
      `CREATE TABLE "a;b" (x TEXT DEFAULT 'x;y')`,
      `-- a comment; still a comment\n      /* block; comment */ INSERT INTO [c;d] VALUES (1)`,
    ]);
  });

  it('splits on every semicolon on PostgreSQL, as adapter-pg does', () => {
    expect(statementsOfScript('postgresql', `SELECT 'a;b'; ; SELECT 2;`)).toEqual([`SELECT 'a`, `b'`, 'SELECT 2']);
  });
});

describe('statementsOfRawQuery', () => {
  it('counts a query with arguments as one statement', () => {
    expect(statementsOfRawQuery('sqlite', raw('SELECT ?; SELECT ?', [1, 2]))).toEqual(['SELECT ?; SELECT ?']);
  });

  it('splits an argument-less text with several statements', () => {
    expect(statementsOfRawQuery('sqlite', raw('DELETE FROM a; DELETE FROM b'))).toEqual(['DELETE FROM a', 'DELETE FROM b']);
  });

  it('keeps dollar-quoted bodies whole on PostgreSQL only', () => {
    const sql = `CREATE FUNCTION f() RETURNS int AS $body$ SELECT 1; $body$ LANGUAGE sql; SELECT $$;$$`;
    expect(statementsOfRawQuery('postgresql', raw(sql))).toEqual([
      'CREATE FUNCTION f() RETURNS int AS $body$ SELECT 1; $body$ LANGUAGE sql',
      'SELECT $$;$$',
    ]);
    expect(statementsOfRawQuery('postgresql', raw('SELECT $1; SELECT $2'))).toEqual(['SELECT $1', 'SELECT $2']);
  });

  it('returns the text as sent when it is one statement', () => {
    expect(statementsOfRawQuery('postgresql', raw('SELECT 1;'))).toEqual(['SELECT 1;']);
  });
});

describe('statementsOfStartTransaction', () => {
  it('adds the isolation level statement on PostgreSQL only', () => {
    expect(statementsOfStartTransaction('postgresql', 'SERIALIZABLE')).toEqual(['BEGIN', 'SET TRANSACTION ISOLATION LEVEL SERIALIZABLE']);
    expect(statementsOfStartTransaction('sqlite', 'SERIALIZABLE')).toEqual(['BEGIN']);
    expect(statementsOfStartTransaction('postgresql')).toEqual(['BEGIN']);
  });
});

describe('writtenTable', () => {
  it.each([
    ['INSERT INTO `main`.`Site` (`id`) VALUES (?)', 'Site'],
    ['UPDATE `main`.`Space` SET `title` = ? WHERE `id` = ?', 'Space'],
    ['DELETE FROM `main`.`Page` WHERE `id` IN (?, ?)', 'Page'],
    ['INSERT INTO "public"."Site" ("id") VALUES ($1)', 'Site'],
    ['  update "Revision" set "x" = 1', 'Revision'],
    ['INSERT OR IGNORE INTO PageSearch (rowid) VALUES (1)', 'PageSearch'],
    ['UPDATE OR REPLACE "Job" SET state = 1', 'Job'],
  ])('%s writes %s', (sql, table) => {
    expect(writtenTable(sql)).toBe(table);
  });

  it.each(['SELECT * FROM "Site"', 'BEGIN', 'COMMIT', 'WITH x AS (SELECT 1) SELECT * FROM x', 'SAVEPOINT s1'])('%s writes nothing', (sql) => {
    expect(writtenTable(sql)).toBeNull();
  });
});

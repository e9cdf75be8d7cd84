/**
 * What each adapter call sends to the server, for client.ts's statement
 * counting. Checked against @prisma/adapter-pg and @prisma/adapter-better-sqlite3
 * 7.10.0; both are pinned, and test/db/migrate.test.ts counts statements.
 */
import type { IsolationLevel, SqlQuery } from '@prisma/driver-adapter-utils';
import type { Provider } from './config.ts';

/**
 * startTransaction runs its own statements, outside queryRaw/executeRaw:
 * `BEGIN`, and on PostgreSQL `SET TRANSACTION ISOLATION LEVEL ...` when a level
 * is given (better-sqlite3 only accepts SERIALIZABLE, which is what BEGIN gives).
 */
export function statementsOfStartTransaction(provider: Provider, isolationLevel?: IsolationLevel): string[] {
  return provider === 'postgresql' && isolationLevel
    ? ['BEGIN', `SET TRANSACTION ISOLATION LEVEL ${isolationLevel}`]
    : ['BEGIN'];
}

/**
 * executeScript: adapter-pg splits the script on every ';' (naively, even inside
 * strings) and sends each non-empty piece as its own query; better-sqlite3's
 * exec() runs each statement of the script.
 */
export function statementsOfScript(provider: Provider, script: string): string[] {
  if (provider === 'postgresql') {
    return script.split(';').map((s) => s.trim()).filter((s) => s.length > 0);
  }
  return splitSql(script, false);
}

/**
 * queryRaw/executeRaw: one statement when there are arguments (both drivers
 * prepare it, which refuses more than one). Without arguments, node-postgres
 * uses the simple query protocol, which runs every statement of the text, and
 * our SQLite executeRaw fix (trap 3) runs a multi-statement text with exec().
 */
export function statementsOfRawQuery(provider: Provider, query: SqlQuery): string[] {
  if (query.args.length > 0) return [query.sql];
  const statements = splitSql(query.sql, provider === 'postgresql');
  return statements.length > 1 ? statements : [query.sql];
}

/** `$$` or `$tag$` opening a PostgreSQL dollar-quoted string (a tag is an identifier, so not `$1`). */
const DOLLAR_TAG = /^\$(?:[A-Za-z_][A-Za-z0-9_]*)?\$/;

/**
 * Splits SQL text into statements on ';' outside string literals, quoted
 * identifiers, comments and (PostgreSQL) dollar quotes; drops pieces that hold
 * only whitespace or comments, which neither database runs. Not handled: the
 * ';' inside a SQLite CREATE TRIGGER body (BEGIN ... END), which we never send.
 */
function splitSql(text: string, dollarQuotes: boolean): string[] {
  const statements: string[] = [];
  let start = 0;
  let hasCode = false; // the current piece holds more than comments/whitespace
  const push = (end: number) => {
    if (hasCode) statements.push(text.slice(start, end).trim());
    start = end + 1;
    hasCode = false;
  };
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (ch === '-' && text[i + 1] === '-') {
      const end = text.indexOf('\n', i);
      i = end === -1 ? text.length : end;
    } else if (ch === '/' && text[i + 1] === '*') {
      const end = text.indexOf('*/', i + 2);
      i = end === -1 ? text.length : end + 1;
    } else if (ch === "'" || ch === '"' || ch === '`' || (ch === '[' && !dollarQuotes)) {
      // A doubled quote (an escaped one) just closes and reopens: same result.
      const close = ch === '[' ? ']' : ch;
      const end = text.indexOf(close, i + 1);
      i = end === -1 ? text.length : end;
      hasCode = true;
    } else if (ch === '$' && dollarQuotes && DOLLAR_TAG.test(text.slice(i, i + 65))) {
      const tag = DOLLAR_TAG.exec(text.slice(i, i + 65))![0];
      const end = text.indexOf(tag, i + tag.length);
      i = end === -1 ? text.length : end + tag.length - 1;
      hasCode = true;
    } else if (ch === ';') {
      push(i);
    } else if (!/\s/.test(ch)) {
      hasCode = true;
    }
  }
  push(text.length);
  return statements;
}

/**
 * Whether a statement only reads, so that sending it twice is the same as
 * once: a SELECT, or a WITH ... SELECT, that names no INSERT, UPDATE or DELETE
 * anywhere (so no write in a WITH clause and no SELECT ... FOR UPDATE either:
 * when in doubt, not read-only).
 */
export function isReadOnlyStatement(sql: string): boolean {
  return /^\s*(?:SELECT|WITH)\b/i.test(sql) && !/\b(?:INSERT|UPDATE|DELETE|MERGE)\b/i.test(sql);
}

/**
 * The table an INSERT, UPDATE or DELETE writes, or null for any other statement: Prisma's
 * (`main`.`Site` on SQLite, "schema"."Site" on PostgreSQL) and our raw ones ("Site").
 * A write behind a WITH clause is not recognised: neither Prisma nor this app sends one.
 */
export function writtenTable(sql: string): string | null {
  const match = WRITE_STATEMENT.exec(sql);
  return match ? match[1]! : null;
}

const QUOTED = '[`"]?([A-Za-z_][A-Za-z0-9_]*)[`"]?';
const WRITE_STATEMENT = new RegExp(
  `^\\s*(?:INSERT\\s+(?:OR\\s+\\w+\\s+)?INTO|UPDATE(?:\\s+OR\\s+\\w+)?|DELETE\\s+FROM)\\s+(?:[\`"]?[A-Za-z_][A-Za-z0-9_]*[\`"]?\\.)?${QUOTED}`,
  'i',
);

/**
 * The statement that reads the row `id` (the first parameter) of `table` and locks it until the
 * transaction ends, so that concurrent transactions moving the same row queue instead of
 * failing their compare-and-set: PostgreSQL's SELECT ... FOR UPDATE. Null on SQLite, which has
 * one writer at a time (a transaction holds the app's one connection), so nothing can move the
 * row between a read and a write of the same transaction.
 */
export function lockRowStatement(provider: Provider, table: string, column: string): string | null {
  return provider === 'postgresql' ? `SELECT "${column}" FROM "${table}" WHERE "id" = $1 FOR UPDATE` : null;
}

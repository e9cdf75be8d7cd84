/**
 * What the schema engine's migration SQL lacks, added by `npm run migration:create`
 * (scripts/migration-create.ts) before the SQL is written:
 *
 * - the CHECK constraints of the value-set columns (src/db/value-sets.ts), which
 *   Prisma does not model: every CREATE TABLE of a table holding such columns gets
 *   them, which covers new tables and SQLite's table redefinitions (a redefinition
 *   copies the table into a new one made from the datamodel, so without this a later
 *   migration of the table would silently drop its checks);
 * - on SQLite, quotes around the default of a Json column: the engine (7.10) writes
 *   `DEFAULT {"type":"none"}`, which SQLite cannot parse.
 *
 * A change of a value set, or a value-set column added to an existing table, still
 * needs its constraint written by hand; test/db/value-sets.test.ts tells.
 */
import type { Provider } from './provider/config.ts';
import { VALUE_SET_COLUMNS, valueSetCheckSql } from './value-sets.ts';

/** `CREATE TABLE "<name>" (` ... `\n);`, the engine's layout of a table definition. */
const CREATE_TABLE = /CREATE TABLE "([^"]+)" \(\n([\s\S]*?)\n\);/g;

/** A Json column definition of SQLite with an unquoted default: `"col" JSONB NOT NULL DEFAULT {...}` up to the end of its line. */
const SQLITE_BARE_JSON_DEFAULT = /^(\s+"[^"]+" JSONB(?: NOT NULL)? DEFAULT )([^'\n].*?)(,?)$/gm;

/** The engine's SQL for a migration, completed as described above. */
export function completeMigrationSql(provider: Provider, sql: string): string {
  const quoted = provider === 'sqlite' ? sql.replace(SQLITE_BARE_JSON_DEFAULT, (_m, head: string, value: string, comma: string) => `${head}${sqlString(value)}${comma}`) : sql;
  return quoted.replace(CREATE_TABLE, (statement, name: string, body: string) => {
    const checks = valueSetChecksOf(name.replace(/^new_/, ''), body);
    return checks.length === 0 ? statement : `CREATE TABLE "${name}" (\n${body.replace(/\s+$/, '')},\n${checks.map((c) => `    ${c}`).join(',\n')}\n);`;
  });
}

/** The CHECK constraints of the value-set columns of `table` that a CREATE TABLE body defines. */
function valueSetChecksOf(table: string, body: string): string[] {
  const columns: Record<string, readonly string[]> = (VALUE_SET_COLUMNS as Record<string, Record<string, readonly string[]>>)[table] ?? {};
  return Object.entries(columns)
    .filter(([column]) => new RegExp(`^\\s+"${column}" `, 'm').test(body))
    .map(([column, values]) => valueSetCheckSql(table, column, values));
}

function sqlString(text: string): string {
  return `'${text.replace(/'/g, "''")}'`;
}

/**
 * Named prepared statements on PostgreSQL. node-postgres sends an unnamed statement by default,
 * which PostgreSQL parses and plans again at every execution; a named one is parsed once per
 * connection and its plan kept (PostgreSQL's plan cache decides between custom and generic plans).
 * The app sends the same few hundred statement texts over and over, and for the larger ones
 * (the content facts of a space: a recursive query and five unions) the planning was most of
 * the statement's cost: GET /v1/spaces/{spaceId} p50 4.9 -> 3.6 ms (docs/decisions.md,
 * "Prepared statements on PostgreSQL").
 *
 * Each connection keeps what it prepared until it closes, on the server and in node-postgres, so
 * what is named is bounded: statements of 1 to MAX_PARAMETERS parameters (a long `IN` list
 * makes a text of its own per length), and the first MAX_NAMED_STATEMENTS distinct texts of the
 * process; anything else goes unnamed, as before. The name is a digest of the text, so the same
 * text has the same name on every connection and two texts never share one.
 */
import { createHash } from 'node:crypto';

/** Statements with more parameters than this are not named (each `IN` list length is another text). */
export const MAX_PARAMETERS = 100;
/** Distinct statement texts named per process, at most (each connection prepares those it runs). */
export const MAX_NAMED_STATEMENTS = 1_000;

/**
 * The name of each statement the PostgreSQL adapter sends (PrismaPg's `statementNameGenerator`),
 * or undefined for one sent unnamed.
 */
export function preparedStatementNames(limits = { parameters: MAX_PARAMETERS, statements: MAX_NAMED_STATEMENTS }): (query: { sql: string; args: readonly unknown[] }) => string | undefined {
  const names = new Map<string, string>();
  return ({ sql, args }) => {
    // Without parameters node-postgres sends the text as a simple query, which may hold several
    // commands (raw scripts) and carries transaction control: a name would make it a prepared one.
    if (args.length === 0 || args.length > limits.parameters) return undefined;
    let name = names.get(sql);
    if (name === undefined) {
      if (names.size >= limits.statements) return undefined;
      // 41 characters: within PostgreSQL's 63 for an identifier.
      name = `s${createHash('sha1').update(sql).digest('hex')}`;
      names.set(sql, name);
    }
    return name;
  };
}

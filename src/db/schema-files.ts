/**
 * The two Prisma schema texts. prisma/schema.prisma (SQLite) is the source;
 * the PostgreSQL one is derived from it so the models can never drift apart.
 * A field line ending in `// postgresql: <attributes>` (native types such as
 * `@db.Json`, which the SQLite connector refuses) gets them on PostgreSQL.
 */
export function derivePostgresSchema(sqliteSchema: string): string {
  const header =
    '// GENERATED from prisma/schema.prisma by scripts/prisma-generate.ts. Do not edit.\n';
  return (
    header +
    sqliteSchema
      // The Pothos type generator runs once, on the SQLite schema: the types are the same.
      .replace(/generator pothos \{[^}]*\}\n/s, '')
      .replace('output   = "../src/db/generated/sqlite"', 'output   = "../../src/db/generated/postgresql"')
      .replace('provider = "sqlite"', 'provider = "postgresql"')
      .replace(/ *\/\/ postgresql: (@.+)$/gm, ' $1')
  );
}

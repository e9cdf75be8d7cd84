import { type Provider } from '../db/provider/config.ts';
/**
 * The tables of the search index (see search-index.ts) and the DDL that
 * creates them. Apart from search-index.ts, so that migrate() can create them
 * without loading the content code.
 */

/** Tables this module creates, for tools that compare the database with prisma/schema.prisma. */
export const SEARCH_INDEX_TABLES: Record<Provider, readonly string[]> = {
  sqlite: [
    'search_section',
    'search_section_fts',
    'search_section_fts_data',
    'search_section_fts_idx',
    'search_section_fts_docsize',
    'search_section_fts_config',
  ],
  postgresql: ['search_section'],
};

/** PostgreSQL advisory lock namespace (first key of the two-key form) of the search index. */
export const PG_LOCK_NAMESPACE = 0x5ea7c4;

/** What creating the index needs: a Db, a Tx, or a bare connection wrapped to look like one (migrate()). */
export interface SqlExecutor {
  $executeRawUnsafe(sql: string): PromiseLike<number>;
}

// ---------------------------------------------------------------------------
// DDL

const SQLITE_DDL = [
  `CREATE TABLE IF NOT EXISTS search_section (
    id INTEGER PRIMARY KEY,
    space_id TEXT NOT NULL,
    page_id TEXT NOT NULL,
    position INTEGER NOT NULL,
    section_id TEXT NOT NULL,
    page_path TEXT NOT NULL,
    page_title TEXT NOT NULL,
    hidden INTEGER NOT NULL,
    section_title TEXT NOT NULL,
    body TEXT NOT NULL,
    UNIQUE (space_id, page_id, position)
  )`,
  `CREATE VIRTUAL TABLE IF NOT EXISTS search_section_fts USING fts5(
    space_id UNINDEXED, page_id UNINDEXED, section_id UNINDEXED,
    page_title, section_title, body,
    content='search_section', content_rowid='id',
    tokenize='porter unicode61 remove_diacritics 2'
  )`,
];

/**
 * One statement, so it runs in one implicit transaction, under an advisory
 * lock: two servers starting at once would otherwise race on CREATE TABLE IF
 * NOT EXISTS (which is not atomic) and one would fail.
 *
 * to_tsvector needs its configuration as a regconfig constant to be
 * immutable, which a generated column requires.
 */
const POSTGRES_DDL = `DO $ddl$
BEGIN
  PERFORM pg_advisory_xact_lock(${PG_LOCK_NAMESPACE}, 0);
  CREATE TABLE IF NOT EXISTS search_section (
    space_id text NOT NULL,
    page_id text NOT NULL,
    position integer NOT NULL,
    section_id text NOT NULL,
    page_path text NOT NULL,
    page_title text NOT NULL,
    hidden boolean NOT NULL,
    section_title text NOT NULL,
    body text NOT NULL,
    search_vector tsvector GENERATED ALWAYS AS (
      setweight(to_tsvector('english'::regconfig, page_title), 'A') ||
      setweight(to_tsvector('english'::regconfig, section_title), 'B') ||
      setweight(to_tsvector('english'::regconfig, body), 'C')
    ) STORED,
    PRIMARY KEY (space_id, page_id, position)
  );
  CREATE INDEX IF NOT EXISTS search_section_vector_idx ON search_section USING gin (search_vector);
END
$ddl$`;

/**
 * Creates the search index if it is missing; cheap and idempotent (SQLite: two
 * statements, PostgreSQL: one), so migrate() runs it at every start. A change
 * to the definition needs a new table name or an explicit upgrade here: IF NOT
 * EXISTS leaves an older definition as it is.
 */
export async function ensureSearchIndex(db: SqlExecutor, provider: Provider): Promise<void> {
  if (provider === 'sqlite') {
    for (const statement of SQLITE_DDL) await db.$executeRawUnsafe(statement);
  } else {
    await db.$executeRawUnsafe(POSTGRES_DDL);
  }
}


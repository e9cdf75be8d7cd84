/**
 * The full-text search index of space content: one row per section of every
 * document page of a space's current revision, kept current at write time
 * (whoever moves `Space.revisionId` calls reindexSpace in the same
 * transaction) and queried by searchSpace.
 *
 * The index is not a Prisma model (Prisma cannot describe FTS5 or a generated
 * tsvector): its tables are created by a hand-written migration of each
 * database (prisma/migrations/<provider>/<timestamp>_search_index), and all of
 * its provider-specific SQL lives in this file:
 *
 * - SQLite: `search_section`, a plain table holding the rows (and the
 *   (space_id, page_id, position) key that deletes find them by), and
 *   `search_section_fts`, an FTS5 index over it (external content, so the
 *   text is stored once; FTS5 adds its own search_section_fts_* tables).
 *   FTS5 cannot find rows by an UNINDEXED column without scanning all of them,
 *   hence the plain table. Rows change only here, by the FTS5 'delete' command
 *   and a matching insert, which keeps the two in step.
 * - PostgreSQL: `search_section` with a stored generated tsvector (page title
 *   weight A, section title B, body C, stemmed with the row's `config`: its space's
 *   language, searchConfigOf), a GIN
 *   index on it, and the primary key (space_id, page_id, position) as the btree
 *   deletes and the space filter use.
 *
 * `search_index_state` (one row) records the version of the rules that wrote the rows
 * (SEARCH_INDEX_VERSION): a server that finds an older one rewrites every space's rows before
 * it listens (upgradeSearchIndex).
 *
 * See docs/decisions.md, "Search", for what is indexed and why.
 */
import { type JSONDocument } from '../content/document/model.ts';
import { documentSections } from '../content/document/text.ts';
import { pagePaths } from '../content/page-tree.ts';
import { loadSnapshot, storedDocument } from '../content/revision-store.ts';
import type { PageSnapshot, RevisionSnapshot } from '../content/snapshot.ts';
import type { Db, Tx } from '../db/client.ts';
import type { Provider } from '../db/provider/config.ts';
import { InvalidInputError } from '../errors/index.ts';
import { ftsMatchExpression, tsqueryText } from './query.ts';

/** PostgreSQL advisory lock namespace (first key of the two-key form) of the search index. */
const PG_LOCK_NAMESPACE = 0x5ea7c4;

/**
 * Section bodies are indexed up to this many characters (longer text is cut):
 * it keeps a tsvector well below PostgreSQL's 1 MB limit, and a section that
 * long is a data dump rather than prose.
 */
export const MAX_INDEXED_BODY_CHARS = 100_000;
/** At most this many matching sections are returned per page, best first. */
export const MAX_SECTIONS_PER_PAGE = 5;
/** Largest `limit` of searchSpace (the API's largest page size). */
export const MAX_SEARCH_LIMIT = 1000;

/** Column weights: a word in the page title counts 10 times one in the body, in a section title 5 times (FTS5 bm25). */
const FTS_WEIGHTS = { pageTitle: 10, sectionTitle: 5, body: 1 };
/**
 * ts_rank_cd weights {D, C, B, A} in the same ratios (PostgreSQL): body (C) 0.1, section title (B) 0.5,
 * page title (A) 1. ts_rank_cd adds up every occurrence (bm25 saturates), so with the default
 * {0.1, 0.2, 0.4, 1.0} a section mentioning a word in its heading and thrice in its text
 * outranked a page titled with it.
 */
const TS_WEIGHTS = '{0.05, 0.1, 0.5, 1.0}';
/** Words around the match in a snippet. */
const SNIPPET_WORDS = 24;
/** Marks around matched words in snippets; used to tell which sections match on their own, then removed. */
const MARK_START = '\u0002';
const MARK_END = '\u0003';
const ELLIPSIS = '…';

/**
 * SQLite: every matching section with its score (bm25, negated so that higher is better). FTS5
 * must stay the outer loop (CROSS JOIN): otherwise SQLite may walk the rows and run the full-text
 * query once for each. Bound: the MATCH expression, then what the caller's WHERE adds.
 */
const SQLITE_SCORED_SECTIONS = `-bm25(search_section_fts, 0, 0, 0, ${FTS_WEIGHTS.pageTitle}, ${FTS_WEIGHTS.sectionTitle}, ${FTS_WEIGHTS.body}) AS score
       FROM search_section_fts CROSS JOIN search_section s ON s.id = search_section_fts.rowid
       WHERE search_section_fts MATCH ?`;

/**
 * PostgreSQL: the tsquery of $1 (plainto_tsquery, no operators), its last lexeme made a prefix by
 * editing the printed tsquery (`'a' & 'b'` -> `'a' & 'b':*`) and reading it back, which does not
 * normalize again; a query of stop words only is an empty tsquery, made NULL so that it matches nothing.
 * `config` is the SQL of the text search configuration to parse it with.
 */
const pgQuery = (config: string) => `nullif(regexp_replace(plainto_tsquery(${config}, $1)::text, '''$', ''':*'), '')::tsquery`;

/**
 * PostgreSQL text search configurations by content language: the language's own where every
 * supported PostgreSQL ships one (Snowball stemmers and stop words since 9.x); other languages get
 * `simple` (lowercased words, no stemming, no stop words), and a space without a language
 * `english`, as before languages counted.
 */
const PG_CONFIGS: Readonly<Record<string, string>> = {
  en: 'english', fr: 'french', de: 'german', es: 'spanish', it: 'italian', pt: 'portuguese', 'pt-br': 'portuguese', nl: 'dutch',
  ru: 'russian', tr: 'turkish', sv: 'swedish', no: 'norwegian', da: 'danish', fi: 'finnish', hu: 'hungarian', ro: 'romanian',
};
const PG_DEFAULT_CONFIG = 'english';
const PG_FALLBACK_CONFIG = 'simple';

/** The PostgreSQL text search configuration of a space's rows, from its language. */
export function searchConfigOf(language: string | null): string {
  return language === null ? PG_DEFAULT_CONFIG : (PG_CONFIGS[language] ?? PG_FALLBACK_CONFIG);
}

/** searchConfigOf in SQL, of the language column `column` (constants of this file only, never input). */
const searchConfigSql = (column: string) =>
  `(CASE ${Object.entries(PG_CONFIGS)
    .map(([language, config]) => `WHEN ${column} = '${language}' THEN '${config}'`)
    .join(' ')} WHEN ${column} IS NULL THEN '${PG_DEFAULT_CONFIG}' ELSE '${PG_FALLBACK_CONFIG}' END)::regconfig`;
/** PostgreSQL: a section's score for the query `q.query` (ts_rank_cd). */
const PG_SCORE = `ts_rank_cd('${TS_WEIGHTS}', s.search_vector, q.query, 1) AS score`;

/**
 * Both databases: from the CTE `hits` (a row per matching section: page_id, page_path, position,
 * score and `key`), `pages`, the result page of pages (a page scores its best section's score;
 * ties by path, then id; `limit` and `offset` are the placeholders to bind), and `ranked`, their
 * sections with their scores, numbered best first (`n`).
 */
function rankedSections(key: 'id' | 'position', limit: string, offset: string): string {
  return `pages AS (
       SELECT page_id, max(score) AS best, min(page_path) AS page_path FROM hits
       GROUP BY page_id ORDER BY best DESC, page_path, page_id LIMIT ${limit} OFFSET ${offset}
     ),
     ranked AS (
       SELECT h.${key}, h.page_id, p.best, p.page_path,
              h.score, row_number() OVER (PARTITION BY h.page_id ORDER BY h.score DESC, h.position) AS n
       FROM hits h JOIN pages p ON p.page_id = h.page_id
     )`;
}

/**
 * The version of what the rows hold, raised whenever indexing changes what a page's rows say:
 * 1, page titles and document sections; 2, page descriptions too (in the opening section); 3, on
 * PostgreSQL, each space's rows stemmed with its language (`config`).
 */
export const SEARCH_INDEX_VERSION = 3;

/** Rows per INSERT, ids per IN list: far below both databases' bind-variable limits (SQLite 32,766, PostgreSQL 65,535). */
const ROWS_PER_INSERT = 500;
const IDS_PER_STATEMENT = 500;

// ---------------------------------------------------------------------------
// Writing

export interface ReindexSpaceInput {
  spaceId: string;
  /** The content the index holds for the space now; null when unknown (the space's rows are all rewritten). */
  previous: RevisionSnapshot | null;
  /** The space's new current content; `documents` holds at least the documents whose hash changed. */
  current: RevisionSnapshot;
}

/** One row of the index: a section of a page. */
interface SectionRow {
  pageId: string;
  position: number;
  sectionId: string;
  pagePath: string;
  pageTitle: string;
  hidden: boolean;
  sectionTitle: string;
  body: string;
}

/**
 * Only document pages have text to search; groups and links are not results of their own, nor are
 * pages set to stay out of search and ask (`noIndex`).
 */
function isIndexed(page: PageSnapshot | undefined): page is PageSnapshot {
  return page?.kind === 'document' && !page.noIndex;
}

/** A client rather than a transaction: a Tx has `$transaction` too (nested transactions), but not `$connect`. */
const isClient = (db: Db | Tx): db is Db => '$connect' in db;

/**
 * Makes the index match `current` for the space: rewrites the rows of the
 * pages whose title, description, path, hidden flag, kind or document changed since
 * `previous`, deletes those of removed pages, and leaves the rest alone. With a
 * Db it runs in a transaction of its own; with a Tx, in the caller's (so the
 * index changes exactly when the revision does). Returns how many pages it
 * wrote and removed.
 */
export async function reindexSpace(
  db: Db | Tx,
  provider: Provider,
  input: ReindexSpaceInput,
): Promise<{ indexed: number; removed: number }> {
  if (isClient(db)) return db.$transaction((tx) => reindexSpace(tx, provider, input));
  const { spaceId, previous, current } = input;
  const changed = changedPages(previous, current);
  const removed = previous ? [...previous.pages.values()].filter((p) => isIndexed(p) && !isIndexed(current.pages.get(p.id))) : [];
  if (previous && changed.length === 0 && removed.length === 0) return { indexed: 0, removed: 0 };

  const rows = await sectionRows(db, current, changed);
  // Two writers of one space would otherwise both delete a page's old rows, then both insert new ones.
  const config = await lockSpace(db, provider, spaceId);
  if (previous) {
    await deleteRows(db, provider, spaceId, [...removed, ...changed].map((p) => p.id));
  } else {
    await deleteRows(db, provider, spaceId, null);
  }
  await insertRows(db, provider, spaceId, rows, config);
  return { indexed: changed.length, removed: removed.length };
}

/**
 * Rewrites every space's rows when they were written by older rules than SEARCH_INDEX_VERSION,
 * one transaction per space (a space's rows always match one revision), then records the version.
 * Interrupted, the next start does it again; a write meanwhile reindexes its space as always.
 */
export async function upgradeSearchIndex(db: Db, provider: Provider, log?: (message: string, spaces: number) => void): Promise<{ from: number; spaces: number }> {
  const [state] = await db.$queryRawUnsafe<Array<{ version: number | bigint }>>('SELECT version FROM search_index_state WHERE id = 1');
  const from = Number(state?.version ?? 0);
  if (from >= SEARCH_INDEX_VERSION) return { from, spaces: 0 };
  const spaces = await db.space.findMany({ select: { id: true }, orderBy: { id: 'asc' } });
  // A new database has nothing to rewrite, and nothing to say.
  if (spaces.length) log?.(`search index: rewriting the rows of every space (version ${from} to ${SEARCH_INDEX_VERSION})`, spaces.length);
  for (const { id } of spaces) {
    await db.$transaction(async (tx) => {
      // Before the space's revision is read: a writer moving it waits, and reindexes after this.
      await lockSpace(tx, provider, id);
      const space = await tx.space.findUnique({ where: { id }, select: { revisionId: true } });
      if (!space) return;
      const current = await loadSnapshot(tx, space.revisionId, { documents: true });
      await reindexSpace(tx, provider, { spaceId: id, previous: null, current });
    });
  }
  await db.$executeRawUnsafe(`UPDATE search_index_state SET version = ${placeholders(provider, 1, 1)} WHERE id = 1`, SEARCH_INDEX_VERSION);
  return { from, spaces: spaces.length };
}

/**
 * PostgreSQL: the transaction holds the space's index until it ends (two writers would interleave
 * their deletes and inserts), and the configuration its rows are stemmed with is read in the same
 * statement. SQLite: nothing to lock (one writer), one stemmer (null).
 */
async function lockSpace(tx: Tx, provider: Provider, spaceId: string): Promise<string | null> {
  if (provider !== 'postgresql') return null;
  const [row] = await tx.$queryRawUnsafe<Array<{ language: string | null }>>(
    `SELECT (SELECT "language" FROM "Space" WHERE "id" = $1) AS language FROM (SELECT pg_advisory_xact_lock(${PG_LOCK_NAMESPACE}, hashtext($1))) AS locked`,
    spaceId,
  );
  return searchConfigOf(row?.language ?? null);
}

/**
 * A space's language changed: PostgreSQL stems its rows again with the new language's
 * configuration (the tsvector is generated from `config`), in the caller's transaction.
 */
export async function setSearchLanguage(tx: Tx, provider: Provider, spaceId: string, language: string | null): Promise<void> {
  if (provider !== 'postgresql') return;
  await tx.$executeRawUnsafe(`UPDATE search_section SET config = $2::regconfig WHERE space_id = $1`, spaceId, searchConfigOf(language));
}

/** Removes a space from the index (the space is gone for good). */
export async function deleteSpaceIndex(db: Db | Tx, provider: Provider, spaceId: string): Promise<void> {
  if (isClient(db)) return db.$transaction((tx) => deleteSpaceIndex(tx, provider, spaceId));
  await deleteRows(db, provider, spaceId, null);
}

/** The document pages of `current` whose rows must be (re)written. */
function changedPages(previous: RevisionSnapshot | null, current: RevisionSnapshot): PageSnapshot[] {
  const pages = [...current.pages.values()].filter(isIndexed);
  if (!previous) return pages;
  // A page's path changes only when a page on its way up changed its slug or parent, or went
  // away: without such a change (an edit of text or titles) no path is computed. Pages read from
  // one stored chunk are one object in both (src/content/revision-store.ts), and unchanged.
  const treeChanged = [...previous.pages.values()].some((before) => {
    const now = current.pages.get(before.id);
    return !now || (now !== before && (now.slug !== before.slug || now.parentId !== before.parentId));
  });
  const pathsBefore = treeChanged ? pagePaths(previous.pages) : null;
  const pathsNow = treeChanged ? pagePaths(current.pages) : null;
  const pathChanged = (page: PageSnapshot) => pathsBefore !== null && pathsBefore.get(page.id) !== pathsNow!.get(page.id);
  return pages.filter((page) => {
    const before = previous.pages.get(page.id);
    if (before === page) return pathChanged(page);
    return (
      !isIndexed(before) ||
      before.title !== page.title ||
      before.description !== page.description ||
      before.hidden !== page.hidden ||
      before.documentHash !== page.documentHash ||
      pathChanged(page)
    );
  });
}

/** The rows of `pages`: one per section, at least one per page (its title is searchable even when it has no text). */
async function sectionRows(db: Tx, current: RevisionSnapshot, pages: PageSnapshot[]): Promise<SectionRow[]> {
  const documents = await documentsOf(db, current, pages);
  const paths = pagePaths(current.pages, pages);
  const rows: SectionRow[] = [];
  for (const page of pages) {
    const document = page.documentHash ? documents.get(page.documentHash) : undefined;
    const sections = document ? [...documentSections(document)] : [];
    // The description is searched as the page's opening text (before its first heading), and shown in its snippet.
    const description = page.description?.trim();
    if (description && sections[0]?.id === '') sections[0] = { ...sections[0], body: `${description}\n\n${sections[0].body}` };
    else if (description) sections.unshift({ id: '', title: '', body: description });
    if (sections.length === 0) sections.push({ id: '', title: '', body: '' });
    sections.forEach((section, position) => {
      rows.push({
        pageId: page.id,
        position,
        sectionId: section.id,
        pagePath: paths.get(page.id) ?? page.slug,
        pageTitle: page.title.normalize('NFC'),
        hidden: page.hidden,
        sectionTitle: section.title.normalize('NFC'),
        body: section.body.normalize('NFC').slice(0, MAX_INDEXED_BODY_CHARS),
      });
    });
  }
  return rows;
}

/** The documents of `pages`: from the snapshot, or (those it lacks) from ContentDocument. */
async function documentsOf(db: Tx, current: RevisionSnapshot, pages: PageSnapshot[]): Promise<Map<string, JSONDocument>> {
  const documents = new Map(current.documents);
  const missing = [...new Set(pages.map((p) => p.documentHash).filter((h): h is string => h !== null && !documents.has(h)))];
  for (let i = 0; i < missing.length; i += IDS_PER_STATEMENT) {
    const found = await db.contentDocument.findMany({ where: { hash: { in: missing.slice(i, i + IDS_PER_STATEMENT) } } });
    for (const row of found) documents.set(row.hash, storedDocument(row.json));
  }
  const lost = missing.filter((hash) => !documents.has(hash));
  if (lost.length > 0) throw new Error(`Search index: documents not found: ${lost.join(', ')}`);
  return documents;
}

/** `count` placeholders from number `from` (1-based), comma-separated. */
function placeholders(provider: Provider, count: number, from: number): string {
  return Array.from({ length: count }, (_, i) => (provider === 'postgresql' ? `$${from + i}` : '?')).join(', ');
}

/** Deletes the rows of `pageIds` in the space, or all of the space's rows when null. */
async function deleteRows(db: Tx, provider: Provider, spaceId: string, pageIds: string[] | null): Promise<void> {
  const batches = pageIds === null ? [null] : chunks(pageIds, IDS_PER_STATEMENT);
  for (const ids of batches) {
    const where = `space_id = ${provider === 'postgresql' ? '$1' : '?'}${ids ? ` AND page_id IN (${placeholders(provider, ids.length, 2)})` : ''}`;
    const values = [spaceId, ...(ids ?? [])];
    if (provider === 'sqlite') {
      // External content: FTS5 removes a row from its index given the values it indexed.
      await db.$executeRawUnsafe(
        `INSERT INTO search_section_fts (search_section_fts, rowid, space_id, page_id, section_id, page_title, section_title, body)
         SELECT 'delete', id, space_id, page_id, section_id, page_title, section_title, body FROM search_section WHERE ${where}`,
        ...values,
      );
    }
    await db.$executeRawUnsafe(`DELETE FROM search_section WHERE ${where}`, ...values);
  }
}

/** Inserts `rows` of the space; `config`, PostgreSQL's text search configuration of the space (lockSpace). */
async function insertRows(db: Tx, provider: Provider, spaceId: string, rows: SectionRow[], config: string | null): Promise<void> {
  const columns = `space_id, page_id, position, section_id, page_path, page_title, hidden, section_title, body${config === null ? '' : ', config'}`;
  const width = config === null ? 9 : 10;
  for (const batch of chunks(rows, ROWS_PER_INSERT)) {
    const values = batch.flatMap((r) => [
      spaceId, r.pageId, r.position, r.sectionId, r.pagePath, r.pageTitle, provider === 'sqlite' ? Number(r.hidden) : r.hidden, r.sectionTitle, r.body,
      ...(config === null ? [] : [config]),
    ]);
    const tuples = batch
      .map((_, i) => `(${placeholders(provider, 9, i * width + 1)}${config === null ? '' : `, $${i * width + 10}::regconfig`})`)
      .join(', ');
    await db.$executeRawUnsafe(`INSERT INTO search_section (${columns}) VALUES ${tuples}`, ...values);
  }
  if (provider === 'sqlite') {
    // The rows of these pages were all deleted before, so every row of them is new to FTS5 too.
    const pageIds = [...new Set(rows.map((r) => r.pageId))];
    for (const ids of chunks(pageIds, IDS_PER_STATEMENT)) {
      await db.$executeRawUnsafe(
        `INSERT INTO search_section_fts (rowid, space_id, page_id, section_id, page_title, section_title, body)
         SELECT id, space_id, page_id, section_id, page_title, section_title, body FROM search_section
         WHERE space_id = ? AND page_id IN (${placeholders(provider, ids.length, 2)})`,
        spaceId,
        ...ids,
      );
    }
  }
}

function chunks<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

// ---------------------------------------------------------------------------
// Searching

export interface SearchSpaceInput {
  spaceId: string;
  /** Free text, as the user typed it (never query syntax). */
  query: string;
  /** Pages per result page, 1 to MAX_SEARCH_LIMIT. */
  limit: number;
  /** `next` of the previous result page. */
  after?: string | null;
  /** Whether pages hidden from the navigation are results too (default true: they are still accessible). */
  includeHidden?: boolean;
}

export interface SearchSectionHit {
  /** The heading's anchor; '' for the text before the first heading. */
  id: string;
  title: string;
  /** `<page path>#<section id>`, or the page path when the id is ''. */
  path: string;
  /** A short plain-text snippet of the section around the match. */
  body: string;
  /** The section's relevance (FTS5 bm25 negated / ts_rank_cd): higher is better, unbounded, never negative. */
  score: number;
}

export interface SearchPageHit {
  id: string;
  title: string;
  path: string;
  /** Sections whose own title or text matches, best first; empty when only the page title matched. */
  sections: SearchSectionHit[];
  /** The page's relevance: its best section's score (the page title counts in each section's). */
  score: number;
  /** One-based position in the ranked results, across result pages. */
  rank: number;
}

export interface SearchSpaceResult {
  items: SearchPageHit[];
  /** The cursor of the next result page, null on the last. */
  next: string | null;
}

/** A matching section of a result page, as both providers' queries return it. */
interface SectionMatch {
  page_id: string;
  page_path: string;
  page_title: string;
  section_id: string;
  /** The section title with matched words marked. */
  section_title: string;
  /** The snippet with matched words marked. */
  body: string;
  /** The section's score, and its page's (the best of its sections). */
  score: number;
  best: number;
}

/**
 * Pages of the space's current content matching `query`, most relevant first:
 * a page ranks by its best section (FTS5 bm25 / ts_rank_cd with the page
 * title weighing most), ties in page path order. Every word must appear in the
 * section or its page's title; the last word matches as a prefix.
 */
export async function searchSpace(db: Db | Tx, provider: Provider, input: SearchSpaceInput): Promise<SearchSpaceResult> {
  const { spaceId, query, limit } = input;
  const { offset } = resultCursor(limit, input.after);
  const includeHidden = input.includeHidden ?? true;
  const matches =
    provider === 'sqlite'
      ? await searchSqlite(db, spaceId, query, limit + 1, offset, includeHidden)
      : await searchPostgres(db, spaceId, query, limit + 1, offset, includeHidden);

  const items: SearchPageHit[] = [];
  const byPage = new Map<string, SearchPageHit>();
  for (const match of matches) {
    let page = byPage.get(match.page_id);
    if (!page) {
      // Ranked from the result page's place: the pages before it, then this one's order.
      page = { id: match.page_id, title: match.page_title, path: match.page_path, sections: [], score: nonNegative(match.best), rank: offset + items.length + 1 };
      byPage.set(match.page_id, page);
      items.push(page);
    }
    // A section matched through its page's title alone is not a hit of its own.
    if (!match.body.includes(MARK_START) && !match.section_title.includes(MARK_START)) continue;
    // The text before a page's first heading is a section without an id or title of its own: it
    // is the page's, as GitBook's results give it.
    page.sections.push({
      id: match.section_id || match.page_id,
      title: match.section_id ? unmark(match.section_title) : match.page_title,
      path: match.section_id ? `${match.page_path}#${match.section_id}` : match.page_path,
      body: unmark(match.body).replace(/\s+/gu, ' ').trim(),
      score: nonNegative(match.score),
    });
  }
  const more = items.length > limit;
  return { items: more ? items.slice(0, limit) : items, next: more ? encodeSearchCursor(offset + limit, offset + limit) : null };
}

export interface SearchOrganizationInput {
  organizationId: string;
  /** Free text, as the user typed it (never query syntax). */
  query: string;
  /** Spaces per result page, 1 to MAX_SEARCH_LIMIT. */
  limit: number;
  /** `next` of the previous result page. */
  after?: string | null;
  /** The best pages returned for each space. */
  pagesPerSpace: number;
  /** Only these spaces of the organization (a site's); every one when absent. */
  spaceIds?: readonly string[];
}

export interface SearchOrganizationResult {
  /**
   * Spaces with matching pages, most relevant first (a space ranks by its best section, its `score`);
   * their pages' `rank` orders every page of the result page by score (ties: the spaces' order, then
   * the pages'), after the pages of the result pages before it.
   */
  items: Array<{ spaceId: string; score: number; pages: SearchPageHit[] }>;
  next: string | null;
}

/**
 * The spaces of an organization (not in the bin) whose current content matches `query`, best
 * first, each with its best `pagesPerSpace` pages as `searchSpace` finds them: one statement ranks
 * the spaces, then each space of the result page is searched.
 */
export async function searchOrganization(db: Db | Tx, provider: Provider, input: SearchOrganizationInput): Promise<SearchOrganizationResult> {
  const { organizationId, query, limit, pagesPerSpace, spaceIds } = input;
  const { offset, ranked: before } = resultCursor(limit, input.after);
  if (spaceIds && spaceIds.length === 0) return { items: [], next: null };
  const ranked =
    provider === 'sqlite'
      ? await rankSpacesSqlite(db, organizationId, query, limit + 1, offset, spaceIds)
      : await rankSpacesPostgres(db, organizationId, query, limit + 1, offset, spaceIds);
  const more = ranked.length > limit;
  const items: SearchOrganizationResult['items'] = [];
  for (const { space_id: spaceId, score } of more ? ranked.slice(0, limit) : ranked) {
    items.push({ spaceId, score: nonNegative(score), pages: (await searchSpace(db, provider, { spaceId, query, limit: pagesPerSpace })).items });
  }
  // Array.prototype.sort is stable: equal scores keep the spaces' order, then the pages'.
  const pages = items.flatMap((item) => item.pages).sort((a, b) => b.score - a.score);
  pages.forEach((page, i) => (page.rank = before + i + 1));
  return { items, next: more ? encodeSearchCursor(offset + limit, before + pages.length) : null };
}

/** A space of an organization search and its score (its best section's). */
interface RankedSpace {
  space_id: string;
  score: number;
}

/** The organization's spaces by their best matching section (the scores of searchSqlite), ties by id. */
async function rankSpacesSqlite(db: Db | Tx, organizationId: string, query: string, count: number, offset: number, spaceIds?: readonly string[]): Promise<RankedSpace[]> {
  const match = ftsMatchExpression(query);
  if (match === null) return [];
  const only = spaceIds ? ` AND "id" IN (${spaceIds.map(() => '?').join(', ')})` : '';
  const rows = await db.$queryRawUnsafe<RankedSpace[]>(
    `WITH hits AS MATERIALIZED (
       SELECT s.space_id, ${SQLITE_SCORED_SECTIONS} AND s.space_id IN (SELECT "id" FROM "Space" WHERE "organizationId" = ? AND "deletedAt" IS NULL${only})
     )
     SELECT space_id, max(score) AS score FROM hits GROUP BY space_id ORDER BY score DESC, space_id LIMIT ? OFFSET ?`,
    match,
    organizationId,
    ...(spaceIds ?? []),
    count,
    offset,
  );
  return rows.map((r) => ({ space_id: r.space_id, score: Number(r.score) }));
}

/** The organization's spaces by their best matching section (the scores of searchPostgres), ties by id. */
async function rankSpacesPostgres(db: Db | Tx, organizationId: string, query: string, count: number, offset: number, spaceIds?: readonly string[]): Promise<RankedSpace[]> {
  const text = tsqueryText(query);
  if (text === null) return [];
  // $5: the spaces to search in (a site's), or NULL for every one.
  const spaces = (alias: string) => `${alias}"organizationId" = $2 AND ${alias}"deletedAt" IS NULL AND ($5::text[] IS NULL OR ${alias}"id" = ANY($5::text[]))`;
  const rows = await db.$queryRawUnsafe<RankedSpace[]>(
    // Parsed once per configuration the organization's spaces use: each is one more index lookup
    // (16 for every configuration made a 50,000-row search 5x slower; two cost 1.6x of one).
    `WITH q AS (
       SELECT c.config, ${pgQuery('c.config')} AS query
       FROM (SELECT DISTINCT ${searchConfigSql('sp."language"')} AS config FROM "Space" sp WHERE ${spaces('sp.')}) AS c
     ),
     hits AS MATERIALIZED (
       SELECT s.space_id, ${PG_SCORE}
       FROM search_section s JOIN q ON q.config = s.config
       WHERE s.space_id IN (SELECT "id" FROM "Space" WHERE ${spaces('')}) AND s.search_vector @@ q.query
     )
     SELECT space_id, max(score) AS score FROM hits GROUP BY space_id ORDER BY score DESC, space_id LIMIT $3 OFFSET $4`,
    text,
    organizationId,
    count,
    offset,
    spaceIds ? [...spaceIds] : null,
  );
  return rows.map((r) => ({ space_id: r.space_id, score: Number(r.score) }));
}

/**
 * A score as the API answers it: FTS5's bm25 is negative for every match (its idf is floored above
 * zero), so negated it is positive, and ts_rank_cd is never negative; a guard for float noise all the same.
 */
const nonNegative = (score: number | bigint) => Math.max(0, Number(score));

const unmark = (text: string) => text.replaceAll(MARK_START, '').replaceAll(MARK_END, '');

/**
 * Where a result page of `limit` items starts, from the cursor of the previous one, and how many
 * pages (of content) the result pages before it ranked; 400 on a bad limit or cursor.
 */
function resultCursor(limit: number, after: string | null | undefined): { offset: number; ranked: number } {
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_SEARCH_LIMIT) {
    throw new InvalidInputError(`limit: must be between 1 and ${MAX_SEARCH_LIMIT}`);
  }
  return after ? decodeSearchCursor(after) : { offset: 0, ranked: 0 };
}

/**
 * The cursor is the offset in the ranked results (they shift as content changes, as any ranking
 * does), and the pages ranked before it (a space search: the offset; an organization's: the pages
 * its spaces answered). A cursor of before ranks were answered has no `ranked`: its offset stands for it.
 */
function encodeSearchCursor(offset: number, ranked: number): string {
  return Buffer.from(JSON.stringify({ offset, ranked })).toString('base64url');
}

function decodeSearchCursor(cursor: string): { offset: number; ranked: number } {
  const count = (n: unknown): n is number => typeof n === 'number' && Number.isSafeInteger(n) && n >= 0;
  try {
    const { offset, ranked } = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as { offset?: unknown; ranked?: unknown };
    if (count(offset) && (ranked === undefined || count(ranked))) return { offset, ranked: ranked ?? offset };
  } catch {
    // reported below
  }
  throw new InvalidInputError('page: not a valid page cursor (use `next.page` of a previous response)');
}

/**
 * Two statements: ranking (bm25 must be called in the MATCH query itself), then
 * snippets for the sections of the result pages only.
 */
async function searchSqlite(
  db: Db | Tx,
  spaceId: string,
  query: string,
  pageCount: number,
  offset: number,
  includeHidden: boolean,
): Promise<SectionMatch[]> {
  const match = ftsMatchExpression(query);
  if (match === null) return [];
  const ranked = await db.$queryRawUnsafe<{ id: number | bigint; page_path: string; best: number; score: number }[]>(
    `WITH hits AS MATERIALIZED (
       SELECT s.id, s.page_id, s.page_path, s.position,
              ${SQLITE_SCORED_SECTIONS} AND s.space_id = ?${includeHidden ? '' : ' AND s.hidden = 0'}
     ),
     ${rankedSections('id', '?', '?')}
     SELECT id, page_path, best, score FROM ranked WHERE n <= ${MAX_SECTIONS_PER_PAGE} ORDER BY best DESC, page_path, page_id, n`,
    match,
    spaceId,
    pageCount,
    offset,
  );
  if (ranked.length === 0) return [];
  const ids = ranked.map((r) => Number(r.id));
  const marks = `'${MARK_START}', '${MARK_END}'`;
  const rows = await db.$queryRawUnsafe<(Omit<SectionMatch, 'page_path' | 'best' | 'score'> & { id: number | bigint })[]>(
    `SELECT rowid AS id, page_id, page_title, section_id,
            highlight(search_section_fts, 4, ${marks}) AS section_title,
            snippet(search_section_fts, 5, ${marks}, '${ELLIPSIS}', ${SNIPPET_WORDS}) AS body
     FROM search_section_fts WHERE search_section_fts MATCH ? AND rowid IN (${placeholders('sqlite', ids.length, 1)})`,
    match,
    ...ids,
  );
  const byId = new Map(rows.map((r) => [Number(r.id), r]));
  return ranked.flatMap((r) => {
    const row = byId.get(Number(r.id));
    return row ? [{ ...row, page_path: r.page_path, best: Number(r.best), score: Number(r.score) }] : [];
  });
}

/** One statement (the query's prefix handling: pgQuery; parsed with the space's configuration). */
async function searchPostgres(
  db: Db | Tx,
  spaceId: string,
  query: string,
  pageCount: number,
  offset: number,
  includeHidden: boolean,
): Promise<SectionMatch[]> {
  const text = tsqueryText(query);
  if (text === null) return [];
  const headline = (extra: string) =>
    `StartSel=${MARK_START}, StopSel=${MARK_END}, MinWords=${Math.round(SNIPPET_WORDS / 2)}, MaxWords=${SNIPPET_WORDS}${extra}`;
  const rows = await db.$queryRawUnsafe<(SectionMatch & { lead: string | null; tail: string | null })[]>(
    `WITH q AS (SELECT c.config, ${pgQuery('c.config')} AS query FROM (SELECT config FROM search_section WHERE space_id = $2 LIMIT 1) AS c),
     hits AS MATERIALIZED (
       SELECT s.page_id, s.position, s.page_path, ${PG_SCORE}
       FROM search_section s, q
       WHERE s.space_id = $2 AND s.search_vector @@ q.query${includeHidden ? '' : ' AND NOT s.hidden'}
     ),
     ${rankedSections('position', '$3', '$4')}
     SELECT r.page_id, r.page_path, r.best, r.score, s.page_title, s.section_id,
            ts_headline(q.config, s.section_title, q.query, $6) AS section_title,
            h.body,
            CASE WHEN f.pos > 0 AND f.lead !~ '[[:alnum:]]' THEN f.lead END AS lead,
            CASE WHEN f.pos > 0 AND f.tail !~ '[[:alnum:]]' THEN f.tail END AS tail
     FROM ranked r
     JOIN search_section s ON s.space_id = $2 AND s.page_id = r.page_id AND s.position = r.position
     CROSS JOIN q
     CROSS JOIN LATERAL (SELECT ts_headline(q.config, s.body, q.query, $5) AS body) m
     CROSS JOIN LATERAL (SELECT m.body, translate(m.body, '${MARK_START}${MARK_END}', '') AS plain) h
     CROSS JOIN LATERAL (SELECT strpos(s.body, h.plain) AS pos) o
     CROSS JOIN LATERAL (SELECT o.pos, left(s.body, o.pos - 1) AS lead, substr(s.body, o.pos + length(h.plain)) AS tail) f
     WHERE r.n <= ${MAX_SECTIONS_PER_PAGE}
     ORDER BY r.best DESC, r.page_path, r.page_id, r.n`,
    text,
    spaceId,
    pageCount,
    offset,
    headline(', MaxFragments=1'),
    headline(', HighlightAll=true'),
  );
  // FTS5's snippet() marks cut text with an ellipsis; ts_headline does not, and leaves out the
  // punctuation around the fragment: an ellipsis where words were left out, else that punctuation.
  return rows.map(({ lead, tail, ...row }) => ({
    ...row,
    best: Number(row.best),
    score: Number(row.score),
    body: `${lead === null ? ELLIPSIS : lead.slice(-10)}${row.body}${tail === null ? ELLIPSIS : tail.slice(0, 10)}`,
  }));
}

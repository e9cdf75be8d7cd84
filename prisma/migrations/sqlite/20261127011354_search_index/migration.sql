-- The full-text search index of src/search/search-index.ts, which Prisma cannot describe
-- (it is not in prisma/schema.prisma): search_section holds one row per section of every
-- document page of a space's current revision, search_section_fts is an FTS5 index over it
-- (external content, FTS5 adds its own search_section_fts_* tables).
-- Written by hand. Before this migration the server created the same tables at start, so
-- a database may have them already: IF NOT EXISTS keeps them, and their rows, as they are.
CREATE TABLE IF NOT EXISTS search_section (
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
);
CREATE VIRTUAL TABLE IF NOT EXISTS search_section_fts USING fts5(
    space_id UNINDEXED, page_id UNINDEXED, section_id UNINDEXED,
    page_title, section_title, body,
    content='search_section', content_rowid='id',
    tokenize='porter unicode61 remove_diacritics 2'
);

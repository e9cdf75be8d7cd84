-- The version of the rules that wrote the search index's rows (SEARCH_INDEX_VERSION in
-- src/search/search-index.ts). Rows written before this migration are version 1: page titles
-- and document sections, no descriptions. A server finding an older version than its own
-- rewrites every space's rows before it listens, then records its version here.
-- One row, id 1. Written by hand, like the index itself (prisma/schema.prisma does not describe it).
CREATE TABLE search_index_state (
    id INTEGER PRIMARY KEY,
    version INTEGER NOT NULL
);
INSERT INTO search_index_state (id, version) VALUES (1, 1);

-- The full-text search index of src/search/search-index.ts, which Prisma cannot describe
-- (it is not in prisma/schema.prisma): search_section holds one row per section of every
-- document page of a space's current revision, with a stored generated tsvector (page title
-- weight A, section title B, body C, the 'english' configuration: a regconfig constant, so
-- that to_tsvector is immutable as a generated column needs) and a GIN index on it.
-- Written by hand. Before this migration the server created the same table and index at
-- start, so a database may have them already: IF NOT EXISTS keeps them, and their rows, as they are.
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

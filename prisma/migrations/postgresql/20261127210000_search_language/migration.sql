-- Each row of the search index is stemmed with its space's language (src/search/search-index.ts,
-- searchConfigOf): `config` holds the text search configuration, and the generated tsvector reads
-- it (to_tsvector(regconfig, text) is immutable, as a generated column needs). Rows keep 'english'
-- until the server rewrites them (SEARCH_INDEX_VERSION 3). Written by hand, like the index itself.
ALTER TABLE search_section ADD COLUMN config regconfig NOT NULL DEFAULT 'english'::regconfig;
ALTER TABLE search_section DROP COLUMN search_vector;
ALTER TABLE search_section ADD COLUMN search_vector tsvector GENERATED ALWAYS AS (
    setweight(to_tsvector(config, page_title), 'A') ||
    setweight(to_tsvector(config, section_title), 'B') ||
    setweight(to_tsvector(config, body), 'C')
) STORED;
CREATE INDEX search_section_vector_idx ON search_section USING gin (search_vector);

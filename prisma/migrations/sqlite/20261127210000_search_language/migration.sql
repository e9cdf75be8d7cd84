-- PostgreSQL stems each space's rows of the search index with the space's language (its
-- migration of the same name). SQLite's FTS5 has one tokenizer per table and ships one stemmer,
-- English Porter: its index is unchanged (docs/decisions.md, "Search"). This migration keeps
-- both providers' histories the same.
SELECT 1;

/**
 * A user's free-text search query, made safe for the full-text engines.
 *
 * The text is never handed to FTS5 or to_tsquery as query syntax: it is cut
 * into words at whitespace, words without a letter or digit are dropped (they
 * tokenize to nothing anyway), and each word becomes a quoted FTS5 string, so
 * `"`, `*`, `:`, `(`, `-`, `^`, `+`, OR, AND, NOT and NEAR are plain text. On
 * PostgreSQL the same words go through plainto_tsquery, which has no operators.
 */

/** Words of a query beyond this many are ignored (a 512-character query can hold 256). */
export const MAX_QUERY_WORDS = 32;

/** The words of a query: NFC-normalized, split at whitespace, each holding a letter or digit. */
export function queryWords(text: string): string[] {
  return text
    .normalize('NFC')
    .split(/\s+/u)
    .filter((word) => /[\p{L}\p{N}]/u.test(word))
    .slice(0, MAX_QUERY_WORDS);
}

/**
 * The FTS5 MATCH expression for `text`, or null when it has no words: every
 * word quoted (a quote inside doubled), all required (implicit AND), the last
 * one a prefix so results appear while the user is typing ("instal" finds
 * "installation"). A quoted word the tokenizer cuts in several tokens
 * ("foo.bar", "v1.2") stays a phrase, which is how the document's text was
 * tokenized too.
 */
export function ftsMatchExpression(text: string): string | null {
  const words = queryWords(text);
  if (words.length === 0) return null;
  return words.map((word, i) => `"${word.replaceAll('"', '""')}"${i === words.length - 1 ? ' *' : ''}`).join(' ');
}

/**
 * The text PostgreSQL's plainto_tsquery gets, or null when it has no words:
 * the same words as FTS5 sees, space-separated.
 */
export function tsqueryText(text: string): string | null {
  const words = queryWords(text);
  return words.length === 0 ? null : words.join(' ');
}

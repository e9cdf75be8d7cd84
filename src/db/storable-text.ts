/**
 * The characters no database of ours can store (docs/decisions.md, "Text no
 * database stores, and database outages"): U+0000, which PostgreSQL refuses
 * in text and jsonb (and SQLite keeps, so the two would differ), and UTF-16
 * surrogates that are not part of a pair, which are not characters at all:
 * encoding them to UTF-8 (both drivers do) silently turns them into U+FFFD.
 */

/** NUL, a high surrogate not followed by a low one, a low surrogate not preceded by a high one. */
const UNSTORABLE = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** What is wrong with `text` (`must not contain U+0000 (NUL)...`), or null when a database stores it as is. */
export function unstorableText(text: string): string | null {
  const found = UNSTORABLE.exec(text);
  if (!found) return null;
  const code = found[0].charCodeAt(0);
  if (code === 0) return 'must not contain U+0000 (NUL), which cannot be stored';
  return `must not contain the unpaired surrogate U+${code.toString(16).toUpperCase()}, which is not a character`;
}

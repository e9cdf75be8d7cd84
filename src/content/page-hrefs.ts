/**
 * Relative hrefs of Markdown a batch of content changes converts
 * (`./guide/install.md`, a batch ref): what each names, as a table a worker
 * thread can receive (src/content/conversion-worker.ts), since a function
 * cannot cross to it.
 */
import { type ContentRef } from './document/model.ts';

/** What relative hrefs name, keyed by `normalizeHref`. */
export type HrefTable = Map<string, ContentRef>;

/** Page paths a relative link may name: `./a/b.md`, `a/b`, `/a/b/` all mean the page at path `a/b`. */
export function normalizeHref(href: string): string {
  let path = href.split('#')[0]!.split('?')[0]!;
  while (path.startsWith('./')) path = path.slice(2);
  path = path.replace(/^\/+|\/+$/g, '');
  if (path.endsWith('.md')) path = path.slice(0, -3);
  if (path.endsWith('/README') || path === 'README') path = path.slice(0, -'README'.length).replace(/\/$/, '');
  return path;
}

/** The `resolveHref` of markdownToDocument reading `table`. */
export function resolveFromTable(table: HrefTable): (href: string) => ContentRef | null {
  return (href) => table.get(normalizeHref(href)) ?? null;
}

/**
 * A table as the text a worker thread receives, made once per table (tables are not changed once
 * made): a string crosses to a thread as one copy, where a Map of a 1,000-page space's paths is
 * cloned entry by entry, and the text doubles as the key of a batch's conversions.
 */
const serializedTables = new WeakMap<HrefTable, string>();

export function serializeHrefTable(table: HrefTable): string {
  let text = serializedTables.get(table);
  if (text === undefined) {
    text = JSON.stringify([...table]);
    serializedTables.set(table, text);
  }
  return text;
}

export function parseHrefTable(text: string): HrefTable {
  return new Map(JSON.parse(text) as [string, ContentRef][]);
}

/** Where a destination's text ends or its path has a segment break: no name is split by anything else. */
const SEGMENT_BREAK = /[\s/()<>"'#?[\]`|={}]+/;
const SIMPLE_SEGMENT = /^[\w.-]*$/;
/** Character references and backslash escapes: Markdown decodes them in a destination, so names may hide behind them. */
const DECODED_IN_DESTINATIONS = /&(?:#[0-9]+|#x[0-9a-f]+|[a-z][a-z0-9]*);|\\[!-/:-@[-`{-~]/i;

/**
 * The entries of `table` that `markdown` can name: those whose last path segment (as it is, or
 * with `.md`) occurs in it as a whole segment. A link names a page only by those characters, so
 * this leaves out nothing a conversion would find, unless the Markdown writes names through
 * character references or escapes (then the whole table). A 1,000-page space's edit sends the
 * worker the few paths its Markdown mentions, not all of them.
 */
export function hrefsNamedIn(table: HrefTable, markdown: string): HrefTable {
  if (DECODED_IN_DESTINATIONS.test(markdown)) return table;
  const segments = new Set(markdown.split(SEGMENT_BREAK));
  const named: HrefTable = new Map();
  for (const [key, ref] of table) {
    const last = key.slice(key.lastIndexOf('/') + 1);
    if (segments.has(last) || segments.has(`${last}.md`) || (!SIMPLE_SEGMENT.test(last) && SEGMENT_BREAK.test(last))) named.set(key, ref);
  }
  return named;
}

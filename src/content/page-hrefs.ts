/**
 * Relative hrefs of Markdown a batch of content changes converts
 * (`./guide/install.md`, `../faq.md`, a batch ref): what each names, as a
 * table a worker thread can receive (src/content/conversion-worker.ts), since
 * a function cannot cross to it. docs/decisions.md, "Relative links in API
 * Markdown".
 */
import { type ContentRef } from './document/model.ts';
import { normalizePath } from './page-tree.ts';

/**
 * What relative hrefs name. A batch's refs are keyed by their name (`normalizeHref`), and name
 * the same thing from any page; the content's pages are keyed `/<path>` (where they stand: their
 * path, their file's path as Git export writes it, `/` for the first page's README.md), and an
 * href names one from the folder of its own page's file.
 */
export type HrefTable = Map<string, ContentRef>;

/** Page paths a relative link may name: `./a/b.md`, `a/b`, `/a/b/`, `a/b/README.md` all mean the page at path `a/b`. */
export function normalizeHref(href: string): string {
  let path = href.split('#')[0]!.split('?')[0]!;
  while (path.startsWith('./')) path = path.slice(2);
  path = path.replace(/^\/+|\/+$/g, '');
  if (path.endsWith('.md')) path = path.slice(0, -3);
  if (path.endsWith('/README') || path === 'README') path = path.slice(0, -'README'.length).replace(/\/$/, '');
  return path;
}

/** The key of the page at `path` (a page path, or a page file's path) in an HrefTable. */
export function pageKey(path: string): string {
  return `/${normalizeHref(path)}`;
}

const SCHEME = /^[a-z][a-z0-9+.-]*:/i;

/**
 * The `resolveHref` of markdownToDocument reading `table` for the Markdown of a page whose file
 * is in `folder` (content-root relative, '' the top): a batch ref by its name, else the page the
 * href names from that folder as Git import reads a link (`/`-rooted from the top; `../` above the
 * top names nothing), else, for a plain path (`faq.md`), the page at that path from the top; with
 * its `#anchor`. Anything else is left to be a URL.
 */
export function resolveFromTable(table: HrefTable, folder = ''): (href: string) => ContentRef | null {
  return (href) => {
    if (SCHEME.test(href) || href.startsWith('//')) return null;
    const hash = href.indexOf('#');
    const anchor = hash < 0 ? null : href.slice(hash + 1) || null;
    const path = (hash < 0 ? href : href.slice(0, hash)).split('?')[0]!;
    // A path written without `./`, `../` or `/` that names nothing from the folder names the page at
    // that path from the top, as such links always did through the API (Git import has no such rule;
    // Git export writes the link relative again, so the round trip holds).
    const target = table.get(normalizeHref(path)) ?? pageAt(table, folder, path) ?? (folder !== '' && /^[^./]/.test(path) ? pageAt(table, '', path) : undefined);
    if (target?.kind === 'page' && anchor !== null) return { kind: 'anchor', anchor, page: target.page };
    return target ?? null;
  };
}

/** The page `path` names from `folder`, if any. */
function pageAt(table: HrefTable, folder: string, path: string): ContentRef | undefined {
  if (path === '') return undefined;
  const resolved = normalizePath(path.startsWith('/') ? path : `${folder}/${path}`);
  return resolved === null ? undefined : table.get(pageKey(resolved));
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
 * The entries of `table` that the Markdown of a page whose file is in `folder` can name: the pages
 * of that folder and those above it, and those whose last path segment (as it is, or with `.md`)
 * occurs in it as a whole segment. A link names a page only by those characters, so
 * this leaves out nothing a conversion would find, unless the Markdown writes names through
 * character references or escapes (then the whole table). A 1,000-page space's edit sends the
 * worker the few paths its Markdown mentions, not all of them.
 */
export function hrefsNamedIn(table: HrefTable, markdown: string, folder = ''): HrefTable {
  if (DECODED_IN_DESTINATIONS.test(markdown)) return table;
  const segments = new Set(markdown.split(SEGMENT_BREAK));
  // The page's own folder and those above it are named without their names (`README.md`, `../`, `./`).
  const unnamed = new Set(['/']);
  for (let at = folder.indexOf('/'); ; at = folder.indexOf('/', at + 1)) {
    if (folder !== '') unnamed.add(`/${at < 0 ? folder : folder.slice(0, at)}`);
    if (at < 0) break;
  }
  const named: HrefTable = new Map();
  for (const [key, ref] of table) {
    const last = key.slice(key.lastIndexOf('/') + 1);
    if (unnamed.has(key) || segments.has(last) || segments.has(`${last}.md`) || (!SIMPLE_SEGMENT.test(last) && SEGMENT_BREAK.test(last))) named.set(key, ref);
  }
  return named;
}

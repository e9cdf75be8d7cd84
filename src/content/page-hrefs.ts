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

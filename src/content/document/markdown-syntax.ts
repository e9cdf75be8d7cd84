import { type ContentRef } from './model.ts';
/**
 * What the Markdown parser (markdown-parse.ts) and printer (markdown-print.ts)
 * agree on, so each reads back what the other writes: the marks Markdown can
 * write and their canonical order, where inline content sits, and the hrefs
 * that stand for content refs (`/pages/<id>`, `/files/<id>`, `#anchor`;
 * `/spaces/<space>/pages/<id>` and the like for another space's content).
 */

/** A mark Markdown has syntax for. */
export type Mark = 'bold' | 'italic' | 'strikethrough' | 'code';
/** Canonical mark order, so equal formatting always gives equal leaves. */
export const MARK_ORDER: Mark[] = ['bold', 'italic', 'strikethrough', 'code'];

/** Where phrasing sits: breaks become `\n`, except in headings (a space) and table cells (only `<br>` breaks a cell). */
export type InlineMode = 'paragraph' | 'heading' | 'table-cell';

/**
 * The ContentRef an href stands for: `/pages/<id>[#anchor]`, `/files/<id>`,
 * `/reusable-contents/<id>`, each also as `/spaces/<space>/...` for another
 * space's, `#anchor`, absolute http(s)/mailto URLs; anything else is the
 * caller's to resolve (relative paths), then a URL ref.
 */
export function hrefToRef(href: string, resolveHref?: (href: string) => ContentRef | null): ContentRef {
  const other = /^\/spaces\/([^/?#]+)(\/(?:pages|files|reusable-contents)\/.*)$/.exec(href);
  if (other) {
    const ref = hrefToRef(other[2]);
    if (ref.kind !== 'url') return { ...ref, space: other[1] };
  }
  const page = idAfter(href, '/pages/');
  if (page) return page.anchor !== null ? { kind: 'anchor', anchor: page.anchor, page: page.id } : { kind: 'page', page: page.id };
  const file = idAfter(href, '/files/');
  if (file && file.anchor === null) return { kind: 'file', file: file.id };
  const reusable = idAfter(href, '/reusable-contents/');
  if (reusable && reusable.anchor === null) return { kind: 'reusable-content', reusableContent: reusable.id };
  if (href.startsWith('#') && href.length > 1) return { kind: 'anchor', anchor: href.slice(1) };
  const lower = href.toLowerCase();
  if (lower.startsWith('http://') || lower.startsWith('https://') || lower.startsWith('mailto:')) return { kind: 'url', url: href };
  return resolveHref?.(href) ?? { kind: 'url', url: href };
}

/** `/pages/abc#x` -> { id: 'abc', anchor: 'x' }; null unless the href is exactly the prefix and one id. */
function idAfter(href: string, prefix: string): { id: string; anchor: string | null } | null {
  if (!href.startsWith(prefix)) return null;
  const rest = href.slice(prefix.length);
  const hash = rest.indexOf('#');
  const id = hash < 0 ? rest : rest.slice(0, hash);
  if (!id || id.includes('/') || id.includes('?')) return null;
  return { id, anchor: hash < 0 ? null : rest.slice(hash + 1) || null };
}

/** The default href of a ref (inverse of hrefToRef). */
export function defaultHref(ref: ContentRef): string {
  // Another space's page, file or reusable content keeps its space (an anchor needs its page to have one).
  const space = 'space' in ref ? ref.space : undefined;
  const inSpace = ['page', 'file', 'reusable-content'].includes(ref.kind) || (ref.kind === 'anchor' && typeof ref.page === 'string');
  if (typeof space === 'string' && space !== '' && inSpace) {
    const { space: _space, ...local } = ref as ContentRef & { space: string };
    return `/spaces/${space}${defaultHref(local as ContentRef)}`;
  }
  switch (ref.kind) {
    case 'page':
      return `/pages/${ref.page}`;
    case 'file':
      return `/files/${ref.file}`;
    case 'anchor':
      return `${typeof ref.page === 'string' ? `/pages/${ref.page}` : ''}#${ref.anchor}`;
    case 'url':
      return String(ref.url);
    case 'reusable-content':
      return `/reusable-contents/${String(ref.reusableContent)}`;
    default:
      return '';
  }
}

/** Whether a value is a content ref (an object with a `kind`). */
export function isRef(value: unknown): value is ContentRef {
  return typeof value === 'object' && value !== null && typeof (value as { kind?: unknown }).kind === 'string';
}

/**
 * The page tree of a revision: children in order, paths, and the edits every
 * writer of a tree needs (insert, move, remove with descendants), keeping
 * sibling indexes 0..n-1 and sibling slugs unique.
 */
import { uniqueSlug } from '../slug.ts';
import type { PageSnapshot } from './snapshot.ts';

type Pages = Map<string, PageSnapshot>;

/** Children of every parent (null = root), each list in index order. */
export function childrenByParent(pages: ReadonlyMap<string, PageSnapshot>): Map<string | null, PageSnapshot[]> {
  const byParent = new Map<string | null, PageSnapshot[]>();
  for (const page of pages.values()) {
    const list = byParent.get(page.parentId) ?? [];
    list.push(page);
    byParent.set(page.parentId, list);
  }
  for (const list of byParent.values()) list.sort((a, b) => a.index - b.index || (a.id < b.id ? -1 : 1));
  return byParent;
}

/**
 * Every page's full path: the slugs from the root down, joined by '/'. With `only`, the paths of
 * those pages (and of the pages above them, on the way), not of the whole tree.
 */
export function pagePaths(pages: ReadonlyMap<string, PageSnapshot>, only?: Iterable<PageSnapshot>): Map<string, string> {
  const paths = new Map<string, string>();
  const pathOf = (page: PageSnapshot, depth = 0): string => {
    const known = paths.get(page.id);
    if (known !== undefined) return known;
    const parent = page.parentId ? pages.get(page.parentId) : undefined;
    // depth guards a cycle, which writers never produce; a broken tree still gets paths
    const path = parent && depth < 1000 ? `${pathOf(parent, depth + 1)}/${page.slug}` : page.slug;
    paths.set(page.id, path);
    return path;
  };
  for (const page of only ?? pages.values()) pathOf(page);
  return paths;
}

/** The pages in tree order (depth first), with their depth. */
export function pagesInOrder(pages: ReadonlyMap<string, PageSnapshot>): { page: PageSnapshot; depth: number }[] {
  const byParent = childrenByParent(pages);
  const out: { page: PageSnapshot; depth: number }[] = [];
  const walk = (parentId: string | null, depth: number) => {
    for (const page of byParent.get(parentId) ?? []) {
      out.push({ page, depth });
      walk(page.id, depth + 1);
    }
  };
  walk(null, 0);
  return out;
}

/** The folder of reusable contents, one Markdown file each (GitBook's `.gitbook/includes/`), in the content root. */
export const INCLUDES_DIRECTORY = '.gitbook/includes';

/**
 * The file Git export writes each document page to, relative to the content root (GitBook's
 * layout): `README.md` for the first document page in tree order, `<path>/README.md` for a page
 * with child pages (and for slugs that would read as the structure files), `<path>.md` otherwise.
 * Git Sync writes pages there, and relative links of API Markdown start from the folder of their
 * page's file (content/page-hrefs.ts).
 */
export function pageFiles(pages: ReadonlyMap<string, PageSnapshot>): Map<string, string> {
  const order = pagesInOrder(pages);
  const byParent = childrenByParent(pages);
  const paths = pagePaths(pages);
  const readme = order.find(({ page }) => page.kind === 'document')?.page ?? null;
  const files = new Map<string, string>();
  for (const { page } of order) {
    if (page.kind !== 'document') continue;
    if (page === readme) {
      files.set(page.id, 'README.md');
      continue;
    }
    const path = paths.get(page.id)!;
    const folder = (byParent.get(page.id)?.length ?? 0) > 0 || ['readme', 'summary'].includes(page.slug.toLowerCase());
    files.set(page.id, folder ? `${path}/README.md` : `${path}.md`);
  }
  return files;
}

/** `a/./b/../c/` -> `a/c`: a '/'-separated path of the content's layout, '' for its top; null when `..` climbs above the top. */
export function normalizePath(path: string): string | null {
  const out: string[] = [];
  for (const segment of path.replaceAll('\\', '/').split('/')) {
    if (segment === '' || segment === '.') continue;
    if (segment === '..') {
      if (out.length === 0) return null;
      out.pop();
    } else out.push(segment);
  }
  return out.join('/');
}

/** The page and all its descendants. */
export function subtreeIds(pages: ReadonlyMap<string, PageSnapshot>, rootId: string): Set<string> {
  const byParent = childrenByParent(pages);
  const ids = new Set<string>();
  const walk = (id: string) => {
    ids.add(id);
    for (const child of byParent.get(id) ?? []) walk(child.id);
  };
  walk(rootId);
  return ids;
}

/** Renumbers the siblings of one parent 0..n-1 in their current order, the page `first` placed at `at`. */
function renumber(pages: Pages, parentId: string | null, placed?: { id: string; at: number }) {
  const siblings = [...pages.values()]
    .filter((p) => p.parentId === parentId && p.id !== placed?.id)
    .sort((a, b) => a.index - b.index || (a.id < b.id ? -1 : 1));
  if (placed) siblings.splice(Math.max(0, Math.min(placed.at, siblings.length)), 0, pages.get(placed.id)!);
  siblings.forEach((page, index) => {
    if (page.index !== index) pages.set(page.id, { ...page, index });
  });
}

/** A slug not used by another sibling under `parentId`. */
export function freeSlug(pages: ReadonlyMap<string, PageSnapshot>, parentId: string | null, wanted: string, exceptId?: string): string {
  const taken = new Set([...pages.values()].filter((p) => p.parentId === parentId && p.id !== exceptId).map((p) => p.slug));
  return uniqueSlug(wanted, taken);
}

/** Puts `page` (new or existing) under `parentId` at `at` (end when undefined). */
export function placePage(pages: Pages, page: PageSnapshot, parentId: string | null, at: number | undefined): void {
  const previousParent = pages.get(page.id)?.parentId;
  const moved = { ...page, parentId, slug: freeSlug(pages, parentId, page.slug, page.id) };
  pages.set(page.id, moved);
  const siblings = [...pages.values()].filter((p) => p.parentId === parentId && p.id !== page.id).length;
  renumber(pages, parentId, { id: page.id, at: at ?? siblings });
  if (previousParent !== undefined && previousParent !== parentId) renumber(pages, previousParent);
}

/** Removes the page and its descendants; returns the removed ids. */
export function removePage(pages: Pages, pageId: string): Set<string> {
  const page = pages.get(pageId);
  if (!page) return new Set();
  const ids = subtreeIds(pages, pageId);
  for (const id of ids) pages.delete(id);
  renumber(pages, page.parentId);
  return ids;
}

/**
 * Paths inside a repository, as Git stores them: '/'-separated, relative to
 * the repository's top, no leading slash, '' for the top itself. Only string
 * work: nothing here touches a file system.
 */

// The same path rules as the layout's pages (content/page-tree.ts), where API Markdown resolves its links too.
export { normalizePath } from '../content/page-tree.ts';

/** Joins path pieces ('' pieces are skipped); no normalization. */
export function joinPath(...parts: string[]): string {
  return parts.filter((p) => p !== '').join('/');
}

/** `a/b/c.md` -> `a/b`; `c.md` -> ''. */
export function dirname(path: string): string {
  const slash = path.lastIndexOf('/');
  return slash < 0 ? '' : path.slice(0, slash);
}

/** `a/b/c.md` -> `c.md`. */
export function basename(path: string): string {
  return path.slice(path.lastIndexOf('/') + 1);
}

/** True when `path` is `dir` or inside it ('' contains everything). */
export function isWithin(dir: string, path: string): boolean {
  return dir === '' || path === dir || path.startsWith(`${dir}/`);
}

/** `path` relative to `dir` (which must contain it). */
export function relativeTo(dir: string, path: string): string {
  return dir === '' ? path : path === dir ? '' : path.slice(dir.length + 1);
}

/** The relative link from a file in `fromDir` to `to`: `../b/c.md`, `c.md`. */
export function relativeLink(fromDir: string, to: string): string {
  const from = fromDir === '' ? [] : fromDir.split('/');
  const target = to.split('/');
  let common = 0;
  while (common < from.length && common < target.length - 1 && from[common] === target[common]) common++;
  return [...from.slice(common).map(() => '..'), ...target.slice(common)].join('/');
}

/** `.md` files are pages (GitBook reads no other Markdown extension). */
export function isMarkdownPath(path: string): boolean {
  return /\.md$/i.test(path);
}

/**
 * A path written as a link target: the characters that would end it or be
 * read as a query, fragment or escape are percent-encoded (`%`, `#`, `?`,
 * spaces); everything else stays readable.
 */
export function encodeLinkPath(path: string): string {
  return path.replace(/[%#? ]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`);
}

/** Percent-decodes a link path; a malformed escape leaves the text as written. */
export function decodeLinkPath(path: string): string {
  try {
    return decodeURIComponent(path);
  } catch {
    return path;
  }
}

/** `README.md` -> `README`, `guide.md` -> `guide`. */
export function stripMarkdownExtension(name: string): string {
  return name.replace(/\.md$/i, '');
}

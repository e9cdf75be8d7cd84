/**
 * GitBook's Git Sync layout, both ways: the files of a repository <-> the
 * content of a revision. Pure: the caller reads and writes Git, stores file
 * bytes and the revision.
 *
 * What is read and written (docs/decisions.md, "Git Sync layout"):
 * - `.gitbook.yaml` in the project directory: `root`, `structure.readme`,
 *   `structure.summary` and `redirects` (content-config.ts).
 * - The readme (README.md) is the first page; SUMMARY.md is the page tree
 *   (summary.ts). Without a SUMMARY.md the tree is the folders' (sorted by
 *   name). Markdown files the SUMMARY.md does not list are not imported.
 * - A page file is YAML frontmatter (content/page-frontmatter.ts), a `# Title`, the
 *   body. Relative links between page files become page references; to other
 *   files, file references (the file becomes a space file).
 * - `.gitbook/vars.yaml` holds the space's variables, `.gitbook/tags.yaml` its
 *   tags (a list; pages carry them by slug in their frontmatter's `tags`),
 *   `.gitbook/includes/` its reusable contents.
 * - Export writes README.md for the first page, `<path>.md` for a page,
 *   `<path>/README.md` for a page with children, files under
 *   `.gitbook/assets/`, SUMMARY.md and `.gitbook.yaml`.
 *
 * Ids are stable: an imported page takes the id of the previous content's
 * page at the same path, a file that of the previous file with the same name
 * and bytes; so importing what was exported gives the same content back.
 */
import { stringify } from 'safe-stable-stringify';
import YAML from 'yaml';
import { DEFAULT_MARKDOWN_LIMITS, markdownLimitProblem, type MarkdownLimits } from '../content/document/markdown-limits.ts';
import { markdownToDocument, type MarkdownToDocumentResult } from '../content/document/markdown-parse.ts';
import { documentToMarkdown } from '../content/document/markdown-print.ts';
import { type ContentRef, type JSONDocument } from '../content/document/model.ts';
import { emojiText } from '../content/emoji.ts';
import { DEFAULT_TAG_COLOR, tagFromInput } from '../content/tags.ts';
import { frontmatterFromMeta, metaFromFrontmatter, variablesFromFrontmatter, type PageMeta } from '../content/page-frontmatter.ts';
import { childrenByParent, INCLUDES_DIRECTORY, pageFiles, pagePaths, pagesInOrder } from '../content/page-tree.ts';
import { emptySnapshot, putDocument } from '../content/revision-store.ts';
import { NO_PAGE_SETTINGS, PAGE_FIELDS, type FileSnapshot, type PageKind, type PageSnapshot, type PageTag, type RevisionSnapshot, type TagSnapshot } from '../content/snapshot.ts';
import { LimitExceededError } from '../errors/index.ts';
import { newId } from '../ids.ts';
import { slugify, uniqueSlug } from '../slug.ts';
import { CONFIG_FILE, contentConfigYaml, normalizeProjectDirectory, readContentConfig } from './content-config.ts';
import { blobHash, importCacheKey, type ImportCache, type ImportCacheEntry } from './import-cache.ts';
import {
  basename,
  decodeLinkPath,
  dirname,
  encodeLinkPath,
  isMarkdownPath,
  isWithin,
  joinPath,
  normalizePath,
  relativeLink,
  relativeTo,
  stripMarkdownExtension,
} from './repo-paths.ts';
import { parseSummary, printSummary, type SummaryItem } from './summary.ts';

export { readContentConfig, type ContentConfig } from './content-config.ts';

/** What `storeFile` answers for the bytes of a space file. */
export interface StoredFile {
  storageKey: string;
  size: number;
  contentType: string;
  width: number | null;
  height: number | null;
}

export interface ImportRepositoryOptions {
  /** The directory of a monorepo section (where `.gitbook.yaml` is looked up); the repository's top when empty. */
  projectDirectory?: string | null;
  /** The space's current content: its ids, creation and update dates are kept for what did not change. */
  previous?: RevisionSnapshot | null;
  /** Stores the bytes of a file the pages use. */
  storeFile: (bytes: Uint8Array, name: string) => Promise<StoredFile>;
  /** createdAt of new pages, updatedAt of changed ones. */
  now: Date;
  /** A Markdown file over one of these is skipped with a warning; DEFAULT_MARKDOWN_LIMITS when absent. */
  markdownLimits?: MarkdownLimits;
  /**
   * What the last import made of each page file (./import-cache.ts): a page whose file and links
   * resolve as then keeps the document it had (stored, ContentDocument) instead of being converted
   * again. Its documents must be stored: the cache is written with the revision that holds them.
   */
  cache?: ImportCache | null;
}

export interface ImportRepositoryResult {
  /**
   * The content. Its `documents` are those converted, and those reused from the cache that
   * `previous.documents` held: a reused document is stored already (the cache's documents are).
   */
  snapshot: RevisionSnapshot;
  /** What was skipped or could not be resolved, one sentence each, naming the file. */
  warnings: string[];
  /** The import cache of this import's pages, for the next import (./import-cache.ts). */
  cache: ImportCache;
  /** Page files whose Markdown was converted, and those whose document was reused from the cache. */
  stats: { converted: number; reused: number };
  /** Where each page and file was read from (paths as `files` has them). */
  paths: RepositoryPaths;
}

/** The file of each document page and of each space file, by id: what Git metadata says of them. */
export interface RepositoryPaths {
  pages: Record<string, string>;
  files: Record<string, string>;
  reusableContents: Record<string, string>;
}

export interface ExportRepositoryOptions {
  /** The directory of a monorepo section; the repository's top when empty. */
  projectDirectory?: string | null;
  /** Where the content goes inside the project directory (`.gitbook.yaml`'s `root`); the project directory itself by default. */
  root?: string | null;
  /** The bytes of a stored file. */
  readFile: (storageKey: string) => Promise<Uint8Array>;
}

/** The content folder GitBook writes uploaded files to. */
export const ASSETS_DIRECTORY = '.gitbook/assets';
/** The space's variables, a YAML mapping of names to values, in the content root. */
export const VARIABLES_FILE = '.gitbook/vars.yaml';
/** The space's tags, a YAML list of `{ tag, label, emoji | icon, color? }`, in the content root (GitBook's file). */
export const TAGS_FILE = '.gitbook/tags.yaml';

/** The slugs the API accepts (apply-changes.ts); a file name that is one is kept as the page's slug. */
const VALID_SLUG = /^[a-z0-9](?:[a-z0-9-_.]*[a-z0-9])?$/i;
const SCHEME = /^[a-z][a-z0-9+.-]*:/i;
const ASSET_PLACEHOLDER = '\u0000asset:';
const MAX_LISTED = 10;

/* -------------------------------------------------------------------------- */
/* Import                                                                      */
/* -------------------------------------------------------------------------- */

/** Where a link page points, before ids are known. */
type LinkSpec =
  | { type: 'url'; url: string }
  | { type: 'ref'; ref: ContentRef }
  | { type: 'page'; file: string; anchor: string | null; href: string }
  | { type: 'asset'; path: string };

/** A page of the tree being imported. */
interface Node {
  kind: PageKind;
  /** The page's markdown file (repository path): document pages, except a folder without README. */
  file: string | null;
  /** The title the table of contents gives ('' or null: the file's heading decides). */
  tocTitle: string | null;
  /** The title when neither the table of contents nor the file gives one. */
  fallbackTitle: string;
  /** The slug a folder gives (folder pages and groups of a folder tree). */
  slugHint: string | null;
  link: LinkSpec | null;
  /** A group's or link page's emoji and icon, from the table of contents (a document's are in its frontmatter). */
  emoji: string | null;
  icon: string | null;
  /** The structure.readme page. */
  readme: boolean;
  children: Node[];
  id: string;
  slug: string;
  previous: PageSnapshot | null;
}

function node(kind: PageKind, fields: Partial<Node>): Node {
  return { kind, file: null, tocTitle: null, fallbackTitle: '', slugHint: null, link: null, emoji: null, icon: null, readme: false, children: [], id: '', slug: '', previous: null, ...fields };
}

/** `getting-started.md` -> `Getting started`: a title for a page that has none. */
function titleFromName(name: string): string {
  const words = stripMarkdownExtension(name).replace(/[-_]+/g, ' ').replace(/\s+/g, ' ').trim();
  return words ? words[0].toUpperCase() + words.slice(1) : name;
}

/** A file or folder name as a slug: kept when the API would accept it, else slugified. */
function slugFromName(name: string): string {
  return VALID_SLUG.test(name) && name.length <= 100 ? name : slugify(name, 'page');
}

function compareNames(a: string, b: string): number {
  const la = a.toLowerCase();
  const lb = b.toLowerCase();
  return la < lb ? -1 : la > lb ? 1 : a < b ? -1 : a > b ? 1 : 0;
}

function isReadmeName(path: string): boolean {
  return basename(path).toLowerCase() === 'readme.md';
}

/** An href split into its decoded path and the fragment after `#` (null when none); a query is dropped. */
function splitHref(href: string): { path: string; anchor: string | null } {
  const hash = href.indexOf('#');
  const beforeHash = hash < 0 ? href : href.slice(0, hash);
  const query = beforeHash.indexOf('?');
  const anchor = hash < 0 ? null : decodeLinkPath(href.slice(hash + 1)) || null;
  return { path: decodeLinkPath(query < 0 ? beforeHash : beforeHash.slice(0, query)), anchor };
}

/** `/pages/<id>[#a]`, `/files/<id>`: how an export writes references to content it has no file for. */
function internalRef(href: string): ContentRef | null {
  const match = /^\/(pages|files)\/([^/?#]+)(?:#(.*))?$/.exec(href);
  if (!match) return null;
  const [, kind, id, anchor] = match;
  if (kind === 'files') return anchor === undefined ? { kind: 'file', file: id } : null;
  return anchor ? { kind: 'anchor', anchor, page: id } : { kind: 'page', page: id };
}

/** Imports the content of a repository laid out as GitBook's Git Sync lays it out. */
export async function importRepository(files: ReadonlyMap<string, Uint8Array>, options: ImportRepositoryOptions): Promise<ImportRepositoryResult> {
  const { config, warnings } = readContentConfig(files, options.projectDirectory);
  const previous = options.previous ?? null;
  const limits = options.markdownLimits ?? DEFAULT_MARKDOWN_LIMITS;
  const cacheKey = importCacheKey(limits);
  const cacheIn = options.cache?.key === cacheKey ? options.cache : null;
  const cacheOut: ImportCache = { key: cacheKey, files: {} };

  /* ----------------------------- reading files ----------------------------- */

  const texts = new Map<string, string | null>();
  /** A markdown file's text; null (with a warning, once) when it is missing, binary, not UTF-8 or over a Markdown limit. */
  const readText = (path: string, missingWarning: string | null): string | null => {
    if (texts.has(path)) return texts.get(path)!;
    const bytes = files.get(path);
    let text: string | null = null;
    if (!bytes) {
      if (missingWarning) warnings.push(missingWarning);
    } else if (bytes.includes(0)) warnings.push(`${path}: binary file, skipped`);
    else {
      try {
        text = new TextDecoder('utf-8', { fatal: true }).decode(bytes).replace(/^\uFEFF/, '');
      } catch {
        warnings.push(`${path}: not UTF-8 text, skipped`);
      }
      const problem = text === null ? null : markdownLimitProblem(text, limits);
      if (problem) {
        warnings.push(`${path}: ${problem.message}; skipped`);
        text = null;
      }
    }
    texts.set(path, text);
    return text;
  };
  const hashes = new Map<string, string>();
  /** sha-256 of a file's bytes (the import cache's `blob`), once per file. */
  const hashOf = (path: string): string => {
    let hash = hashes.get(path);
    if (hash === undefined) hashes.set(path, (hash = blobHash(files.get(path)!)));
    return hash;
  };
  /**
   * Whether a page file can be read: the import cache has an entry of these bytes (an entry is
   * written only for a page read and converted under the same limits, the cache's key) or its text
   * reads. Decoding and scanning every unchanged page took a third of an import that converts ten.
   */
  const readable = (path: string, missingWarning: string | null): boolean =>
    (files.has(path) && !texts.has(path) && cacheIn?.files[path]?.blob === hashOf(path)) || readText(path, missingWarning) !== null;
  /** A file's Markdown converted; null (with a warning) when the mapping meets a limit the scan cannot see (nested GitBook blocks). */
  const overLimit = new Set<string>();
  const convert = (path: string, text: string, resolveHref?: (href: string) => ContentRef | null): MarkdownToDocumentResult | null => {
    try {
      return markdownToDocument(text, { resolveHref, limits });
    } catch (error) {
      if (!(error instanceof LimitExceededError)) throw error;
      if (!overLimit.has(path)) warnings.push(`${path}: ${error.message}; its content is skipped`);
      overLimit.add(path);
      return null;
    }
  };
  const headings = new Map<string, string | null>();
  /** The leading `# heading` of a markdown file (null when none), parsed once without resolving links. */
  const headingOf = (path: string): string | null => {
    if (!headings.has(path)) {
      const text = readText(path, null);
      headings.set(path, text === null ? null : (convert(path, text)?.title ?? null));
    }
    return headings.get(path)!;
  };
  /** The page file a path stands for: itself (`.md`), its folder's README.md, or `<path>.md`. */
  const markdownCandidates = (path: string): string[] =>
    isMarkdownPath(path) ? [path] : [joinPath(path, 'README.md'), `${path}.md`].filter((p) => p !== '.md');

  /** Content-root-relative page path a page file implies: `guide/README.md` -> `guide`, `guide/install.md` -> `guide/install`. */
  const naturalPath = (file: string): string => {
    const relative = relativeTo(config.root, file);
    return isReadmeName(relative) ? dirname(relative) : stripMarkdownExtension(relative);
  };

  /* ------------------------------- the tree ------------------------------- */

  const summaryText = files.has(config.summary) ? readText(config.summary, null) : null;
  const roots = summaryText !== null ? treeFromSummary(summaryText) : treeFromFolders();

  /** SUMMARY.md -> nodes; a page file referenced twice is one page, the other entries link to it. */
  function treeFromSummary(text: string): Node[] {
    const summaryDir = dirname(config.summary);
    interface Proto {
      item: SummaryItem;
      node: Node;
      children: Proto[];
      order: number;
    }
    let order = 0;
    const claims = new Map<string, Proto[]>();
    const toProto = (item: SummaryItem): Proto => {
      const children = item.children.map(toProto);
      const decoration = { emoji: item.emoji, icon: item.icon };
      const proto: Proto = { item, node: node('link', { tocTitle: item.title, fallbackTitle: item.title, ...decoration }), children, order: order++ };
      const href = item.href;
      if (href === null) {
        proto.node.kind = 'group';
        if (item.anchor) proto.node.slugHint = slugFromName(item.anchor);
        return proto;
      }
      const ref = internalRef(href);
      if (ref) proto.node.link = { type: 'ref', ref };
      else if (SCHEME.test(href) || href.startsWith('//')) proto.node.link = { type: 'url', url: href };
      else {
        const { path, anchor } = splitHref(href);
        const target = path === '' ? null : normalizePath(path.startsWith('/') ? joinPath(config.root, path) : joinPath(summaryDir, path));
        if (target === null) {
          warnings.push(`${config.summary}: "${item.title}" links to ${JSON.stringify(href)}, which is not a file of the repository; kept as a link`);
          proto.node.link = { type: 'url', url: href };
          return proto;
        }
        const markdown = markdownCandidates(target).find((p) => files.has(p)) ?? (isMarkdownPath(target) ? target : null);
        if (markdown !== null && anchor !== null) proto.node.link = { type: 'page', file: markdown, anchor, href };
        else if (markdown !== null) {
          proto.node.kind = 'document';
          proto.node.file = markdown;
          // A document's emoji and icon are its frontmatter's; an emoji before its title in the table of contents is part of the title.
          Object.assign(proto.node, { emoji: null, icon: null, tocTitle: [item.emoji ? emojiText(item.emoji) : null, item.title].filter(Boolean).join(' ') });
          proto.node.fallbackTitle = titleFromName(isReadmeName(markdown) ? basename(dirname(markdown)) || 'README' : basename(markdown));
          claims.set(markdown, [...(claims.get(markdown) ?? []), proto]);
        } else if (files.has(target) && isWithin(config.projectDirectory, target)) proto.node.link = { type: 'asset', path: target };
        else {
          warnings.push(`${config.summary}: "${item.title}" links to ${JSON.stringify(href)}, which is missing; kept as a link`);
          proto.node.link = { type: 'url', url: href };
        }
      }
      return proto;
    };
    // Parsing a table of contents of 1,000 entries takes longer than converting ten pages: kept in the cache too.
    const blob = blobHash(files.get(config.summary)!);
    const items = cacheIn?.summary?.blob === blob ? cacheIn.summary.items : parseSummary(text);
    cacheOut.summary = { blob, items };
    // GitBook's computed entries (RevisionPageComputed, an OpenAPI reference) come with computed pages: not yet.
    const withoutComputed = (list: SummaryItem[]): SummaryItem[] =>
      list.flatMap((item) => {
        if (item.computed === undefined) return [{ ...item, children: withoutComputed(item.children) }];
        const type = /^\s*type:\s*(\S+)/m.exec(item.computed)?.[1] ?? 'unknown';
        warnings.push(`${config.summary}: a computed entry (${type}) is not imported: computed pages are not supported yet`);
        return withoutComputed(item.children);
      });
    const protos = withoutComputed(items).map(toProto);

    // Which entry of a file referenced several times is the page: the one with children, then the
    // one whose place in the tree matches the file's folder (as an export writes it), then the one
    // whose title is the file's heading, then the first.
    const tentativeParentPath = new Map<Proto, string>();
    const walkTentative = (list: Proto[], parentPath: string) => {
      for (const proto of list) {
        tentativeParentPath.set(proto, parentPath);
        const slug = proto.node.file ? slugFromName(basename(naturalPath(proto.node.file)) || 'readme') : slugify(proto.item.title, 'page');
        walkTentative(proto.children, joinPath(parentPath, slug));
      }
    };
    walkTentative(protos, '');
    for (const [file, list] of claims) {
      if (list.length < 2) continue;
      const score = (p: Proto): number[] => [
        p.children.length ? 1 : 0,
        dirname(naturalPath(file)) === tentativeParentPath.get(p) ? 1 : 0,
        headingOf(file) === p.item.title ? 1 : 0,
        -p.order,
      ];
      const ranked = [...list].sort((a, b) => {
        const sa = score(a);
        const sb = score(b);
        for (let i = 0; i < sa.length; i++) if (sa[i] !== sb[i]) return sb[i] - sa[i];
        return 0;
      });
      for (const loser of ranked.slice(1)) {
        loser.node.kind = 'link';
        loser.node.file = null;
        loser.node.link = { type: 'page', file, anchor: null, href: loser.item.href! };
      }
    }

    // Entries whose page file cannot be read are left out; their children take their place.
    const build = (list: Proto[]): Node[] =>
      list.flatMap((proto) => {
        const children = build(proto.children);
        const n = proto.node;
        if (n.kind === 'document' && n.file !== null) {
          const outside = !isWithin(config.root, n.file);
          if (outside) warnings.push(`${config.summary}: ${n.file} is outside the content root ${config.root || './'}, skipped`);
          if (outside || !readable(n.file, `${config.summary}: ${n.file} is missing, skipped`)) return children;
          if (n.file === config.readme) n.readme = true;
        }
        if (n.kind === 'link' && children.length) {
          warnings.push(`${config.summary}: "${proto.item.title}" is a link and cannot hold pages; its children follow it`);
          return [n, ...children];
        }
        n.children = children;
        return [n];
      });
    const tree = build(protos);

    const listed = new Set(claims.keys());
    if (!listed.has(config.readme)) {
      if (readText(config.readme, `${config.readme}: missing, the space has no first page from it`) !== null) {
        tree.unshift(node('document', { file: config.readme, readme: true, fallbackTitle: titleFromName(basename(config.readme)) }));
        listed.add(config.readme);
      }
    }
    const unlisted = [...files.keys()]
      .filter((p) => isMarkdownPath(p) && isWithin(config.root, p) && p !== config.summary && !listed.has(p) && !hasDotSegment(relativeTo(config.root, p)))
      .sort(compareNames);
    if (unlisted.length) {
      const shown = unlisted.slice(0, MAX_LISTED).join(', ');
      warnings.push(
        `${unlisted.length} Markdown file${unlisted.length === 1 ? ' is' : 's are'} not in ${config.summary} and not imported: ${shown}${unlisted.length > MAX_LISTED ? ', …' : ''}`,
      );
    }
    return tree;
  }

  /** No SUMMARY.md: the readme, then each folder's pages and subfolders by name. */
  function treeFromFolders(): Node[] {
    const folders = new Map<string, { files: string[]; folders: Set<string> }>();
    const folder = (dir: string) => {
      let entry = folders.get(dir);
      if (!entry) {
        entry = { files: [], folders: new Set() };
        folders.set(dir, entry);
      }
      return entry;
    };
    for (const path of files.keys()) {
      if (!isMarkdownPath(path) || !isWithin(config.root, path) || path === config.readme || path === config.summary) continue;
      if (hasDotSegment(relativeTo(config.root, path))) continue;
      folder(dirname(path)).files.push(path);
      for (let dir = dirname(path); dir !== config.root && dir !== ''; dir = dirname(dir)) folder(dirname(dir)).folders.add(dir);
    }
    const walk = (dir: string, atRoot: boolean): Node[] => {
      const entry = folders.get(dir);
      if (!entry) return [];
      const items: { name: string; build: () => Node[] }[] = [];
      for (const file of entry.files) {
        if (isReadmeName(file) && dir !== config.root) continue;
        items.push({
          name: stripMarkdownExtension(basename(file)),
          build: () => (!readable(file, null) ? [] : [node('document', { file, fallbackTitle: titleFromName(basename(file)) })]),
        });
      }
      for (const sub of entry.folders) {
        const name = basename(sub);
        items.push({
          name,
          build: () => {
            const children = walk(sub, false);
            const readme = folders.get(sub)?.files.find((f) => isReadmeName(f));
            const fallbackTitle = titleFromName(name);
            if (readme && readable(readme, null)) return [node('document', { file: readme, fallbackTitle, children })];
            // A folder without README: a group at the top (GitBook's groups live there), an empty page below.
            return [node(atRoot ? 'group' : 'document', { tocTitle: fallbackTitle, fallbackTitle, slugHint: slugFromName(name), children })];
          },
        });
      }
      items.sort((a, b) => compareNames(a.name, b.name));
      return items.flatMap((item) => item.build());
    };
    const tree = walk(config.root, true);
    if (readText(config.readme, `${config.readme}: missing, the space has no first page from it`) !== null) {
      tree.unshift(node('document', { file: config.readme, readme: true, fallbackTitle: titleFromName(basename(config.readme)) }));
    }
    return tree;
  }

  /* ------------------------------ slugs and ids ----------------------------- */

  const previousPaths = new Map<string, PageSnapshot>();
  const previousChildren = previous ? childrenByParent(previous.pages) : new Map<string | null, PageSnapshot[]>();
  let previousReadme: PageSnapshot | null = null;
  if (previous) {
    for (const [id, path] of pagePaths(previous.pages)) if (!previousPaths.has(path)) previousPaths.set(path, previous.pages.get(id)!);
    previousReadme = pagesInOrder(previous.pages).find(({ page }) => page.kind === 'document')?.page ?? null;
  }
  const usedIds = new Set<string>();

  const titleOf = (n: Node): string => {
    if (n.tocTitle) return n.tocTitle;
    if (n.file) {
      const heading = headingOf(n.file);
      if (heading !== null) return heading;
    }
    return n.fallbackTitle;
  };

  const slugCandidate = (n: Node, parent: Node | null, parentPath: string): string => {
    const matchPrevious = (): PageSnapshot | undefined =>
      previousChildren.get(parent ? (parent.previous?.id ?? '\u0000none') : null)?.find((p) => p.kind === n.kind && p.title === (n.tocTitle ?? ''));
    if (n.readme) return previousReadme?.slug ?? slugify(titleOf(n), 'readme');
    if (n.kind === 'document') {
      if (n.file) {
        const natural = naturalPath(n.file);
        return natural === '' ? slugify(titleOf(n), 'page') : slugFromName(basename(natural));
      }
      return n.slugHint ?? slugify(titleOf(n), 'page');
    }
    if (n.kind === 'group') {
      if (n.slugHint) return n.slugHint;
      // An exported group's pages sit in a folder named by its slug.
      const dirs = new Set(n.children.filter((c) => c.kind === 'document' && c.file && !c.readme).map((c) => dirname(naturalPath(c.file!))));
      const [dir] = dirs;
      if (dirs.size === 1 && dir !== '' && dirname(dir) === parentPath && VALID_SLUG.test(basename(dir))) return basename(dir);
      return matchPrevious()?.slug ?? slugify(n.tocTitle ?? '', 'group');
    }
    return matchPrevious()?.slug ?? slugify(n.tocTitle ?? '', 'link');
  };

  const assign = (list: Node[], parent: Node | null, parentPath: string) => {
    const taken = new Set<string>();
    for (const n of list) {
      n.slug = uniqueSlug(slugCandidate(n, parent, parentPath), taken);
      taken.add(n.slug);
      const path = joinPath(parentPath, n.slug);
      const before = previousPaths.get(path);
      if (before && !usedIds.has(before.id)) {
        n.previous = before;
        n.id = before.id;
      } else n.id = newId();
      usedIds.add(n.id);
      assign(n.children, n, path);
    }
  };
  assign(roots, null, '');

  const pageIdByFile = new Map<string, string>();
  const all: { node: Node; parent: Node | null; index: number }[] = [];
  const flatten = (list: Node[], parent: Node | null) =>
    list.forEach((n, index) => {
      all.push({ node: n, parent, index });
      if (n.kind === 'document' && n.file) pageIdByFile.set(n.file, n.id);
      flatten(n.children, n);
    });
  flatten(roots, null);

  /* --------------------------- reusable contents --------------------------- */

  // Each `.gitbook/includes/*.md` is a reusable content: the previous one of the same file name (as an
  // export names them) or title keeps its id, so includes resolve to the same ids import after import.
  const includesDir = joinPath(config.root, INCLUDES_DIRECTORY);
  const includeFiles = [...files.keys()].filter((path) => dirname(path) === includesDir && isMarkdownPath(path) && !basename(path).startsWith('.')).sort();
  const reusableIdByFile = new Map<string, string>();
  {
    const previousContents = [...(previous?.reusableContents.values() ?? [])];
    const taken = new Set<string>();
    const byName = (file: string) => previousContents.find((c) => !taken.has(c.id) && `${slugify(c.title, 'include')}.md` === basename(file));
    for (const file of includeFiles) {
      const match = byName(file);
      if (match) taken.add(match.id);
      reusableIdByFile.set(file, match?.id ?? '');
    }
    for (const file of includeFiles) {
      if (reusableIdByFile.get(file)) continue;
      const title = includeTitle(readText(file, null), file);
      const match = previousContents.find((c) => !taken.has(c.id) && c.title === title);
      if (match) taken.add(match.id);
      reusableIdByFile.set(file, match?.id ?? newId());
    }
  }

  /* ------------------------------- documents ------------------------------- */

  const assetPaths = new Set<string>();
  const pageRef = (path: string): string | null => {
    for (const candidate of markdownCandidates(path)) {
      const id = pageIdByFile.get(candidate);
      if (id) return id;
    }
    return null;
  };
  const resolveFrom = (file: string) => (href: string): ContentRef | null => {
    if (SCHEME.test(href) || href.startsWith('//')) return null;
    const { path, anchor } = splitHref(href);
    if (path === '') return anchor ? { kind: 'anchor', anchor } : null;
    const target = normalizePath(path.startsWith('/') ? joinPath(config.root, path) : joinPath(dirname(file), path));
    if (target === null) {
      warnings.push(`${file}: link to ${JSON.stringify(href)} leaves the repository; kept as a URL`);
      return null;
    }
    const page = pageRef(target);
    if (page) return anchor ? { kind: 'anchor', anchor, page } : { kind: 'page', page };
    const reusableContent = reusableIdByFile.get(target);
    if (reusableContent) return { kind: 'reusable-content', reusableContent };
    if (!isMarkdownPath(target) && files.has(target) && isWithin(config.projectDirectory, target)) {
      assetPaths.add(target);
      return { kind: 'file', file: ASSET_PLACEHOLDER + target };
    }
    const listedNot = markdownCandidates(target).some((p) => files.has(p));
    warnings.push(`${file}: link to ${JSON.stringify(href)} ${listedNot ? 'is not a page of the table of contents' : 'points to a missing file'}; kept as a URL`);
    return null;
  };

  /*
   * A page's document: its file converted, or (./import-cache.ts) the document the last import
   * made of the same bytes whose every link resolves now as it did then. The conversion is
   * deterministic and asks `resolveHref` about its hrefs in an order that depends only on the text
   * and the answers so far: the same bytes and the same answers give the same document.
   */
  interface Parsed {
    /** null for a reused document `previous` does not hold (stored, not sent). */
    document: JSONDocument | null;
    meta: PageMeta;
    title: string;
    /** The cache entry of a converted page (its documentHash and assets set once its files have ids), or the entry reused. */
    entry: ImportCacheEntry | null;
    reused: boolean;
  }
  const cached = cacheIn?.files ?? {};
  const stats = { converted: 0, reused: 0 };
  const pageTitle = (n: Node, heading: string | null) => n.tocTitle || (heading ?? n.fallbackTitle);
  /** The cached document of a page file, when its bytes and every link it resolved are the same. */
  const fromCache = (n: Node, file: string, blob: string): Parsed | null => {
    const entry = cached[file];
    if (!entry || entry.blob !== blob) return null;
    // The table of contents names the page (GitBook's rule); a different heading stays in the text.
    if (entry.kept !== (Boolean(n.tocTitle) && entry.title !== null && entry.title !== n.tocTitle)) return null;
    const resolve = resolveFrom(file);
    for (const [href, resolved] of entry.refs) {
      const ref = resolve(href);
      if ((ref === null ? null : stringify(ref)) !== resolved) return null;
    }
    return { document: previous?.documents.get(entry.documentHash) ?? null, meta: entry.meta, title: pageTitle(n, entry.title), entry, reused: true };
  };
  const convertPage = (n: Node, file: string, text: string, blob: string): Parsed => {
    const resolve = resolveFrom(file);
    let refs: ImportCacheEntry['refs'] = [];
    const resolveHref = (href: string): ContentRef | null => {
      const ref = resolve(href);
      refs.push([href, ref === null ? null : stringify(ref)]);
      return ref;
    };
    stats.converted++;
    let result = convert(file, text, resolveHref);
    const heading = result?.title ?? null;
    const kept = result !== null && Boolean(n.tocTitle) && heading !== null && heading !== n.tocTitle;
    if (kept) {
      refs = [];
      result = convert(file, withLeadingPlaceholderTitle(text), resolveHref);
    }
    if (result === null) return { document: markdownToDocument('').document, meta: metaFromFrontmatter({}), title: pageTitle(n, heading), entry: null, reused: false };
    // The frontmatter's hrefs (cover, metaLinks) resolve as the text's links do, and are checked with them by the cache.
    const meta = metaFromFrontmatter(result.frontmatter, resolveHref);
    const entry: ImportCacheEntry = { blob, kept, refs, assets: [], documentHash: '', title: heading, meta };
    return { document: result.document, meta, title: pageTitle(n, heading), entry, reused: false };
  };
  const parsePage = (n: Node): Parsed => {
    // A page the cache keeps is not decoded: its bytes' hash is enough.
    const hit = n.file && files.has(n.file) && cached[n.file] ? fromCache(n, n.file, hashOf(n.file)) : null;
    if (hit) return hit;
    const text = n.file ? readText(n.file, null) : null;
    if (text === null) return { document: markdownToDocument('').document, meta: metaFromFrontmatter({}), title: titleOf(n), entry: null, reused: false };
    return convertPage(n, n.file!, text, hashOf(n.file!));
  };
  const parsed = new Map<Node, Parsed>();
  for (const { node: n } of all) if (n.kind === 'document') parsed.set(n, parsePage(n));

  // Referenced files of the content, and every file of the assets folder (a space's files are all exported there).
  const assetsDir = joinPath(config.root, ASSETS_DIRECTORY);
  for (const path of files.keys()) {
    if (isWithin(assetsDir, path) && path !== assetsDir && !isMarkdownPath(path) && !basename(path).startsWith('.')) assetPaths.add(path);
  }

  /* --------------------------------- files --------------------------------- */

  const snapshot = emptySnapshot();
  snapshot.variables = readVariables(files, joinPath(config.root, VARIABLES_FILE), warnings);
  snapshot.tags = readTags(files, joinPath(config.root, TAGS_FILE), warnings);
  /** The tags of a page's frontmatter that the space defines (the others are left out, with a warning). */
  const definedTags = (file: string, tags: PageTag[] | null): PageTag[] | null => {
    const kept = tags?.filter((t) => snapshot.tags.has(t.tag)) ?? [];
    for (const t of tags ?? []) if (!snapshot.tags.has(t.tag)) warnings.push(`${file}: tag ${JSON.stringify(t.tag)} is not in ${TAGS_FILE}; left out`);
    return kept.length ? kept : null;
  };
  for (const [source, target] of config.redirects) {
    const page = markdownCandidates(target).map((candidate) => pageIdByFile.get(candidate)).find((id) => id !== undefined);
    if (page) snapshot.redirects.set(source, page);
    else warnings.push(`${CONFIG_FILE}: redirect ${JSON.stringify(source)} leads to ${target}, which is not a page; ignored`);
  }
  const fileIdByPath = new Map<string, string>();
  const previousFiles = previous ? [...previous.files.values()] : [];
  const usedFileIds = new Set<string>();
  const fileByContent = new Map<string, FileSnapshot>();
  const storeAsset = async (path: string) => {
    const name = basename(path);
    const stored = await options.storeFile(files.get(path)!, name);
    const contentKey = `${name}\u0000${stored.storageKey}`;
    let file = fileByContent.get(contentKey);
    if (!file) {
      const free = previousFiles.filter((f) => !usedFileIds.has(f.id) && f.storageKey === stored.storageKey);
      const match = free.find((f) => f.name === name) ?? free.find((f) => isExportedName(name, f.name));
      file = {
        id: match?.id ?? newId(),
        name: match?.name ?? name,
        contentType: stored.contentType,
        size: stored.size,
        storageKey: stored.storageKey,
        width: stored.width,
        height: stored.height,
      };
      usedFileIds.add(file.id);
      fileByContent.set(contentKey, file);
      snapshot.files.set(file.id, file);
    }
    fileIdByPath.set(path, file.id);
  };
  for (const path of [...assetPaths].sort()) await storeAsset(path);

  const patchAssets = (value: unknown): void => {
    if (Array.isArray(value)) for (const item of value) patchAssets(item);
    else if (value !== null && typeof value === 'object') {
      const record = value as Record<string, unknown>;
      if (record.kind === 'file' && typeof record.file === 'string' && record.file.startsWith(ASSET_PLACEHOLDER)) {
        record.file = fileIdByPath.get(record.file.slice(ASSET_PLACEHOLDER.length))!;
      }
      for (const child of Object.values(record)) patchAssets(child);
    }
  };

  /* --------------------------------- pages --------------------------------- */

  const linkTarget = (n: Node): ContentRef => {
    const link = n.link!;
    switch (link.type) {
      case 'url':
        return { kind: 'url', url: link.url };
      case 'ref':
        return link.ref;
      case 'asset':
        return { kind: 'file', file: fileIdByPath.get(link.path)! };
      case 'page': {
        const page = pageIdByFile.get(link.file);
        if (page) return link.anchor ? { kind: 'anchor', anchor: link.anchor, page } : { kind: 'page', page };
        warnings.push(`${config.summary}: "${n.tocTitle}" links to ${JSON.stringify(link.href)}, which is not a page; kept as a link`);
        return { kind: 'url', url: link.href };
      }
    }
  };

  // A cached document's files are the ones it was made with, or it is converted again.
  for (const [n, p] of parsed) {
    if (!p.reused || p.entry!.assets.every(([path, fileId]) => fileIdByPath.get(path) === fileId)) continue;
    const again = convertPage(n, n.file!, readText(n.file!, null)!, p.entry!.blob);
    parsed.set(n, again);
  }
  for (const path of [...assetPaths].sort()) if (!fileIdByPath.has(path)) await storeAsset(path);

  /** The page's document in the snapshot, and its cache entry for the next import. */
  const documentOf = (n: Node, p: Parsed): string => {
    if (p.reused) {
      stats.reused++;
      if (p.document) snapshot.documents.set(p.entry!.documentHash, p.document);
      cacheOut.files[n.file!] = p.entry!;
      return p.entry!.documentHash;
    }
    patchAssets(p.document);
    const hash = putDocument(snapshot, p.document!);
    if (p.entry) {
      const assets = new Set<string>();
      for (const [, resolved] of p.entry.refs) {
        const ref = resolved === null ? null : (JSON.parse(resolved) as ContentRef);
        if (ref?.kind === 'file' && typeof ref.file === 'string' && ref.file.startsWith(ASSET_PLACEHOLDER)) assets.add(ref.file.slice(ASSET_PLACEHOLDER.length));
      }
      cacheOut.files[n.file!] = { ...p.entry, documentHash: hash, assets: [...assets].sort().map((path) => [path, fileIdByPath.get(path)!]) };
    }
    return hash;
  };

  for (const { node: n, parent, index } of all) {
    const base = { id: n.id, kind: n.kind, parentId: parent?.id ?? null, index, slug: n.slug };
    let page: Omit<PageSnapshot, 'createdAt' | 'updatedAt'>;
    if (n.kind === 'document') {
      const p = parsed.get(n)!;
      patchAssets(p.meta);
      page = { ...base, title: p.title, ...p.meta, tags: definedTags(n.file ?? n.tocTitle ?? n.id, p.meta.tags), documentHash: documentOf(n, p), linkTarget: null };
    } else {
      page = {
        ...base,
        title: n.tocTitle ?? '',
        description: null,
        emoji: n.emoji,
        icon: n.icon,
        hidden: false,
        noIndex: false,
        noRobotsIndex: false,
        documentHash: null,
        linkTarget: n.kind === 'link' ? linkTarget(n) : null,
        layout: null,
        ...NO_PAGE_SETTINGS,
      };
    }
    const before = n.previous;
    snapshot.pages.set(n.id, {
      ...page,
      createdAt: before?.createdAt ?? options.now,
      updatedAt: before && sameContent(before, page) ? before.updatedAt : options.now,
    });
  }
  for (const file of includeFiles) {
    const id = reusableIdByFile.get(file)!;
    const text = readText(file, null);
    const converted = text === null ? null : convert(file, text, resolveFrom(file));
    const document = converted?.document ?? markdownToDocument('').document;
    patchAssets(document);
    snapshot.reusableContents.set(id, { id, title: includeTitle(text, file), documentHash: putDocument(snapshot, document) });
  }
  const paths: RepositoryPaths = { pages: {}, files: {}, reusableContents: {} };
  for (const [file, id] of reusableIdByFile) paths.reusableContents[id] = file;
  for (const { node: n } of all) if (n.kind === 'document' && n.file && files.has(n.file)) paths.pages[n.id] = n.file;
  for (const [path, fileId] of [...fileIdByPath].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) paths.files[fileId] ??= path;
  // A page parsed twice (its heading kept) would repeat its link warnings.
  return { snapshot, warnings: [...new Set(warnings)], cache: cacheOut, stats, paths };
}

/** The space's variables of `.gitbook/vars.yaml` (none without it; names or values a variable cannot have are left out, with a warning). */
function readVariables(files: ReadonlyMap<string, Uint8Array>, path: string, warnings: string[]): RevisionSnapshot['variables'] {
  const bytes = files.get(path);
  if (!bytes) return {};
  let parsed: unknown;
  try {
    parsed = YAML.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
  } catch {
    warnings.push(`${path}: not UTF-8 YAML, no variables read`);
    return {};
  }
  if (parsed === null || parsed === undefined) return {};
  const variables = variablesFromFrontmatter(parsed) ?? {};
  const left = typeof parsed === 'object' && !Array.isArray(parsed) ? Object.keys(parsed).filter((name) => !(name in variables)) : null;
  if (left === null) warnings.push(`${path}: not a YAML mapping, no variables read`);
  else if (left.length) warnings.push(`${path}: ${left.map((name) => JSON.stringify(name)).join(', ')} not read (a name is letters, digits and "_"; a value a string of at most 256 characters, a number or a boolean)`);
  return variables;
}

/**
 * The space's tags of `.gitbook/tags.yaml`, in its order (none without it): each entry a mapping
 * of `tag` (the slug), `label` (else the slug), `emoji` (the character) or `icon`, and `color`
 * (default when absent). Entries a tag cannot be made of are left out, with a warning.
 */
function readTags(files: ReadonlyMap<string, Uint8Array>, path: string, warnings: string[]): RevisionSnapshot['tags'] {
  const tags: RevisionSnapshot['tags'] = new Map();
  const bytes = files.get(path);
  if (!bytes) return tags;
  let parsed: unknown;
  try {
    parsed = YAML.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
  } catch {
    warnings.push(`${path}: not UTF-8 YAML, no tags read`);
    return tags;
  }
  if (parsed === null || parsed === undefined) return tags;
  if (!Array.isArray(parsed)) {
    warnings.push(`${path}: not a YAML list, no tags read`);
    return tags;
  }
  for (const [i, entry] of parsed.entries()) {
    if (entry === null || typeof entry !== 'object' || Array.isArray(entry)) {
      warnings.push(`${path}: entry ${i + 1} is not a mapping of tag, label, emoji or icon, and color; left out`);
      continue;
    }
    const e = entry as Record<string, unknown>;
    const made = tagFromInput({ tag: e.tag, label: e.label ?? e.tag, color: e.color, emoji: e.emoji, icon: e.icon }, null);
    if (made.problem !== undefined) warnings.push(`${path}: entry ${i + 1} left out (${made.problem})`);
    else if (tags.has(made.value.slug)) warnings.push(`${path}: tag ${JSON.stringify(made.value.slug)} is listed twice; the first is kept`);
    else tags.set(made.value.slug, made.value);
  }
  return tags;
}

/** `.gitbook/tags.yaml` of a space's tags: emoji as the character, color only when not the default. */
function tagsYaml(tags: Iterable<TagSnapshot>): string {
  return YAML.stringify(
    [...tags].map((t) => ({
      tag: t.slug,
      label: t.label,
      ...(t.emoji !== null && { emoji: emojiText(t.emoji) }),
      ...(t.icon !== null && { icon: t.icon }),
      ...(t.color !== DEFAULT_TAG_COLOR && { color: t.color }),
    })),
  );
}

/** A reusable content's title: its file's frontmatter `title`, else its name (`api-warning.md` -> "Api warning"). */
function includeTitle(text: string | null, file: string): string {
  const frontmatter = text === null ? null : /^---[ \t]*\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)/.exec(text.replace(/^\uFEFF/, ''));
  if (frontmatter) {
    try {
      const parsed: unknown = YAML.parse(frontmatter[1]!);
      const title = (parsed as { title?: unknown } | null)?.title;
      if (typeof title === 'string' && title.trim() !== '') return title.trim();
    } catch {
      // not YAML: the name gives the title
    }
  }
  return titleFromName(stripMarkdownExtension(basename(file)));
}

function hasDotSegment(path: string): boolean {
  return path.split('/').some((segment) => segment.startsWith('.'));
}

/** A page's own fields (not its place in the tree): what decides whether it was updated. */
const CONTENT_FIELDS = PAGE_FIELDS.filter((field) => field !== 'parentId' && field !== 'index' && field !== 'slug');

function sameContent(a: Omit<PageSnapshot, 'createdAt' | 'updatedAt'>, b: Omit<PageSnapshot, 'createdAt' | 'updatedAt'>): boolean {
  return CONTENT_FIELDS.every((field) => stringify(a[field] ?? null) === stringify(b[field] ?? null));
}

/**
 * The markdown with a `# _` line before its first heading, so that heading
 * stays in the document when the table of contents gives another title.
 */
function withLeadingPlaceholderTitle(text: string): string {
  const normalized = text.replaceAll('\r\n', '\n');
  const frontmatter = /^---[ \t]*\n(?:[\s\S]*?\n)?---[ \t]*(?:\n|$)/.exec(normalized);
  const at = frontmatter ? frontmatter[0].length : 0;
  return `${normalized.slice(0, at)}# _\n\n${normalized.slice(at)}`;
}

/* -------------------------------------------------------------------------- */
/* Export                                                                      */
/* -------------------------------------------------------------------------- */

/** A space file's name as an assets-folder file name: no folders, no leading dot. */
function assetFileName(name: string): string {
  const cleaned = name.replace(/[/\\\u0000-\u001f]/g, '-').replace(/^\.+/, '');
  return cleaned === '' ? 'file' : cleaned;
}

function splitExtension(name: string): [string, string] {
  const dot = name.lastIndexOf('.');
  return dot > 0 ? [name.slice(0, dot), name.slice(dot)] : [name, ''];
}

/** True when `written` is how an export names a file called `original` (cleaned, maybe `name (2).png`). */
function isExportedName(written: string, original: string): boolean {
  const cleaned = assetFileName(original);
  if (written === cleaned) return true;
  const [stem, extension] = splitExtension(cleaned);
  return written.startsWith(`${stem} (`) && written.endsWith(`)${extension}`) && /^\d+$/.test(written.slice(stem.length + 2, written.length - extension.length - 1));
}

/**
 * Writes a revision's content as GitBook's Git Sync lays it out. The snapshot
 * must hold the documents of all its pages. Same content, same bytes.
 */
export async function exportRepository(snapshot: RevisionSnapshot, options: ExportRepositoryOptions): Promise<Map<string, Uint8Array>> {
  return (await exportRepositoryWithPaths(snapshot, options)).files;
}

/** exportRepository, and the file each document page and space file was written to. */
export async function exportRepositoryWithPaths(
  snapshot: RevisionSnapshot,
  options: ExportRepositoryOptions,
): Promise<{ files: Map<string, Uint8Array>; paths: RepositoryPaths }> {
  const projectDirectory = normalizeProjectDirectory(options.projectDirectory);
  const root = normalizePath(options.root ?? '') ?? '';
  const base = joinPath(projectDirectory, root);
  const encoder = new TextEncoder();
  const out = new Map<string, Uint8Array>();
  const write = (contentPath: string, bytes: Uint8Array) => out.set(joinPath(base, contentPath), bytes);

  const order = pagesInOrder(snapshot.pages);
  const byParent = childrenByParent(snapshot.pages);
  // Page files, relative to the content root.
  const fileOf = pageFiles(snapshot.pages);

  // Files, under unique names (GitBook's `image (1).png`), case-insensitively so any checkout can hold them.
  const assetOf = new Map<string, string>();
  const takenNames = new Set<string>();
  const sortedFiles = [...snapshot.files.values()].sort((a, b) => compareNames(a.name, b.name) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  for (const file of sortedFiles) {
    const cleaned = assetFileName(file.name);
    const [stem, extension] = splitExtension(cleaned);
    let name = cleaned;
    for (let n = 1; takenNames.has(name.toLowerCase()); n++) name = `${stem} (${n})${extension}`;
    takenNames.add(name.toLowerCase());
    assetOf.set(file.id, joinPath(ASSETS_DIRECTORY, name));
  }

  // Reusable contents, under unique names from their titles.
  const includeOf = new Map<string, string>();
  const includeNames = new Set<string>();
  for (const content of [...snapshot.reusableContents.values()].sort((a, b) => compareNames(a.title, b.title) || (a.id < b.id ? -1 : 1))) {
    const name = uniqueSlug(slugify(content.title, 'include'), includeNames);
    includeNames.add(name);
    includeOf.set(content.id, joinPath(INCLUDES_DIRECTORY, `${name}.md`));
  }

  const hrefFrom = (fromDir: string) => (ref: ContentRef): string | null => {
    if ('space' in ref && ref.space !== undefined) return null;
    const link = (to: string) => encodeLinkPath(relativeLink(fromDir, to));
    if (ref.kind === 'reusable-content' && typeof ref.reusableContent === 'string') {
      const include = includeOf.get(ref.reusableContent);
      return include ? link(include) : null;
    }
    if (ref.kind === 'page' && typeof ref.page === 'string') {
      const file = fileOf.get(ref.page);
      return file ? link(file) : null;
    }
    if (ref.kind === 'anchor' && typeof ref.page === 'string' && typeof ref.anchor === 'string') {
      const file = fileOf.get(ref.page);
      return file ? `${link(file)}#${ref.anchor}` : null;
    }
    if (ref.kind === 'file' && typeof ref.file === 'string') {
      const asset = assetOf.get(ref.file);
      return asset ? link(asset) : null;
    }
    return null;
  };

  for (const { page } of order) {
    if (page.kind !== 'document') continue;
    const file = fileOf.get(page.id)!;
    const document = page.documentHash ? snapshot.documents.get(page.documentHash) : markdownToDocument('').document;
    if (!document) throw new Error(`exportRepository: the document ${page.documentHash} of page ${page.id} is not in the snapshot`);
    const markdown = documentToMarkdown(document, {
      title: page.title,
      frontmatter: frontmatterFromMeta(page, hrefFrom(dirname(file))),
      hrefFor: hrefFrom(dirname(file)),
    });
    write(file, encoder.encode(markdown));
  }

  for (const file of sortedFiles) write(assetOf.get(file.id)!, await options.readFile(file.storageKey));

  for (const content of snapshot.reusableContents.values()) {
    const file = includeOf.get(content.id)!;
    const document = snapshot.documents.get(content.documentHash);
    if (!document) throw new Error(`exportRepository: the document ${content.documentHash} of reusable content ${content.id} is not in the snapshot`);
    write(file, encoder.encode(documentToMarkdown(document, { frontmatter: { title: content.title }, hrefFor: hrefFrom(dirname(file)) })));
  }

  // SUMMARY.md: groups at the end of the root are headings; others (which a heading would swallow the following pages into) are plain items.
  const summaryHref = hrefFrom('');
  const linkHref = (target: ContentRef | null): string => {
    if (!target) return '';
    const href = summaryHref(target);
    if (href !== null) return href;
    if (target.kind === 'url' && typeof target.url === 'string') return target.url;
    if (target.kind === 'page' && typeof target.page === 'string') return `/pages/${target.page}`;
    if (target.kind === 'file' && typeof target.file === 'string') return `/files/${target.file}`;
    if (target.kind === 'anchor' && typeof target.anchor === 'string') return `${typeof target.page === 'string' ? `/pages/${target.page}` : ''}#${target.anchor}`;
    return '';
  };
  const item = (page: PageSnapshot, heading = false): SummaryItem => ({
    title: page.title,
    href: page.kind === 'document' ? encodeLinkPath(fileOf.get(page.id)!) : page.kind === 'link' ? linkHref(page.linkTarget) : null,
    heading,
    emoji: page.kind === 'document' ? null : page.emoji,
    icon: page.kind === 'document' ? null : page.icon,
    // A group's slug is the folder of its pages; the anchor says it when its title would give another.
    anchor: page.kind === 'group' && page.slug !== slugify(page.title, 'group') ? page.slug : null,
    children: (byParent.get(page.id) ?? []).map((child) => item(child)),
  });
  // Groups at the top are headings; pages after one follow a rule (summary.ts).
  write('SUMMARY.md', encoder.encode(printSummary((byParent.get(null) ?? []).map((page) => item(page, page.kind === 'group')))));

  if (Object.keys(snapshot.variables).length) write(VARIABLES_FILE, encoder.encode(YAML.stringify(snapshot.variables)));
  if (snapshot.tags.size) write(TAGS_FILE, encoder.encode(tagsYaml(snapshot.tags.values())));
  // Redirects to pages without a file (deleted, or not document pages) have nowhere to lead.
  const redirects = [...snapshot.redirects].flatMap(([source, page]): [string, string][] => (fileOf.has(page) ? [[source, fileOf.get(page)!]] : []));
  out.set(joinPath(projectDirectory, CONFIG_FILE), encoder.encode(contentConfigYaml(root, redirects)));
  const written: RepositoryPaths = { pages: {}, files: {}, reusableContents: {} };
  for (const [id, include] of includeOf) written.reusableContents[id] = joinPath(base, include);
  for (const [id, file] of fileOf) written.pages[id] = joinPath(base, file);
  for (const [id, asset] of assetOf) written.files[id] = joinPath(base, asset);
  return { files: new Map([...out].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))), paths: written };
}

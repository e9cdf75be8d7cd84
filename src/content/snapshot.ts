/**
 * The content of one revision, in memory: the shapes the revision store reads
 * and writes, the change-request operations edit, and the three-way merge
 * compares. Nothing here touches the database.
 *
 * A revision is immutable. Its page tree is a flat map of pages, each knowing
 * its parent and its index among its siblings; documents are stored once per
 * distinct content (content-addressed by `documentHash`), so two revisions
 * that share a page's text share its row.
 */
import type { StoredChunks } from '../db/revision-chunks.ts';
import type { PageKind } from '../db/value-sets.ts';
import type { ContentRef, JSONDocument } from './document/model.ts';

/** document | group | link (PAGE_KINDS). */
export type { PageKind };

export interface PageSnapshot {
  id: string;
  kind: PageKind;
  /** null for a root page. */
  parentId: string | null;
  /** Zero-based index among the siblings of the same parent. */
  index: number;
  title: string;
  /** The page's slug within its parent; paths are the slugs joined by '/'. */
  slug: string;
  description: string | null;
  emoji: string | null;
  icon: string | null;
  hidden: boolean;
  /** Left out of search and ask (this service's search index). */
  noIndex: boolean;
  /** Left out of search engines' indexes (the site renderer's `robots` meta). */
  noRobotsIndex: boolean;
  /** Content hash of the page's document (document pages only). */
  documentHash: string | null;
  /** Target of a link page. */
  linkTarget: ContentRef | null;
  /** JSON RevisionPageLayoutOptions, null for the default layout. */
  layout: Record<string, unknown> | null;
  /** The cover image (document pages), null for none. */
  cover: PageCover | null;
  /** Canonical and alternate links for search engines, null for none. */
  metaLinks: PageMetaLinks | null;
  /** The page's own variables (expressions read them as `page.vars.<name>`), null for none. */
  variables: Variables | null;
  /** The computed content source the page was generated from (ComputedContentSourceDocument), kept as data. */
  computed: Record<string, unknown> | null;
  /** Seed of the ids of a computed page's content. */
  computedSeed: string | null;
  /** The tags of the revision the page carries (RevisionPageTag), in order; null for none. */
  tags: PageTag[] | null;
  createdAt: Date;
  updatedAt: Date;
}

/** A variable's value (VariableValue): a string of at most 256 characters, a number or a boolean. */
export type VariableValue = string | number | boolean;
export type Variables = Record<string, VariableValue>;

/** RevisionPageDocumentCover: a file of the revision or a URL, for light and dark themes. */
export interface PageCover {
  ref: ContentRef;
  refDark?: ContentRef;
  /** Vertical position of the image, in pixels. */
  yPos: number;
  /** Height of the cover, 10 to 700 pixels (GitBook's default 240 when absent). */
  height?: number;
}

/** RevisionPageMetaLinks: each target a page of the revision or a URL. */
export interface PageMetaLinks {
  canonical?: ContentRef;
  alternates?: ContentRef[];
}

/** A tag a page carries (RevisionPageTag): the slug of a tag of its revision; `primary` marks the one shown in the table of contents. */
export interface PageTag {
  tag: string;
  primary?: true;
}

/** The page settings that default to null (a page without them stores none). */
export const PAGE_SETTINGS = ['cover', 'metaLinks', 'variables', 'computed', 'computedSeed', 'tags'] as const satisfies readonly (keyof PageSnapshot)[];

/** A page's settings left at their defaults, for pages made without them. */
export const NO_PAGE_SETTINGS: Pick<PageSnapshot, (typeof PAGE_SETTINGS)[number]> = {
  cover: null,
  metaLinks: null,
  variables: null,
  computed: null,
  computedSeed: null,
  tags: null,
};

export interface FileSnapshot {
  id: string;
  name: string;
  contentType: string;
  size: number;
  /** The storage key (sha-256 of the bytes, hex). */
  storageKey: string;
  width: number | null;
  height: number | null;
}

/** The file `id` with the fields of `file` (a row, an upload) and nothing else of it. */
export function fileSnapshot(id: string, file: Omit<FileSnapshot, 'id'>): FileSnapshot {
  return { id, name: file.name, contentType: file.contentType, size: file.size, storageKey: file.storageKey, width: file.width, height: file.height };
}

/** A reusable content of a revision: a titled document pages include by reference (a `reusable-content` block). */
export interface ReusableContentSnapshot {
  id: string;
  title: string;
  /** Content hash of its document (stored as a page's is). */
  documentHash: string;
}

/**
 * A tag of a revision (RevisionTag): a slug pages carry it by (immutable), a label (renamable), a
 * color (DocumentTextColor, src/content/tags.ts) and an emoji (its code, as a page's) or an icon.
 */
export interface TagSnapshot {
  slug: string;
  label: string;
  color: string;
  emoji: string | null;
  icon: string | null;
}

export interface RevisionSnapshot {
  pages: Map<string, PageSnapshot>;
  /** The revision's reusable contents, by id. */
  reusableContents: Map<string, ReusableContentSnapshot>;
  /** The tags pages may carry, by slug, in the order they are listed. */
  tags: Map<string, TagSnapshot>;
  /** The space's variables (expressions read them as `space.vars.<name>`). */
  variables: Variables;
  /**
   * The space's redirects, in order: an old path (relative to the space, no leading slash, as
   * `.gitbook.yaml` writes it) -> the id of the page it now leads to. One to a page the content
   * no longer has is kept and ignored.
   */
  redirects: Map<string, string>;
  files: Map<string, FileSnapshot>;
  /** Documents by hash, for the pages and reusable contents above (only those loaded). */
  documents: Map<string, JSONDocument>;
  /**
   * The stored chunks this content was read from (src/content/revision-store.ts): writing it as a
   * revision takes their hashes for the runs of pages and files that did not change, instead of
   * hashing every entry again. Shared, never changed, by the copies and merges made from it.
   */
  storedChunks?: StoredChunks;
  /** The chunk lists of the revision this content was read as (loadSnapshot); copies and merges do not have them. */
  storedLists?: { pageChunks: string[]; fileChunks: string[] };
}

/** The fields of a page a change compares, in the order conflicts report them. */
export const PAGE_FIELDS = [
  'kind',
  'parentId',
  'index',
  'title',
  'slug',
  'description',
  'emoji',
  'icon',
  'hidden',
  'noIndex',
  'noRobotsIndex',
  'documentHash',
  'linkTarget',
  'layout',
  ...PAGE_SETTINGS,
] as const satisfies readonly (keyof PageSnapshot)[];

export type PageField = (typeof PAGE_FIELDS)[number];

/**
 * The content operations of a change request (`POST .../content`, shaped as
 * `@gitbook/api@0.202.0` shapes them): insert_page, update_page, delete_page,
 * revert_page and insert_files, and ours, set_variables (the space's
 * variables), set_redirects (old paths leading to pages),
 * insert/update/delete_reusable_content and insert/update/delete_tag, applied in order to a copy
 * of the change request's content.
 * Pages take their settings (cover, layout, metaLinks, variables, computed, tags)
 * from fields of the change beyond 0.202.0's, or from Markdown frontmatter
 * as Git Sync writes it (page-frontmatter.ts). Any invalid change fails the whole batch before anything
 * is written (the caller writes the result as one revision, or nothing).
 *
 * `ref`s: a page or file inserted in the batch can be linked from any page of
 * the same batch by its ref (`[x](./<ref>.md)`, `![x](./<ref>)`), whatever the
 * order of the operations, so every ref gets its id before the first change runs.
 */
import { InvalidInputError, LimitExceededError } from '../errors/index.ts';
import { newId } from '../ids.ts';
import { slugify } from '../slug.ts';
import type { MarkdownToDocumentResult } from './document/markdown-parse.ts';
import { type ContentRef, type JSONDocument, type JSONNode } from './document/model.ts';
import { documentProblem } from './document/validate.ts';
import { metaFromFrontmatter } from './page-frontmatter.ts';
import { normalizeHref, pageKey, resolveFromTable, type HrefTable } from './page-hrefs.ts';
import { changedVariables, computedProblem, coverProblem, layoutProblem, metaLinksProblem, normalizeCover, variablesProblem } from './page-settings.ts';
import { freeSlug, INCLUDES_DIRECTORY, pageFiles, pagePaths, placePage, removePage, subtreeIds } from './page-tree.ts';
import { cloneSnapshot, putDocument } from './revision-store.ts';
import { fileSnapshot, type FileSnapshot, type PageCover, type PageSnapshot, type RevisionSnapshot, type VariableValue } from './snapshot.ts';
import { MAX_TAGS, pageTagsFrom, tagFromInput, tagSlugProblem, type TagInput } from './tags.ts';

export const MAX_CHANGES_PER_BATCH = 50;

/** A page document as the wire gives it: Markdown, a JSON document, or nothing. */
export type DocumentInput = { markdown: string } | { document: JSONDocument } | Record<string, never>;

export interface PageMetadataInput {
  title?: string | null;
  slug?: string | null;
  emoji?: string | null;
  icon?: string | null;
  description?: string | null;
  hidden?: boolean | null;
  noIndex?: boolean | null;
  noRobotsIndex?: boolean | null;
  /** The settings below are checked by page-settings.ts; null removes one. */
  cover?: PageCover | null;
  layout?: Record<string, unknown> | null;
  metaLinks?: PageSnapshot['metaLinks'];
  variables?: PageSnapshot['variables'];
  computed?: PageSnapshot['computed'];
  computedSeed?: string | null;
  /** Slugs of the revision's tags, `{tag, primary?}` or RevisionPageTag (tags.ts's pageTagsFrom). */
  tags?: unknown;
}

/** The settings of PageMetadataInput that hold objects, each with its check. */
const SETTING_CHECKS = {
  cover: coverProblem,
  layout: layoutProblem,
  metaLinks: metaLinksProblem,
  variables: (v: unknown) => variablesProblem(v),
  computed: computedProblem,
  tags: (v: unknown) => pageTagsFrom(v).problem ?? null,
} as const;
/** The frontmatter keys that set each setting (present: the page's setting is what the frontmatter says). */
const FRONTMATTER_KEYS = {
  description: ['description'],
  icon: ['icon'],
  emoji: ['emoji'],
  hidden: ['hidden'],
  noIndex: ['noIndex'],
  noRobotsIndex: ['noRobotsIndex'],
  layout: ['layout'],
  cover: ['cover', 'coverY', 'coverHeight'],
  metaLinks: ['metaLinks'],
  variables: ['vars'],
  computed: ['computed'],
  computedSeed: ['computedSeed'],
  tags: ['tags'],
} as const satisfies Partial<Record<keyof PageMetadataInput, readonly string[]>>;

export type ContentChange =
  | ({ operation: 'insert_page'; document: DocumentInput; into?: string | null; at?: number | null; ref?: string | null } & PageMetadataInput)
  | ({ operation: 'update_page'; page: string; document?: DocumentInput | null; into?: string | null; at?: number | null } & PageMetadataInput)
  | { operation: 'delete_page'; page: string }
  | { operation: 'revert_page'; page: string; revision?: string | null; block?: string[] | null }
  | { operation: 'insert_files'; files: UploadedFile[] }
  | { operation: 'set_variables'; variables: Record<string, VariableValue | null> }
  | { operation: 'set_redirects'; redirects: Record<string, string | null> }
  | { operation: 'insert_reusable_content'; title?: string | null; document: DocumentInput; ref?: string | null }
  | { operation: 'update_reusable_content'; reusableContent: string; title?: string | null; document?: DocumentInput | null }
  | { operation: 'delete_reusable_content'; reusableContent: string }
  | ({ operation: 'insert_tag' | 'update_tag'; tag: string } & Omit<TagInput, 'tag'>)
  | { operation: 'delete_tag'; tag: string };

/** A file of an insert_files change, its bytes already fetched or decoded and stored. */
export type UploadedFile = Omit<FileSnapshot, 'id'> & { ref?: string | null };

/** The most reusable contents a revision holds. */
export const MAX_REUSABLE_CONTENTS = 500;
/** The most redirects a revision holds, and the longest old path (SiteRedirectSourcePath's). */
export const MAX_REDIRECTS = 1000;
const MAX_REDIRECT_SOURCE = 512;
/** An old path: segments of URL path characters (unreserved or percent-encoded), no leading slash. */
const REDIRECT_SOURCE = /^(?:[A-Za-z0-9\-._~+]|%[0-9A-Fa-f]{2})+(?:\/(?:[A-Za-z0-9\-._~+]|%[0-9A-Fa-f]{2})+)*$/;

export type PageOutcome =
  | { object: 'created_page'; ref?: string; page: string }
  | { object: 'updated_page'; page: string }
  | { object: 'deleted_page'; page: string };

export type ReusableContentOutcome =
  | { object: 'created_reusable_content'; ref?: string; reusableContent: string }
  | { object: 'updated_reusable_content' | 'deleted_reusable_content'; reusableContent: string };

export interface ApplyResult {
  snapshot: RevisionSnapshot;
  /** One entry per affected page, in the order the pages were first touched. */
  changes: PageOutcome[];
  insertedFiles: FileSnapshot[];
  /** What happened to reusable contents, in the order of the changes. */
  reusableContents: ReusableContentOutcome[];
}

export interface ApplyOptions {
  now: Date;
  /** The content `revert_page` goes back to (the change request's base, or the revision it names). */
  loadRevertTarget: (revisionId: string | null) => Promise<RevisionSnapshot>;
  /** Documents of the current content that are not in `snapshot.documents` yet. */
  loadDocument: (hash: string) => Promise<JSONDocument | null>;
  /**
   * Converts a change's Markdown, relative hrefs resolving through `hrefs` from `folder` (the
   * folder of the page's file: content/page-hrefs.ts; a request's conversions run on the worker
   * threads); by default here, under the default limits.
   */
  convertMarkdown?: (markdown: string, hrefs: HrefTable, folder: string) => Promise<MarkdownToDocumentResult>;
}

function bad(index: number, message: string): never {
  throw new InvalidInputError(`changes[${index}]: ${message}`);
}

/**
 * Converts Markdown on this thread (callers without a worker pool: tests, jobs). The parser
 * (unified, remark, micromark) loads on the first such conversion, not at the server's start
 * (docs/decisions.md, "Restart"); a request's conversions run on the worker threads instead.
 */
async function convertHere(markdown: string, hrefs: HrefTable, folder: string): Promise<MarkdownToDocumentResult> {
  const { markdownToDocument } = await import('./document/markdown-parse.ts');
  return markdownToDocument(markdown, { resolveHref: resolveFromTable(hrefs, folder) });
}

export async function applyContentChanges(base: RevisionSnapshot, changes: ContentChange[], options: ApplyOptions): Promise<ApplyResult> {
  if (changes.length === 0) throw new InvalidInputError('changes: at least one change is needed');
  if (changes.length > MAX_CHANGES_PER_BATCH) throw new InvalidInputError(`changes: at most ${MAX_CHANGES_PER_BATCH} changes per call`);
  // Inserted pages get their ids first (a ref's too), so that applying the batch again gives them the same ones.
  const insertedIds = changes.map((change) => (change.operation === 'insert_page' ? newId() : null));
  const first = await applyOnce(base, changes, options, insertedIds, new Map());
  if (!first.unresolved) return first.result;
  // A relative link named no page when it was read: it may name one the batch inserts after it
  // (its path is known once its title is). Again, with the pages the batch ends with as a fallback.
  const ending: HrefTable = new Map();
  const before = new Set(base.pages.keys());
  const later = (id: string) => !before.has(id);
  for (const [id, path] of pagePaths(first.result.snapshot.pages)) if (later(id)) ending.set(pageKey(path), { kind: 'page', page: id });
  for (const [id, file] of pageFiles(first.result.snapshot.pages)) if (later(id) && !ending.has(pageKey(file))) ending.set(pageKey(file), { kind: 'page', page: id });
  return ending.size === 0 ? first.result : (await applyOnce(base, changes, options, insertedIds, ending)).result;
}

/** Whether a converted document or its settings hold a URL reference that is a relative path: a link that named no page. */
function holdsRelativeUrl(value: unknown): boolean {
  if (Array.isArray(value)) return value.some(holdsRelativeUrl);
  if (typeof value !== 'object' || value === null) return false;
  const { kind, url } = value as { kind?: unknown; url?: unknown };
  if (kind === 'url' && typeof url === 'string' && !/^[a-z][a-z0-9+.-]*:|^\/\/|^#/i.test(url)) return true;
  return Object.values(value).some(holdsRelativeUrl);
}

/**
 * One application of the batch. `insertedIds`: the id of each insert_page (by
 * change index); `ending`: pages the batch inserts later, where relative links may also name them
 * (by their key in an HrefTable). `unresolved`: some Markdown kept a relative link as a URL.
 */
async function applyOnce(
  base: RevisionSnapshot,
  changes: ContentChange[],
  options: ApplyOptions,
  insertedIds: (string | null)[],
  ending: HrefTable,
): Promise<{ result: ApplyResult; unresolved: boolean }> {
  let unresolved = false;
  const snapshot = cloneSnapshot(base);
  const pages = snapshot.pages;
  const outcomes = new Map<string, PageOutcome>();
  const insertedFiles: FileSnapshot[] = [];
  const reusableTouched: ReusableContentOutcome[] = [];
  const touch = (outcome: PageOutcome) => {
    const existing = outcomes.get(outcome.page);
    if (!existing) outcomes.set(outcome.page, outcome);
    else if (outcome.object === 'deleted_page') outcomes.set(outcome.page, existing.object === 'created_page' ? { ...outcome } : outcome);
  };

  // Every ref gets its id first, so a page can link to one inserted later in the batch.
  const pageRefs = new Map<string, string>();
  const fileRefs = new Map<string, string>();
  const reusableRefs = new Map<string, string>();
  let existingPaths: Set<string> | undefined; // only a batch with refs needs them
  changes.forEach((change, i) => {
    const refs =
      change.operation === 'insert_page'
        ? [{ ref: change.ref, map: pageRefs }]
        : change.operation === 'insert_files'
          ? (Array.isArray(change.files) ? change.files : []).map((f) => ({ ref: f.ref, map: fileRefs }))
          : change.operation === 'insert_reusable_content'
            ? [{ ref: change.ref, map: reusableRefs }]
            : [];
    for (const { ref, map } of refs) {
      if (ref === undefined || ref === null) continue;
      const key = normalizeHref(ref);
      if (key === '') bad(i, 'ref: must not be empty');
      if (pageRefs.has(key) || fileRefs.has(key) || reusableRefs.has(key)) bad(i, `ref "${ref}" is used twice in the batch`);
      existingPaths ??= new Set(pagePaths(pages).values());
      // A ref is a name, not a path: one that reads as a page's path would name two things.
      if (existingPaths.has(key)) bad(i, `ref "${ref}" collides with the path of an existing page`);
      map.set(key, change.operation === 'insert_page' ? insertedIds[i]! : newId());
    }
  });

  /** What relative hrefs name now: the pages where they stand (by path, and by file as Git export writes it), and the batch's refs by name. */
  const hrefTable = (): HrefTable => {
    const table: HrefTable = new Map();
    for (const [id, path] of pagePaths(pages)) if (!table.has(pageKey(path))) table.set(pageKey(path), { kind: 'page', page: id });
    for (const [id, file] of pageFiles(pages)) if (!table.has(pageKey(file))) table.set(pageKey(file), { kind: 'page', page: id });
    for (const [key, file] of fileRefs) table.set(key, { kind: 'file', file });
    for (const [key, reusableContent] of reusableRefs) table.set(key, { kind: 'reusable-content', reusableContent });
    for (const [key, page] of pageRefs) table.set(key, { kind: 'page', page });
    for (const [key, page] of ending) if (!table.has(key)) table.set(key, page);
    return table;
  };
  const convertMarkdown = options.convertMarkdown ?? convertHere;

  /**
   * The folder of the file Git export would write `page` to once placed under `parentId` at `at`
   * (as the change places it, on the content as it is now): where its Markdown's relative links
   * start. Placed on a copy: nothing is changed before the document is read.
   */
  const linkFolder = (page: Pick<PageSnapshot, 'id' | 'slug'> & Partial<PageSnapshot>, parentId: string | null, at: number | undefined): string => {
    const trial = new Map(pages);
    placePage(trial, { ...pages.get(page.id), kind: 'document', index: 0, ...page } as PageSnapshot, parentId, at);
    const file = pageFiles(trial).get(page.id)!;
    return file.slice(0, Math.max(0, file.lastIndexOf('/')));
  };

  /** The document and the metadata Markdown frontmatter sets; `folder` says where the Markdown's relative links start. */
  const readDocument = async (i: number, input: DocumentInput, folder: () => string): Promise<{ document: JSONDocument; title: string | null; meta: PageMetadataInput }> => {
    if ('markdown' in input) {
      if (typeof input.markdown !== 'string') bad(i, 'document.markdown: must be a string');
      const from = folder();
      const { document, frontmatter, title } = await convertMarkdown(input.markdown, hrefTable(), from).catch((error: unknown) => {
        // A limit names the field it refused.
        if (error instanceof LimitExceededError) throw error.at(`changes[${i}].document.markdown`);
        throw error;
      });
      // Only the keys the frontmatter has set their settings; its hrefs resolve as the text's links do.
      const read = metaFromFrontmatter(frontmatter, resolveFromTable(hrefTable(), from));
      unresolved ||= holdsRelativeUrl(document.nodes) || holdsRelativeUrl(read);
      const meta: PageMetadataInput = {};
      if (typeof frontmatter.title === 'string') meta.title = frontmatter.title;
      for (const [field, keys] of Object.entries(FRONTMATTER_KEYS)) {
        if (!keys.some((key) => key in frontmatter)) continue;
        // Tags as written, so a bad one is refused (the reading for Git Sync leaves it out).
        (meta as Record<string, unknown>)[field] = field === 'tags' ? frontmatter.tags : read[field as keyof typeof FRONTMATTER_KEYS];
      }
      return { document, title: meta.title ?? title, meta };
    }
    if ('document' in input) {
      checkDocument(i, input.document);
      return { document: input.document, title: null, meta: {} };
    }
    return { document: { object: 'document', data: {}, nodes: [] }, title: null, meta: {} };
  };

  /** A reusable content by id, or (inserted earlier in the batch) by its ref. */
  const reusableId = (idOrRef: string): string =>
    typeof idOrRef === 'string' && !snapshot.reusableContents.has(idOrRef) ? (reusableRefs.get(normalizeHref(idOrRef)) ?? idOrRef) : idOrRef;

  /** Every tag `page` carries must be a tag of the content. */
  const checkPageTags = (i: number, page: PageSnapshot) => {
    const missing = page.tags?.find((t) => !snapshot.tags.has(t.tag));
    if (missing) bad(i, `tags: no tag ${JSON.stringify(missing.tag)} in the change request (insert_tag defines one)`);
  };

  const requireTag = (i: number, slug: unknown) => {
    const problem = tagSlugProblem(slug);
    if (problem) bad(i, `tag: ${problem}`);
    const tag = snapshot.tags.get(slug as string);
    if (!tag) bad(i, `tag: no tag ${JSON.stringify(slug)} in the change request`);
    return tag;
  };

  const requirePage = (i: number, id: string, what = 'page'): PageSnapshot => {
    const page = pages.get(id);
    if (!page) bad(i, `${what}: no page ${id} in the change request`);
    return page;
  };

  const requireParent = (i: number, into: string | null | undefined, moving?: string): string | null => {
    if (into === undefined || into === null) return null;
    // A page inserted earlier in the batch may be named by its ref.
    const parent = requirePage(i, pages.has(into) ? into : (pageRefs.get(normalizeHref(into)) ?? into), 'into');
    if (parent.kind === 'link') bad(i, 'into: a link page cannot have child pages');
    if (moving && subtreeIds(pages, moving).has(parent.id)) bad(i, 'into: a page cannot move into itself or one of its descendants');
    return parent.id;
  };

  const slugFor = (i: number, parentId: string | null, explicit: string | null | undefined, title: string, exceptId?: string): string => {
    if (explicit !== undefined && explicit !== null) {
      const slug = explicit.trim();
      if (!/^[a-z0-9](?:[a-z0-9-_.]*[a-z0-9])?$/i.test(slug) || slug.length > 100) bad(i, 'slug: letters, digits, "-", "_" and "." only, at most 100 characters');
      if (freeSlug(pages, parentId, slug, exceptId) !== slug) bad(i, `slug: "${slug}" is already used by a sibling page`);
      return slug;
    }
    return freeSlug(pages, parentId, slugify(title, 'page'), exceptId);
  };

  for (const [i, change] of changes.entries()) {
    switch (change.operation) {
      case 'insert_page': {
        if (!change.document || typeof change.document !== 'object') bad(i, 'document: required');
        const parentId = requireParent(i, change.into);
        // Its ref, if any, names this id too.
        const id = insertedIds[i]!;
        // A new page has no child pages: its slug matters only where it would read as README.md or SUMMARY.md.
        const folder = () => linkFolder({ id, slug: slugify(change.slug ?? change.title ?? '', 'page') }, parentId, change.at ?? undefined);
        const { document, title: docTitle, meta } = await readDocument(i, change.document, folder);
        const title = (meta.title ?? docTitle ?? change.title ?? '').trim() || 'Untitled';
        const page: PageSnapshot = {
          id,
          kind: 'document',
          parentId,
          index: 0,
          title,
          slug: slugFor(i, parentId, change.slug, title),
          description: emptyToNull(meta.description ?? change.description),
          emoji: emptyToNull(meta.emoji ?? change.emoji),
          icon: emptyToNull(meta.icon ?? change.icon),
          hidden: meta.hidden ?? change.hidden ?? false,
          noIndex: meta.noIndex ?? change.noIndex ?? false,
          noRobotsIndex: meta.noRobotsIndex ?? change.noRobotsIndex ?? false,
          documentHash: putDocument(snapshot, document),
          linkTarget: null,
          layout: null,
          cover: null,
          metaLinks: null,
          variables: null,
          computed: null,
          computedSeed: null,
          tags: null,
          createdAt: options.now,
          updatedAt: options.now,
        };
        applySettings(i, page, meta, change);
        checkPageTags(i, page);
        if (change.at !== undefined && change.at !== null && change.at < 0) bad(i, 'at: must be 0 or more');
        placePage(pages, page, parentId, change.at ?? undefined);
        touch({ object: 'created_page', ...(change.ref ? { ref: change.ref } : {}), page: id });
        break;
      }
      case 'update_page': {
        const page = requirePage(i, change.page);
        let next: PageSnapshot = { ...page, updatedAt: options.now };
        let meta: PageMetadataInput = {};
        if (change.document !== undefined && change.document !== null) {
          if (page.kind !== 'document') bad(i, 'document: only document pages have a document');
          // Where the change puts the page (moved, renamed): its links are written for that place.
          const folder = () =>
            linkFolder(
              { ...page, slug: change.slug?.trim() || page.slug },
              'into' in change && change.into !== undefined ? requireParent(i, change.into, page.id) : page.parentId,
              change.at ?? ('into' in change && change.into !== undefined ? undefined : page.index),
            );
          const read = await readDocument(i, change.document, folder);
          next.documentHash = putDocument(snapshot, read.document);
          meta = read.meta;
          if (read.title && change.title === undefined) meta.title = meta.title ?? read.title;
        }
        const title = meta.title ?? change.title;
        if (title !== undefined && title !== null) {
          if (title.trim() === '') bad(i, 'title: must not be empty');
          next.title = title.trim();
        }
        for (const field of ['description', 'emoji', 'icon'] as const) {
          const value = meta[field] ?? change[field];
          if (value !== undefined) next[field] = emptyToNull(value);
        }
        for (const flag of ['hidden', 'noIndex', 'noRobotsIndex'] as const) {
          const value = meta[flag] ?? change[flag];
          if (value !== undefined && value !== null) next[flag] = value;
        }
        if (Object.keys(SETTING_CHECKS).some((field) => field in meta || field in change) || 'computedSeed' in meta || 'computedSeed' in change) {
          if (page.kind !== 'document') bad(i, 'cover, layout, metaLinks, variables, computed and tags: only document pages have them');
          applySettings(i, next, meta, change);
          checkPageTags(i, next);
        }
        const moving = 'into' in change && change.into !== undefined;
        const parentId = moving ? requireParent(i, change.into, page.id) : page.parentId;
        if (change.slug !== undefined && change.slug !== null) next.slug = slugFor(i, parentId, change.slug, next.title, page.id);
        if (change.at !== undefined && change.at !== null && change.at < 0) bad(i, 'at: must be 0 or more');
        if (moving || (change.at !== undefined && change.at !== null)) {
          pages.set(page.id, next);
          placePage(pages, next, parentId, change.at ?? undefined);
        } else {
          pages.set(page.id, next);
        }
        touch({ object: 'updated_page', page: page.id });
        break;
      }
      case 'delete_page': {
        requirePage(i, change.page);
        for (const id of removePage(pages, change.page)) touch({ object: 'deleted_page', page: id });
        break;
      }
      case 'revert_page': {
        const target = await options.loadRevertTarget(change.revision ?? null);
        const then = target.pages.get(change.page);
        const now = pages.get(change.page);
        if (!then && !now) bad(i, `page: no page ${change.page} in the change request or the revision`);
        if (change.block && change.block.length) {
          if (!then || !now || !then.documentHash || !now.documentHash) bad(i, 'block: the page has no document on both sides');
          const current = snapshot.documents.get(now.documentHash) ?? (await options.loadDocument(now.documentHash));
          const previous = target.documents.get(then.documentHash) ?? (await options.loadDocument(then.documentHash));
          if (!current || !previous) bad(i, 'block: the document could not be read');
          const document = revertBlocks(current, previous, new Set(change.block));
          pages.set(now.id, { ...now, documentHash: putDocument(snapshot, document), updatedAt: options.now });
          touch({ object: 'updated_page', page: now.id });
        } else if (!then) {
          for (const id of removePage(pages, change.page)) touch({ object: 'deleted_page', page: id });
        } else {
          if (then.documentHash && !snapshot.documents.has(then.documentHash)) {
            const document = target.documents.get(then.documentHash) ?? (await options.loadDocument(then.documentHash));
            if (document) snapshot.documents.set(then.documentHash, document);
          }
          const parentId = then.parentId && pages.has(then.parentId) ? then.parentId : null;
          // Tags deleted since are not given back with the page.
          const tags = then.tags?.filter((t) => snapshot.tags.has(t.tag)) ?? [];
          placePage(pages, { ...then, tags: tags.length ? tags : null }, parentId, then.index);
          touch(now ? { object: 'updated_page', page: then.id } : { object: 'created_page', page: then.id });
        }
        break;
      }
      case 'insert_files': {
        if (!Array.isArray(change.files) || change.files.length === 0) bad(i, 'files: at least one file');
        if (change.files.length > 20) bad(i, 'files: at most 20 files per change');
        for (const file of change.files) {
          const id = (file.ref !== undefined && file.ref !== null ? fileRefs.get(normalizeHref(file.ref)) : undefined) ?? newId();
          const stored = fileSnapshot(id, file);
          snapshot.files.set(id, stored);
          insertedFiles.push(stored);
        }
        break;
      }
      case 'insert_reusable_content': {
        if (!change.document || typeof change.document !== 'object') bad(i, 'document: required');
        if (snapshot.reusableContents.size >= MAX_REUSABLE_CONTENTS) bad(i, `at most ${MAX_REUSABLE_CONTENTS} reusable contents in a space`);
        const { document, title: docTitle, meta } = await readDocument(i, change.document, () => INCLUDES_DIRECTORY);
        const title = (meta.title ?? docTitle ?? change.title ?? '').trim() || 'Untitled';
        const id = (change.ref !== undefined && change.ref !== null ? reusableRefs.get(normalizeHref(change.ref)) : undefined) ?? newId();
        snapshot.reusableContents.set(id, { id, title, documentHash: putDocument(snapshot, document) });
        reusableTouched.push({ object: 'created_reusable_content', ...(change.ref ? { ref: change.ref } : {}), reusableContent: id });
        break;
      }
      case 'update_reusable_content': {
        const current = snapshot.reusableContents.get(reusableId(change.reusableContent));
        if (!current) bad(i, `reusableContent: no reusable content ${change.reusableContent} in the change request`);
        const next = { ...current };
        if (change.document !== undefined && change.document !== null) {
          const read = await readDocument(i, change.document, () => INCLUDES_DIRECTORY);
          next.documentHash = putDocument(snapshot, read.document);
          if (change.title === undefined && (read.meta.title ?? read.title)) next.title = (read.meta.title ?? read.title)!.trim() || next.title;
        }
        if (change.title !== undefined && change.title !== null) {
          if (change.title.trim() === '') bad(i, 'title: must not be empty');
          next.title = change.title.trim();
        }
        snapshot.reusableContents.set(next.id, next);
        reusableTouched.push({ object: 'updated_reusable_content', reusableContent: next.id });
        break;
      }
      case 'delete_reusable_content': {
        const id = reusableId(change.reusableContent);
        if (!snapshot.reusableContents.delete(id)) bad(i, `reusableContent: no reusable content ${change.reusableContent} in the change request`);
        reusableTouched.push({ object: 'deleted_reusable_content', reusableContent: id });
        break;
      }
      case 'insert_tag': {
        if (snapshot.tags.has(change.tag)) bad(i, `tag: ${JSON.stringify(change.tag)} is already a tag of the change request`);
        if (snapshot.tags.size >= MAX_TAGS) bad(i, `at most ${MAX_TAGS} tags in a space`);
        const made = tagFromInput(change, null);
        if (made.problem !== undefined) bad(i, made.problem);
        snapshot.tags.set(made.value.slug, made.value);
        break;
      }
      case 'update_tag': {
        const made = tagFromInput({ ...change, tag: undefined }, requireTag(i, change.tag));
        if (made.problem !== undefined) bad(i, made.problem);
        snapshot.tags.set(made.value.slug, made.value);
        break;
      }
      case 'delete_tag': {
        const { slug } = requireTag(i, change.tag);
        snapshot.tags.delete(slug);
        // The pages that carry it no longer do.
        for (const page of pages.values()) {
          if (!page.tags?.some((t) => t.tag === slug)) continue;
          const tags = page.tags.filter((t) => t.tag !== slug);
          pages.set(page.id, { ...page, tags: tags.length ? tags : null, updatedAt: options.now });
          touch({ object: 'updated_page', page: page.id });
        }
        break;
      }
      case 'set_redirects': {
        const redirects = change.redirects as unknown;
        if (redirects === null || typeof redirects !== 'object' || Array.isArray(redirects)) bad(i, 'redirects: must be an object of old paths to page ids (null removes one)');
        for (const [from, target] of Object.entries(redirects as Record<string, unknown>)) {
          const source = from.replace(/^\/+/, '');
          if (source.length > MAX_REDIRECT_SOURCE || !REDIRECT_SOURCE.test(source) || source.split('/').some((segment) => segment === '.' || segment === '..')) {
            bad(i, `redirects: ${JSON.stringify(from)}: an old path is URL path segments (letters, digits, "-", ".", "_", "~", "+" or %XX) joined by "/", at most ${MAX_REDIRECT_SOURCE} characters`);
          }
          if (target === null) {
            snapshot.redirects.delete(source);
            continue;
          }
          if (typeof target !== 'string') bad(i, `redirects: ${JSON.stringify(from)}: must be a page id, or null to remove it`);
          const page = requirePage(i, pages.has(target) ? target : (pageRefs.get(normalizeHref(target)) ?? target), `redirects: ${JSON.stringify(from)}`);
          if (page.kind !== 'document') bad(i, `redirects: ${JSON.stringify(from)}: page ${page.id} is a ${page.kind}; a redirect leads to a document page`);
          snapshot.redirects.set(source, page.id);
        }
        if (snapshot.redirects.size > MAX_REDIRECTS) bad(i, `redirects: at most ${MAX_REDIRECTS} per space`);
        break;
      }
      case 'set_variables': {
        const problem = variablesProblem(change.variables, true);
        if (problem) bad(i, `variables: ${problem}`);
        const next = changedVariables(snapshot.variables, change.variables);
        const count = variablesProblem(next);
        if (count) bad(i, `variables: ${count}`);
        snapshot.variables = next;
        break;
      }
      default:
        bad(
          i,
          'operation: must be one of insert_page, update_page, delete_page, revert_page, insert_files, set_variables, set_redirects, insert_reusable_content, update_reusable_content, delete_reusable_content, insert_tag, update_tag, delete_tag',
        );
    }
  }
  // Documents no page or reusable content uses any more are not written.
  const used = new Set([...pages.values()].map((p) => p.documentHash).filter((h): h is string => h !== null));
  for (const content of snapshot.reusableContents.values()) used.add(content.documentHash);
  for (const hash of [...snapshot.documents.keys()]) if (!used.has(hash)) snapshot.documents.delete(hash);
  return { result: { snapshot, changes: [...outcomes.values()], insertedFiles, reusableContents: reusableTouched }, unresolved };
}

/**
 * Sets the page's settings from the frontmatter (first) or the change's fields: a setting absent
 * from both is left as it is, null removes it, anything else must pass its check.
 */
function applySettings(i: number, page: PageSnapshot, meta: PageMetadataInput, change: PageMetadataInput): void {
  const pick = <K extends keyof PageMetadataInput>(field: K): PageMetadataInput[K] | undefined => (field in meta ? meta[field] : change[field]);
  for (const [field, check] of Object.entries(SETTING_CHECKS) as [keyof typeof SETTING_CHECKS, (value: unknown) => string | null][]) {
    const value = pick(field);
    if (value === undefined) continue;
    if (value === null) {
      page[field] = null;
      continue;
    }
    const problem = check(value);
    if (problem) bad(i, `${field}: ${problem}`);
    if (field === 'cover') page.cover = normalizeCover(value as PageCover);
    else if (field === 'tags') {
      const tags = pageTagsFrom(value).value!;
      page.tags = tags.length ? tags : null;
    }
    else if (field === 'variables' || field === 'layout') page[field] = Object.keys(value).length ? (value as never) : null;
    else page[field] = value as never;
  }
  const seed = pick('computedSeed');
  if (seed !== undefined) {
    if (seed !== null && (typeof seed !== 'string' || seed.length > 256)) bad(i, 'computedSeed: must be a string of at most 256 characters');
    page.computedSeed = emptyToNull(seed);
  }
}

function emptyToNull(value: string | null | undefined): string | null {
  return value === undefined || value === null || value === '' ? null : value;
}

/** A JSON document must at least be one (see documentProblem). */
function checkDocument(i: number, document: unknown): asserts document is JSONDocument {
  const problem = documentProblem(document);
  if (problem) bad(i, `document.document: ${problem}`);
}

/** Reverts the top-level blocks with the given keys to their state in `previous` (removing added ones, restoring deleted ones). */
function revertBlocks(current: JSONDocument, previous: JSONDocument, keys: Set<string>): JSONDocument {
  const previousByKey = new Map(previous.nodes.filter((n) => n.key).map((n, i) => [n.key!, { node: n, index: i }]));
  const nodes: JSONNode[] = [];
  for (const node of current.nodes) {
    if (!node.key || !keys.has(node.key)) nodes.push(node);
    else if (previousByKey.has(node.key)) nodes.push(previousByKey.get(node.key)!.node);
    // else: added since, removed by the revert
  }
  const present = new Set(nodes.map((n) => n.key).filter(Boolean));
  for (const key of keys) {
    const deleted = previousByKey.get(key);
    if (deleted && !present.has(key)) nodes.splice(Math.min(deleted.index, nodes.length), 0, deleted.node);
  }
  return { ...current, nodes };
}

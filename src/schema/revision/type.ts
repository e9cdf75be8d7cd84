/**
 * A revision's content as GraphQL types: Revision, RevisionPage (documents,
 * groups and links in one type, told apart by `type`) and RevisionFile.
 * Pages and files of any number of revisions load in one statement each
 * (loaders.pagesByRevisionId / filesByRevisionId), documents by hash.
 */
import { builder } from '../../builder.ts';
import { evaluateDocument, type EvaluationMode } from '../../content/document/evaluate.ts';
import type { JSONDocument } from '../../content/document/model.ts';
import { dereferenceDocument } from '../../content/document/dereference.ts';
import { redirectsOf, reusableContentsOf, variablesOf } from '../../content/revision-store.ts';
import { semanticChanges, type ChangeableContent, type SemanticChange } from '../../content/semantic-changes.ts';
import type { FileSnapshot, PageTag, ReusableContentSnapshot, TagSnapshot, Variables } from '../../content/snapshot.ts';
import { tagsOf } from '../../content/tags.ts';
import type { Prisma } from '../../db/client.ts';
import { loadSpace } from '../../services/space.ts';
import type { FileView, PageView, RevisionView } from '../../content/revision-view.ts';
import type { Context } from '../../context.ts';
import { InvalidInputError } from '../../errors/index.ts';
import { signDownloadUrl } from '../../storage/signed-url.ts';

export const DocumentFormat = builder.enumType('DocumentFormat', { values: ['document', 'markdown'] as const });

/**
 * The page layout a page without its own options answers (RevisionPageLayoutOptions of 0.202.0,
 * every member of which is required); a page's options override it member by member. Everything
 * shows: the cover without a mask, the tags a page carries, its actions and its headings' anchors
 * (docs/decisions.md, "Tags").
 */
export const DEFAULT_PAGE_LAYOUT = {
  width: 'default',
  cover: true,
  coverSize: 'hero',
  coverMask: 'none',
  title: true,
  description: true,
  tableOfContents: true,
  outline: true,
  pagination: true,
  metadata: true,
  tags: true,
  actions: true,
  anchors: true,
} as const;

/** The page tree of a revision: views of the children of `parentId`, in order (null: the root pages). */
export async function pageChildren(ctx: Context, revision: RevisionView, parentId: string | null): Promise<PageView[]> {
  const tree = await ctx.loaders.revisionTree.load(revision);
  return tree.children.get(parentId) ?? [];
}

function pageApp(ctx: Context, view: PageView): string {
  return ctx.urls.app(`/o/${view.revision.organizationId}/s/${view.revision.spaceId}/${view.path}`);
}

/**
 * The evaluation a read asks for: `evaluated` (the OpenAPI document's name) or `evaluate`
 * (api.md's), each `true`, `false` or `deterministic-only`; null for none.
 */
function evaluationOf(args: { evaluated?: string | null; evaluate?: string | null }): EvaluationMode | null {
  const [name, value] = args.evaluated !== undefined && args.evaluated !== null ? ['evaluated', args.evaluated] : ['evaluate', args.evaluate];
  if (value === undefined || value === null || value === 'false') return null;
  if (value === 'true') return 'all';
  if (value === 'deterministic-only') return 'deterministic-only';
  throw new InvalidInputError(`${name}: must be true, false or deterministic-only`);
}

/** Whether a read inlines reusable contents: `dereferenced` (the OpenAPI name) or `dereference` true or `reusable-contents`. */
function dereferenceOf(args: { dereference?: string | null; dereferenced?: string | null }): boolean {
  const [name, value] = args.dereferenced !== undefined && args.dereferenced !== null ? ['dereferenced', args.dereferenced] : ['dereference', args.dereference];
  if (value === undefined || value === null || value === 'false') return false;
  if (value === 'true' || value === 'reusable-contents') return true;
  throw new InvalidInputError(`${name}: must be true, false or reusable-contents`);
}

/**
 * The document of reusable content `id`: of the revision read when `space` is null or its own
 * space, else of the current content of `space`, when it is a space of the same organization the
 * reader may read (anything else stays a reference).
 */
async function reusableContentDocument(ctx: Context, revision: RevisionView, id: string, space: string | null): Promise<JSONDocument | null> {
  let contents: Prisma.JsonValue = revision.reusableContents;
  if (space !== null && space !== revision.spaceId) {
    const other = await loadSpace(ctx, space, 'space:read').catch(() => null);
    if (!other || other.organizationId !== revision.organizationId) return null;
    contents = (await ctx.loaders.revisionById.load(other.revisionId))?.reusableContents ?? [];
  }
  const content = reusableContentsOf(contents).find((c) => c.id === id);
  return content ? ctx.loaders.documentByHash.load(content.documentHash) : null;
}

/**
 * A document of `revision` as a read asks for it: reusable contents inlined, expressions evaluated
 * with the space's variables and `pageVariables` (a page's own; none for a reusable content), or as stored.
 */
async function readDocument(
  ctx: Context,
  revision: RevisionView,
  documentHash: string | null,
  pageVariables: Variables,
  evaluation: EvaluationMode | null,
  dereference: boolean,
): Promise<JSONDocument | null> {
  let document = documentHash ? await ctx.loaders.documentByHash.load(documentHash) : null;
  if (!document) return document;
  if (dereference) document = await dereferenceDocument(document, (id, space) => reusableContentDocument(ctx, revision, id, space));
  if (!evaluation) return document;
  return evaluateDocument(document, { space: variablesOf(revision.variables), page: pageVariables, visitor: ctx.access.visitorClaims }, evaluation);
}

/** The page's document as a read asks for it (readDocument). */
function pageDocument(ctx: Context, v: PageView, evaluation: EvaluationMode | null, dereference: boolean): Promise<JSONDocument | null> {
  return readDocument(ctx, v.revision, v.page.documentHash, v.page.variables ?? {}, evaluation, dereference);
}

/** How a page read asks for its document (`document` and `markdown` alike). */
const documentReadArgs = builder.args((t) => ({
  evaluated: t.string({
    description: 'true evaluates the expressions of the document, deterministic-only those that read no visitor; false (the default) leaves them',
  }),
  evaluate: t.string({ description: 'The same as `evaluated` (the name api.md gives it)' }),
  dereference: t.string({ description: 'true or reusable-contents inlines the reusable contents the document includes; false (the default) leaves references' }),
  dereferenced: t.string({ description: 'The same as `dereference` (the name of the OpenAPI document)' }),
}));

function documentRead(args: { evaluated?: string | null; evaluate?: string | null; dereference?: string | null; dereferenced?: string | null }) {
  return { evaluation: evaluationOf(args), dereference: dereferenceOf(args) };
}

/** GitSyncCommit: the commit a revision was imported from or exported to. */
const GitCommit = builder.objectRef<{ oid: string; message: string; createdByService: boolean; url: string | null; ref: string }>('RevisionGitCommit').implement({
  fields: (t) => ({
    oid: t.exposeString('oid'),
    message: t.exposeString('message'),
    createdByService: t.exposeBoolean('createdByService', { description: 'True when this service wrote the commit (an export)' }),
    createdByGitBook: t.exposeBoolean('createdByService', { description: 'The same as createdByService, under the wire contract name' }),
    url: t.exposeString('url', { nullable: true }),
    ref: t.exposeString('ref'),
  }),
});

/** GitSyncBlob: where a page or file is in the revision's commit. */
const GitBlob = builder.objectRef<{ oid: string; path: string }>('GitSyncBlob').implement({
  fields: (t) => ({ oid: t.exposeString('oid'), path: t.exposeString('path') }),
});

/** The blob of page or file `id` in the revision's commit; null without one or when the read left metadata out. */
async function gitBlobOf(ctx: Context, revision: RevisionView, kind: 'pages' | 'files' | 'reusableContents', id: string): Promise<{ oid: string; path: string } | null> {
  if (revision.metadata === false) return null;
  const git = await ctx.loaders.revisionGitById.load(revision.id);
  const entry = (git?.blobs as Record<string, Record<string, [string, string]>> | undefined)?.[kind]?.[id];
  return entry ? { path: entry[0], oid: entry[1] } : null;
}

export const ReusableContent = builder.objectRef<{ content: ReusableContentSnapshot; revision: RevisionView }>('RevisionReusableContent').implement({
  description: 'A titled document pages include by reference (a reusable-content block)',
  fields: (t) => ({
    id: t.string({ resolve: (v) => v.content.id }),
    title: t.string({ resolve: (v) => v.content.title }),
    document: t.string({ description: 'The id of its document', resolve: (v) => v.content.documentHash }),
    body: t.field({
      type: 'JSON',
      description: 'Its document (JSONDocument), as the read asks for it: evaluated with the space\'s variables, other reusable contents inlined',
      args: documentReadArgs,
      resolve: async (v, args, ctx) => {
        const { evaluation, dereference } = documentRead(args);
        return (await readDocument(ctx, v.revision, v.content.documentHash, {}, evaluation, dereference)) ?? EMPTY_DOCUMENT;
      },
    }),
    git: t.field({ type: GitBlob, nullable: true, description: 'Its file in the revision\'s Git commit', resolve: (v, _a, ctx) => gitBlobOf(ctx, v.revision, 'reusableContents', v.content.id) }),
  }),
});

export const RevisionTag = builder.objectRef<TagSnapshot>('RevisionTag').implement({
  description: 'A tag pages of the revision may carry',
  fields: (t) => ({
    slug: t.exposeString('slug', { description: 'What pages name it by; never changes' }),
    label: t.exposeString('label'),
    color: t.exposeString('color', { description: 'A DocumentTextColor: default, green, blue, ..., $primary, ...' }),
    emoji: t.exposeString('emoji', { nullable: true, description: 'Its emoji (code points, as a page emoji)' }),
    icon: t.exposeString('icon', { nullable: true, description: 'Its icon (a tag has an emoji or an icon)' }),
  }),
});

const PageTagRef = builder.objectRef<{ tag: string }>('ContentRefTag').implement({
  description: 'A reference to a tag of the revision, by slug',
  fields: (t) => ({
    kind: t.string({ resolve: () => 'tag' }),
    tag: t.exposeString('tag', { description: 'The slug of the tag' }),
    space: t.string({ nullable: true, description: 'The space defining the tag (null: the page\'s own)', resolve: () => null }),
  }),
});

const RevisionPageTag = builder.objectRef<PageTag>('RevisionPageTag').implement({
  description: 'A tag a page carries',
  fields: (t) => ({
    tag: t.field({ type: PageTagRef, resolve: (v) => ({ tag: v.tag }) }),
    primary: t.boolean({ nullable: true, description: 'True for the tag shown in the table of contents', resolve: (v) => v.primary ?? null }),
  }),
});

const PageUrls = builder.objectRef<{ app: string }>('RevisionPageUrls').implement({
  fields: (t) => ({ app: t.exposeString('app') }),
});

export const RevisionPage = builder.objectRef<PageView>('RevisionPage');

RevisionPage.implement({
  description: 'A page of a revision: a document, a group of pages, or a link',
  fields: (t) => ({
    id: t.string({ resolve: (v) => v.page.id }),
    type: t.string({ description: 'document | group | link', resolve: (v) => v.page.kind }),
    kind: t.string({
      description: 'Deprecated: sheet | group | link',
      deprecationReason: 'Use `type`',
      resolve: (v) => (v.page.kind === 'document' ? 'sheet' : v.page.kind),
    }),
    title: t.string({ resolve: (v) => v.page.title }),
    emoji: t.string({ nullable: true, resolve: (v) => v.page.emoji }),
    icon: t.string({ nullable: true, resolve: (v) => v.page.icon }),
    createdAt: t.field({ type: 'DateTime', resolve: (v) => v.page.createdAt }),
    updatedAt: t.field({ type: 'DateTime', resolve: (v) => v.page.updatedAt }),
    slug: t.string({ nullable: true, resolve: (v) => (v.page.kind === 'link' ? null : v.page.slug) }),
    path: t.string({ nullable: true, resolve: (v) => (v.page.kind === 'link' ? null : v.path) }),
    description: t.string({ nullable: true, resolve: (v) => v.page.description }),
    hidden: t.boolean({ resolve: (v) => v.page.hidden }),
    noIndex: t.boolean({ description: 'Left out of search and ask', resolve: (v) => v.page.noIndex }),
    noRobotsIndex: t.boolean({ description: 'Not to be indexed by search engines', resolve: (v) => v.page.noRobotsIndex }),
    parentId: t.string({ nullable: true, description: 'The parent page (null at the root)', resolve: (v) => v.page.parentId }),
    layout: t.field({
      type: 'JSON',
      nullable: true,
      description: 'Layout options (document pages)',
      resolve: (v) => (v.page.kind === 'document' ? { ...DEFAULT_PAGE_LAYOUT, ...(v.page.layout ?? {}) } : null),
    }),
    cover: t.field({ type: 'JSON', nullable: true, description: 'The cover image (document pages)', resolve: (v) => v.page.cover }),
    metaLinks: t.field({ type: 'JSON', nullable: true, description: 'Canonical and alternate links for search engines', resolve: (v) => v.page.metaLinks }),
    variables: t.field({ type: 'JSON', nullable: true, description: "The page's own variables (`page.vars.<name>` in expressions)", resolve: (v) => v.page.variables }),
    computed: t.field({ type: 'JSON', nullable: true, description: 'The computed content source the page was generated from', resolve: (v) => v.page.computed }),
    computedSeed: t.string({ nullable: true, resolve: (v) => v.page.computedSeed }),
    tags: t.field({
      type: [RevisionPageTag],
      nullable: true,
      description: 'The tags the page carries, in order (document pages: [] for none)',
      resolve: (v) => (v.page.kind === 'document' ? (v.page.tags ?? []) : null),
    }),
    git: t.field({ type: GitBlob, nullable: true, description: "The page's file in the revision's Git commit", resolve: (v, _a, ctx) => gitBlobOf(ctx, v.revision, 'pages', v.page.id) }),
    target: t.field({ type: 'JSON', nullable: true, description: 'Where a link page points', resolve: (v) => v.page.linkTarget }),
    href: t.string({
      nullable: true,
      description: 'The URL a link page opens',
      resolve: (v) => {
        const target = v.page.linkTarget;
        return target && target.kind === 'url' && typeof target.url === 'string' ? target.url : null;
      },
    }),
    urls: t.field({ type: PageUrls, nullable: true, resolve: (v, _a, ctx) => (v.page.kind === 'document' ? { app: pageApp(ctx, v) } : null) }),
    pages: t.field({
      type: [RevisionPage],
      nullable: true,
      description: 'Child pages, in order (document and group pages)',
      resolve: (v, _a, ctx) => (v.page.kind === 'link' ? null : pageChildren(ctx, v.revision, v.page.id)),
    }),
    documentId: t.string({
      nullable: true,
      description: 'The id of the document of a document page (GET /v1/spaces/{spaceId}/documents/{documentId}); null for an empty page and other page types',
      resolve: (v) => (v.page.kind === 'document' ? v.page.documentHash : null),
    }),
    document: t.field({
      type: 'JSON',
      nullable: true,
      description: 'The rich-text document (document pages; null when `format` is markdown)',
      args: { format: t.arg({ type: DocumentFormat, defaultValue: 'document' }), ...documentReadArgs },
      resolve: async (v, args, ctx) => {
        const { evaluation, dereference } = documentRead(args);
        if (args.format === 'markdown' || v.page.kind !== 'document') return null;
        return (await pageDocument(ctx, v, evaluation, dereference)) ?? EMPTY_DOCUMENT;
      },
    }),
    markdown: t.string({
      nullable: true,
      description: 'The document as Markdown (document pages; only when `format` is markdown)',
      args: { format: t.arg({ type: DocumentFormat, defaultValue: 'markdown' }), ...documentReadArgs },
      resolve: async (v, args, ctx) => {
        const { evaluation, dereference } = documentRead(args);
        if (args.format !== 'markdown' || v.page.kind !== 'document') return null;
        const document = await pageDocument(ctx, v, evaluation, dereference);
        // The pages of one list convert together (a few worker tasks, not one per page).
        return document ? ctx.loaders.batch('documentToMarkdown', (documents: readonly JSONDocument[]) => ctx.conversions.documentsToMarkdown(documents)).load(document) : '';
      },
    }),
  }),
});

export const EMPTY_DOCUMENT = { object: 'document', data: {}, nodes: [] } as const;

const Dimensions = builder.objectRef<{ width: number; height: number }>('FileDimensions').implement({
  fields: (t) => ({ width: t.exposeInt('width'), height: t.exposeInt('height') }),
});

/** How long a file's download URL stays valid. */
const FILE_URL_TTL_SECONDS = 24 * 60 * 60;

export const RevisionFile = builder.objectRef<FileView>('RevisionFile').implement({
  description: 'A file of a revision (an image or an attachment)',
  fields: (t) => ({
    id: t.string({ resolve: (v) => v.file.id }),
    name: t.string({ resolve: (v) => v.file.name }),
    contentType: t.string({ resolve: (v) => v.file.contentType }),
    size: t.int({ resolve: (v) => v.file.size }),
    downloadURL: t.string({
      description: 'A signed URL to the bytes, valid for a day',
      resolve: (v, _a, ctx) => fileDownloadUrl(ctx, v.file),
    }),
    git: t.field({ type: GitBlob, nullable: true, description: "The file in the revision's Git commit", resolve: (v, _a, ctx) => gitBlobOf(ctx, v.revision, 'files', v.file.id) }),
    dimensions: t.field({
      type: Dimensions,
      nullable: true,
      resolve: (v) => (v.file.width !== null && v.file.height !== null ? { width: v.file.width, height: v.file.height } : null),
    }),
  }),
});

/** The link of a file of a revision (RevisionFile.downloadURL). */
function fileDownloadUrl(ctx: Context, file: FileSnapshot): string {
  return signDownloadUrl(ctx.config, { key: file.storageKey, name: file.name, contentType: file.contentType, expiresInSeconds: FILE_URL_TTL_SECONDS });
}

/** What changed from `base` (null: nothing, for a first revision) to `revision`, up to `limit` changes. */
export interface SemanticChangesView {
  revision: RevisionView;
  base: RevisionView | null;
  limit: number;
  /** Whether the view answers `mergedFrom` (a revision's changes; a change request's are its own). */
  ofRevision: boolean;
  all?: Promise<SemanticChange[]>;
}

/** The most changes a read answers (`limit`), and how many without one (GitBook's default). */
const MAX_CHANGES = 1000;
const DEFAULT_CHANGES = 10;

/** `limit` of a changes read, checked. */
export function changesLimit(limit: number | null | undefined): number {
  if (limit === null || limit === undefined) return DEFAULT_CHANGES;
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_CHANGES) throw new InvalidInputError(`limit: must be a whole number from 1 to ${MAX_CHANGES}`);
  return limit;
}

async function contentOf(ctx: Context, revision: RevisionView | null): Promise<ChangeableContent> {
  if (!revision) return { pages: new Map(), files: new Map(), reusableContents: new Map(), variables: {}, tags: new Map() };
  const [pages, files] = await Promise.all([ctx.loaders.pagesByRevisionId.load(revision.id), ctx.loaders.filesByRevisionId.load(revision.id)]);
  return {
    pages: new Map(pages.map((p) => [p.id, p])),
    files: new Map(files.map((f) => [f.id, f])),
    reusableContents: new Map(reusableContentsOf(revision.reusableContents).map((c) => [c.id, c])),
    variables: variablesOf(revision.variables),
    tags: new Map(tagsOf(revision.tags).map((t) => [t.slug, t])),
  };
}

/** The changes of a view, computed once however many of its fields are asked. */
function allChanges(ctx: Context, v: SemanticChangesView): Promise<SemanticChange[]> {
  v.all ??= Promise.all([contentOf(ctx, v.base), contentOf(ctx, v.revision)]).then(([before, after]) =>
    semanticChanges(before, after, { fileUrl: (file) => fileDownloadUrl(ctx, file) }),
  );
  return v.all;
}

export const RevisionSemanticChanges = builder.objectRef<SemanticChangesView>('RevisionSemanticChanges').implement({
  description: 'What a revision (against its parent) or a change request (against the space content it is based on) changed',
  fields: (t) => ({
    changes: t.field({
      type: 'JSON',
      description: 'RevisionSemanticChange items: pages created, edited, moved, deleted; files; variables; reusable contents; tags',
      resolve: async (v, _a, ctx) => (await allChanges(ctx, v)).slice(0, v.limit),
    }),
    more: t.int({
      nullable: true,
      description: 'How many changes were left out past `limit`',
      resolve: async (v, _a, ctx) => {
        const count = (await allChanges(ctx, v)).length;
        return count > v.limit ? count - v.limit : null;
      },
    }),
  }),
});

const RevisionRedirect = builder.objectRef<{ source: string; page: string }>('RevisionRedirect').implement({
  description: "An old path of the space (`.gitbook.yaml`'s redirects) and the page it leads to",
  fields: (t) => ({
    source: t.exposeString('source', { description: 'The old path, relative to the space, without a leading slash' }),
    page: t.exposeString('page', { description: 'The id of the document page it leads to' }),
  }),
});

const RevisionUrls = builder.objectRef<{ app: string }>('RevisionUrls').implement({
  fields: (t) => ({ app: t.exposeString('app') }),
});

export const Revision = builder.objectRef<RevisionView>('Revision').implement({
  description: 'An immutable version of a space content',
  fields: (t) => ({
    object: t.string({ resolve: () => 'revision' }),
    id: t.exposeString('id'),
    type: t.exposeString('type', { description: 'edits | merge | rollback | update' }),
    parents: t.stringList({ resolve: (r) => [r.parentId, r.mergedParentId].filter((p): p is string => p !== null) }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    variables: t.field({ type: 'JSON', resolve: (r) => r.variables }),
    git: t.field({
      type: GitCommit,
      nullable: true,
      description: 'The Git commit a Git Sync import read this content from or an export wrote it to',
      resolve: async (r, _a, ctx) => {
        if (r.metadata === false) return null;
        const git = await ctx.loaders.revisionGitById.load(r.id);
        return git && { oid: git.oid, message: git.message, createdByService: git.createdByService, url: git.url, ref: git.ref };
      },
    }),
    reusableContents: t.field({
      type: [ReusableContent],
      description: 'The reusable contents pages of this revision can include, by title',
      resolve: (r) =>
        reusableContentsOf(r.reusableContents)
          .sort((a, b) => a.title.localeCompare(b.title) || (a.id < b.id ? -1 : 1))
          .map((content) => ({ content, revision: r })),
    }),
    tags: t.field({
      type: [RevisionTag],
      description: 'The tags pages of this revision may carry, in order',
      resolve: (r) => tagsOf(r.tags),
    }),
    redirects: t.field({
      type: [RevisionRedirect],
      description: 'Old paths and the pages they lead to, in order (those to pages the revision lacks are left out)',
      resolve: async (r, _a, ctx) => {
        const redirects = redirectsOf(r.redirects);
        if (redirects.size === 0) return [];
        const tree = await ctx.loaders.revisionTree.load(r);
        return [...redirects].filter(([, page]) => tree.byId.get(page)?.page.kind === 'document').map(([source, page]) => ({ source, page }));
      },
    }),
    semanticChanges: t.field({
      type: RevisionSemanticChanges,
      description: 'What this revision changed against its parent (the space content before it; nothing before the first)',
      args: { limit: t.arg.int({ description: `At most this many changes (1 to ${MAX_CHANGES}, default ${DEFAULT_CHANGES})` }) },
      resolve: async (r, { limit }, ctx) => {
        const checked = changesLimit(limit);
        const parent = r.parentId ? await ctx.loaders.revisionById.load(r.parentId) : null;
        return { revision: r, base: parent ? { ...parent, organizationId: r.organizationId } : null, limit: checked, ofRevision: true };
      },
    }),
    pages: t.field({ type: [RevisionPage], description: 'The root pages, each with its children', resolve: (r, _a, ctx) => pageChildren(ctx, r, null) }),
    page: t.field({
      type: RevisionPage,
      nullable: true,
      args: { id: t.arg.string({ required: true }) },
      resolve: async (r, { id }, ctx) => (await ctx.loaders.revisionTree.load(r)).byId.get(id) ?? null,
    }),
    pagesCount: t.int({ description: 'How many pages (at every depth)', resolve: async (r, _a, ctx) => (await ctx.loaders.pagesByRevisionId.load(r.id)).length }),
    files: t.field({
      type: [RevisionFile],
      resolve: async (r, _a, ctx) => (await ctx.loaders.filesByRevisionId.load(r.id)).map((file) => ({ file, revision: r })),
    }),
    urls: t.field({ type: RevisionUrls, resolve: (r, _a, ctx) => ({ app: ctx.urls.app(`/o/${r.organizationId}/s/${r.spaceId}/~/revisions/${r.id}`) }) }),
  }),
});

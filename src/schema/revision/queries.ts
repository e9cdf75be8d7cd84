/**
 * Reading content: the current revision of a space, or of one of its change
 * requests (`changeRequestId`, an id or the per-space number): the revision,
 * a page, files, and the links between pages and files. The same root fields
 * serve the "Space content" and "Change request content" REST groups.
 */
import type { FieldNode, GraphQLResolveInfo } from 'graphql';
import { builder } from '../../builder.ts';
import { type ContentRef } from '../../content/document/model.ts';
import { linkStats, pageSettingReferences, referencedOpenAPISpecs, revisionLinks, type LinkStats, type LinkStatus, type StoredReference } from '../../content/links.ts';
import { redirectsOf, referenceTarget, reusableContentsOf } from '../../content/revision-store.ts';
import type { FileView, PageView, RevisionTree } from '../../content/revision-view.ts';
import { type RevisionView } from '../../content/revision-view.ts';
import type { Context } from '../../context.ts';
import { sliceList, type ListResult } from '../../db/pagination.ts';
import { InvalidInputError, NotFoundError } from '../../errors/index.ts';
import { referencedOpenAPISpecs as loadReferencedSpecs } from '../../services/openapi-spec.ts';
import { loadContentSource, ContentSource } from '../../services/space-content.ts';
import { type SpaceRow } from '../../services/space.ts';
import { OpenAPISpec } from '../openapi-spec/type.ts';
import { Organization } from '../organization/type.ts';
import { ContentReferenceStatus } from '../shared/enums.ts';
import { listType, ListNext, pageArgs } from '../shared/pagination.ts';
import { rowForSelection } from '../shared/select.ts';
import { Space } from '../space/type.ts';
import { ReusableContent, RevisionFile, RevisionPage, Revision } from './type.ts';

const contentArgs = builder.args((t) => ({
  spaceId: t.id({ required: true }),
  changeRequestId: t.string({ description: 'Read a change request content instead of the space (its id or number)' }),
  revisionId: t.string({ description: "Read this revision of the space instead of its current one (a change request's draft: for those who may read change requests)" }),
  metadata: t.boolean({ description: 'false leaves out Git metadata (`git` of the revision, its pages and files)' }),
  computed: t.boolean({ description: 'Accepted for compatibility: pages are not computed yet, their `computed` source is kept as data' }),
}));

/** The page `pageId` of the content the arguments name; 404 when it has none. */
async function pageOf(
  ctx: Context,
  args: { spaceId: string | number; changeRequestId?: string | null; revisionId?: string | null; metadata?: boolean | null; pageId: string },
): Promise<PageView> {
  const source = await loadContentSource(ctx, String(args.spaceId), args.changeRequestId, args);
  const page = (await ctx.loaders.revisionTree.load(source.revision)).byId.get(args.pageId);
  if (!page) throw new NotFoundError('Page', args.pageId);
  return page;
}

builder.queryFields((t) => ({
  revisionContent: t.field({
    type: Revision,
    description: 'The current revision of a space, or of one of its change requests',
    authScopes: { caller: true },
    args: contentArgs,
    resolve: async (_root, args, ctx) => (await loadContentSource(ctx, String(args.spaceId), args.changeRequestId, args)).revision,
  }),
  revisionPage: t.field({
    type: RevisionPage,
    authScopes: { caller: true },
    args: { ...contentArgs, pageId: t.arg.string({ required: true }) },
    resolve: (_root, args, ctx) => pageOf(ctx, args),
  }),
  revisionFile: t.field({
    type: RevisionFile,
    authScopes: { caller: true },
    args: { ...contentArgs, fileId: t.arg.string({ required: true }) },
    resolve: async (_root, args, ctx) => {
      const source = await loadContentSource(ctx, String(args.spaceId), args.changeRequestId, args);
      const file = (await ctx.loaders.filesByRevisionId.load(source.revision.id)).find((f) => f.id === args.fileId);
      if (!file) throw new NotFoundError('File', args.fileId);
      return { file, revision: source.revision };
    },
  }),
  revisionPageByPath: t.field({
    type: RevisionPage,
    description: "The document page or group at `path` (slugs joined by `/`); else the page a redirect of the revision leads from there",
    authScopes: { caller: true },
    args: { ...contentArgs, path: t.arg.string({ required: true }) },
    resolve: async (_root, args, ctx) => {
      const source = await loadContentSource(ctx, String(args.spaceId), args.changeRequestId, args);
      const tree = await ctx.loaders.revisionTree.load(source.revision);
      const path = args.path.replace(/^\/+|\/+$/g, '');
      const atPath = [...tree.byId.values()].find((v) => v.path === path && v.page.kind !== 'link');
      const redirected = atPath ?? tree.byId.get(redirectsOf(source.revision.redirects).get(path) ?? '');
      if (!redirected || redirected.page.kind === 'link') throw new NotFoundError('Page', args.path);
      return redirected;
    },
  }),
  revisionPageMetaLinks: t.field({
    type: 'JSON',
    description: "A page's meta links (RevisionPageMetaLinks: `canonical` and `alternates`, page or URL references); {} when it has none",
    authScopes: { caller: true },
    args: { ...contentArgs, pageId: t.arg.string({ required: true }) },
    resolve: async (_root, args, ctx) => (await pageOf(ctx, args)).page.metaLinks ?? {},
  }),
  revisionReusableContent: t.field({
    type: ReusableContent,
    authScopes: { caller: true },
    args: { ...contentArgs, reusableContentId: t.arg.string({ required: true }) },
    resolve: async (_root, args, ctx) => {
      const source = await loadContentSource(ctx, String(args.spaceId), args.changeRequestId, args);
      const content = reusableContentsOf(source.revision.reusableContents).find((c) => c.id === args.reusableContentId);
      if (!content) throw new NotFoundError('Reusable content', args.reusableContentId);
      return { content, revision: source.revision };
    },
  }),
  spaceDocument: t.field({
    type: 'JSON',
    description: "A document (JSONDocument) by its id, when a page or reusable content of the space's current content has it",
    authScopes: { caller: true },
    args: {
      spaceId: t.arg.id({ required: true }),
      documentId: t.arg.string({ required: true }),
      schema: t.arg.string({ description: 'current or next: the version of the document schema (both answer the same document)' }),
    },
    resolve: async (_root, args, ctx) => {
      if (args.schema !== undefined && args.schema !== null && args.schema !== 'current' && args.schema !== 'next') throw new InvalidInputError('schema: must be current or next');
      const source = await loadContentSource(ctx, String(args.spaceId), null);
      // Documents are stored once for every space that has the same content: this space must have it.
      const pages = await ctx.loaders.pagesByRevisionId.load(source.revision.id);
      const held =
        pages.some((p) => p.documentHash === args.documentId) || reusableContentsOf(source.revision.reusableContents).some((c) => c.documentHash === args.documentId);
      const document = held ? await ctx.loaders.documentByHash.load(args.documentId) : null;
      if (!document) throw new NotFoundError('Document', args.documentId);
      return document;
    },
  }),
  revisionFiles: t.field({
    type: listType<FileView>('RevisionFile', RevisionFile),
    authScopes: { caller: true },
    args: { ...contentArgs, ...pageArgs },
    resolve: async (_root, args, ctx) => {
      const source = await loadContentSource(ctx, String(args.spaceId), args.changeRequestId, args);
      const files = (await ctx.loaders.filesByRevisionId.load(source.revision.id)).map((file) => ({ file, revision: source.revision }));
      return sliceList(files, args.page, args.limit);
    },
  }),
}));

// ---- Links and backlinks ------------------------------------------------

/** Where links are read: a revision, its space, and the change request it is read through, if any. */
export interface LinkSource {
  /** The space's row; a Space in the response reloads the columns it lacks (rowForSelection). */
  space: { id: string; organizationId: string };
  revision: RevisionView;
  changeRequest: { id: string; number: number } | null;
  /**
   * The organization and space rows its locations answer, once per selection: every location of a
   * list shares this source and (through the fragment) the same selection, and answering each one
   * apart cost a Prisma call per location (900 in a report of 100 links on 1,000 pages).
   */
  rows?: Map<FieldNode, Promise<unknown>>;
}

/** `load()` once per source and selected field. */
function oncePerSource<T>(source: LinkSource, info: GraphQLResolveInfo, load: () => Promise<T> | T): Promise<T> {
  source.rows ??= new Map();
  const key = info.fieldNodes[0]!;
  let row = source.rows.get(key) as Promise<T> | undefined;
  if (!row) source.rows.set(key, (row = Promise.resolve(load())));
  return row;
}

/** An absolute reference to content (ContentLocation of the wire contract): a page, a file, a URL or an OpenAPI spec. */
export interface LocationView {
  kind: 'page' | 'file' | 'url' | 'openapi';
  source: LinkSource;
  page?: PageView;
  file?: FileView;
  url?: string;
  openAPISpec?: OpenAPISpecRow;
}
type OpenAPISpecRow = Awaited<ReturnType<typeof loadReferencedSpecs>>['bySlug'] extends Map<string, infer R> ? R : never;

const ContentLocation = builder.objectRef<LocationView>('ContentLocation').implement({
  description: 'Where a link points or is found: a page or file of a space, a URL, or an OpenAPI spec of the organization',
  fields: (t) => ({
    kind: t.string({ resolve: (l) => l.kind }),
    organization: t.field({
      type: Organization,
      nullable: true,
      resolve: (l, _a, ctx, info) =>
        l.kind === 'url' ? null : oncePerSource(l.source, info, () => ctx.db.organization.findUnique({ where: { id: l.source.space.organizationId } })),
    }),
    space: t.field({
      type: Space,
      nullable: true,
      // rowForSelection answers with the row only when it holds every column the selection reads.
      resolve: (l, _a, ctx, info) =>
        l.kind === 'url' || l.kind === 'openapi'
          ? null
          : oncePerSource(l.source, info, () =>
              rowForSelection(ctx, info, 'Space', l.source.space as SpaceRow, (query) => ctx.db.space.findUniqueOrThrow({ ...query, where: { id: l.source.space.id } })),
            ),
    }),
    page: t.field({ type: RevisionPage, nullable: true, resolve: (l) => l.page ?? null }),
    file: t.field({ type: RevisionFile, nullable: true, resolve: (l) => l.file ?? null }),
    url: t.string({ nullable: true, resolve: (l) => l.url ?? null }),
    openAPISpec: t.field({ type: OpenAPISpec, nullable: true, resolve: (l) => l.openAPISpec ?? null }),
  }),
});

interface LinkView {
  status: LinkStatus;
  target: LocationView;
  locations: LocationView[];
}

const ContentReferenceUsage = builder.objectRef<LinkView>('ContentReferenceUsage').implement({
  description: 'A link: its target and the pages it is found on',
  fields: (t) => ({
    status: t.field({ type: ContentReferenceStatus, resolve: (l) => l.status }),
    relation: t.string({ resolve: () => 'reference' }),
    targetReference: t.field({
      type: ContentLocation,
      nullable: true,
      description: 'What the link points at; none when it is broken, or when it is an OpenAPI spec the caller may not read',
      resolve: (l) => (l.status === 'broken' || (l.target.kind === 'openapi' && !l.target.openAPISpec) ? null : l.target),
    }),
    locationReferences: t.field({ type: [ContentLocation], resolve: (l) => l.locations }),
  }),
});

const BrokenLinkStats = builder.objectRef<LinkStats['broken']>('BrokenLinkStats').implement({
  fields: (t) => ({ total: t.exposeInt('total'), changeRequest: t.exposeInt('changeRequest') }),
});
const LinkStatsType = builder.objectRef<LinkStats>('LinkStats').implement({
  description: 'Counts over every link, whatever the status filter',
  fields: (t) => ({ total: t.exposeInt('total'), broken: t.field({ type: BrokenLinkStats, resolve: (s) => s.broken }) }),
});

type LinkList = ListResult<LinkView> & { stats: LinkStats };

/** The list `pageLinks` and `Space.links` answer. */
export const ContentReferenceUsageList = builder.objectRef<LinkList>('ContentReferenceUsageList').implement({
  description: 'A page of links, with counts over all of them',
  fields: (t) => ({
    items: t.field({ type: [ContentReferenceUsage], resolve: (l) => l.items }),
    next: t.field({ type: ListNext, nullable: true, resolve: (l) => l.next }),
    count: t.int({ description: 'How many links match the status filter', resolve: (l) => (typeof l.count === 'number' ? l.count : l.count()) }),
    stats: t.field({ type: LinkStatsType, resolve: (l) => l.stats }),
  }),
});

/** The arguments of a link list: pagination and a status filter. */
export const linkListArgs = builder.args((t) => ({ ...pageArgs, status: t.field({ type: ContentReferenceStatus }) }));

/** The pages of a revision in tree order (depth first, as the table of contents lists them). */
function pagesInTreeOrder(tree: RevisionTree): PageView[] {
  const out: PageView[] = [];
  const walk = (parentId: string | null) => {
    for (const page of tree.children.get(parentId) ?? []) {
      out.push(page);
      walk(page.page.id);
    }
  };
  walk(null);
  return out;
}

/**
 * The links found on `pages` of the source's revision (each with its document's references), one
 * per target with every page it is found on, as the page of the list `args` asks for.
 */
async function linkList(
  ctx: Context,
  source: LinkSource,
  pages: readonly { page: PageView; references: readonly StoredReference[] }[],
  args: { page?: string | null; limit?: number | null; status?: string | null },
): Promise<LinkList> {
  const pageReferences = pages.map(({ page, references }) => ({ pageId: page.page.id, references }));
  const [tree, fileList, specs] = await Promise.all([
    ctx.loaders.revisionTree.load(source.revision),
    ctx.loaders.filesByRevisionId.load(source.revision.id),
    loadReferencedSpecs(ctx, source.space.organizationId, referencedOpenAPISpecs(pageReferences)),
  ]);
  const files = new Map(fileList.map((f) => [f.id, f]));
  const links = revisionLinks({
    pages: pageReferences,
    hasPage: (id) => tree.byId.has(id),
    hasFile: (id) => files.has(id),
    hasOpenAPISpec: (slug) => specs.bySlug.has(slug),
    appUrl: ctx.config.appUrl,
  });
  const filtered = args.status ? links.filter((l) => l.status === args.status) : links;
  const { items, next, count } = sliceList(filtered, args.page, args.limit, (l) => l.key);
  const locationOf = (pageId: string): LocationView => ({ kind: 'page', source, page: tree.byId.get(pageId)! });
  const views = items.map(({ status, target, locations }): LinkView => {
    const file = target.kind === 'file' ? files.get(target.fileId) : undefined;
    return {
      status,
      target:
        target.kind === 'page'
          ? { kind: 'page', source, page: tree.byId.get(target.pageId) }
          : target.kind === 'file'
            ? { kind: 'file', source, file: file ? { file, revision: source.revision } : undefined }
            : target.kind === 'openapi'
              ? { kind: 'openapi', source, openAPISpec: specs.readable ? specs.bySlug.get(target.specSlug) : undefined }
              : { kind: 'url', source, url: target.url },
      locations: locations.map(locationOf),
    };
  });
  return { items: views, next, count, stats: linkStats(links, source.changeRequest !== null) };
}

/** Every link of the source's revision: the references of all its pages' documents, located in tree order. */
export async function revisionLinkList(ctx: Context, source: LinkSource, args: Parameters<typeof linkList>[3]): Promise<LinkList> {
  const [tree, referencesByHash] = await Promise.all([ctx.loaders.revisionTree.load(source.revision), ctx.loaders.referencesByRevisionId.load(source.revision.id)]);
  const pages = pagesInTreeOrder(tree)
    .map((page) => ({ page, references: [...(page.page.documentHash ? (referencesByHash.get(page.page.documentHash) ?? []) : []), ...pageSettingReferences(page.page)] }))
    .filter((page) => page.references.length > 0);
  return linkList(ctx, source, pages, args);
}

const ContentLocationList = listType<LocationView>('ContentLocation', ContentLocation);

builder.queryFields((t) => ({
  pageLinks: t.field({
    type: ContentReferenceUsageList,
    description: 'The links of a page: pages, files and URLs its document points at',
    authScopes: { authenticated: true },
    args: { ...contentArgs, ...linkListArgs, pageId: t.arg.string({ required: true }) },
    resolve: async (_root, args, ctx) => {
      const source = await loadContentSource(ctx, String(args.spaceId), args.changeRequestId);
      const page = (await ctx.loaders.revisionTree.load(source.revision)).byId.get(args.pageId);
      if (!page) throw new NotFoundError('Page', args.pageId);
      const references = page.page.documentHash
        ? await ctx.db.documentReference.findMany({ where: { documentHash: page.page.documentHash }, select: { targetKind: true, target: true } })
        : [];
      return linkList(ctx, source, [{ page, references: [...references, ...pageSettingReferences(page.page)] }], args);
    },
  }),
  pageBacklinks: t.field({
    type: ContentLocationList,
    description: 'The pages of the revision linking to a page',
    authScopes: { authenticated: true },
    args: { ...contentArgs, ...pageArgs, pageId: t.arg.string({ required: true }) },
    resolve: async (_root, args, ctx) => {
      const source = await loadContentSource(ctx, String(args.spaceId), args.changeRequestId);
      const tree = await ctx.loaders.revisionTree.load(source.revision);
      if (!tree.byId.has(args.pageId)) throw new NotFoundError('Page', args.pageId);
      return sliceList(await backlinks(ctx, source, { kind: 'page', page: args.pageId }), args.page, args.limit);
    },
  }),
  fileBacklinks: t.field({
    type: ContentLocationList,
    description: 'The pages of the revision linking to a file',
    authScopes: { authenticated: true },
    args: { ...contentArgs, ...pageArgs, fileId: t.arg.string({ required: true }) },
    resolve: async (_root, args, ctx) => {
      const source = await loadContentSource(ctx, String(args.spaceId), args.changeRequestId);
      const files = await ctx.loaders.filesByRevisionId.load(source.revision.id);
      if (!files.some((f) => f.id === args.fileId)) throw new NotFoundError('File', args.fileId);
      return sliceList(await backlinks(ctx, source, { kind: 'file', file: args.fileId }), args.page, args.limit);
    },
  }),
  openAPISpecBacklinks: t.field({
    type: ContentLocationList,
    description:
      "The pages of the revision referencing the organization's OpenAPI spec `specSlug` (`{kind: 'openapi', spec}`), whether or not the spec still exists: after a delete, the pages to mend",
    authScopes: { authenticated: true },
    args: { ...contentArgs, ...pageArgs, specSlug: t.arg.string({ required: true }) },
    resolve: async (_root, args, ctx) => {
      const source = await loadContentSource(ctx, String(args.spaceId), args.changeRequestId);
      return sliceList(await backlinks(ctx, source, { kind: 'openapi', spec: args.specSlug }), args.page, args.limit);
    },
  }),
}));

/** The pages of the source revision whose document or settings (cover, metaLinks) reference `target`, in tree order. */
async function backlinks(ctx: Context, source: ContentSource, target: ContentRef): Promise<LocationView[]> {
  const key = referenceTarget(target)!;
  // The documents (of any space) that reference the target, by its index; then the revision's pages holding one.
  const [rows, tree] = await Promise.all([
    ctx.db.documentReference.findMany({ where: { targetKind: key.kind, target: key.target }, select: { documentHash: true } }),
    ctx.loaders.revisionTree.load(source.revision),
  ]);
  const hashes = new Set(rows.map((r) => r.documentHash));
  const inSettings = (page: PageView) => pageSettingReferences(page.page).some((ref) => ref.targetKind === key.kind && ref.target === key.target);
  return pagesInTreeOrder(tree)
    .filter((p) => (p.page.documentHash !== null && hashes.has(p.page.documentHash)) || inSettings(p))
    .map((page) => ({ kind: 'page' as const, source, page }));
}

builder.prismaObjectFields(Space, (t) => ({
  revision: t.field({
    type: Revision,
    description: 'The current content',
    select: { revisionId: true, organizationId: true, id: true },
    resolve: async (space, _a, ctx) => {
      const row = await ctx.loaders.revisionById.load(space.revisionId);
      if (!row) throw new NotFoundError('Revision', space.revisionId);
      return { ...row, organizationId: space.organizationId };
    },
  }),
}));

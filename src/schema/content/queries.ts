/**
 * Reading content: the current revision of a space, or of one of its change
 * requests (`changeRequestId`, an id or the per-space number): the revision,
 * a page, files, and the links between pages and files. The same root fields
 * serve the "Space content" and "Change request content" REST groups.
 */
import { builder } from '../../builder.ts';
import type { Action } from '../../auth/policies.ts';
import type { Context } from '../../context.ts';
import { InvalidInputError, NotFoundError } from '../../errors/index.ts';
import { referenceTarget } from '../../content/revision-store.ts';
import type { ContentRef } from '../../content/snapshot.ts';
import { Organization } from '../organization/type.ts';
import { ContentReferenceStatus } from '../shared/enums.ts';
import { listType, ListNext, pageArgs } from '../shared/pagination.ts';
import { rowForSelection } from '../shared/select.ts';
import { Space } from '../space/type.ts';
import { RevisionFile, RevisionPage, Revision, revisionTree, type FileView, type PageView } from './type.ts';
import { sliceList, type ListResult } from '../../db/pagination.ts';
import { loadSpace } from '../../services/space.ts';
import { type RevisionView, loadContentSource, ContentSource } from '../../services/space-content.ts';

const contentArgs = builder.args((t) => ({
  spaceId: t.id({ required: true }),
  changeRequestId: t.string({ description: 'Read a change request content instead of the space (its id or number)' }),
  metadata: t.boolean({ description: 'Accepted for compatibility (Git metadata is not stored yet)' }),
  computed: t.boolean({ description: 'Accepted for compatibility (there is no computed content)' }),
}));

builder.queryFields((t) => ({
  revisionContent: t.field({
    type: Revision,
    description: 'The current revision of a space, or of one of its change requests',
    authScopes: { authenticated: true },
    args: contentArgs,
    resolve: async (_root, args, ctx) => (await loadContentSource(ctx, String(args.spaceId), args.changeRequestId)).revision,
  }),
  revisionPage: t.field({
    type: RevisionPage,
    authScopes: { authenticated: true },
    args: { ...contentArgs, pageId: t.arg.string({ required: true }) },
    resolve: async (_root, args, ctx) => {
      const source = await loadContentSource(ctx, String(args.spaceId), args.changeRequestId);
      const page = (await revisionTree(ctx, source.revision)).byId.get(args.pageId);
      if (!page) throw new NotFoundError('Page', args.pageId);
      return page;
    },
  }),
  revisionFile: t.field({
    type: RevisionFile,
    authScopes: { authenticated: true },
    args: { ...contentArgs, fileId: t.arg.string({ required: true }) },
    resolve: async (_root, args, ctx) => {
      const source = await loadContentSource(ctx, String(args.spaceId), args.changeRequestId);
      const file = (await ctx.loaders.filesByRevisionId.load(source.revision.id)).find((f) => f.id === args.fileId);
      if (!file) throw new NotFoundError('File', args.fileId);
      return { file, revision: source.revision };
    },
  }),
  revisionFiles: t.field({
    type: listType<FileView>('RevisionFile', RevisionFile),
    authScopes: { authenticated: true },
    args: { ...contentArgs, ...pageArgs },
    resolve: async (_root, args, ctx) => {
      const source = await loadContentSource(ctx, String(args.spaceId), args.changeRequestId);
      const files = (await ctx.loaders.filesByRevisionId.load(source.revision.id)).map((file) => ({ file, revision: source.revision }));
      return sliceList(files, args.page, args.limit);
    },
  }),
}));

// ---- Links and backlinks ------------------------------------------------

/** An absolute reference to content (ContentLocation of the wire contract): a page, a file or a URL. */
export interface LocationView {
  kind: 'page' | 'file' | 'url';
  source: ContentSource;
  page?: PageView;
  file?: FileView;
  url?: string;
}

const ContentLocation = builder.objectRef<LocationView>('ContentLocation').implement({
  description: 'Where a link points or is found: a page or file of a space, or a URL',
  fields: (t) => ({
    kind: t.string({ resolve: (l) => l.kind }),
    organization: t.field({
      type: Organization,
      nullable: true,
      resolve: (l, _a, ctx) => (l.kind === 'url' ? null : ctx.db.organization.findUnique({ where: { id: l.source.space.organizationId } })),
    }),
    space: t.field({
      type: Space,
      nullable: true,
      // The source's space has every column (loadSpace).
      resolve: (l, _a, ctx, info) =>
        l.kind === 'url'
          ? null
          : rowForSelection(ctx, info, 'Space', l.source.space, (query) => ctx.db.space.findUniqueOrThrow({ ...query, where: { id: l.source.space.id } })),
    }),
    page: t.field({ type: RevisionPage, nullable: true, resolve: (l) => l.page ?? null }),
    file: t.field({ type: RevisionFile, nullable: true, resolve: (l) => l.file ?? null }),
    url: t.string({ nullable: true, resolve: (l) => l.url ?? null }),
  }),
});

interface LinkView {
  status: 'ok' | 'broken' | 'in-app';
  target: LocationView;
  locations: LocationView[];
}

const ContentReferenceUsage = builder.objectRef<LinkView>('ContentReferenceUsage').implement({
  description: 'A link of a page: its target and where it is found',
  fields: (t) => ({
    status: t.field({ type: ContentReferenceStatus, resolve: (l) => l.status }),
    relation: t.string({ resolve: () => 'reference' }),
    targetReference: t.field({ type: ContentLocation, nullable: true, resolve: (l) => (l.status === 'broken' ? null : l.target) }),
    locationReferences: t.field({ type: [ContentLocation], resolve: (l) => l.locations }),
  }),
});

const BrokenStats = builder.objectRef<{ total: number; changeRequest: number }>('PageLinkBrokenStats').implement({
  fields: (t) => ({ total: t.exposeInt('total'), changeRequest: t.exposeInt('changeRequest') }),
});
const PageLinkStats = builder.objectRef<{ total: number; broken: { total: number; changeRequest: number } }>('PageLinkStats').implement({
  fields: (t) => ({ total: t.exposeInt('total'), broken: t.field({ type: BrokenStats, resolve: (s) => s.broken }) }),
});

type PageLinks = ListResult<LinkView> & { stats: { total: number; broken: { total: number; changeRequest: number } } };
const PageLinkList = builder.objectRef<PageLinks>('PageLinkList').implement({
  fields: (t) => ({
    items: t.field({ type: [ContentReferenceUsage], resolve: (l) => l.items }),
    next: t.field({ type: ListNext, nullable: true, resolve: (l) => l.next }),
    count: t.int({ resolve: (l) => (typeof l.count === 'number' ? l.count : l.count()) }),
    stats: t.field({ type: PageLinkStats, resolve: (l) => l.stats }),
  }),
});

const ContentLocationList = listType<LocationView>('ContentLocation', ContentLocation);

builder.queryFields((t) => ({
  pageLinks: t.field({
    type: PageLinkList,
    description: 'The links of a page: pages, files and URLs its document points at',
    authScopes: { authenticated: true },
    args: { ...contentArgs, ...pageArgs, pageId: t.arg.string({ required: true }), status: t.arg({ type: ContentReferenceStatus }) },
    resolve: async (_root, args, ctx) => {
      const source = await loadContentSource(ctx, String(args.spaceId), args.changeRequestId);
      const tree = await revisionTree(ctx, source.revision);
      const page = tree.byId.get(args.pageId);
      if (!page) throw new NotFoundError('Page', args.pageId);
      const references = page.page.documentHash
        ? await ctx.db.documentReference.findMany({ where: { documentHash: page.page.documentHash }, orderBy: [{ targetKind: 'asc' }, { target: 'asc' }] })
        : [];
      const files = new Map((await ctx.loaders.filesByRevisionId.load(source.revision.id)).map((f) => [f.id, f]));
      const here: LocationView = { kind: 'page', source, page };
      const links: LinkView[] = [];
      for (const ref of references) {
        if (ref.targetKind === 'page') {
          const target = tree.byId.get(ref.target);
          links.push({ status: target ? 'ok' : 'broken', target: { kind: 'page', source, page: target }, locations: [here] });
        } else if (ref.targetKind === 'file') {
          const file = files.get(ref.target);
          links.push({
            status: file ? 'ok' : 'broken',
            target: { kind: 'file', source, file: file ? { file, revision: source.revision } : undefined },
            locations: [here],
          });
        } else if (ref.targetKind === 'url') {
          const inApp = ref.target.startsWith(`${ctx.config.appUrl}/`);
          links.push({ status: inApp ? 'in-app' : 'ok', target: { kind: 'url', source, url: ref.target }, locations: [here] });
        }
      }
      const broken = links.filter((l) => l.status === 'broken').length;
      const filtered = args.status ? links.filter((l) => l.status === args.status) : links;
      return {
        ...sliceList(filtered, args.page, args.limit),
        stats: { total: links.length, broken: { total: broken, changeRequest: source.changeRequest ? broken : 0 } },
      };
    },
  }),
  pageBacklinks: t.field({
    type: ContentLocationList,
    description: 'The pages of the revision linking to a page',
    authScopes: { authenticated: true },
    args: { ...contentArgs, ...pageArgs, pageId: t.arg.string({ required: true }) },
    resolve: async (_root, args, ctx) => {
      const source = await loadContentSource(ctx, String(args.spaceId), args.changeRequestId);
      const tree = await revisionTree(ctx, source.revision);
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
}));

/** The pages of the source revision whose document references `target`, in tree order. */
async function backlinks(ctx: Context, source: ContentSource, target: ContentRef): Promise<LocationView[]> {
  const key = referenceTarget(target)!;
  const rows = await ctx.db.revisionPage.findMany({
    where: { revisionId: source.revision.id, document: { references: { some: { targetKind: key.kind, target: key.target } } } },
    select: { pageId: true },
  });
  const tree = await revisionTree(ctx, source.revision);
  const ids = new Set(rows.map((r) => r.pageId));
  return [...tree.byId.values()]
    .filter((p) => ids.has(p.page.id))
    .sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))
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

/**
 * `GET .../change-requests/{changeRequestId}/pdf`: the change request's content
 * rendered to a PDF (src/content/pdf/render.ts), kept in the object storage, and
 * answered as a signed URL valid for one hour.
 */
import { builder } from '../../builder.ts';
import { pagesInOrder, subtreeIds } from '../../content/page-tree.ts';
import { loadDocuments } from '../../content/revision-store.ts';
import { NotFoundError } from '../../errors/index.ts';
import { loadContentSource } from '../../services/space-content.ts';
import { signDownloadUrl } from '../../storage/signed-url.ts';

const PDF_URL_TTL_SECONDS = 60 * 60;

const PdfUrl = builder.objectRef<{ url: string }>('ContentPdf').implement({
  fields: (t) => ({ url: t.exposeString('url', { description: 'Where to download the PDF; valid for one hour' }) }),
});

builder.queryField('changeRequestPdf', (t) =>
  t.field({
    type: PdfUrl,
    description: 'A PDF of the change request content: every page, one page with its sub-pages (`page`), or one page alone (`page` and `only`)',
    authScopes: { authenticated: true },
    args: {
      spaceId: t.arg.id({ required: true }),
      changeRequestId: t.arg.string({ required: true }),
      page: t.arg.string({ description: 'Id of the page to print' }),
      only: t.arg.boolean({ description: 'Print only that page, without its sub-pages' }),
    },
    resolve: async (_root, args, ctx) => {
      const source = await loadContentSource(ctx, String(args.spaceId), args.changeRequestId);
      const list = await ctx.loaders.pagesByRevisionId.load(source.revision.id);
      const pages = new Map(list.map((p) => [p.id, p]));
      let chosen = pagesInOrder(pages);
      if (args.page) {
        if (!pages.has(args.page)) throw new NotFoundError('Page', args.page);
        const keep = args.only ? new Set([args.page]) : subtreeIds(pages, args.page);
        chosen = chosen.filter(({ page }) => keep.has(page.id));
      }
      chosen = chosen.filter(({ page }) => page.kind !== 'link');
      const documents = await loadDocuments(ctx.db, chosen.map(({ page }) => page.documentHash).filter((h): h is string => h !== null));
      const files = await ctx.loaders.filesByRevisionId.load(source.revision.id);
      // Rendered on a worker thread. Only files of this revision are embedded: a URL image is never fetched while printing.
      const bytes = await ctx.conversions.renderPdf({
        title: source.space.title || 'Untitled space',
        pages: chosen.map(({ page, depth }) => ({
          title: page.title,
          depth,
          description: page.description,
          document: page.documentHash ? (documents.get(page.documentHash) ?? null) : null,
        })),
        files: new Map(files.map((f) => [f.id, f.storageKey])),
      });
      const { key } = await ctx.storage.put(bytes);
      const name = `${(source.space.title || 'content').replace(/[\\/:*?"<>|]+/g, '-')}.pdf`;
      return { url: signDownloadUrl(ctx.config, { key, name, contentType: 'application/pdf', expiresInSeconds: PDF_URL_TTL_SECONDS }) };
    },
  }),
);

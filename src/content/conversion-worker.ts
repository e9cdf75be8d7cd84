/**
 * The content conversions that run on worker threads (src/worker-pool.ts):
 * Markdown to a document, a document to Markdown, and content to a PDF. Each
 * export is a `workerTask`; src/content/conversions.ts runs them.
 */
import { createStorage, type StorageConfig } from '../storage/storage.ts';
import { workerTask } from '../worker-pool.ts';
import { type MarkdownLimits } from './document/markdown-limits.ts';
import { markdownToDocument, type MarkdownToDocumentResult } from './document/markdown-parse.ts';
import { documentToMarkdown } from './document/markdown-print.ts';
import { type JSONDocument } from './document/model.ts';
import { parseHrefTable, resolveFromTable } from './page-hrefs.ts';
import { pdfFonts } from './pdf/dejavu-fonts.ts';
import { renderContentPdf, type PdfPageInput } from './pdf/render.ts';

export interface MarkdownToDocumentInput {
  markdown: string;
  /** What relative hrefs name (serializeHrefTable); null leaves them URLs. */
  hrefs: string | null;
  /** The folder of the page's file, where its relative hrefs start ('' or absent: the top). */
  folder?: string;
  limits: MarkdownLimits;
  /** false: a body (a comment's), not a page: no frontmatter, no title taken out (markdownToDocument's `page`). */
  page?: boolean;
}

export const markdownToDocumentTask = workerTask(
  ({ markdown, hrefs, folder, limits, page }: MarkdownToDocumentInput): MarkdownToDocumentResult =>
    markdownToDocument(markdown, { limits, page, resolveHref: hrefs ? resolveFromTable(parseHrefTable(hrefs), folder) : undefined }),
);

export const documentsToMarkdownTask = workerTask(({ documents }: { documents: JSONDocument[] }): string[] => documents.map((document) => documentToMarkdown(document)));

export interface RenderPdfInput {
  title: string;
  pages: PdfPageInput[];
  /** The storage key of each file of the content an image may name, by file id: only these are embedded. */
  files: Map<string, string>;
  storage: StorageConfig;
}

export const renderPdfTask = workerTask(async ({ title, pages, files, storage }: RenderPdfInput): Promise<Uint8Array> => {
  const store = createStorage(storage);
  return renderContentPdf({
    title,
    pages,
    fonts: await pdfFonts(),
    loadImage: async (ref) => {
      const key = ref.kind === 'file' && typeof ref.file === 'string' ? files.get(ref.file) : undefined;
      return key ? store.get(key) : null;
    },
  });
});

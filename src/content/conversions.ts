/**
 * The content conversions a request asks for, run on the worker pool
 * (src/worker-pool.ts) so the event loop keeps serving other requests, each
 * with the pool's deadline: Markdown to a document (under the Markdown
 * limits), a document to Markdown, content to a PDF.
 */
import { type StorageConfig } from '../storage/storage.ts';
import { taskRef, workerModule, type WorkerPool } from '../worker-pool.ts';
import type { documentsToMarkdownTask, markdownToDocumentTask, RenderPdfInput, renderPdfTask } from './conversion-worker.ts';
import { type MarkdownLimits } from './document/markdown-limits.ts';
import { type MarkdownToDocumentResult } from './document/markdown-parse.ts';
import { type JSONDocument } from './document/model.ts';
import { serializeHrefTable, type HrefTable } from './page-hrefs.ts';

export interface Conversions {
  /**
   * Markdown to a document, its frontmatter and title; relative hrefs found in `hrefs` become
   * references, read from `folder` (the folder of the page's file: page-hrefs.ts). `page: false`
   * reads a body (a comment's): no frontmatter, no title taken out.
   */
  markdownToDocument(markdown: string, hrefs?: HrefTable | null, options?: { page?: boolean; folder?: string }): Promise<MarkdownToDocumentResult>;
  /** Documents to Markdown, in order; tasks of DOCUMENTS_PER_TASK documents run side by side. */
  documentsToMarkdown(documents: readonly JSONDocument[]): Promise<string[]>;
  /** The PDF of `pages`; images are embedded when they are files of `files` (file id to storage key). */
  renderPdf(input: Omit<RenderPdfInput, 'storage'>): Promise<Uint8Array>;
}

const WORKER = workerModule(import.meta.url, 'conversion-worker');
const MARKDOWN_TO_DOCUMENT = taskRef<typeof markdownToDocumentTask>(WORKER, 'markdownToDocumentTask');
const DOCUMENTS_TO_MARKDOWN = taskRef<typeof documentsToMarkdownTask>(WORKER, 'documentsToMarkdownTask');

/** Documents converted to Markdown by one task: a page list asking for Markdown makes a few tasks, not one per page. */
export const DOCUMENTS_PER_TASK = 50;
const RENDER_PDF = taskRef<typeof renderPdfTask>(WORKER, 'renderPdfTask');

export function createConversions(options: { pool: WorkerPool; limits: MarkdownLimits; storage: StorageConfig }): Conversions {
  const { pool, limits, storage } = options;
  return {
    markdownToDocument: (markdown, hrefs = null, options = {}) =>
      pool.run(
        MARKDOWN_TO_DOCUMENT,
        { markdown, hrefs: hrefs && serializeHrefTable(hrefs), folder: options.folder, limits, page: options.page },
        { what: 'Converting the Markdown' },
      ),
    documentsToMarkdown: async (documents) => {
      const chunks: JSONDocument[][] = [];
      for (let i = 0; i < documents.length; i += DOCUMENTS_PER_TASK) chunks.push(documents.slice(i, i + DOCUMENTS_PER_TASK));
      const results = await Promise.all(chunks.map((chunk) => pool.run(DOCUMENTS_TO_MARKDOWN, { documents: chunk }, { what: 'Converting documents to Markdown' })));
      return results.flat();
    },
    renderPdf: (input) => pool.run(RENDER_PDF, { ...input, storage }, { what: 'Rendering the PDF' }),
  };
}

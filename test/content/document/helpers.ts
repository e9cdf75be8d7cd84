/** Shared helpers of the Document <-> Markdown tests. */
import { expect } from 'vitest';
import { markdownToDocument, type MarkdownToDocumentOptions } from '../../../src/content/document/markdown-parse.ts';
import { documentToMarkdown } from '../../../src/content/document/markdown-print.ts';
import { type JSONDocument, type JSONNode } from '../../../src/content/document/model.ts';
import { validateSchema } from '../../helpers/openapi-schema.ts';

/** Markdown -> Document, checked against the OpenAPI `JSONDocument` schema (both API versions we serve). */
export function toDocument(markdown: string, options?: MarkdownToDocumentOptions): JSONDocument {
  const { document } = markdownToDocument(markdown, options);
  validateSchema('JSONDocument', document);
  validateSchema('JSONDocument', document, 'next');
  return document;
}

/**
 * Markdown -> Document -> Markdown -> Document: both documents valid and deep
 * equal, and printing the second gives the same Markdown again.
 */
export function roundTrip(markdown: string, options?: MarkdownToDocumentOptions): { document: JSONDocument; markdown: string } {
  const first = toDocument(markdown, options);
  const printed = documentToMarkdown(first);
  const second = toDocument(printed, options);
  expect(second, `re-reading:\n${printed}`).toEqual(first);
  expect(documentToMarkdown(second)).toBe(printed);
  return { document: first, markdown: printed };
}

/** All nodes of a document (blocks, inlines, texts, fragments), depth first in document order. */
export function allNodes(document: JSONDocument): JSONNode[] {
  const out: JSONNode[] = [];
  const visit = (node: JSONNode) => {
    out.push(node);
    for (const f of (node.fragments as JSONNode[] | undefined) ?? []) visit(f);
    for (const child of node.nodes ?? []) visit(child);
  };
  document.nodes.forEach(visit);
  return out;
}

/** The nodes of a type, in document order. */
export function nodesOfType(document: JSONDocument, type: string): JSONNode[] {
  return allNodes(document).filter((n) => n.type === type);
}

/** The leaves of a document as [text, marks] pairs. */
export function leaves(document: JSONDocument): [string, string[]][] {
  return allNodes(document)
    .filter((n) => n.object === 'text')
    .flatMap((n) => n.leaves!.filter((l) => l.text !== '').map((l): [string, string[]] => [l.text, l.marks.map((m) => m.type)]));
}

import { type JSONDocument, type JSONNode } from './model.ts';
/**
 * Plain text of a Document, for search: the page split into sections at its
 * headings, each with the anchor a link to it would use.
 */

/** One searchable part of a page: the text under a heading (or before the first one). */
export interface DocumentSection {
  /** The heading's anchor, unique within the page; '' for the text before the first heading. */
  id: string;
  /** The heading's text; '' for the text before the first heading. */
  title: string;
  /** Plain text of the section, one line per paragraph, code line, cell... */
  body: string;
}

const HEADINGS = new Set(['heading-1', 'heading-2', 'heading-3']);

/**
 * The text of a node: its leaves concatenated; child blocks are joined by
 * newlines. Void inlines (images, mentions) have no text.
 */
export function nodeText(node: JSONNode | JSONDocument): string {
  if (node.object === 'text') return ((node as JSONNode).leaves ?? []).map((l) => l.text).join('');
  const children = node.nodes ?? [];
  const separator = children.some((c) => c.object === 'block') ? '\n' : '';
  return children.map(nodeText).join(separator);
}

/** The document split at its headings (at any depth, in document order), for search. */
export function documentSections(document: JSONDocument): DocumentSection[] {
  const sections: DocumentSection[] = [];
  const anchors = createAnchorSlugger();
  let current = { id: '', title: '', lines: [] as string[] };
  const flush = () => {
    // The text before the first heading is a section only when there is some.
    if (current.id !== '' || current.lines.length > 0) sections.push({ id: current.id, title: current.title, body: current.lines.join('\n') });
  };
  walkLines(document.nodes, {
    heading(block) {
      flush();
      const title = nodeText(block).trim();
      const explicit = typeof block.data?.id === 'string' && block.data.id ? block.data.id : null;
      current = { id: anchors(explicit ?? title), title, lines: [] };
    },
    line(text) {
      current.lines.push(text);
    },
  });
  flush();
  return sections;
}

/** All the text of the document, headings included, one line per text block. */
export function documentPlainText(document: JSONDocument): string {
  const lines: string[] = [];
  walkLines(document.nodes, { heading: (block) => pushLine(lines, nodeText(block)), line: (text) => lines.push(text) });
  return lines.join('\n');
}

/** The headings of the document in the order `documentSections` reads them (and so numbers duplicate anchors). */
export function documentHeadings(document: JSONDocument): JSONNode[] {
  const headings: JSONNode[] = [];
  walkLines(document.nodes, { heading: (block) => headings.push(block), line: () => undefined });
  return headings;
}

/** The anchors of the page's headings, in order (what `#anchor` links may point at). */
export function documentAnchors(document: JSONDocument): string[] {
  return documentSections(document)
    .filter((s) => s.id !== '')
    .map((s) => s.id);
}

/**
 * A heading's anchor: lowercase letters and digits, words joined by `-`
 * ("Getting started!" -> "getting-started"); "section" when nothing is left.
 */
export function slugify(text: string): string {
  let slug = '';
  for (const char of text.normalize('NFKD').toLowerCase()) {
    if (/\p{M}/u.test(char)) continue; // accents split off by NFKD
    if (/[\p{L}\p{N}_]/u.test(char)) slug += char;
    else if ((char === ' ' || char === '-' || char === '\t') && !slug.endsWith('-')) slug += '-';
  }
  slug = slug.replace(/^-+|-+$/g, '');
  return slug || 'section';
}

/** Returns a function giving unique anchors within one page: "intro", "intro-1", "intro-2"... */
export function createAnchorSlugger(): (text: string) => string {
  const used = new Set<string>();
  return (text) => {
    const base = slugify(text);
    let slug = base;
    for (let n = 1; used.has(slug); n++) slug = `${base}-${n}`;
    used.add(slug);
    return slug;
  };
}

interface LineVisitor {
  heading(block: JSONNode): void;
  line(text: string): void;
}

function pushLine(lines: string[], text: string) {
  if (text.trim() !== '') lines.push(text);
}

/** Visits the text-bearing blocks in document order: headings, and one line per other text block. */
function walkLines(nodes: JSONNode[] | undefined, visitor: LineVisitor) {
  for (const node of nodes ?? []) {
    if (node.object === 'text' || node.object === 'inline') continue;
    if (HEADINGS.has(node.type ?? '')) {
      visitor.heading(node);
      continue;
    }
    if (node.type === 'table') {
      tableLines(node, visitor);
      continue;
    }
    // A block of inline content (paragraph, code line) is one line.
    if (node.nodes?.some((c) => c.object === 'text' || c.object === 'inline')) {
      const text = nodeText(node);
      if (text.trim() !== '') visitor.line(text);
      continue;
    }
    walkLines(node.nodes, visitor);
    walkLines(node.fragments as JSONNode[] | undefined, visitor);
  }
}

/** A table's column titles, then its cells row by row (records in orderIndex order, columns in view order). */
function tableLines(node: JSONNode, visitor: LineVisitor) {
  const data = (node.data ?? {}) as { view?: { columns?: string[] }; records?: Record<string, { orderIndex?: string; values?: Record<string, unknown> }>; definition?: Record<string, { title?: string }> };
  const definition = data.definition ?? {};
  const columns = (data.view?.columns ?? Object.keys(definition)).filter((id) => id in definition);
  const fragments = new Map(((node.fragments as JSONNode[] | undefined) ?? []).map((f) => [f.fragment as string, f]));
  for (const id of columns) {
    const title = definition[id].title ?? '';
    if (title.trim() !== '') visitor.line(title);
  }
  const records = Object.values(data.records ?? {}).sort((a, b) => ((a.orderIndex ?? '') < (b.orderIndex ?? '') ? -1 : (a.orderIndex ?? '') > (b.orderIndex ?? '') ? 1 : 0));
  for (const record of records) {
    for (const id of columns) {
      const value = record.values?.[id];
      if (typeof value === 'string' && fragments.has(value)) walkLines(fragments.get(value)!.nodes, visitor);
      else if ((typeof value === 'string' || typeof value === 'number') && String(value).trim() !== '') visitor.line(String(value));
    }
  }
}

/**
 * A Document of plain text: a paragraph per block of lines (blank lines part them), the text as
 * it is (no Markdown read into it, so what a reader wrote stays what it says).
 */
export function textDocument(text: string): JSONDocument {
  const paragraphs = text
    .split(/\n\s*\n/)
    .map((block) => block.trim())
    .filter((block) => block.length > 0);
  return {
    object: 'document',
    data: {},
    nodes: paragraphs.map((block) => ({ object: 'block', type: 'paragraph', nodes: [{ object: 'text', leaves: [{ object: 'leaf', text: block, marks: [] }] }] })),
  };
}

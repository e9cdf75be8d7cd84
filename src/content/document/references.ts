import { type ContentRef, type JSONDocument, type JSONNode } from './model.ts';
/**
 * The content a Document points at: what link checking, backlinks and
 * "this file is used by" need, without knowing every block type.
 */

/** One reference found in a document. */
export interface DocumentReference {
  ref: ContentRef;
  /** The `key` of the node holding it, when the document has keys (GitBook's do; converted Markdown does not). */
  nodeKey?: string;
}

/**
 * Every ContentRef of the document in document order: `data.ref` and
 * `data.refDark` of any node (links, images, files, content-refs, mentions,
 * buttons...), embeds' `data.url` as URL refs, and ContentRef cells of
 * tables; a node's own refs come before those of its fragments and children.
 */
export function extractReferences(document: JSONDocument): DocumentReference[] {
  const out: DocumentReference[] = [];
  for (const node of document.nodes) collect(node, out);
  return out;
}

function isContentRef(value: unknown): value is ContentRef {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && typeof (value as { kind?: unknown }).kind === 'string';
}

function collect(node: JSONNode, out: DocumentReference[]) {
  const push = (ref: ContentRef) => out.push(typeof node.key === 'string' ? { ref, nodeKey: node.key } : { ref });
  const data = node.data ?? {};
  if (isContentRef(data.ref)) push(data.ref);
  if (isContentRef(data.refDark)) push(data.refDark);
  if (node.type === 'embed' && typeof data.url === 'string' && data.url) push({ kind: 'url', url: data.url });
  if (node.type === 'table') for (const ref of tableRefs(data)) push(ref);
  for (const f of (node.fragments as JSONNode[] | undefined) ?? []) collect(f, out);
  for (const child of node.nodes ?? []) collect(child, out);
}

/** ContentRef and image cells of a table, records in orderIndex order. */
function tableRefs(data: Record<string, unknown>): ContentRef[] {
  const records = Object.values((data.records ?? {}) as Record<string, { orderIndex?: string; values?: Record<string, unknown> }>);
  records.sort((a, b) => ((a.orderIndex ?? '') < (b.orderIndex ?? '') ? -1 : (a.orderIndex ?? '') > (b.orderIndex ?? '') ? 1 : 0));
  const refs: ContentRef[] = [];
  for (const record of records) {
    for (const value of Object.values(record.values ?? {})) {
      if (isContentRef(value)) refs.push(value);
      // An image cell may wrap its ref: { ref, objectFit, alt }.
      else if (typeof value === 'object' && value !== null && isContentRef((value as { ref?: unknown }).ref)) refs.push((value as { ref: ContentRef }).ref);
    }
  }
  return refs;
}

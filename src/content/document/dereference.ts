/**
 * Reusable contents inlined on page reads (`dereference=true` or `reusable-contents`): each
 * `reusable-content` block whose reusable content can be read is replaced by the blocks of its
 * document; one that cannot (deleted, or in a space the reader may not read) stays a reference.
 * Reusable contents that include others are inlined too, up to MAX_DEPTH, never into themselves.
 */
import type { ContentRef, JSONDocument, JSONNode } from './model.ts';

/** Levels of reusable contents within reusable contents that are inlined. */
const MAX_DEPTH = 4;

/** The document of reusable content `id` of space `space` (null: the page's own space); null when it cannot be read. */
export type ReusableContentLookup = (id: string, space: string | null) => Promise<JSONDocument | null>;

function includedRef(node: JSONNode): (ContentRef & { kind: 'reusable-content' }) | null {
  const ref = node.data?.ref as ContentRef | undefined;
  return node.object === 'block' && node.type === 'reusable-content' && ref?.kind === 'reusable-content' && typeof ref.reusableContent === 'string'
    ? (ref as ContentRef & { kind: 'reusable-content' })
    : null;
}

function hasIncludes(nodes: readonly JSONNode[] | undefined): boolean {
  return (nodes ?? []).some((node) => includedRef(node) !== null || hasIncludes(node.nodes) || hasIncludes(node.fragments as JSONNode[] | undefined));
}

/** `space`: the space the nodes belong to (null: the page's), which a ref without `space` means. */
async function inline(nodes: readonly JSONNode[], lookup: ReusableContentLookup, within: readonly string[], space: string | null): Promise<JSONNode[]> {
  const out: JSONNode[] = [];
  for (const node of nodes) {
    const ref = includedRef(node);
    const refSpace = ref ? (typeof ref.space === 'string' ? ref.space : space) : null;
    const key = ref ? `${refSpace ?? ''}/${String(ref.reusableContent)}` : null;
    if (ref && key && !within.includes(key) && within.length < MAX_DEPTH) {
      const document = await lookup(String(ref.reusableContent), refSpace);
      if (document) {
        out.push(...(await inline(document.nodes, lookup, [...within, key], refSpace)));
        continue;
      }
    }
    if (!node.nodes && !Array.isArray(node.fragments)) {
      out.push(node);
      continue;
    }
    const copy: JSONNode = { ...node };
    if (node.nodes) copy.nodes = await inline(node.nodes, lookup, within, space);
    if (Array.isArray(node.fragments)) copy.fragments = await inline(node.fragments as JSONNode[], lookup, within, space);
    out.push(copy);
  }
  return out;
}

/** The document with its reusable contents inlined (the same object when it includes none). */
export async function dereferenceDocument(document: JSONDocument, lookup: ReusableContentLookup): Promise<JSONDocument> {
  if (!hasIncludes(document.nodes)) return document;
  return { ...document, nodes: await inline(document.nodes, lookup, [], null) };
}

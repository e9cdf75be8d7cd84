import { type JSONDocument, type JSONNode } from './model.ts';
/** The structural check of a JSON document given by a caller (page content, descriptions, instructions). */

const NODE_OBJECTS = new Set(['block', 'inline', 'text', 'fragment']);
const MAX_DEPTH = 64;

/**
 * What makes `value` not a JSON document, or null when it is one: `object: 'document'` and a list
 * of nodes, each a block, inline, fragment (with a `type`) or text (with `leaves`), nested at most
 * 64 deep. Node types and data are not checked: a renderer skips what it does not know.
 */
export function documentProblem(value: unknown): string | null {
  const d = value as JSONDocument | null;
  if (!d || typeof d !== 'object' || d.object !== 'document' || !Array.isArray(d.nodes)) return 'must be a JSON document ({ object: "document", nodes: [...] })';
  const problemOf = (node: JSONNode, depth: number): string | null => {
    if (!node || typeof node !== 'object' || !NODE_OBJECTS.has(node.object)) return 'every node needs `object` block, inline, text or fragment';
    if (depth > MAX_DEPTH) return 'nested too deeply';
    if (node.object === 'text') return Array.isArray(node.leaves) ? null : 'a text node needs `leaves`';
    if (typeof node.type !== 'string') return 'a block or inline node needs a `type`';
    for (const child of node.nodes ?? []) {
      const problem = problemOf(child, depth + 1);
      if (problem) return problem;
    }
    return null;
  };
  for (const node of d.nodes) {
    const problem = problemOf(node, 1);
    if (problem) return problem;
  }
  return null;
}

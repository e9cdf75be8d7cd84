import { type JSONDocument, type JSONNode } from '../document/model.ts';
import { emojiText } from '../emoji.ts';
/**
 * Text out of a Document (`JSONDocument`) as the PDF shows it: safe accessors
 * for nodes that may be malformed, the plain text of any node, labels for
 * content refs (no resolution: ids are all we have) and the text of a table
 * cell.
 */

const SAFE_LINK = /^(https?:|mailto:|tel:|ftp:)/i;

interface Leaf {
  text: string;
  marks?: { type: string }[];
}

export function documentNodes(document: JSONDocument | null | undefined): JSONNode[] {
  return document && Array.isArray(document.nodes) ? document.nodes.filter(isNode) : [];
}

const isNode = (value: unknown): value is JSONNode => typeof value === 'object' && value !== null;

export function childNodes(node: JSONNode): JSONNode[] {
  return Array.isArray(node.nodes) ? node.nodes.filter(isNode) : [];
}

export function fragmentsOf(node: JSONNode): JSONNode[] {
  return Array.isArray(node.fragments) ? node.fragments.filter(isNode) : [];
}

export function fragmentNamed(node: JSONNode, name: string): JSONNode | undefined {
  return fragmentsOf(node).find((f) => f.fragment === name || f.type === name);
}

export function dataOf(node: JSONNode): Record<string, unknown> {
  return node.data && typeof node.data === 'object' ? node.data : {};
}

export function str(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

export function leavesOf(node: JSONNode): Leaf[] {
  if (Array.isArray(node.leaves)) {
    return (node.leaves as unknown[]).filter(isNode).map((leaf) => ({
      text: typeof leaf.text === 'string' ? leaf.text : '',
      marks: Array.isArray(leaf.marks) ? (leaf.marks as unknown[]).filter(isNode).map((m) => ({ type: String(m.type) })) : [],
    }));
  }
  if (typeof node.text === 'string') return [{ text: node.text, marks: [] }];
  return [];
}

export function isBlock(node: JSONNode): boolean {
  return node.object === 'block';
}

/** A short text naming a content reference (no resolution: ids are all we have). */
export function refLabel(ref: unknown): string {
  if (!ref || typeof ref !== 'object') return '';
  const r = ref as Record<string, unknown>;
  switch (r.kind) {
    case 'url':
      return str(r.url) ?? '';
    case 'page':
      return `page ${str(r.page) ?? ''}`.trim();
    case 'file':
      return `file ${str(r.file) ?? ''}`.trim();
    case 'anchor':
      return `#${str(r.anchor) ?? ''}`;
    case 'user':
      return `@${str(r.user) ?? ''}`;
    case 'space':
      return `space ${str(r.space) ?? ''}`.trim();
    case 'collection':
      return `collection ${str(r.collection) ?? ''}`.trim();
    default:
      return typeof r.kind === 'string' ? r.kind : '';
  }
}

export function linkTarget(ref: unknown): string | null {
  if (!ref || typeof ref !== 'object') return null;
  const r = ref as Record<string, unknown>;
  return r.kind === 'url' && typeof r.url === 'string' && SAFE_LINK.test(r.url) ? r.url : null;
}

/** The plain text of any node: what a block we do not lay out specially still shows. */
export function plainText(node: JSONNode): string {
  if (node.object === 'text') return leavesOf(node).map((l) => l.text).join('');
  const data = dataOf(node);
  if (node.object === 'inline') {
    switch (node.type) {
      case 'emoji':
        return emojiText(data.code);
      case 'inline-math':
        return str(data.formula) ?? '';
      case 'mention':
        return refLabel(data.ref);
      case 'button':
        return str(data.label) ?? '';
      case 'inline-image':
        return str(data.alt) ?? str(data.caption) ?? '';
      case 'expression':
        return str(data.expression) ?? '';
      case 'icon':
        return '';
      default:
        return childNodes(node).map(plainText).join('');
    }
  }
  const children = childNodes(node);
  const parts: string[] = [];
  if (children.length > 0) {
    const joiner = children.some(isBlock) ? '\n' : '';
    parts.push(children.map(plainText).join(joiner));
  } else if (node.object === 'block') {
    const own = str(data.formula) ?? str(data.title) ?? str(data.alt) ?? str(data.url) ?? str(data.expression);
    if (own) parts.push(own);
  }
  for (const fragment of fragmentsOf(node)) {
    const text = plainText(fragment);
    if (text !== '') parts.push(text);
  }
  return parts.filter((p) => p !== '').join('\n');
}

/** Text of blocks inside a table cell, lists flattened with markers. */
function cellBlocksText(nodes: JSONNode[]): string {
  const lines: string[] = [];
  for (const node of nodes) {
    if (node.type === 'list-ordered' || node.type === 'list-unordered' || node.type === 'list-tasks') {
      let n = typeof dataOf(node).start === 'number' ? (dataOf(node).start as number) : 1;
      for (const item of childNodes(node)) {
        const marker =
          node.type === 'list-ordered'
            ? `${n++}.`
            : node.type === 'list-tasks'
              ? dataOf(item).checked
                ? '[x]'
                : '[ ]'
              : '\u2022';
        lines.push(`${marker} ${cellBlocksText(childNodes(item)).replace(/\n/g, '\n   ')}`);
      }
    } else {
      lines.push(plainText(node));
    }
  }
  return lines.join('\n');
}

/** The text of a table cell: `value` of the column `definition` in `table`. */
export function tableCellText(table: JSONNode, definition: Record<string, unknown>, value: unknown): string {
  if (value === undefined || value === null) return '';
  switch (definition.type) {
    case 'text': {
      if (typeof value !== 'string') return String(value);
      const fragment = fragmentsOf(table).find((f) => f.fragment === value);
      return fragment ? cellBlocksText(childNodes(fragment)) : '';
    }
    case 'checkbox':
      return value ? '[x]' : '[ ]';
    case 'rating':
      return typeof value === 'number' ? `${value} / ${String(definition.max ?? 5)}` : String(value);
    case 'select': {
      const options = Array.isArray(definition.options) ? (definition.options as { value?: string; label?: string }[]) : [];
      const selected = Array.isArray(value) ? value : [value];
      return selected.map((v) => options.find((o) => o.value === v)?.label ?? String(v)).join(', ');
    }
    case 'files':
      return (Array.isArray(value) ? value : [value]).map((file) => refLabel({ kind: 'file', file })).join(', ');
    case 'users':
      return (Array.isArray(value) ? value : [value]).map((user) => refLabel({ kind: 'user', user })).join(', ');
    case 'content-ref':
      return refLabel(value);
    case 'image': {
      const v = value as Record<string, unknown>;
      return str(v.alt) ?? refLabel(v.ref ?? v);
    }
    default:
      if (typeof value === 'object') return Array.isArray(value) ? value.map(String).join(', ') : refLabel(value);
      return String(value);
  }
}

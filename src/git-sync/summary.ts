/**
 * SUMMARY.md, the table of contents of a Git Sync repository, read and
 * written as a tree of items:
 *
 * ```markdown
 * # Table of contents
 *
 * * [Introduction](README.md)
 * * [Guide](guide/README.md)
 *   * [Install](guide/install.md)
 * * [Status](https://status.example.com)
 *
 * ## Reference
 *
 * * [API](reference/api.md)
 * ```
 *
 * A list item's first link is its entry (link text and target); nested lists
 * are its children. A heading other than a leading level-1 title starts a
 * group holding the list items that follow it. A list item with text and no
 * link is a group too: how a group that cannot be a heading (one followed by
 * pages outside any group, or one below the root) is written. What a target
 * means (a page file, an external link) is the caller's to decide.
 */
import type * as md from 'mdast';
import remarkParse from 'remark-parse';
import remarkStringify from 'remark-stringify';
import { unified } from 'unified';
import '../content/document/micromark-edit-map.ts';

/** One entry of the table of contents. */
export interface SummaryItem {
  /** The link text (or the heading or plain text of a group). */
  title: string;
  /** The link target as written; null for a group. */
  href: string | null;
  /** A group written as a heading (root level only). */
  heading: boolean;
  children: SummaryItem[];
}

// CommonMark only: GFM would read `[ ] title` as a task checkbox and bare URLs in titles as links.
const parser = unified().use(remarkParse);
const printer = unified().use(remarkStringify, { bullet: '*', listItemIndent: 'one', emphasis: '*', strong: '*', rule: '-' });

/** The items of a SUMMARY.md, in order. */
export function parseSummary(markdown: string): SummaryItem[] {
  const tree = parser.parse(markdown.replace(/^\uFEFF/, '').replaceAll('\r\n', '\n')) as md.Root;
  const definitions = new Map<string, string>();
  const collect = (node: md.Nodes) => {
    if (node.type === 'definition' && !definitions.has(node.identifier)) definitions.set(node.identifier, node.url);
    if ('children' in node) for (const child of node.children) collect(child);
  };
  collect(tree);

  const roots: SummaryItem[] = [];
  let group: SummaryItem | null = null;
  for (const node of tree.children) {
    if (node.type === 'heading') {
      // A level-1 heading before any entry (`# Summary`, `# Table of contents`) is the file's own title.
      if (node.depth === 1 && roots.length === 0) continue;
      group = { title: plainText(node).trim(), href: null, heading: true, children: [] };
      roots.push(group);
    } else if (node.type === 'list') {
      const items = node.children.flatMap((item) => listItem(item, definitions));
      if (group) group.children.push(...items);
      else roots.push(...items);
    }
    // Paragraphs, rules and HTML between lists carry no entries.
  }
  return roots;
}

function listItem(item: md.ListItem, definitions: Map<string, string>): SummaryItem[] {
  const children = item.children.filter((c): c is md.List => c.type === 'list').flatMap((list) => list.children.flatMap((i) => listItem(i, definitions)));
  const first = item.children.find((c) => c.type === 'paragraph' || c.type === 'heading') as md.Paragraph | md.Heading | undefined;
  const link = first ? findLink(first, definitions) : null;
  if (link) return [{ title: plainText(link.node).trim(), href: link.url, heading: false, children }];
  const title = first ? plainText(first).trim() : '';
  // An empty item with nothing below it is a stray bullet, not a group.
  if (!first && children.length === 0) return [];
  return [{ title, href: null, heading: false, children }];
}

function findLink(node: md.Nodes, definitions: Map<string, string>): { node: md.Nodes; url: string } | null {
  if (node.type === 'link') return { node, url: node.url };
  if (node.type === 'linkReference') {
    const url = definitions.get(node.identifier);
    if (url !== undefined) return { node, url };
  }
  if ('children' in node) {
    for (const child of node.children) {
      const found = findLink(child, definitions);
      if (found) return found;
    }
  }
  return null;
}

function plainText(node: md.Nodes): string {
  if ('value' in node && typeof node.value === 'string') return node.type === 'html' ? '' : node.value;
  if (node.type === 'image' || node.type === 'imageReference') return node.alt ?? '';
  if (node.type === 'break') return ' ';
  return 'children' in node ? (node.children as md.Nodes[]).map(plainText).join('') : '';
}

/** Writes a SUMMARY.md: `# Table of contents`, then the items (heading groups as `## Title`). */
export function printSummary(items: readonly SummaryItem[]): string {
  const children: md.RootContent[] = [{ type: 'heading', depth: 1, children: [{ type: 'text', value: 'Table of contents' }] }];
  let run: md.ListItem[] = [];
  const flush = () => {
    if (run.length) children.push({ type: 'list', ordered: false, spread: false, children: run });
    run = [];
  };
  for (const item of items) {
    if (item.heading) {
      flush();
      children.push({ type: 'heading', depth: 2, children: item.title ? [{ type: 'text', value: item.title }] : [] });
      run = item.children.map(toListItem);
      flush();
    } else run.push(toListItem(item));
  }
  flush();
  return printer.stringify({ type: 'root', children });
}

function toListItem(item: SummaryItem): md.ListItem {
  const text: md.Text[] = item.title ? [{ type: 'text', value: item.title }] : [];
  const phrasing: md.PhrasingContent[] = item.href === null ? text : [{ type: 'link', url: item.href, title: null, children: text }];
  const children: md.BlockContent[] = [{ type: 'paragraph', children: phrasing }];
  if (item.children.length) children.push({ type: 'list', ordered: false, spread: false, children: item.children.map(toListItem) });
  return { type: 'listItem', spread: false, children };
}

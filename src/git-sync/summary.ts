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
 * group holding the list items that follow it, up to the next heading or a
 * rule (`***`, after which items are at the top again, as GitBook writes
 * pages following a group). A list item with text and no link is a group
 * too (how a group below the top is written). What a target means (a page
 * file, an external link) is the caller's to decide.
 *
 * A group's or link's text may start with an icon (`<i class="fa-rocket">:rocket:</i>`,
 * GitBook's inline icon) and an emoji (`## 🛠️ Tools`), and a heading may end
 * with the anchor GitBook gives a group whose slug is not its title's
 * (`## Tools <a href="#tooling" id="tooling"></a>`).
 */
import type * as md from 'mdast';
import remarkParse from 'remark-parse';
import remarkStringify from 'remark-stringify';
import { unified } from 'unified';
import '../content/document/micromark-edit-map.ts';
import { emojiText, splitLeadingEmoji } from '../content/emoji.ts';

/** One entry of the table of contents. */
export interface SummaryItem {
  /** The link text (or the heading or plain text of a group). */
  title: string;
  /** The link target as written; null for a group. */
  href: string | null;
  /** A group written as a heading (root level only). */
  heading: boolean;
  /** The emoji code written before the title (`1f680`), or null. */
  emoji: string | null;
  /** The icon written before the title (`rocket` of `<i class="fa-rocket">`), or null. */
  icon: string | null;
  /** A heading's anchor id (`<a href="#x" id="x"></a>`): the group's slug; null when none. */
  anchor: string | null;
  /** GitBook's computed entry: the text of the item's code block (YAML of a computed content source); absent for others. */
  computed?: string;
  children: SummaryItem[];
}

const ICON_OPEN = /^<i\s+class="fa-([a-z0-9-]+)"\s*>$/i;
const ANCHOR = /^<a\s+(?:href="#[^"]*"\s+)?id="([^"]+)"[^>]*>$/i;

/** A summary item's text, icon, emoji and anchor from the phrasing of its heading, link or paragraph. */
function decorated(children: readonly md.PhrasingContent[]): Pick<SummaryItem, 'title' | 'emoji' | 'icon' | 'anchor'> {
  let icon: string | null = null;
  let anchor: string | null = null;
  let rest = [...children];
  const firstIndex = rest.findIndex((n) => !(n.type === 'text' && n.value.trim() === ''));
  const open = firstIndex >= 0 && rest[firstIndex].type === 'html' ? ICON_OPEN.exec((rest[firstIndex] as md.Html).value) : null;
  const close = open ? rest.findIndex((n, i) => i > firstIndex && n.type === 'html' && /^<\/i>$/i.test(n.value)) : -1;
  if (open && close > 0) {
    icon = open[1];
    rest = rest.slice(close + 1);
  }
  for (const n of rest) {
    const match = n.type === 'html' ? ANCHOR.exec(n.value) : null;
    if (match) anchor = match[1];
  }
  const text = rest.map(plainText).join('').trim();
  const emoji = splitLeadingEmoji(text);
  return { title: emoji ? emoji.rest : text, emoji: emoji?.code ?? null, icon, anchor };
}

// CommonMark only: GFM would read `[ ] title` as a task checkbox and bare URLs in titles as links.
const parser = unified().use(remarkParse);
const printer = unified().use(remarkStringify, { bullet: '*', listItemIndent: 'one', emphasis: '*', strong: '*', rule: '*' });

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
      group = { ...decorated(node.children), href: null, heading: true, children: [] };
      roots.push(group);
    } else if (node.type === 'thematicBreak') {
      group = null;
    } else if (node.type === 'list') {
      const items = node.children.flatMap((item) => listItem(item, definitions));
      if (group) group.children.push(...items);
      else roots.push(...items);
    }
    // Paragraphs and HTML between lists carry no entries.
  }
  return roots;
}

function listItem(item: md.ListItem, definitions: Map<string, string>): SummaryItem[] {
  const children = item.children.filter((c): c is md.List => c.type === 'list').flatMap((list) => list.children.flatMap((i) => listItem(i, definitions)));
  const first = item.children.find((c) => c.type === 'paragraph' || c.type === 'heading') as md.Paragraph | md.Heading | undefined;
  const link = first ? findLink(first, definitions) : null;
  if (link) return [{ ...decorated('children' in link.node ? (link.node.children as md.PhrasingContent[]) : []), href: link.url, heading: false, children }];
  const code = first ? undefined : item.children.find((c): c is md.Code => c.type === 'code');
  if (code) return [{ title: '', href: null, heading: false, emoji: null, icon: null, anchor: null, computed: code.value, children }];
  // An empty item with nothing below it is a stray bullet, not a group.
  if (!first && children.length === 0) return [];
  return [{ ...(first ? decorated(first.children) : { title: '', emoji: null, icon: null, anchor: null }), href: null, heading: false, children }];
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

/**
 * Writes a SUMMARY.md: `# Table of contents`, then the items; heading groups as `## Title`,
 * and a rule (`***`) before items that follow a heading group at the top.
 */
export function printSummary(items: readonly SummaryItem[]): string {
  const children: md.RootContent[] = [{ type: 'heading', depth: 1, children: [{ type: 'text', value: 'Table of contents' }] }];
  let run: md.ListItem[] = [];
  let inGroup = false;
  const flush = () => {
    if (run.length) children.push({ type: 'list', ordered: false, spread: false, children: run });
    run = [];
  };
  for (const item of items) {
    if (item.heading) {
      flush();
      children.push({ type: 'heading', depth: 2, children: decorations(item) });
      run = item.children.map(toListItem);
      flush();
      inGroup = true;
    } else {
      if (inGroup) children.push({ type: 'thematicBreak' });
      inGroup = false;
      run.push(toListItem(item));
    }
  }
  flush();
  return printer.stringify({ type: 'root', children });
}

/** An item's icon, emoji, title and anchor as phrasing. */
function decorations(item: SummaryItem): md.PhrasingContent[] {
  const out: md.PhrasingContent[] = [];
  if (item.icon) out.push({ type: 'html', value: `<i class="fa-${item.icon}">` }, { type: 'text', value: `:${item.icon}:` }, { type: 'html', value: '</i>' });
  const text = [item.icon ? '' : null, item.emoji ? emojiText(item.emoji) : null, item.title, item.anchor ? '' : null].filter((part) => part !== null).join(' ');
  if (text) out.push({ type: 'text', value: text });
  if (item.anchor) out.push({ type: 'html', value: `<a href="#${item.anchor}" id="${item.anchor}"></a>` });
  return out;
}

function toListItem(item: SummaryItem): md.ListItem {
  const text = decorations(item);
  const phrasing: md.PhrasingContent[] = item.href === null ? text : [{ type: 'link', url: item.href, title: null, children: text }];
  const children: md.BlockContent[] = [{ type: 'paragraph', children: phrasing }];
  if (item.children.length) children.push({ type: 'list', ordered: false, spread: false, children: item.children.map(toListItem) });
  return { type: 'listItem', spread: false, children };
}

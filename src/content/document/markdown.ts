/**
 * GitBook-flavoured Markdown <-> rich-text Document (`JSONDocument`).
 *
 * Markdown is parsed and printed by unified/remark (mdast); this module only
 * maps mdast nodes to Document blocks and back. The one piece of text read by
 * hand is the inside of a GitBook tag (`{% hint style="info" %}`) and of the
 * few HTML tags GitBook writes (`<details>`, `<summary>`, `<figure>`), with
 * the small tokenizer at the end of the file.
 *
 * Every produced node is plain data with no keys or random ids, so the same
 * Markdown always gives the same JSON. Where the OpenAPI schema does not allow
 * a block inside a container (a code block in a hint, a table in a tab), the
 * container is split around it rather than producing an invalid document.
 */
import type * as md from 'mdast';
import remarkFrontmatter from 'remark-frontmatter';
import remarkGfm from 'remark-gfm';
import remarkParse from 'remark-parse';
import remarkStringify, { type Options as StringifyOptions } from 'remark-stringify';
import { unified } from 'unified';
import YAML from 'yaml';
import type { ContentRef, JSONDocument, JSONNode } from '../snapshot.ts';
import { nodeText } from './text.ts';

/** Options of `markdownToDocument`. */
export interface MarkdownToDocumentOptions {
  /** Resolves an href the converter does not know (`./other.md`, a batch-local name); null falls back to a URL ref. */
  resolveHref?: (href: string) => ContentRef | null;
}

/** Result of `markdownToDocument`. */
export interface MarkdownToDocumentResult {
  document: JSONDocument;
  /** The parsed YAML frontmatter, `{}` when there is none. */
  frontmatter: Record<string, unknown>;
  /** The text of a leading level-1 heading (removed from the document), or null. */
  title: string | null;
}

/** Options of `documentToMarkdown`. */
export interface DocumentToMarkdownOptions {
  /** The href written for a ref; null uses the default (`/pages/<id>`, `/files/<id>`, `#anchor`, the url). */
  hrefFor?: (ref: ContentRef) => string | null;
  /** Written as a leading `# title`, the inverse of the `title` markdownToDocument returns. */
  title?: string | null;
  /** Written as YAML frontmatter when it has keys. */
  frontmatter?: Record<string, unknown> | null;
}

type Mark = 'bold' | 'italic' | 'strikethrough' | 'code';
/** Canonical mark order, so equal formatting always gives equal leaves. */
const MARK_ORDER: Mark[] = ['bold', 'italic', 'strikethrough', 'code'];

const HINT_STYLES = new Set(['info', 'success', 'warning', 'danger']);

// What the OpenAPI schema lets each container hold (DocumentBlocksEssentials and friends).
const ESSENTIALS = ['paragraph', 'heading-1', 'heading-2', 'heading-3', 'list-ordered', 'list-unordered', 'list-tasks', 'divider'];
type Place = 'document' | 'hint' | 'blockquote' | 'list-item' | 'tabs-item' | 'expandable-body' | 'table-cell';
const ALLOWED: Record<Exclude<Place, 'document' | 'table-cell'>, Set<string>> = {
  hint: new Set(ESSENTIALS),
  blockquote: new Set([...ESSENTIALS, 'blockquote']),
  'list-item': new Set([...ESSENTIALS, 'code', 'hint', 'blockquote', 'math', 'table']),
  'tabs-item': new Set([...ESSENTIALS, 'content-ref', 'code', 'embed', 'file', 'images', 'drawing', 'hint', 'blockquote', 'math', 'integration']),
  'expandable-body': new Set([...ESSENTIALS, 'images', 'code', 'table', 'hint', 'blockquote', 'reusable-content']),
};
/** Where an `images` block may stand; elsewhere a lone image stays an inline image in its paragraph. */
const IMAGES_PLACES = new Set<Place>(['document', 'tabs-item', 'expandable-body']);

/* -------------------------------------------------------------------------- */
/* Document node builders                                                      */
/* -------------------------------------------------------------------------- */

type Leaf = NonNullable<JSONNode['leaves']>[number];

function block(type: string, nodes: JSONNode[], data: Record<string, unknown> = {}): JSONNode {
  return { object: 'block', type, data, nodes };
}

function voidBlock(type: string, data: Record<string, unknown>, fragments?: JSONNode[]): JSONNode {
  return fragments ? { object: 'block', type, isVoid: true, data, fragments } : { object: 'block', type, isVoid: true, data };
}

function textNode(leaves: Leaf[]): JSONNode {
  return { object: 'text', leaves };
}

function leaf(text: string, marks: Mark[] = []): Leaf {
  return { object: 'leaf', text, marks: marks.map((type) => ({ object: 'mark', type })) };
}

function paragraph(text: string): JSONNode {
  return block('paragraph', [textNode([leaf(text)])]);
}

function fragment(name: string, nodes: JSONNode[], type?: string): JSONNode {
  return type ? { object: 'fragment', fragment: name, type, nodes } : { object: 'fragment', fragment: name, nodes };
}

/** How `wrapRuns` treats a container with nothing it may hold. */
interface WrapOptions {
  /** The content of an empty container: one empty paragraph (GitBook's editor never leaves one empty); [] drops it. */
  empty?: JSONNode[];
  /** Keep the (empty) container even when all its blocks were lifted out: its data holds text (a tab's or expandable's title). */
  titled?: boolean;
}

/**
 * Groups the blocks a container received: runs the schema allows go into
 * `wrap`, the others are lifted out between them, in order, so no text is
 * lost and the document stays valid.
 */
function wrapRuns(blocks: JSONNode[], allowed: Set<string>, wrap: (run: JSONNode[]) => JSONNode, options: WrapOptions = {}): JSONNode[] {
  const empty = options.empty ?? [paragraph('')];
  const out: JSONNode[] = [];
  let run: JSONNode[] = [];
  let wrapped = false;
  const flush = () => {
    if (run.length) {
      out.push(wrap(run));
      wrapped = true;
    }
    run = [];
  };
  for (const b of blocks) {
    if (allowed.has(b.type ?? '')) {
      run.push(b);
      continue;
    }
    flush();
    out.push(b);
  }
  flush();
  if (!wrapped && empty.length && (blocks.length === 0 || options.titled)) out.unshift(wrap(empty));
  return out;
}

/* -------------------------------------------------------------------------- */
/* Markdown -> Document                                                        */
/* -------------------------------------------------------------------------- */

interface ParseContext {
  /** The Markdown the positions of the current tree point into. */
  source: string;
  definitions: Map<string, md.Definition>;
  resolveHref?: (href: string) => ContentRef | null;
}

const parser = unified().use(remarkParse).use(remarkFrontmatter, ['yaml']).use(remarkGfm);

/** Converts GitBook-flavoured Markdown to a Document, its frontmatter and its title. */
export function markdownToDocument(markdown: string, options: MarkdownToDocumentOptions = {}): MarkdownToDocumentResult {
  const { tree, source } = parseMarkdown(markdown.replaceAll('\r\n', '\n'));
  const ctx: ParseContext = { source, definitions: collectDefinitions(tree), resolveHref: options.resolveHref };
  const children = [...tree.children];

  let frontmatter: Record<string, unknown> = {};
  const unreadable: md.RootContent[] = [];
  if (children[0]?.type === 'yaml') {
    const yaml = children.shift() as md.Yaml;
    const parsed = readFrontmatter(yaml.value);
    // Unreadable frontmatter is kept as a YAML code block rather than dropped.
    if (parsed) frontmatter = parsed;
    else unreadable.push(yaml);
  }

  let title: string | null = null;
  const first = children[0];
  if (first?.type === 'heading' && first.depth === 1) {
    title = piecesText(phrasingPieces(first.children, ctx, [], 'heading')).trim();
    children.shift();
  }

  return { document: { object: 'document', data: {}, nodes: convertFlow([...unreadable, ...children], ctx, 'document') }, frontmatter, title };
}

function readFrontmatter(value: string): Record<string, unknown> | null {
  try {
    const parsed: unknown = YAML.parse(value);
    if (parsed === null || parsed === undefined) return {};
    return typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/**
 * Parses Markdown, then once more if GitBook tag lines were glued to other
 * lines. GitBook writes `{% hint %}` on the line right above its content, and
 * CommonMark reads both lines as one paragraph (or the tag as a lazy line of
 * the list before it); giving each tag line blank lines of its own makes it a
 * paragraph of its own, which is how GitBook reads it.
 */
function parseMarkdown(markdown: string): { tree: md.Root; source: string } {
  const tree = parser.parse(markdown) as md.Root;
  const isolated = isolateTagLines(markdown, tree);
  return isolated === null ? { tree, source: markdown } : { tree: parser.parse(isolated) as md.Root, source: isolated };
}

/**
 * The source with blank lines around tag lines that CommonMark made part of
 * a longer paragraph, heading or table (a tag line after a table is read as
 * a row), or null if there are none.
 */
function isolateTagLines(source: string, tree: md.Root): string | null {
  const lineStarts = [0];
  for (let i = 0; i < source.length; i++) if (source[i] === '\n') lineStarts.push(i + 1);
  const lineAt = (line: number) => source.slice(lineStarts[line - 1], (lineStarts[line] ?? source.length + 1) - 1);
  const inserts = new Map<number, string>();
  walkMdast(tree, (node) => {
    if ((node.type !== 'paragraph' && node.type !== 'heading' && node.type !== 'table') || !node.position) return;
    const { start, end } = node.position;
    for (let line = start.line; line <= end.line; line++) {
      // The first line may begin with a list marker: only the node's own text counts there.
      const text = line === start.line ? source.slice(start.offset, lineStarts[line] ?? source.length) : stripContainerPrefix(lineAt(line));
      if (!isTagText(text.trim())) continue;
      // The blank line keeps the blockquote markers of the line it sits next to.
      if (line > start.line) inserts.set(lineStarts[line - 1], `${quoteMarkers(lineAt(line))}\n`);
      if (line < end.line) inserts.set(lineStarts[line], `${quoteMarkers(lineAt(line + 1))}\n`);
    }
  });
  if (inserts.size === 0) return null;
  let out = source;
  for (const at of [...inserts.keys()].sort((a, b) => b - a)) out = out.slice(0, at) + inserts.get(at) + out.slice(at);
  return out;
}

/** A continuation line inside a paragraph starts with its containers' `>` markers and indentation. */
function stripContainerPrefix(line: string): string {
  let i = 0;
  while (i < line.length && (line[i] === '>' || line[i] === ' ' || line[i] === '\t')) i++;
  return line.slice(i);
}

function quoteMarkers(line: string): string {
  const prefix = line.slice(0, line.length - stripContainerPrefix(line).length);
  return prefix.includes('>') ? prefix.trimEnd() : '';
}

function collectDefinitions(tree: md.Root): Map<string, md.Definition> {
  const definitions = new Map<string, md.Definition>();
  walkMdast(tree, (node) => {
    if (node.type === 'definition' && !definitions.has(node.identifier)) definitions.set(node.identifier, node);
  });
  return definitions;
}

function walkMdast(node: md.Nodes, visit: (node: md.Nodes) => void) {
  visit(node);
  if ('children' in node) for (const child of node.children) walkMdast(child, visit);
}

/**
 * Converts sibling flow nodes, grouping what GitBook tags and `<details>`
 * wrap: the opening tag, the siblings up to its closing tag, the closing tag.
 */
function convertFlow(nodes: md.RootContent[], ctx: ParseContext, place: Place): JSONNode[] {
  const out: JSONNode[] = [];
  for (let i = 0; i < nodes.length; i++) {
    const node = nodes[i];
    const tag = tagOf(node, ctx);
    if (tag && !tag.closing) {
      const grouped = convertTagged(tag, nodes, i, ctx, place);
      if (grouped) {
        out.push(...grouped.blocks);
        i = grouped.end;
        continue;
      }
    }
    if (node.type === 'html') {
      const details = convertDetails(nodes, i, ctx);
      if (details) {
        out.push(...details.blocks);
        i = details.end;
        continue;
      }
    }
    out.push(...convertBlock(node, ctx, place));
  }
  return out;
}

/** The tag a paragraph stands for, when its whole (one-line) source is `{% ... %}`. */
function tagOf(node: md.RootContent, ctx: ParseContext): GitBookTag | null {
  if (node.type !== 'paragraph' || !node.position) return null;
  const raw = ctx.source.slice(node.position.start.offset, node.position.end.offset).trim();
  return raw.includes('\n') ? null : readTag(raw);
}

/** Index of the tag closing the one opened at `open` (same name, nesting counted), or -1. */
function findClosing(nodes: md.RootContent[], open: number, name: string, ctx: ParseContext): number {
  let depth = 0;
  for (let i = open + 1; i < nodes.length; i++) {
    const tag = tagOf(nodes[i], ctx);
    if (!tag || tag.name !== name) continue;
    if (!tag.closing) depth++;
    else if (depth === 0) return i;
    else depth--;
  }
  return -1;
}

/** Converts a known opening tag and what it wraps; null leaves the tag as plain text. */
function convertTagged(tag: GitBookTag, nodes: md.RootContent[], i: number, ctx: ParseContext, place: Place): { blocks: JSONNode[]; end: number } | null {
  // Embeds and files stand alone; GitBook may still close them, around a caption our schema has no place for.
  if (tag.name === 'embed' || tag.name === 'file') {
    const single = tag.name === 'embed' ? embedBlock(tag) : fileBlock(tag, ctx);
    if (!single) return null;
    const end = findClosing(nodes, i, tag.name, ctx);
    if (end < 0) return { blocks: [single], end: i };
    return { blocks: [single, ...convertFlow(nodes.slice(i + 1, end), ctx, place)], end };
  }
  if (tag.name !== 'hint' && tag.name !== 'tabs' && tag.name !== 'code' && tag.name !== 'content-ref') return null;
  const end = findClosing(nodes, i, tag.name, ctx);
  if (end < 0) return null;
  const inner = nodes.slice(i + 1, end);
  if (tag.name === 'hint') return { blocks: hintBlocks(tag, inner, ctx), end };
  if (tag.name === 'content-ref') return tag.attrs.url ? { blocks: contentRefBlocks(tag, inner, ctx, place), end } : null;
  if (tag.name === 'tabs') return { blocks: tabsBlocks(inner, ctx), end };
  const blocks = convertFlow(inner, ctx, place);
  if (applyCodeWrapper(tag, blocks)) return { blocks, end };
  // Not exactly one code block inside: keep the tags as text.
  return { blocks: [...convertBlock(nodes[i], ctx, place), ...blocks, ...convertBlock(nodes[end], ctx, place)], end };
}

/** `{% hint style="info" %}...{% endhint %}` -> `hint` block. */
function hintBlocks(tag: GitBookTag, inner: md.RootContent[], ctx: ParseContext): JSONNode[] {
  const style = HINT_STYLES.has(tag.attrs.style) ? tag.attrs.style : 'info';
  return wrapRuns(convertFlow(inner, ctx, 'hint'), ALLOWED.hint, (run) => block('hint', run, { style }));
}

/** `{% tabs %}{% tab title="x" %}...{% endtab %}{% endtabs %}` -> `tabs` of `tabs-item`; stray content between tabs splits the tabs. */
function tabsBlocks(inner: md.RootContent[], ctx: ParseContext): JSONNode[] {
  const parts: JSONNode[] = [];
  let loose: md.RootContent[] = [];
  const flushLoose = () => {
    parts.push(...convertFlow(loose, ctx, 'document'));
    loose = [];
  };
  for (let j = 0; j < inner.length; j++) {
    const tag = tagOf(inner[j], ctx);
    const end = tag?.name === 'tab' && !tag.closing ? findClosing(inner, j, 'tab', ctx) : -1;
    if (!tag || end < 0) {
      loose.push(inner[j]);
      continue;
    }
    flushLoose();
    const title = tag.attrs.title ?? '';
    const content = convertFlow(inner.slice(j + 1, end), ctx, 'tabs-item');
    parts.push(...wrapRuns(content, ALLOWED['tabs-item'], (run) => block('tabs-item', run, { title }), { titled: true }));
    j = end;
  }
  flushLoose();
  // Tabs with no tab have nothing to show (and no text to keep).
  return wrapRuns(parts, new Set(['tabs-item']), (run) => block('tabs', run), { empty: [] });
}

/**
 * `{% content-ref url="x" %}[x](x){% endcontent-ref %}` -> `content-ref` (a
 * link card). GitBook writes the link inside for other Markdown readers; it
 * is dropped when it is just that, kept after the card otherwise.
 */
function contentRefBlocks(tag: GitBookTag, inner: md.RootContent[], ctx: ParseContext, place: Place): JSONNode[] {
  const card = voidBlock('content-ref', { ref: hrefToRef(tag.attrs.url, ctx) });
  const only = inner.length === 1 && inner[0].type === 'paragraph' ? inner[0].children.filter((c) => c.type !== 'text' || c.value.trim() !== '') : null;
  if (only?.length === 1 && only[0].type === 'link') return [card];
  return [card, ...convertFlow(inner, ctx, place)];
}

/** `{% code title="x" %}` around exactly one code block sets its data (title, overflow, lineNumbers, ...); false otherwise. */
function applyCodeWrapper(tag: GitBookTag, blocks: JSONNode[]): boolean {
  const codes = blocks.filter((b) => b.type === 'code');
  if (codes.length !== 1) return false;
  const data = codes[0].data!;
  if (tag.attrs.title !== undefined) data.title = tag.attrs.title;
  if (tag.attrs.overflow === 'wrap' || tag.attrs.overflow === 'scroll') data.overflow = tag.attrs.overflow;
  for (const flag of ['lineNumbers', 'fullWidth', 'expandable'] as const) {
    if (tag.attrs[flag] === 'true' || tag.attrs[flag] === 'false') data[flag] = tag.attrs[flag] === 'true';
  }
  return true;
}

/** `{% embed url="..." %}` -> `embed`. */
function embedBlock(tag: GitBookTag): JSONNode | null {
  return tag.attrs.url ? voidBlock('embed', { url: tag.attrs.url }) : null;
}

/** `{% file src="..." %}` -> `file`, when the src resolves to a file (the schema allows no other ref). */
function fileBlock(tag: GitBookTag, ctx: ParseContext): JSONNode | null {
  const ref = tag.attrs.src ? hrefToRef(tag.attrs.src, ctx) : null;
  return ref?.kind === 'file' ? voidBlock('file', { ref }) : null;
}

/**
 * `<details><summary>t</summary>...</details>` -> `expandable`. GitBook writes
 * the tags as their own HTML blocks around Markdown; when the whole thing is
 * one HTML block instead, its inside is parsed as Markdown.
 */
function convertDetails(nodes: md.RootContent[], i: number, ctx: ParseContext): { blocks: JSONNode[]; end: number } | null {
  const open = readDetailsOpen((nodes[i] as md.Html).value);
  if (!open) return null;
  let title = open.title;
  let body: JSONNode[] = [];
  let end = i;
  if (open.closedBody !== null) {
    body = convertNested(open.closedBody, ctx, 'expandable-body');
  } else {
    end = findDetailsClose(nodes, i);
    if (end < 0) return null;
    let start = i + 1;
    const summary = title === null && nodes[start]?.type === 'html' ? readSummary((nodes[start] as md.Html).value) : null;
    if (summary !== null) {
      title = summary;
      start++;
    }
    body = [...convertNested(open.rest, ctx, 'expandable-body'), ...convertFlow(nodes.slice(start, end), ctx, 'expandable-body')];
  }
  const titleFragment = fragment('expandable-title', [paragraph(title ?? '')], 'expandable-title');
  return {
    blocks: wrapRuns(body, ALLOWED['expandable-body'], (run) => voidBlock('expandable', {}, [titleFragment, fragment('expandable-body', run, 'expandable-body')]), { titled: true }),
    end,
  };
}

function findDetailsClose(nodes: md.RootContent[], open: number): number {
  let depth = 0;
  for (let i = open + 1; i < nodes.length; i++) {
    const node = nodes[i];
    if (node.type !== 'html') continue;
    if (isDetailsClose(node.value)) {
      if (depth === 0) return i;
      depth--;
    } else if (readDetailsOpen(node.value)?.closedBody === null) depth++;
  }
  return -1;
}

/** Markdown found inside an HTML block, parsed on its own. */
function convertNested(markdown: string, ctx: ParseContext, place: Place): JSONNode[] {
  if (markdown.trim() === '') return [];
  const { tree, source } = parseMarkdown(markdown);
  const definitions = new Map([...ctx.definitions, ...collectDefinitions(tree)]);
  return convertFlow(tree.children, { ...ctx, source, definitions }, place);
}

/** One mdast flow node -> blocks (several when a container had to be split). */
function convertBlock(node: md.RootContent, ctx: ParseContext, place: Place): JSONNode[] {
  switch (node.type) {
    case 'paragraph':
      return convertParagraph(node, ctx, place);
    case 'heading':
      return [convertHeading(node, ctx)];
    case 'thematicBreak':
      return [voidBlock('divider', {})];
    case 'blockquote':
      return wrapRuns(convertFlow(node.children, ctx, 'blockquote'), ALLOWED.blockquote, (run) => block('blockquote', run));
    case 'list':
      return convertList(node, ctx);
    case 'code':
      return [codeBlock(node.value, node.lang ?? null)];
    case 'yaml':
      // Frontmatter that is not a YAML mapping: keep its text visible.
      return [codeBlock(node.value, 'yaml')];
    case 'table':
      return [convertTable(node, ctx)];
    case 'html':
      return convertHtml(node, ctx, place);
    case 'footnoteDefinition':
      return convertFootnoteDefinition(node, ctx, place);
    case 'definition':
      // Link reference definitions are resolved into the links that use them.
      return [];
    default:
      return [paragraph(mdastText(node))];
  }
}

/** A paragraph; one holding only images becomes an `images` block where the schema allows it. */
function convertParagraph(node: md.Paragraph, ctx: ParseContext, place: Place): JSONNode[] {
  const onlyImages =
    node.children.some((c) => c.type === 'image' || c.type === 'imageReference') &&
    node.children.every((c) => c.type === 'image' || c.type === 'imageReference' || (c.type === 'text' && c.value.trim() === ''));
  if (onlyImages && IMAGES_PLACES.has(place)) {
    const images = node.children.flatMap((c) => {
      const image = resolveImage(c, ctx);
      return image ? [imageBlock(image.url, image.alt, image.title, ctx)] : [];
    });
    return [{ object: 'block', type: 'images', isVoid: false, data: {}, nodes: images }];
  }
  return [block('paragraph', buildInlines(phrasingPieces(node.children, ctx, [], 'paragraph')))];
}

/** `#`..`###` map to heading-1..3; deeper headings become heading-3 (GitBook has three levels). */
function convertHeading(node: md.Heading, ctx: ParseContext): JSONNode {
  const level = Math.min(node.depth, 3);
  return block(`heading-${level}`, buildInlines(phrasingPieces(node.children, ctx, [], 'heading')));
}

/**
 * Ordered, unordered and task lists. A task list is one where any item has a
 * checkbox, numbered or not (the Document has no numbered task list; keeping
 * the checkboxes matters more than the numbers).
 */
function convertList(node: md.List, ctx: ParseContext): JSONNode[] {
  const tasks = node.children.some((item) => typeof item.checked === 'boolean');
  const type = tasks ? 'list-tasks' : node.ordered ? 'list-ordered' : 'list-unordered';
  const start = type === 'list-ordered' && typeof node.start === 'number' ? node.start : 1;
  const listData = (first: number) => (type === 'list-ordered' && first !== 1 ? { start: first } : {});

  // Items split around lifted blocks split the list too; an ordered list keeps counting.
  const out: JSONNode[] = [];
  let items: JSONNode[] = [];
  let first = start;
  let count = 0;
  const flush = () => {
    if (items.length) out.push(block(type, items, listData(first)));
    first = start + count;
    items = [];
  };
  for (const item of node.children) {
    const data = tasks ? { checked: item.checked === true } : {};
    for (const part of wrapRuns(convertFlow(item.children, ctx, 'list-item'), ALLOWED['list-item'], (run) => block('list-item', run, data))) {
      if (part.type === 'list-item') {
        items.push(part);
        count++;
      } else {
        flush();
        out.push(part);
      }
    }
  }
  flush();
  return out;
}

/** A code block: one `code-line` block per line. */
function codeBlock(value: string, syntax: string | null): JSONNode {
  const lines = value.split('\n').map((line) => block('code-line', [textNode([leaf(line)])]));
  return block('code', lines, syntax ? { syntax } : {});
}

/**
 * A GFM table -> the `table` block: one text column per Markdown column
 * (`definition`, in `view.columns` order), one record per body row, and each
 * cell's content a paragraph in a fragment named by the record's value.
 * Ids are positional, so the conversion stays deterministic.
 */
function convertTable(node: md.Table, ctx: ParseContext): JSONNode {
  const [header, ...rows] = node.children;
  const width = Math.max(0, ...node.children.map((row) => row.children.length));
  const columns = Array.from({ length: width }, (_, c) => `column-${c + 1}`);
  const titles = columns.map((_, c) => {
    const cell = header?.children[c];
    return cell ? piecesText(phrasingPieces(cell.children, ctx, [], 'heading')).trim() : '';
  });
  const definition = Object.fromEntries(
    columns.map((id, c) => {
      const align = node.align?.[c];
      return [id, { id, title: titles[c], type: 'text', textAlignment: align === 'center' || align === 'right' ? align : 'left' }];
    }),
  );
  const pad = String(rows.length).length;
  const records: Record<string, unknown> = {};
  const fragments: JSONNode[] = [];
  rows.forEach((row, r) => {
    const recordId = `row-${r + 1}`;
    const values: Record<string, string> = {};
    columns.forEach((columnId, c) => {
      const name = `${recordId}:${columnId}`;
      values[columnId] = name;
      const cell = row.children[c];
      fragments.push(fragment(name, [block('paragraph', buildInlines(cell ? phrasingPieces(cell.children, ctx, [], 'table-cell') : []))]));
    });
    records[recordId] = { orderIndex: String(r).padStart(pad, '0'), values };
  });
  // A header row with no text is how a table with a hidden header is written.
  const hideHeader = width > 0 && titles.every((t) => t === '');
  return voidBlock('table', { view: { type: 'grid', columns, hideHeader }, records, definition }, fragments);
}

/** HTML blocks: GitBook's `<figure>` image; anything else is kept as its text. */
function convertHtml(node: md.Html, ctx: ParseContext, place: Place): JSONNode[] {
  const figure = readFigure(node.value);
  if (figure) {
    if (IMAGES_PLACES.has(place)) {
      return [{ object: 'block', type: 'images', isVoid: false, data: {}, nodes: [imageBlock(figure.src, figure.alt, figure.caption, ctx)] }];
    }
    return [block('paragraph', buildInlines([{ inline: inlineImage(figure.src, figure.alt, figure.caption, ctx) }]))];
  }
  return [paragraph(node.value)];
}

/** A footnote has no Document equivalent: its text is kept as a `[^id]: ...` paragraph. */
function convertFootnoteDefinition(node: md.FootnoteDefinition, ctx: ParseContext, place: Place): JSONNode[] {
  const blocks = convertFlow(node.children, ctx, place);
  const marker: Piece = { text: `[^${node.label ?? node.identifier}]: `, marks: [] };
  if (blocks[0]?.type === 'paragraph') {
    blocks[0] = block('paragraph', buildInlines([marker, ...inlinesToPieces(blocks[0].nodes ?? [])]));
    return blocks;
  }
  return [block('paragraph', buildInlines([marker])), ...blocks];
}

/* ------------------------------ inline content ------------------------------ */

/** A run of text with marks, or a ready inline node (link, inline image). */
type Piece = { text: string; marks: Mark[] } | { inline: JSONNode };
/** Where phrasing sits: breaks become `\n`, except in headings (a space) and table cells (only `<br>` breaks a cell). */
type InlineMode = 'paragraph' | 'heading' | 'table-cell';

function phrasingPieces(nodes: md.PhrasingContent[], ctx: ParseContext, marks: Mark[], mode: InlineMode): Piece[] {
  return nodes.flatMap((node) => phrasingPiece(node, ctx, marks, mode));
}

function phrasingPiece(node: md.PhrasingContent, ctx: ParseContext, marks: Mark[], mode: InlineMode): Piece[] {
  switch (node.type) {
    case 'text':
      // A soft line break renders as a space; `\n` in a Document is a hard break.
      return [{ text: node.value.replaceAll('\n', ' '), marks }];
    case 'strong':
      return phrasingPieces(node.children, ctx, withMark(marks, 'bold'), mode);
    case 'emphasis':
      return phrasingPieces(node.children, ctx, withMark(marks, 'italic'), mode);
    case 'delete':
      return phrasingPieces(node.children, ctx, withMark(marks, 'strikethrough'), mode);
    case 'inlineCode':
      return [{ text: node.value, marks: withMark(marks, 'code') }];
    case 'break':
      return [{ text: mode === 'heading' ? ' ' : '\n', marks }];
    case 'link':
      return [{ inline: linkInline(node.url, phrasingPieces(node.children, ctx, marks, mode), ctx) }];
    case 'linkReference': {
      const definition = ctx.definitions.get(node.identifier);
      const inner = phrasingPieces(node.children, ctx, marks, mode);
      return definition ? [{ inline: linkInline(definition.url, inner, ctx) }] : inner;
    }
    case 'image':
    case 'imageReference': {
      const image = resolveImage(node, ctx);
      return image ? [{ inline: inlineImage(image.url, image.alt, image.title, ctx) }] : [{ text: node.alt ?? '', marks }];
    }
    case 'html':
      return [{ text: isBreakTag(node.value) ? (mode === 'heading' ? ' ' : '\n') : node.value, marks }];
    case 'footnoteReference':
      return [{ text: `[^${node.label ?? node.identifier}]`, marks }];
    default:
      return [{ text: mdastText(node), marks }];
  }
}

function withMark(marks: Mark[], mark: Mark): Mark[] {
  return MARK_ORDER.filter((m) => m === mark || marks.includes(m));
}

/** `<br>`, `<br/>`, `<br />`: the line break GFM tables use. */
function isBreakTag(html: string): boolean {
  const tag = readHtmlTags(html.trim());
  return tag !== null && tag.length === 1 && tag[0].name === 'br' && !tag[0].closing && tag[0].end === html.trim().length && tag[0].start === 0;
}

function resolveImage(node: md.PhrasingContent, ctx: ParseContext): { url: string; alt: string; title: string | null } | null {
  if (node.type === 'image') return { url: node.url, alt: node.alt ?? '', title: node.title ?? null };
  if (node.type === 'imageReference') {
    const definition = ctx.definitions.get(node.identifier);
    return definition ? { url: definition.url, alt: node.alt ?? '', title: definition.title ?? null } : null;
  }
  return null;
}

/** An inline `link` to the ref the href stands for. */
function linkInline(href: string, inner: Piece[], ctx: ParseContext): JSONNode {
  // A link holds text and inline images only (no links in links).
  const nodes = buildInlines(inner.filter((p) => !('inline' in p) || p.inline.type === 'inline-image'), false);
  return { object: 'inline', type: 'link', data: { ref: hrefToRef(href, ctx) }, nodes };
}

/** An image's ref: the schema allows a file or URL ref only. */
function imageRef(src: string, ctx: ParseContext): ContentRef {
  const ref = hrefToRef(src, ctx);
  return ref.kind === 'file' || ref.kind === 'url' ? ref : { kind: 'url', url: src };
}

function inlineImage(src: string, alt: string, caption: string | null, ctx: ParseContext): JSONNode {
  const data: Record<string, unknown> = { ref: imageRef(src, ctx) };
  if (alt) data.alt = alt;
  if (caption) data.caption = caption;
  return { object: 'inline', type: 'inline-image', isVoid: true, data };
}

/** An `image` block of an `images` block; the Markdown title is its caption. */
function imageBlock(src: string, alt: string, caption: string | null, ctx: ParseContext): JSONNode {
  const data: Record<string, unknown> = { ref: imageRef(src, ctx) };
  if (alt) data.alt = alt;
  return voidBlock('image', data, [fragment('caption', [paragraph(caption ?? '')])]);
}

/**
 * Pieces -> inline nodes, normalized as GitBook's editor keeps them: adjacent
 * runs merge into one text node (one leaf per mark set), and in blocks a text
 * node sits before, between and after inlines.
 */
function buildInlines(pieces: Piece[], padInlines = true): JSONNode[] {
  const out: JSONNode[] = [];
  let leaves: Leaf[] = [];
  const flushText = (force: boolean) => {
    const kept = leaves.filter((l) => l.text !== '');
    if (kept.length) out.push(textNode(kept));
    else if (force) out.push(textNode([leaf('')]));
    leaves = [];
  };
  for (const piece of pieces) {
    if ('inline' in piece) {
      flushText(padInlines);
      out.push(piece.inline);
      continue;
    }
    const last = leaves[leaves.length - 1];
    const marks = piece.marks.map((type) => ({ object: 'mark' as const, type }));
    if (last && sameMarks(last.marks, marks)) last.text += piece.text;
    else leaves.push({ object: 'leaf', text: piece.text, marks });
  }
  flushText(padInlines || out.length === 0);
  return out;
}

function sameMarks(a: Leaf['marks'], b: Leaf['marks']): boolean {
  return a.length === b.length && a.every((m, i) => m.type === b[i].type);
}

/** Inline nodes back to pieces (to prepend text to a converted paragraph). */
function inlinesToPieces(nodes: JSONNode[]): Piece[] {
  return nodes.flatMap((node): Piece[] =>
    node.object === 'text' ? (node.leaves ?? []).map((l) => ({ text: l.text, marks: l.marks.map((m) => m.type as Mark) })) : [{ inline: node }],
  );
}

function piecesText(pieces: Piece[]): string {
  return pieces.map((p) => ('inline' in p ? nodeText(p.inline) : p.text)).join('');
}

/** Plain text of an mdast node (what mdast-util-to-string does, for the few nodes we do not map). */
function mdastText(node: md.Nodes): string {
  if ('value' in node && typeof node.value === 'string') return node.value;
  if ('alt' in node && typeof node.alt === 'string') return node.alt;
  return 'children' in node ? (node.children as md.Nodes[]).map(mdastText).join('') : '';
}

/* ---------------------------------- hrefs ---------------------------------- */

/**
 * The ContentRef an href stands for: `/pages/<id>[#anchor]`, `/files/<id>`,
 * `#anchor`, absolute http(s)/mailto URLs; anything else is the caller's to
 * resolve (relative paths), then a URL ref.
 */
function hrefToRef(href: string, ctx: ParseContext): ContentRef {
  const page = idAfter(href, '/pages/');
  if (page) return page.anchor !== null ? { kind: 'anchor', anchor: page.anchor, page: page.id } : { kind: 'page', page: page.id };
  const file = idAfter(href, '/files/');
  if (file && file.anchor === null) return { kind: 'file', file: file.id };
  if (href.startsWith('#') && href.length > 1) return { kind: 'anchor', anchor: href.slice(1) };
  const lower = href.toLowerCase();
  if (lower.startsWith('http://') || lower.startsWith('https://') || lower.startsWith('mailto:')) return { kind: 'url', url: href };
  return ctx.resolveHref?.(href) ?? { kind: 'url', url: href };
}

/** `/pages/abc#x` -> { id: 'abc', anchor: 'x' }; null unless the href is exactly the prefix and one id. */
function idAfter(href: string, prefix: string): { id: string; anchor: string | null } | null {
  if (!href.startsWith(prefix)) return null;
  const rest = href.slice(prefix.length);
  const hash = rest.indexOf('#');
  const id = hash < 0 ? rest : rest.slice(0, hash);
  if (!id || id.includes('/') || id.includes('?')) return null;
  return { id, anchor: hash < 0 ? null : rest.slice(hash + 1) || null };
}

/** The default href of a ref (inverse of hrefToRef). */
function defaultHref(ref: ContentRef): string {
  switch (ref.kind) {
    case 'page':
      return `/pages/${ref.page}`;
    case 'file':
      return `/files/${ref.file}`;
    case 'anchor':
      return `${typeof ref.page === 'string' ? `/pages/${ref.page}` : ''}#${ref.anchor}`;
    case 'url':
      return String(ref.url);
    default:
      return '';
  }
}

/* -------------------------------------------------------------------------- */
/* Document -> Markdown                                                        */
/* -------------------------------------------------------------------------- */

interface WriteContext {
  href: (ref: ContentRef) => string;
}

const stringifyOptions: StringifyOptions = {
  bullet: '*',
  emphasis: '*',
  strong: '*',
  rule: '-',
  fences: true,
  listItemIndent: 'one',
  // Text that reads as a GitBook tag at the start of a line is escaped (`\{%`), so it stays text.
  unsafe: [{ character: '{', atBreak: true, after: '%' }],
  // GitBook writes its tags right against their content, without blank lines.
  join: [(left, right) => (isCompactTagNeighbour(left, right) && isCompactTagNeighbour(right, left) ? 0 : undefined)],
};

const printer = unified().use(remarkStringify, stringifyOptions).use(remarkGfm).use(remarkFrontmatter, ['yaml']);

function isTagHtml(node: md.Nodes): boolean {
  return node.type === 'html' && node.value.startsWith('{%');
}

/** A tag may touch its neighbour when either is a tag and neither is a block that only ends at a blank line. */
function isCompactTagNeighbour(node: md.Nodes, other: md.Nodes): boolean {
  if (!isTagHtml(node) && !isTagHtml(other)) return false;
  return isTagHtml(node) || node.type === 'paragraph' || node.type === 'heading' || node.type === 'code';
}

/** Converts a Document back to GitBook-flavoured Markdown. */
export function documentToMarkdown(document: JSONDocument, options: DocumentToMarkdownOptions = {}): string {
  const ctx: WriteContext = { href: (ref) => options.hrefFor?.(ref) ?? defaultHref(ref) };
  const children: md.RootContent[] = [];
  if (options.frontmatter && Object.keys(options.frontmatter).length > 0) {
    children.push({ type: 'yaml', value: YAML.stringify(options.frontmatter).trimEnd() });
  }
  if (options.title !== undefined && options.title !== null) {
    children.push({ type: 'heading', depth: 1, children: options.title ? [{ type: 'text', value: options.title }] : [] });
  }
  children.push(...blocksToFlow(document.nodes, ctx));
  return printer.stringify({ type: 'root', children });
}

function blocksToFlow(nodes: JSONNode[] | undefined, ctx: WriteContext): md.RootContent[] {
  return (nodes ?? []).flatMap((node) => blockToFlow(node, ctx));
}

function tagHtml(text: string): md.Html {
  return { type: 'html', value: `{% ${text} %}` };
}

function blockToFlow(node: JSONNode, ctx: WriteContext): md.RootContent[] {
  switch (node.type) {
    case 'paragraph': {
      const children = inlinesToPhrasing(node.nodes, ctx, 'paragraph');
      // An empty paragraph has no Markdown; an empty container reads back with one.
      return children.length ? [{ type: 'paragraph', children }] : [];
    }
    case 'heading-1':
    case 'heading-2':
    case 'heading-3':
      return [{ type: 'heading', depth: Number(node.type.slice(-1)) as 1 | 2 | 3, children: inlinesToPhrasing(node.nodes, ctx, 'heading') }];
    case 'list-ordered':
    case 'list-unordered':
    case 'list-tasks':
      return [listToMdast(node, ctx)];
    case 'code':
      return codeToFlow(node);
    case 'blockquote':
      return [{ type: 'blockquote', children: blocksToFlow(node.nodes, ctx) as md.BlockContent[] }];
    case 'hint':
      return [tagHtml(`hint style="${String(node.data?.style ?? 'info')}"`), ...blocksToFlow(node.nodes, ctx), tagHtml('endhint')];
    case 'images':
    case 'image':
      return [imagesToParagraph(node.type === 'image' ? [node] : (node.nodes ?? []), ctx)];
    case 'divider':
      return [{ type: 'thematicBreak' }];
    case 'embed':
      return [tagHtml(`embed url=${quoteAttr(String(node.data?.url ?? ''))}`)];
    case 'file':
      return [tagHtml(`file src=${quoteAttr(ctx.href(node.data?.ref as ContentRef))}`)];
    case 'table':
      return [tableToMdast(node, ctx)];
    case 'tabs':
      return [tagHtml('tabs'), ...(node.nodes ?? []).flatMap((item) => tabToFlow(item, ctx)), tagHtml('endtabs')];
    case 'expandable':
      return expandableToFlow(node, ctx);
    case 'content-ref': {
      const href = isRef(node.data?.ref) ? ctx.href(node.data.ref) : '';
      const link: md.Paragraph = { type: 'paragraph', children: [{ type: 'link', url: href, title: null, children: [{ type: 'text', value: href }] }] };
      return [tagHtml(`content-ref url=${quoteAttr(href)}`), link, tagHtml('endcontent-ref')];
    }
    case 'math':
      // GitBook's block math syntax; read back as text (remark-math is not used here).
      return [{ type: 'html', value: `$$\n${String(node.data?.formula ?? '')}\n$$` }];
    default:
      return fallbackToFlow(node, ctx);
  }
}

/** Lists: `start` for ordered lists, checkboxes for task lists. */
function listToMdast(node: JSONNode, ctx: WriteContext): md.List {
  const tasks = node.type === 'list-tasks';
  const start = typeof node.data?.start === 'number' ? node.data.start : 1;
  const children = (node.nodes ?? []).map((item): md.ListItem => {
    const content = blocksToFlow(item.nodes, ctx) as md.BlockContent[];
    // A checkbox is written into the item's first paragraph: an opening tag goes there, on the checkbox line.
    if (tasks && content[0]?.type === 'html' && isTagHtml(content[0])) content[0] = { type: 'paragraph', children: [{ type: 'html', value: content[0].value }] };
    // Tight unless an item holds more than text and sub-lists (two paragraphs in a tight item would merge).
    const spread = content.filter((c) => c.type !== 'list').length > 1;
    return { type: 'listItem', spread, checked: tasks ? item.data?.checked === true : null, children: content };
  });
  return { type: 'list', ordered: node.type === 'list-ordered', start, spread: false, children };
}

/** A code block, inside `{% code %}` when it has a title or display options. */
function codeToFlow(node: JSONNode): md.RootContent[] {
  const data = node.data ?? {};
  const value = (node.nodes ?? []).map((line) => nodeText(line)).join('\n');
  const code: md.Code = { type: 'code', lang: typeof data.syntax === 'string' && data.syntax ? data.syntax : null, meta: null, value };
  const attrs: string[] = [];
  if (typeof data.title === 'string') attrs.push(`title=${quoteAttr(data.title)}`);
  if (data.overflow === 'wrap' || data.overflow === 'scroll') attrs.push(`overflow="${data.overflow}"`);
  for (const flag of ['lineNumbers', 'fullWidth', 'expandable']) {
    if (typeof data[flag] === 'boolean') attrs.push(`${flag}="${data[flag]}"`);
  }
  return attrs.length ? [tagHtml(`code ${attrs.join(' ')}`), code, tagHtml('endcode')] : [code];
}

/** Images as one paragraph of Markdown images, the caption as the image title. */
function imagesToParagraph(images: JSONNode[], ctx: WriteContext): md.Paragraph {
  const children: md.PhrasingContent[] = [];
  images.forEach((image, i) => {
    if (i > 0) children.push({ type: 'text', value: '\n' });
    const caption = (image.fragments as JSONNode[] | undefined)?.find((f) => f.fragment === 'caption');
    children.push(imageToMdast(image.data ?? {}, caption ? nodeText(caption).trim() : null, ctx));
  });
  return { type: 'paragraph', children };
}

function imageToMdast(data: Record<string, unknown>, caption: string | null, ctx: WriteContext): md.Image {
  return { type: 'image', url: ctx.href(data.ref as ContentRef), alt: typeof data.alt === 'string' ? data.alt : '', title: caption || null };
}

/** A tab: its tags around its content. */
function tabToFlow(item: JSONNode, ctx: WriteContext): md.RootContent[] {
  return [tagHtml(`tab title=${quoteAttr(String(item.data?.title ?? ''))}`), ...blocksToFlow(item.nodes, ctx), tagHtml('endtab')];
}

/** `<details>` as GitBook writes it: HTML blocks around Markdown. */
function expandableToFlow(node: JSONNode, ctx: WriteContext): md.RootContent[] {
  const fragments = (node.fragments as JSONNode[] | undefined) ?? [];
  const title = fragments.find((f) => f.fragment === 'expandable-title');
  const body = fragments.find((f) => f.fragment === 'expandable-body');
  return [
    { type: 'html', value: '<details>' },
    { type: 'html', value: `<summary>${escapeHtml(title ? nodeText(title).trim() : '')}</summary>` },
    ...blocksToFlow(body?.nodes, ctx),
    { type: 'html', value: '</details>' },
  ];
}

/**
 * A table block -> GFM table: columns in view order, records by orderIndex,
 * each text cell's fragment written inline (`<br>` between lines).
 */
function tableToMdast(node: JSONNode, ctx: WriteContext): md.Table {
  const data = (node.data ?? {}) as { view?: { columns?: string[]; hideHeader?: boolean }; records?: Record<string, { orderIndex?: string; values?: Record<string, unknown> }>; definition?: Record<string, { title?: string; textAlignment?: string }> };
  const definition = data.definition ?? {};
  const columns = (data.view?.columns ?? Object.keys(definition)).filter((id) => id in definition);
  const fragments = new Map(((node.fragments as JSONNode[] | undefined) ?? []).map((f) => [f.fragment as string, f]));
  const records = Object.entries(data.records ?? {}).sort(([ka, a], [kb, b]) => compareStrings(a.orderIndex ?? '', b.orderIndex ?? '') || compareStrings(ka, kb));
  const headerCells = columns.map((id): md.TableCell => ({
    type: 'tableCell',
    children: data.view?.hideHeader || !definition[id].title ? [] : [{ type: 'text', value: definition[id].title! }],
  }));
  const rows = records.map(([, record]): md.TableRow => ({
    type: 'tableRow',
    children: columns.map((id): md.TableCell => ({ type: 'tableCell', children: cellToPhrasing(record.values?.[id], fragments, ctx) })),
  }));
  const align = columns.map((id) => {
    const a = definition[id].textAlignment;
    return a === 'center' || a === 'right' ? a : null;
  });
  return { type: 'table', align, children: [{ type: 'tableRow', children: headerCells }, ...rows] };
}

function cellToPhrasing(value: unknown, fragments: Map<string, JSONNode>, ctx: WriteContext): md.PhrasingContent[] {
  if (typeof value === 'string' && fragments.has(value)) {
    const out: md.PhrasingContent[] = [];
    for (const b of fragments.get(value)!.nodes ?? []) {
      const phrasing = b.nodes?.some((n) => n.object !== 'block') ? inlinesToPhrasing(b.nodes, ctx, 'table-cell') : [{ type: 'text' as const, value: nodeText(b) }];
      if (out.length && phrasing.length) out.push({ type: 'html', value: '<br>' });
      out.push(...phrasing);
    }
    return out;
  }
  if (value === null || value === undefined) return [];
  if (typeof value === 'object' && !Array.isArray(value) && typeof (value as ContentRef).kind === 'string') {
    const href = ctx.href(value as ContentRef);
    return [{ type: 'link', url: href, children: [{ type: 'text', value: href }] }];
  }
  return [{ type: 'text', value: Array.isArray(value) ? value.join(', ') : String(value) }];
}

/** Blocks without a Markdown form: their content (child blocks, fragments), or a link to their ref. */
function fallbackToFlow(node: JSONNode, ctx: WriteContext): md.RootContent[] {
  const children = [...blocksToFlow(node.nodes?.filter((n) => n.object === 'block'), ctx)];
  for (const f of (node.fragments as JSONNode[] | undefined) ?? []) children.push(...blocksToFlow(f.nodes, ctx));
  if (node.nodes?.some((n) => n.object !== 'block')) children.unshift({ type: 'paragraph', children: inlinesToPhrasing(node.nodes, ctx, 'paragraph') });
  const ref = node.data?.ref;
  if (children.length === 0 && isRef(ref)) {
    const href = ctx.href(ref);
    if (href) children.push({ type: 'paragraph', children: [{ type: 'link', url: href, children: [{ type: 'text', value: href }] }] });
  }
  return children;
}

/* ------------------------------ inline content ------------------------------ */

/** A leaf or inline ready for mark grouping. */
interface WriteItem {
  marks: Set<Mark>;
  node: md.PhrasingContent;
}

/** Inline nodes -> mdast phrasing, marks regrouped into nested strong/emphasis/delete. */
function inlinesToPhrasing(nodes: JSONNode[] | undefined, ctx: WriteContext, mode: InlineMode): md.PhrasingContent[] {
  const items: WriteItem[] = [];
  for (const node of nodes ?? []) {
    if (node.object === 'text') {
      for (const l of node.leaves ?? []) {
        const marks = new Set(l.marks.map((m) => m.type as Mark).filter((m) => MARK_ORDER.includes(m)));
        const last = items[items.length - 1];
        // Leaves with the same marks are one run (two code spans side by side would not read back).
        if (last && last.node.type === 'text' && !marks.has('code') && sameSet(last.marks, marks)) last.node.value += l.text;
        else if (last && last.node.type === 'inlineCode' && marks.has('code') && sameSet(last.marks, marks)) last.node.value += l.text;
        else if (l.text !== '') items.push({ marks, node: marks.has('code') ? { type: 'inlineCode', value: l.text } : { type: 'text', value: l.text } });
      }
    } else if (node.type === 'link') {
      const href = ctx.href(node.data?.ref as ContentRef);
      items.push({ marks: new Set(), node: { type: 'link', url: href, title: null, children: inlinesToPhrasing(node.nodes, ctx, mode) as md.Link['children'] } });
    } else if (node.type === 'inline-image') {
      items.push({ marks: new Set(), node: imageToMdast(node.data ?? {}, typeof node.data?.caption === 'string' ? node.data.caption : null, ctx) });
    } else {
      for (const phrasing of inlineFallback(node, ctx, mode)) items.push({ marks: new Set(), node: phrasing });
    }
  }
  return markRuns(items.flatMap((item) => splitBreaks(item, mode)));
}

/** Inlines Markdown has no syntax for, written as the closest text or link. */
function inlineFallback(node: JSONNode, ctx: WriteContext, mode: InlineMode): md.PhrasingContent[] {
  const data = node.data ?? {};
  if (node.type === 'emoji' && typeof data.code === 'string') {
    const points = data.code.split('-').map((hex) => Number.parseInt(hex, 16));
    return points.every((p) => Number.isInteger(p) && p >= 0 && p <= 0x10ffff) ? [{ type: 'text', value: String.fromCodePoint(...points) }] : [];
  }
  if (node.type === 'inline-math' && typeof data.formula === 'string') return [{ type: 'text', value: `$$${data.formula}$$` }];
  const href = isRef(data.ref) ? ctx.href(data.ref) : '';
  if (href) {
    const label = typeof data.label === 'string' && data.label ? data.label : nodeText(node) || href;
    return [{ type: 'link', url: href, title: null, children: [{ type: 'text', value: label }] }];
  }
  // Annotations and other inlines with text: their text, formatting kept.
  return inlinesToPhrasing(node.nodes, ctx, mode);
}

function isRef(value: unknown): value is ContentRef {
  return typeof value === 'object' && value !== null && typeof (value as { kind?: unknown }).kind === 'string';
}

/** `\n` in text is a hard break: a Markdown break, `<br>` in a table cell, a space in a heading. */
function splitBreaks(item: WriteItem, mode: InlineMode): WriteItem[] {
  if (item.node.type !== 'text' || !item.node.value.includes('\n')) return [item];
  if (mode === 'heading') return [{ ...item, node: { type: 'text', value: item.node.value.replaceAll('\n', ' ') } }];
  const out: WriteItem[] = [];
  item.node.value.split('\n').forEach((part, i) => {
    if (i > 0) out.push({ marks: item.marks, node: mode === 'table-cell' ? { type: 'html', value: '<br>' } : { type: 'break' } });
    if (part) out.push({ marks: item.marks, node: { type: 'text', value: part } });
  });
  return out;
}

/**
 * Wraps runs of items sharing a mark in the mark's node, choosing at each
 * step the mark that covers the longest run, so `**a *b***` is written as one
 * strong around an emphasis. Whitespace at a run's edges is left outside:
 * CommonMark does not close `**a **`.
 */
function markRuns(items: WriteItem[]): md.PhrasingContent[] {
  const out: md.PhrasingContent[] = [];
  let i = 0;
  while (i < items.length) {
    const marks = (['bold', 'italic', 'strikethrough'] as const).filter((m) => items[i].marks.has(m));
    if (marks.length === 0) {
      out.push(items[i].node);
      i++;
      continue;
    }
    let best: Mark = marks[0];
    let end = i;
    for (const m of marks) {
      let e = i;
      while (e < items.length && items[e].marks.has(m)) e++;
      if (e > end) {
        best = m;
        end = e;
      }
    }
    const run = items.slice(i, end).map((it) => ({ node: it.node, marks: new Set([...it.marks].filter((m) => m !== best)) }));
    const [lead, trail] = peelWhitespace(run);
    if (lead) out.push({ type: 'text', value: lead });
    if (run.length) {
      const children = markRuns(run);
      out.push(best === 'bold' ? { type: 'strong', children } : best === 'italic' ? { type: 'emphasis', children } : { type: 'delete', children });
    }
    if (trail) out.push({ type: 'text', value: trail });
    i = end;
  }
  return out;
}

/** Removes leading/trailing whitespace from a run (in place) and returns it. */
function peelWhitespace(run: WriteItem[]): [string, string] {
  let lead = '';
  let trail = '';
  while (run.length && run[0].node.type === 'text') {
    const text = run[0].node.value;
    const kept = text.trimStart();
    lead += text.slice(0, text.length - kept.length);
    if (kept) {
      run[0] = { ...run[0], node: { type: 'text', value: kept } };
      break;
    }
    run.shift();
  }
  while (run.length && run[run.length - 1].node.type === 'text') {
    const last = run[run.length - 1];
    const text = (last.node as md.Text).value;
    const kept = text.trimEnd();
    trail = text.slice(kept.length) + trail;
    if (kept) {
      run[run.length - 1] = { ...last, node: { type: 'text', value: kept } };
      break;
    }
    run.pop();
  }
  return [lead, trail];
}

function sameSet(a: Set<Mark>, b: Set<Mark>): boolean {
  return a.size === b.size && [...a].every((m) => b.has(m));
}

/** Ordinal comparison (orderIndex keys are compared by code unit, not locale). */
function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** A tag attribute value, double-quoted; quotes and backslashes escaped, newlines flattened. */
function quoteAttr(value: string): string {
  return `"${value.replaceAll('\\', '\\\\').replaceAll('"', '\\"').replaceAll('\n', ' ')}"`;
}

function escapeHtml(text: string): string {
  return text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');
}

function unescapeHtml(text: string): string {
  return text.replaceAll('&lt;', '<').replaceAll('&gt;', '>').replaceAll('&quot;', '"').replaceAll('&#39;', "'").replaceAll('&amp;', '&');
}

/* -------------------------------------------------------------------------- */
/* Tag tokenizer: `{% name key="value" %}` and the few HTML tags GitBook uses  */
/* -------------------------------------------------------------------------- */

/** A GitBook tag: `{% hint style="info" %}` is { name: 'hint', attrs: { style: 'info' } }; `{% endhint %}` closes 'hint'. */
interface GitBookTag {
  name: string;
  closing: boolean;
  attrs: Record<string, string>;
}

/** True when the text is exactly one `{% ... %}` tag. */
function isTagText(text: string): boolean {
  return text.length >= 5 && text.startsWith('{%') && text.endsWith('%}') && text.indexOf('%}') === text.length - 2;
}

/** Reads `{% name attr="v" flag %}`; null when the text is not one well-formed tag. */
function readTag(text: string): GitBookTag | null {
  if (!isTagText(text)) return null;
  const inner = text.slice(2, -2);
  let i = skipSpace(inner, 0);
  const nameStart = i;
  while (i < inner.length && !isSpace(inner[i])) i++;
  const name = inner.slice(nameStart, i);
  if (!name) return null;
  const attrs = readAttributes(inner, i, inner.length);
  if (!attrs) return null;
  const closing = name.startsWith('end') && name.length > 3;
  return { name: closing ? name.slice(3) : name, closing, attrs: attrs.attrs };
}

function isSpace(c: string | undefined): boolean {
  return c === ' ' || c === '\t' || c === '\n' || c === '\r';
}

function isTagNameChar(c: string): boolean {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c === '-';
}

function skipSpace(s: string, i: number): number {
  while (i < s.length && isSpace(s[i])) i++;
  return i;
}

/**
 * Reads `key="value" key='value' key=value flag` pairs from `s[i..stop)`,
 * stopping early at a `>` or `/>` (HTML). A bare flag reads as "true".
 * Returns null on an unterminated quote.
 */
function readAttributes(s: string, i: number, stop: number, html = false): { attrs: Record<string, string>; end: number } | null {
  const attrs: Record<string, string> = {};
  for (;;) {
    i = skipSpace(s, i);
    if (i >= stop) return { attrs, end: i };
    if (html && (s[i] === '>' || (s[i] === '/' && s[i + 1] === '>'))) return { attrs, end: i };
    const keyStart = i;
    while (i < stop && !isSpace(s[i]) && s[i] !== '=' && !(html && (s[i] === '>' || s[i] === '/'))) i++;
    const key = s.slice(keyStart, i);
    if (!key) return null;
    i = skipSpace(s, i);
    if (s[i] !== '=') {
      attrs[key] = 'true';
      continue;
    }
    i = skipSpace(s, i + 1);
    const quote = s[i] === '"' || s[i] === "'" ? s[i] : null;
    let value = '';
    if (quote) {
      i++;
      while (i < stop && s[i] !== quote) {
        // Backslash escapes only in GitBook tags; HTML has entities instead.
        if (!html && s[i] === '\\' && i + 1 < stop) i++;
        value += s[i];
        i++;
      }
      if (i >= stop) return null;
      i++;
    } else {
      const valueStart = i;
      while (i < stop && !isSpace(s[i]) && !(html && s[i] === '>')) i++;
      value = s.slice(valueStart, i);
    }
    attrs[key] = html ? unescapeHtml(value) : value;
  }
}

interface HtmlTag {
  name: string;
  closing: boolean;
  attrs: Record<string, string>;
  /** Offsets of `<` and just after `>`. */
  start: number;
  end: number;
}

/** Splits an HTML snippet into its tags, with the text between them in `text`; null on a malformed tag. */
function readHtmlTags(html: string): (HtmlTag & { textBefore: string })[] | null {
  const tags: (HtmlTag & { textBefore: string })[] = [];
  let i = 0;
  while (i < html.length) {
    const open = html.indexOf('<', i);
    if (open < 0) break;
    const textBefore = html.slice(i, open);
    let j = open + 1;
    const closing = html[j] === '/';
    if (closing) j++;
    const nameStart = j;
    while (j < html.length && isTagNameChar(html[j])) j++;
    const name = html.slice(nameStart, j).toLowerCase();
    if (!name) return null;
    const attrs = readAttributes(html, j, html.length, true);
    if (!attrs) return null;
    let end = attrs.end;
    if (html[end] === '/') end++;
    if (html[end] !== '>') return null;
    tags.push({ name, closing, attrs: attrs.attrs, start: open, end: end + 1, textBefore });
    i = end + 1;
  }
  return tags;
}

/**
 * The start of a `<details>` HTML block: its summary (if in the same block)
 * and what follows it. `closedBody` is the Markdown inside when the block also
 * holds `</details>`.
 */
function readDetailsOpen(html: string): { title: string | null; rest: string; closedBody: string | null } | null {
  const text = html.trim();
  const tags = readHtmlTags(text);
  if (!tags?.length || tags[0].name !== 'details' || tags[0].closing || tags[0].start !== 0) return null;
  let restStart = tags[0].end;
  let title: string | null = null;
  if (tags[1]?.name === 'summary' && !tags[1].closing && tags[1].textBefore.trim() === '') {
    const close = tags.findIndex((t, k) => k > 1 && t.name === 'summary' && t.closing);
    if (close < 0) return null;
    title = unescapeHtml(text.slice(tags[1].end, tags[close].start).trim());
    restStart = tags[close].end;
  }
  const rest = text.slice(restStart);
  const last = tags[tags.length - 1];
  const closed = tags.length > 1 && last.name === 'details' && last.closing && last.end === text.length;
  return { title, rest: closed ? '' : rest, closedBody: closed ? text.slice(restStart, last.start) : null };
}

function readSummary(html: string): string | null {
  const text = html.trim();
  const tags = readHtmlTags(text);
  if (!tags || tags.length !== 2 || tags[0].name !== 'summary' || tags[0].closing || tags[0].start !== 0) return null;
  if (tags[1].name !== 'summary' || !tags[1].closing || tags[1].end !== text.length) return null;
  return unescapeHtml(text.slice(tags[0].end, tags[1].start).trim());
}

function isDetailsClose(html: string): boolean {
  const tags = readHtmlTags(html.trim());
  return tags?.length === 1 && tags[0].name === 'details' && tags[0].closing && tags[0].start === 0 && tags[0].end === html.trim().length;
}

/** GitBook's image HTML: `<figure><img src alt><figcaption><p>caption</p></figcaption></figure>`. */
function readFigure(html: string): { src: string; alt: string; caption: string | null } | null {
  const text = html.trim();
  const tags = readHtmlTags(text);
  if (!tags?.length || tags[0].name !== 'figure' || tags[0].start !== 0) return null;
  const last = tags[tags.length - 1];
  if (last.name !== 'figure' || !last.closing || last.end !== text.length) return null;
  let img: HtmlTag | null = null;
  let caption = '';
  let inCaption = false;
  for (const tag of tags) {
    if (inCaption) caption += tag.textBefore;
    else if (tag.textBefore.trim() !== '') return null;
    if (tag.name === 'figcaption') inCaption = !tag.closing;
    else if (tag.name === 'img' && !img) img = tag;
    else if (!['figure', 'p', 'img'].includes(tag.name) && !inCaption) return null;
  }
  if (!img?.attrs.src) return null;
  const captionText = unescapeHtml(caption.trim());
  return { src: img.attrs.src, alt: img.attrs.alt ?? '', caption: captionText || null };
}

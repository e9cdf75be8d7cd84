/**
 * GitBook-flavoured Markdown -> rich-text Document (`JSONDocument`).
 *
 * Markdown is parsed by unified/remark (mdast); this module maps mdast nodes
 * to Document blocks. The inside of a GitBook tag (`{% hint style="info" %}`)
 * and of the few HTML tags GitBook writes is read by markdown-tags.ts; a GitHub
 * alert (`> [!NOTE]`) is a block quote to mdast, and a hint here.
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
import { unified } from 'unified';
import YAML from 'yaml';
import { checkMarkdownLimits, DEFAULT_MARKDOWN_LIMITS, nestingError, tableCellsError, type MarkdownLimits } from './markdown-limits.ts';
import './micromark-edit-map.ts';
import { hrefToRef, MARK_ORDER, type InlineMode, type Mark } from './markdown-syntax.ts';
import {
  isBreakTag,
  isDetailsClose,
  isTagText,
  readDetailsOpen,
  readFigure,
  readSummary,
  readTag,
  type GitBookTag,
} from './markdown-tags.ts';
import { type ContentRef, type JSONDocument, type JSONNode } from './model.ts';
import { nodeText } from './text.ts';

/** Options of `markdownToDocument`. */
export interface MarkdownToDocumentOptions {
  /** Resolves an href the converter does not know (`./other.md`, a batch-local name); null falls back to a URL ref. */
  resolveHref?: (href: string) => ContentRef | null;
  /** What is refused before parsing (./markdown-limits.ts); DEFAULT_MARKDOWN_LIMITS when absent. */
  limits?: MarkdownLimits;
  /**
   * Read it as a page (the default): YAML frontmatter and a leading `# Title` are taken out of
   * the document (`frontmatter`, `title`). false: a body (a comment's), where every line is
   * content: no frontmatter, the first heading stays.
   */
  page?: boolean;
}

/** Result of `markdownToDocument`. */
export interface MarkdownToDocumentResult {
  document: JSONDocument;
  /** The parsed YAML frontmatter, `{}` when there is none. */
  frontmatter: Record<string, unknown>;
  /** The text of a leading level-1 heading (removed from the document), or null. */
  title: string | null;
}

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
  limits: MarkdownLimits;
  /** How many containers (block quotes, list items, GitBook blocks, expandables) hold the nodes being converted. */
  depth: number;
  /** Table cells made so far, shared by the whole conversion (nested parses included). */
  made: { tableCells: number };
}

/** The context of the content of one more container; a LimitExceededError past `limits.maxNesting`. */
function inside(ctx: ParseContext): ParseContext {
  if (ctx.depth >= ctx.limits.maxNesting) throw nestingError(ctx.limits, 'the document');
  return { ...ctx, depth: ctx.depth + 1 };
}

const parser = unified().use(remarkParse).use(remarkFrontmatter, ['yaml']).use(remarkGfm);
/** A body's Markdown has no frontmatter: a leading `---` line is a thematic break. */
const bodyParser = unified().use(remarkParse).use(remarkGfm);

/**
 * Converts GitBook-flavoured Markdown to a Document, its frontmatter and its title.
 * Markdown over one of `options.limits` is refused with a LimitExceededError.
 */
export function markdownToDocument(markdown: string, options: MarkdownToDocumentOptions = {}): MarkdownToDocumentResult {
  const limits = options.limits ?? DEFAULT_MARKDOWN_LIMITS;
  const page = options.page ?? true;
  const { tree, source } = parseMarkdown(markdown.replaceAll('\r\n', '\n'), limits, page ? parser : bodyParser);
  const ctx: ParseContext = { source, definitions: collectDefinitions(tree), resolveHref: options.resolveHref, limits, depth: 0, made: { tableCells: 0 } };
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
  if (page && first?.type === 'heading' && first.depth === 1) {
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
function parseMarkdown(markdown: string, limits: MarkdownLimits, use: typeof parser | typeof bodyParser = parser): { tree: md.Root; source: string } {
  checkMarkdownLimits(markdown, limits);
  const tree = use.parse(markdown) as md.Root;
  const isolated = isolateTagLines(markdown, tree);
  if (isolated === null) return { tree, source: markdown };
  // Blank lines only split paragraphs: the limits hold for the result too (checked again all the same).
  checkMarkdownLimits(isolated, limits);
  return { tree: use.parse(isolated) as md.Root, source: isolated };
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
  const parts: string[] = [];
  let from = 0;
  for (const at of [...inserts.keys()].sort((a, b) => a - b)) {
    parts.push(source.slice(from, at), inserts.get(at)!);
    from = at;
  }
  parts.push(source.slice(from));
  return parts.join('');
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
  const siblings = readSiblings(nodes, ctx);
  for (let i = 0; i < nodes.length; i++) {
    const node = nodes[i];
    const tag = siblings.tags[i];
    if (tag && !tag.closing) {
      const grouped = convertTagged(tag, siblings, i, ctx, place);
      if (grouped) {
        out.push(...grouped.blocks);
        i = grouped.end;
        continue;
      }
    }
    if (node.type === 'html') {
      const details = convertDetails(siblings, i, ctx);
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

/**
 * Sibling flow nodes with the GitBook tag each stands for and, for each
 * opening tag and `<details>`, the index of the one closing it (same name,
 * nesting counted), found in one pass.
 */
interface Siblings {
  nodes: md.RootContent[];
  tags: (GitBookTag | null)[];
  closing: Map<number, number>;
}

function readSiblings(nodes: md.RootContent[], ctx: ParseContext): Siblings {
  const tags = nodes.map((node) => tagOf(node, ctx));
  const closing = new Map<number, number>();
  const open = new Map<string, number[]>();
  const see = (name: string, closes: boolean, i: number) => {
    const stack = open.get(name) ?? [];
    open.set(name, stack);
    if (!closes) stack.push(i);
    else if (stack.length) closing.set(stack.pop()!, i);
  };
  nodes.forEach((node, i) => {
    const tag = tags[i];
    if (tag) see(tag.name, tag.closing, i);
    // `<details>` blocks pair as a tag of their own (a name no GitBook tag has); one holding its `</details>` pairs with none.
    else if (node.type === 'html' && isDetailsClose(node.value)) see('<details>', true, i);
    else if (node.type === 'html' && readDetailsOpen(node.value)?.closedBody === null) see('<details>', false, i);
  });
  return { nodes, tags, closing };
}

/** Index of the tag closing the one opened at `open`, or -1. */
function findClosing(siblings: Siblings, open: number): number {
  return siblings.closing.get(open) ?? -1;
}

/** Converts a known opening tag and what it wraps; null leaves the tag as plain text. */
function convertTagged(tag: GitBookTag, siblings: Siblings, i: number, ctx: ParseContext, place: Place): { blocks: JSONNode[]; end: number } | null {
  const nodes = siblings.nodes;
  // Embeds and files stand alone; GitBook may still close them, around a caption our schema has no place for.
  if (tag.name === 'embed' || tag.name === 'file') {
    const single = tag.name === 'embed' ? embedBlock(tag) : fileBlock(tag, ctx);
    if (!single) return null;
    const end = findClosing(siblings, i);
    if (end < 0) return { blocks: [single], end: i };
    return { blocks: [single, ...convertFlow(nodes.slice(i + 1, end), inside(ctx), place)], end };
  }
  if (tag.name === 'include') {
    // `{% include "../.gitbook/includes/x.md" %}` (GitBook's Markdown for a reusable content): the path is the tag's one quoted word.
    const quoted = Object.keys(tag.attrs).find((key) => /^(["']).+\1$/.test(key));
    const ref = quoted ? hrefToRef(quoted.slice(1, -1), ctx.resolveHref) : null;
    return ref?.kind === 'reusable-content' ? { blocks: [voidBlock('reusable-content', { ref })], end: i } : null;
  }
  if (tag.name !== 'hint' && tag.name !== 'tabs' && tag.name !== 'code' && tag.name !== 'content-ref') return null;
  const end = findClosing(siblings, i);
  if (end < 0) return null;
  const inner = nodes.slice(i + 1, end);
  if (tag.name === 'hint') return { blocks: hintBlocks(tag.attrs.style, inner, inside(ctx)), end };
  if (tag.name === 'content-ref') return tag.attrs.url ? { blocks: contentRefBlocks(tag, inner, inside(ctx), place), end } : null;
  if (tag.name === 'tabs') return { blocks: tabsBlocks(inner, inside(ctx)), end };
  const blocks = convertFlow(inner, inside(ctx), place);
  if (applyCodeWrapper(tag, blocks)) return { blocks, end };
  // Not exactly one code block inside: keep the tags as text.
  return { blocks: [...convertBlock(nodes[i], ctx, place), ...blocks, ...convertBlock(nodes[end], ctx, place)], end };
}

/** `{% hint style="info" %}...{% endhint %}` -> `hint` block. */
function hintBlocks(style: string | undefined, inner: md.RootContent[], ctx: ParseContext): JSONNode[] {
  const known = style !== undefined && HINT_STYLES.has(style) ? style : 'info';
  return wrapRuns(convertFlow(inner, ctx, 'hint'), ALLOWED.hint, (run) => block('hint', run, { style: known }));
}

/**
 * The hint style of each GitHub alert type, by GitBook's own words for its styles: info for
 * "general information", success for "positive actions" (GitHub's green tip), warning for
 * "important information or non-critical warnings", danger for "destructive actions or critical
 * information" (GitHub's caution). docs/decisions.md, "GitHub alerts".
 */
const ALERT_STYLES: Record<string, string> = { note: 'info', tip: 'success', important: 'warning', warning: 'warning', caution: 'danger' };
/** GitHub's alert marker: the first line of a block quote, alone on it (any case). */
const ALERT_MARKER = /^\[!(note|tip|important|warning|caution)\][ \t]*(?:\n|$)/i;

/**
 * A block quote that is a GitHub alert (`> [!NOTE]` on its first line, then its content): its
 * style and the quote's content without the marker; null for any other block quote, and for an
 * alert with nothing in it (GitHub shows that as a quote too).
 */
function readAlert(quote: md.Blockquote, ctx: ParseContext): { style: string; content: md.RootContent[] } | null {
  const [first, ...others] = quote.children;
  const marker = first?.type === 'paragraph' && first.children[0]?.type === 'text' ? ALERT_MARKER.exec(first.children[0].value) : null;
  if (!marker || first?.type !== 'paragraph') return null;
  const [text, ...inlines] = first.children as [md.Text, ...md.PhrasingContent[]];
  // Written as the marker, not escaped into one (`\[!NOTE]` is text).
  const start = text.position?.start.offset;
  if (start !== undefined && ctx.source[start] !== '[') return null;
  const rest = text.value.slice(marker[0].length);
  // The marker's line ends with a soft break (in the text) or a hard one (two spaces: a `break` node).
  if (rest === '' && inlines.length > 0 && inlines[0]!.type !== 'break') return null;
  const after = rest === '' ? inlines.slice(1) : [{ ...text, value: rest }, ...inlines];
  const content: md.RootContent[] = after.length > 0 ? [{ ...first, children: after }, ...others] : others;
  return content.length > 0 ? { style: ALERT_STYLES[marker[1]!.toLowerCase()]!, content } : null;
}

/** `{% tabs %}{% tab title="x" %}...{% endtab %}{% endtabs %}` -> `tabs` of `tabs-item`; stray content between tabs splits the tabs. */
function tabsBlocks(inner: md.RootContent[], ctx: ParseContext): JSONNode[] {
  const parts: JSONNode[] = [];
  let loose: md.RootContent[] = [];
  const flushLoose = () => {
    parts.push(...convertFlow(loose, ctx, 'document'));
    loose = [];
  };
  const siblings = readSiblings(inner, ctx);
  for (let j = 0; j < inner.length; j++) {
    const tag = siblings.tags[j];
    const end = tag?.name === 'tab' && !tag.closing ? findClosing(siblings, j) : -1;
    if (!tag || end < 0) {
      loose.push(inner[j]);
      continue;
    }
    flushLoose();
    const title = tag.attrs.title ?? '';
    const content = convertFlow(inner.slice(j + 1, end), inside(ctx), 'tabs-item');
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
  const card = voidBlock('content-ref', { ref: hrefToRef(tag.attrs.url, ctx.resolveHref) });
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
  const ref = tag.attrs.src ? hrefToRef(tag.attrs.src, ctx.resolveHref) : null;
  return ref?.kind === 'file' ? voidBlock('file', { ref }) : null;
}

/**
 * `<details><summary>t</summary>...</details>` -> `expandable`. GitBook writes
 * the tags as their own HTML blocks around Markdown; when the whole thing is
 * one HTML block instead, its inside is parsed as Markdown.
 */
function convertDetails(siblings: Siblings, i: number, outer: ParseContext): { blocks: JSONNode[]; end: number } | null {
  const nodes = siblings.nodes;
  const open = readDetailsOpen((nodes[i] as md.Html).value);
  if (!open) return null;
  const ctx = inside(outer);
  let title = open.title;
  let body: JSONNode[] = [];
  let end = i;
  if (open.closedBody !== null) {
    // Each level of `<details>` in one HTML block parses what it holds again: refuse too deep a nesting before parsing any.
    if (ctx.depth + detailsDepth(open.closedBody) > ctx.limits.maxNesting) throw nestingError(ctx.limits, 'the document');
    body = convertNested(open.closedBody, ctx, 'expandable-body');
  } else {
    end = findClosing(siblings, i);
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

/** How deep `<details>` tags nest in `html` (an upper bound: every tag counts, wherever it stands). */
function detailsDepth(html: string): number {
  let depth = 0;
  let deepest = 0;
  for (const match of html.matchAll(/<(\/?)details\b/gi)) {
    depth = match[1] ? Math.max(0, depth - 1) : depth + 1;
    deepest = Math.max(deepest, depth);
  }
  return deepest;
}

/** Markdown found inside an HTML block, parsed on its own. */
function convertNested(markdown: string, ctx: ParseContext, place: Place): JSONNode[] {
  if (markdown.trim() === '') return [];
  const { tree, source } = parseMarkdown(markdown, ctx.limits);
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
    case 'blockquote': {
      const alert = readAlert(node, ctx);
      if (alert) return hintBlocks(alert.style, alert.content, inside(ctx));
      return wrapRuns(convertFlow(node.children, inside(ctx), 'blockquote'), ALLOWED.blockquote, (run) => block('blockquote', run));
    }
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
    for (const part of wrapRuns(convertFlow(item.children, inside(ctx), 'list-item'), ALLOWED['list-item'], (run) => block('list-item', run, data))) {
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
  let width = 0;
  for (const row of node.children) width = Math.max(width, row.children.length);
  // Every row gets a cell per column: the scan counted them too, but only as well as it recognizes tables.
  ctx.made.tableCells += node.children.length * width;
  if (ctx.made.tableCells > ctx.limits.maxTableCells) throw tableCellsError(ctx.limits, node.position ? `the table at line ${node.position.start.line}` : 'a table');
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
  const blocks = convertFlow(node.children, inside(ctx), place);
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

/** GitBook's Markdown for an inline expression: `<code class="expression">space.vars.product</code>`. */
const EXPRESSION_OPEN = /^<code\s+class=(["'])expression\1\s*>$/i;
const CODE_CLOSE = /^<\/code\s*>$/i;

function phrasingPieces(nodes: md.PhrasingContent[], ctx: ParseContext, marks: Mark[], mode: InlineMode): Piece[] {
  const out: Piece[] = [];
  for (let i = 0; i < nodes.length; i++) {
    const node = nodes[i]!;
    if (node.type === 'html' && EXPRESSION_OPEN.test(node.value) && node.position) {
      const close = nodes.findIndex((n, j) => j > i && n.type === 'html' && CODE_CLOSE.test(n.value));
      const end = close > i ? nodes[close]!.position : undefined;
      if (end) {
        // The expression is the source between the tags (as written: Markdown inside it means nothing), its HTML escapes decoded.
        const expression = decodeHtmlText(ctx.source.slice(node.position.end.offset, end.start.offset)).trim();
        out.push({ inline: { object: 'inline', type: 'expression', isVoid: true, data: { expression } } });
        i = close;
        continue;
      }
    }
    out.push(...phrasingPiece(node, ctx, marks, mode));
  }
  return out;
}

function decodeHtmlText(text: string): string {
  return text.replace(/&(lt|gt|quot|#39|amp);/g, (_, name: string) => ({ lt: '<', gt: '>', quot: '"', '#39': "'", amp: '&' })[name]!);
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
  return { object: 'inline', type: 'link', data: { ref: hrefToRef(href, ctx.resolveHref) }, nodes };
}

/** An image's ref: the schema allows a file or URL ref only. */
function imageRef(src: string, ctx: ParseContext): ContentRef {
  const ref = hrefToRef(src, ctx.resolveHref);
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

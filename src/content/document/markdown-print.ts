/**
 * Rich-text Document (`JSONDocument`) -> GitBook-flavoured Markdown, the
 * inverse of markdown-parse.ts: Document blocks are mapped to mdast nodes and
 * printed by unified/remark, GitBook's tags written as HTML nodes.
 */
import type * as md from 'mdast';
import remarkFrontmatter from 'remark-frontmatter';
import remarkGfm from 'remark-gfm';
import remarkStringify, { type Options as StringifyOptions } from 'remark-stringify';
import { unified } from 'unified';
import YAML from 'yaml';
import { emojiText } from '../emoji.ts';
import { defaultHref, isRef, MARK_ORDER, type InlineMode, type Mark } from './markdown-syntax.ts';
import { escapeHtml, quoteAttr } from './markdown-tags.ts';
import { type ContentRef, type JSONDocument, type JSONNode } from './model.ts';
import { nodeText } from './text.ts';

/** Options of `documentToMarkdown`. */
export interface DocumentToMarkdownOptions {
  /** The href written for a ref; null uses the default (`/pages/<id>`, `/files/<id>`, `#anchor`, the url). */
  hrefFor?: (ref: ContentRef) => string | null;
  /** Written as a leading `# title`, the inverse of the `title` markdownToDocument returns. */
  title?: string | null;
  /** Written as YAML frontmatter when it has keys. */
  frontmatter?: Record<string, unknown> | null;
}

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
  // GitBook writes a container's tags right against its content, without blank lines, and blank
  // lines between it and its siblings, as around any other block.
  join: [(left, right) => (touchesContent(left, right) ? 0 : undefined)],
};

const printer = unified().use(remarkStringify, stringifyOptions).use(remarkGfm).use(remarkFrontmatter, ['yaml']);

function isTagHtml(node: md.Nodes): boolean {
  return node.type === 'html' && node.value.startsWith('{%');
}

/** Tags that stand alone (no end tag): they are blocks among their siblings, never containers. */
const STANDALONE_TAGS = /^\{% (?:include|embed|file) /;

/** `{% name ... %}` opening a container (`{% hint %}`, `{% tabs %}`, `{% tab %}`, ...). */
function isOpeningTag(node: md.Nodes): boolean {
  return isTagHtml(node) && !isClosingTag(node) && !STANDALONE_TAGS.test((node as md.Html).value);
}

/** `{% endname %}` closing a container. */
function isClosingTag(node: md.Nodes): boolean {
  return node.type === 'html' && node.value.startsWith('{% end');
}

/** A block that may touch a tag: another tag, or one that does not need a blank line to end (a list or a quote does). */
function mayTouchTag(node: md.Nodes): boolean {
  return isTagHtml(node) || node.type === 'paragraph' || node.type === 'heading' || node.type === 'code';
}

/** One tab ending and the next starting: GitBook writes a container's items against each other. */
function isNextTab(left: md.Nodes, right: md.Nodes): boolean {
  return left.type === 'html' && left.value === '{% endtab %}' && right.type === 'html' && right.value.startsWith('{% tab ');
}

/**
 * Whether `left` and `right` are a container's tag and its first or last content (or a closing tag
 * right after a nested one's), or two tabs of one tabs block: GitBook's export writes those
 * against each other and blank lines everywhere else (a hint and the paragraph after it, two hints).
 */
function touchesContent(left: md.Nodes, right: md.Nodes): boolean {
  return (isOpeningTag(left) && mayTouchTag(right)) || (isClosingTag(right) && mayTouchTag(left)) || isNextTab(left, right);
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
    case 'reusable-content':
      return isRef(node.data?.ref) ? [tagHtml(`include ${quoteAttr(ctx.href(node.data.ref))}`)] : [];
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
    const text = emojiText(data.code);
    return text ? [{ type: 'text', value: text }] : [];
  }
  if (node.type === 'inline-math' && typeof data.formula === 'string') return [{ type: 'text', value: `$$${data.formula}$$` }];
  if (node.type === 'expression' && typeof data.expression === 'string') {
    const escaped = data.expression.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');
    return [{ type: 'html', value: `<code class="expression">${escaped}</code>` }];
  }
  const href = isRef(data.ref) ? ctx.href(data.ref) : '';
  if (href) {
    const label = typeof data.label === 'string' && data.label ? data.label : nodeText(node) || href;
    return [{ type: 'link', url: href, title: null, children: [{ type: 'text', value: label }] }];
  }
  // Annotations and other inlines with text: their text, formatting kept.
  return inlinesToPhrasing(node.nodes, ctx, mode);
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

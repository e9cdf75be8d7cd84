/**
 * The translatable text of a Document, as segments a translator can work on
 * without breaking the document, and the way back.
 *
 * A segment is the text of one block of inline content (a paragraph, a
 * heading, the paragraph of a list item, a hint, a table cell, an image
 * caption...) or of one prose field (an image's alt text, a tab's title, a
 * column title). Its inline structure is written as numbered tags the
 * translator is asked to keep:
 *
 * - a mark (bold, italic, strikethrough, colour...) is `<m1>…</m1>`;
 * - a link or an annotation is `<a2>…</a2>`: its text is translated, its ref
 *   never appears in the text;
 * - inline code (and keyboard keys), inline math, expressions/variables,
 *   emoji, icons, mentions, buttons, inline images and links written as
 *   their URL are an opaque `<x3/>`: never sent, put back as they were.
 *
 * Tags are numbered in order of appearance and each number is used once, so
 * `rebuild` knows what every tag stood for. Tags nest properly (a mark that
 * crosses a link boundary is split), as HTML-based translators need.
 *
 * In segment text a `<` that would read as a tag is written `&lt;`, and an `&`
 * that would read as one of the entities decoded below is written `&amp;`;
 * every other character is itself, so a translator sees `a < b && c`.
 *
 * Code blocks, math blocks, embeds, files, drawings, content refs, OpenAPI
 * and integration blocks, reusable content, URLs, refs, ids and expressions
 * are never segments.
 */
import { createHash } from 'node:crypto';
import { type JSONDocument, type JSONNode } from '../content/document/model.ts';
import { createAnchorSlugger, documentHeadings, nodeText } from '../content/document/text.ts';

/** Part of every segment hash: bump it when the segment text format changes, so cached translations are not reused. */
export const SEGMENT_FORMAT_VERSION = 'gitbook-segment/1';

/** One piece of translatable text of a document. */
export interface Segment {
  /** Where the text lives: a JSON pointer to its block, or to its field (`/nodes/3/data/alt`). Unique within the document. */
  id: string;
  /** The text to translate, in the tagged segment format. */
  text: string;
  /** sha-256 of the format version and the text: the cache key of its translation. */
  hash: string;
}

/** Something `rebuild` had to repair or could not use. */
export interface RebuildIssue {
  segmentId: string;
  kind: 'missing-translation' | 'unknown-tag' | 'duplicate-tag' | 'dropped-tag' | 'moved-placeholder';
  /** The tag concerned, as written (`<m1>`, `<x3/>`). */
  tag?: string;
}

/** Options of `rebuild`. */
export interface RebuildOptions {
  /** Told of every repair, for logs and statistics. */
  onIssue?: (issue: RebuildIssue) => void;
}

/** The segments of a document, and how to put translations back. */
export interface ExtractedSegments {
  segments: Segment[];
  /**
   * A new document with each segment replaced by its translation (by segment
   * id). A missing translation keeps the original text; the input document is
   * never modified.
   */
  rebuild(translated: ReadonlyMap<string, string>, options?: RebuildOptions): JSONDocument;
}

/** A prose string outside any document (a page title, a description), as a segment. */
export interface PlainSegment {
  text: string;
  hash: string;
  /** The original string with the translation in place (its edge whitespace kept). */
  restore(translated: string): string;
}

/* -------------------------------------------------------------------------- */
/* Public functions                                                            */
/* -------------------------------------------------------------------------- */

/** The segments of a document, in document order. */
export function extractSegments(document: JSONDocument): ExtractedSegments {
  const segments: Segment[] = [];
  walkDocument(document, (site) => {
    const text = site.kind === 'inline' ? encodeBlock(site.block).core : plainParts(site.get()).core;
    if (text !== null) segments.push({ id: site.id, text, hash: segmentHash(text) });
  });
  return {
    segments,
    rebuild(translated, options = {}) {
      const output = structuredClone(document);
      const report = (issue: RebuildIssue) => options.onIssue?.(issue);
      walkDocument(output, (site) => {
        if (site.kind === 'inline') {
          const encoding = encodeBlock(site.block);
          if (encoding.core === null) return;
          const translation = translated.get(site.id);
          if (translation === undefined) return report({ segmentId: site.id, kind: 'missing-translation' });
          site.block.nodes = decodeBlock(encoding, translation, (kind, tag) => report({ segmentId: site.id, kind, tag }));
          return;
        }
        const parts = plainParts(site.get());
        if (parts.core === null) return;
        const translation = translated.get(site.id);
        if (translation === undefined) return report({ segmentId: site.id, kind: 'missing-translation' });
        site.set(parts.lead + decodePlain(translation.trim()) + parts.trail);
      });
      keepHeadingAnchors(document, output);
      return output;
    },
  };
}

/** A prose string as a segment; null when it has nothing to translate (no letter). */
export function plainSegment(raw: string): PlainSegment | null {
  const { lead, core, trail } = plainParts(raw);
  if (core === null) return null;
  return { text: core, hash: segmentHash(core), restore: (translated) => lead + decodePlain(translated.trim()) + trail };
}

/** The cache key of a segment text. */
export function segmentHash(text: string): string {
  return createHash('sha256').update(`${SEGMENT_FORMAT_VERSION}\n${text}`).digest('hex');
}

/** Words of a segment's text (tags left out): runs of letters and digits. */
export function countWords(text: string): number {
  let words = 0;
  for (const token of tokenize(text)) {
    if (token.kind === 'text') words += token.text.match(/[\p{L}\p{N}]+(?:['’-][\p{L}\p{N}]+)*/gu)?.length ?? 0;
  }
  return words;
}

/* -------------------------------------------------------------------------- */
/* Tokenizer of the segment format                                             */
/* -------------------------------------------------------------------------- */

/** A token of segment text: decoded text, or one of our tags. */
export type SegmentToken =
  | { kind: 'text'; text: string }
  | { kind: 'tag'; name: 'm' | 'a' | 'x'; n: number; form: 'open' | 'close' | 'self'; raw: string };

const TAG_NAMES = new Set(['m', 'a', 'x']);
const NAMED_ENTITIES: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'", nbsp: '\u00a0' };

/**
 * Splits segment text into text and tags. A tag is `<` + optional `/` + one
 * of m, a, x (any case) + digits + optional spaces + optional `/` + `>`;
 * anything else is text, with the entities above and numeric ones decoded.
 */
export function tokenize(text: string): SegmentToken[] {
  const tokens: SegmentToken[] = [];
  let buffer = '';
  const flush = () => {
    if (buffer) tokens.push({ kind: 'text', text: buffer });
    buffer = '';
  };
  let i = 0;
  while (i < text.length) {
    const char = text[i];
    if (char === '<') {
      const tag = readTag(text, i);
      if (tag) {
        flush();
        tokens.push({ kind: 'tag', name: tag.name, n: tag.n, form: tag.form, raw: text.slice(i, tag.end) });
        i = tag.end;
        continue;
      }
    } else if (char === '&') {
      const entity = readEntity(text, i);
      if (entity) {
        buffer += entity.value;
        i = entity.end;
        continue;
      }
    }
    buffer += char;
    i++;
  }
  flush();
  return tokens;
}

/** Raw text -> segment text: escapes only what would otherwise read as a tag or an entity. */
export function escapeSegmentText(raw: string): string {
  let out = '';
  for (let i = 0; i < raw.length; i++) {
    const char = raw[i];
    if (char === '<' && readTag(raw, i)) out += '&lt;';
    else if (char === '&' && readEntity(raw, i)) out += '&amp;';
    else out += char;
  }
  return out;
}

function readTag(text: string, start: number): { name: 'm' | 'a' | 'x'; n: number; form: 'open' | 'close' | 'self'; end: number } | null {
  let i = start + 1;
  const closing = text[i] === '/';
  if (closing) i++;
  const name = text[i]?.toLowerCase();
  if (!name || !TAG_NAMES.has(name)) return null;
  i++;
  const digitsStart = i;
  while (i < text.length && text[i] >= '0' && text[i] <= '9' && i - digitsStart < 6) i++;
  if (i === digitsStart) return null;
  const n = Number(text.slice(digitsStart, i));
  while (text[i] === ' ') i++;
  const selfClosing = text[i] === '/';
  if (selfClosing) i++;
  if (text[i] !== '>' || (closing && selfClosing)) return null;
  return { name: name as 'm' | 'a' | 'x', n, form: closing ? 'close' : selfClosing ? 'self' : 'open', end: i + 1 };
}

function readEntity(text: string, start: number): { value: string; end: number } | null {
  const semicolon = text.indexOf(';', start + 1);
  if (semicolon < 0 || semicolon - start > 10) return null;
  const body = text.slice(start + 1, semicolon);
  let value: string | undefined;
  if (body.startsWith('#x') || body.startsWith('#X')) value = codePoint(body.slice(2), 16);
  else if (body.startsWith('#')) value = codePoint(body.slice(1), 10);
  else value = Object.hasOwn(NAMED_ENTITIES, body) ? NAMED_ENTITIES[body] : undefined;
  return value === undefined ? null : { value, end: semicolon + 1 };
}

function codePoint(digits: string, radix: 10 | 16): string | undefined {
  const valid = radix === 10 ? /^[0-9]{1,7}$/ : /^[0-9a-fA-F]{1,6}$/;
  if (!valid.test(digits)) return undefined;
  const value = parseInt(digits, radix);
  if (value === 0 || value > 0x10ffff || (value >= 0xd800 && value <= 0xdfff)) return undefined;
  return String.fromCodePoint(value);
}

/** Segment text of a plain field back to a string: every tag is text there. */
function decodePlain(text: string): string {
  return tokenize(text)
    .map((t) => (t.kind === 'text' ? t.text : t.raw))
    .join('');
}

const HAS_LETTER = /\p{L}/u;

/** A plain string split into edge whitespace and the segment text between (null when it has no letter). */
function plainParts(raw: string): { lead: string; core: string | null; trail: string } {
  const core = raw.trim();
  if (!HAS_LETTER.test(core)) return { lead: '', core: null, trail: '' };
  const lead = raw.slice(0, raw.indexOf(core));
  return { lead, core: escapeSegmentText(core), trail: raw.slice(lead.length + core.length) };
}

/* -------------------------------------------------------------------------- */
/* Where the text is                                                           */
/* -------------------------------------------------------------------------- */

type Site =
  /** A block of inline content (paragraph, heading). */
  | { kind: 'inline'; id: string; block: JSONNode }
  /** A prose string in a node's data. */
  | { kind: 'plain'; id: string; get: () => string; set: (value: string) => void };

/** Blocks holding no prose, or only text that must not be translated (code, formulas, URLs, generated content). */
const SKIPPED_BLOCKS = new Set([
  'code',
  'math',
  'embed',
  'file',
  'drawing',
  'content-ref',
  'divider',
  'integration',
  'reusable-content',
  'openapi',
  'openapi-operation',
  'openapi-schemas',
  'openapi-webhook',
]);

/** Inlines whose text is translated (a link's label, an annotated phrase); every other inline is opaque. */
const CONTAINER_INLINES = new Set(['link', 'annotation']);
/** Inlines a container may hold besides text. */
const ALLOWED_IN_CONTAINER: Record<string, Set<string>> = { link: new Set(['inline-image']), annotation: new Set() };
/** Marks whose text is never translated: the leaf becomes an opaque placeholder. */
const OPAQUE_MARKS = new Set(['code', 'keyboard']);

function pointer(path: string, ...keys: (string | number)[]): string {
  return path + keys.map((k) => `/${String(k).replaceAll('~', '~0').replaceAll('/', '~1')}`).join('');
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function hasInlineContent(node: JSONNode): boolean {
  return (node.nodes ?? []).some((c) => c.object === 'text' || c.object === 'inline');
}

/**
 * Visits every translatable place of the document in a fixed order: a
 * block's data fields, its fragments, its children; for a block of inline
 * content, the block itself, then the fields and fragments of its inlines.
 * The visitor may replace a block's `nodes` and set fields: the walk goes on
 * with the inlines it saw before.
 */
function walkDocument(document: JSONDocument, visit: (site: Site) => void) {
  walkBlocks(document.nodes, '/nodes', visit);
}

function walkBlocks(nodes: JSONNode[] | undefined, path: string, visit: (site: Site) => void) {
  (nodes ?? []).forEach((node, i) => walkBlock(node, pointer(path, i), visit));
}

function walkBlock(node: JSONNode, path: string, visit: (site: Site) => void) {
  if (node.object !== 'block' && node.object !== 'fragment') return;
  if (SKIPPED_BLOCKS.has(node.type ?? '')) return;
  const data = isRecord(node.data) ? node.data : {};
  if (node.type === 'tabs-item') field(data, 'title', pointer(path, 'data'), visit);
  if (node.type === 'image') field(data, 'alt', pointer(path, 'data'), visit);
  if (node.type === 'table') tableFields(node, data, pointer(path, 'data'), visit);
  if (hasInlineContent(node)) {
    const inlines: { node: JSONNode; path: string }[] = [];
    collectInlines(node.nodes ?? [], pointer(path, 'nodes'), inlines);
    visit({ kind: 'inline', id: path, block: node });
    for (const inline of inlines) walkInline(inline.node, inline.path, visit);
    return;
  }
  walkBlocks(node.fragments as JSONNode[] | undefined, pointer(path, 'fragments'), visit);
  walkBlocks(node.nodes, pointer(path, 'nodes'), visit);
}

function collectInlines(nodes: JSONNode[], path: string, out: { node: JSONNode; path: string }[]) {
  nodes.forEach((node, i) => {
    if (node.object !== 'inline') return;
    out.push({ node, path: pointer(path, i) });
    if (CONTAINER_INLINES.has(node.type ?? '')) collectInlines(node.nodes ?? [], pointer(path, i, 'nodes'), out);
  });
}

function walkInline(node: JSONNode, path: string, visit: (site: Site) => void) {
  const data = isRecord(node.data) ? node.data : {};
  if (node.type === 'inline-image') {
    field(data, 'alt', pointer(path, 'data'), visit);
    field(data, 'caption', pointer(path, 'data'), visit);
  }
  if (node.type === 'button') field(data, 'label', pointer(path, 'data'), visit);
  // An annotation's body is blocks of its own.
  if (node.type === 'annotation') walkBlocks(node.fragments as JSONNode[] | undefined, pointer(path, 'fragments'), visit);
}

function field(owner: Record<string, unknown>, key: string, path: string, visit: (site: Site) => void) {
  if (typeof owner[key] !== 'string') return;
  visit({ kind: 'plain', id: pointer(path, key), get: () => owner[key] as string, set: (value) => (owner[key] = value) });
}

/**
 * A table's prose outside its fragments: column titles, the labels of select
 * options, and text cells holding a string rather than naming a fragment.
 * Other cells (numbers, checkboxes, refs, files, users, option ids) are data.
 */
function tableFields(node: JSONNode, data: Record<string, unknown>, path: string, visit: (site: Site) => void) {
  const definition = isRecord(data.definition) ? data.definition : {};
  for (const [columnId, column] of Object.entries(definition)) {
    if (!isRecord(column)) continue;
    field(column, 'title', pointer(path, 'definition', columnId), visit);
    if (column.type === 'select' && Array.isArray(column.options)) {
      column.options.forEach((option, i) => {
        if (isRecord(option)) field(option, 'label', pointer(path, 'definition', columnId, 'options', i), visit);
      });
    }
  }
  const fragmentNames = new Set(((node.fragments as JSONNode[] | undefined) ?? []).map((f) => f.fragment));
  const records = isRecord(data.records) ? data.records : {};
  for (const [recordId, record] of Object.entries(records)) {
    if (!isRecord(record) || !isRecord(record.values)) continue;
    for (const [columnId, value] of Object.entries(record.values)) {
      const column = definition[columnId];
      if (!isRecord(column) || column.type !== 'text' || typeof value !== 'string' || fragmentNames.has(value)) continue;
      field(record.values, columnId, pointer(path, 'records', recordId, 'values'), visit);
    }
  }
}

/* -------------------------------------------------------------------------- */
/* Inline content -> segment text                                              */
/* -------------------------------------------------------------------------- */

type Mark = NonNullable<JSONNode['leaves']>[number]['marks'][number];
type Leaf = NonNullable<JSONNode['leaves']>[number];

interface Container {
  node: JSONNode;
  key: string;
  /** Its original text, and whether that is all it holds (no placeholder). */
  text: string;
  plain: boolean;
}

/** One unit of inline content, in order: translatable text, or something the translator never sees. */
type Item =
  | { kind: 'text'; text: string; marks: Mark[]; container: Container | null }
  /** A leaf with an opaque mark (inline code). */
  | { kind: 'leaf'; leaf: Leaf; marks: Mark[]; container: Container | null }
  /** An inline node kept as it is (emoji, mention, expression, inline image, an empty link...). */
  | { kind: 'inline'; node: JSONNode; container: Container | null };

type PlaceholderItem = Exclude<Item, { kind: 'text' }>;

type TagInfo = { kind: 'm'; mark: Mark; key: string } | { kind: 'a'; container: Container } | { kind: 'x'; item: PlaceholderItem };

interface BlockEncoding {
  /** The segment text, null when there is nothing to translate. */
  core: string | null;
  lead: string;
  trail: string;
  tags: Map<number, TagInfo>;
  /** How the block spelled things, so an unchanged text gives back identical nodes. */
  style: BlockStyle;
}

interface BlockStyle {
  /** Text nodes surround every inline of the block (GitBook's normalization). */
  padded: boolean;
  /** Per container node: whether its inlines are surrounded by text nodes. */
  containerPadded: Map<JSONNode, boolean>;
  /** The keys of the text nodes of the block, then of each container, in order, reused by the rebuilt text nodes. */
  textKeys: Map<JSONNode | null, string[]>;
  /** A set of marks (sorted keys) -> the marks as a leaf of the block wrote them. */
  markArrays: Map<string, Mark[]>;
  /** Mark key -> rank of first appearance, for mark sets no leaf had. */
  markRank: Map<string, number>;
}

function markKey(mark: Mark): string {
  return mark.data === undefined ? mark.type : `${mark.type}${JSON.stringify(mark.data)}`;
}

function markSetKey(marks: Mark[]): string {
  return marks.map(markKey).sort().join('\u0000');
}

function padded(nodes: JSONNode[], fallback: boolean): boolean {
  let sawInline = false;
  for (let i = 0; i < nodes.length; i++) {
    if (nodes[i].object !== 'inline') continue;
    sawInline = true;
    if (nodes[i - 1]?.object !== 'text' || nodes[i + 1]?.object !== 'text') return false;
  }
  return sawInline ? true : fallback;
}

function encodeBlock(block: JSONNode): BlockEncoding {
  const nodes = block.nodes ?? [];
  const style: BlockStyle = { padded: padded(nodes, true), containerPadded: new Map(), textKeys: new Map(), markArrays: new Map(), markRank: new Map() };
  const items: Item[] = [];
  flatten(nodes, null, items, style);

  // Spans: a mark or a container over consecutive items. Opaque inlines take the marks around them, so `**a `x` b**` is one bold span.
  const keys = items.map((item) => {
    const set = new Set<string>();
    if (item.container) set.add(item.container.key);
    return set;
  });
  const markOf = new Map<string, Mark>();
  items.forEach((item, i) => {
    if (item.kind === 'inline') return;
    for (const mark of item.marks) {
      if (OPAQUE_MARKS.has(mark.type)) continue;
      const key = `m:${markKey(mark)}`;
      markOf.set(key, markOf.get(key) ?? mark);
      keys[i].add(key);
    }
  });
  items.forEach((item, i) => {
    if (item.kind !== 'inline') return;
    const before = items[i - 1];
    const after = items[i + 1];
    if (!before || !after || before.kind === 'inline' || after.kind === 'inline' || before.container !== item.container || after.container !== item.container) return;
    for (const key of keys[i - 1]) if (key.startsWith('m:') && keys[i + 1].has(key)) keys[i].add(key);
  });
  const containers = new Map(items.flatMap((item) => (item.container ? [[item.container.key, item.container] as const] : [])));
  const runEnd = (key: string, from: number) => {
    let end = from;
    while (end < items.length && keys[end].has(key)) end++;
    return end;
  };

  const out: string[] = [];
  const tags = new Map<number, TagInfo>();
  let counter = 0;
  const stack: { key: string; end: number; n: number; name: 'm' | 'a' }[] = [];
  const close = (entry: (typeof stack)[number]) => out.push(`</${entry.name}${entry.n}>`);

  for (let i = 0; i <= items.length; i++) {
    const active = i < items.length ? keys[i] : new Set<string>();
    const cut = stack.findIndex((e) => e.end <= i || !active.has(e.key));
    if (cut >= 0) for (const entry of stack.splice(cut).reverse()) close(entry);
    if (i === items.length) break;

    // Open what starts here (or was closed to keep the nesting), the longest first; a container goes outside marks that end with it.
    const pending = [...active].filter((key) => !stack.some((e) => e.key === key)).map((key) => ({ key, end: runEnd(key, i) }));
    while (pending.length) {
      pending.sort((a, b) => b.end - a.end || Number(b.key.startsWith('c:')) - Number(a.key.startsWith('c:')));
      const next = pending.shift()!;
      const isContainer = next.key.startsWith('c:');
      const openContainer = stack.find((e) => e.name === 'a');
      // A link is never split: a mark that goes on past its end is closed with it and reopened after.
      const end = !isContainer && openContainer ? Math.min(next.end, openContainer.end) : next.end;
      while (stack.length && stack[stack.length - 1].end < end) {
        const top = stack.pop()!;
        close(top);
        pending.push({ key: top.key, end: runEnd(top.key, i) });
      }
      const n = ++counter;
      const name = isContainer ? 'a' : 'm';
      stack.push({ key: next.key, end, n, name });
      out.push(`<${name}${n}>`);
      tags.set(n, isContainer ? { kind: 'a', container: containers.get(next.key)! } : { kind: 'm', mark: markOf.get(next.key)!, key: next.key.slice(2) });
    }

    const item = items[i];
    if (item.kind === 'text') {
      out.push(escapeSegmentText(item.text));
    } else {
      const n = ++counter;
      out.push(`<x${n}/>`);
      tags.set(n, { kind: 'x', item });
    }
  }

  const full = out.join('');
  const translatable = items.some((item) => item.kind === 'text' && HAS_LETTER.test(item.text));
  const core = full.trim();
  const lead = full.slice(0, full.indexOf(core));
  return { core: translatable ? core : null, lead, trail: full.slice(lead.length + core.length), tags, style };
}

function flatten(nodes: JSONNode[], container: Container | null, items: Item[], style: BlockStyle) {
  const textKeys: string[] = [];
  style.textKeys.set(container?.node ?? null, textKeys);
  for (const node of nodes) {
    if (node.object === 'text') {
      if (typeof node.key === 'string') textKeys.push(node.key);
      for (const leaf of node.leaves ?? []) {
        const marks = leaf.marks ?? [];
        const setKey = markSetKey(marks);
        if (!style.markArrays.has(setKey)) style.markArrays.set(setKey, marks);
        for (const mark of marks) if (!style.markRank.has(markKey(mark))) style.markRank.set(markKey(mark), style.markRank.size);
        if (leaf.text === '') continue;
        const opaque = marks.some((m) => OPAQUE_MARKS.has(m.type));
        if (opaque) items.push({ kind: 'leaf', leaf, marks, container });
        else items.push({ kind: 'text', text: leaf.text, marks, container });
        if (container) {
          container.text += leaf.text;
          if (opaque) container.plain = false;
        }
      }
      continue;
    }
    const inner = node.nodes ?? [];
    const isContainer =
      node.object === 'inline' &&
      CONTAINER_INLINES.has(node.type ?? '') &&
      container === null &&
      inner.some((c) => c.object === 'text' && (c.leaves ?? []).some((l) => l.text !== '')) &&
      !isAutolink(node);
    if (isContainer) {
      const child: Container = { node, key: `c:${items.length}`, text: '', plain: true };
      style.containerPadded.set(node, padded(inner, false));
      flatten(inner, child, items, style);
      continue;
    }
    // Anything else (a void inline, an empty link, a stray block) is kept whole.
    items.push({ kind: 'inline', node, container });
    if (container) container.plain = false;
  }
}

/** A link whose text is its own URL (`<https://example.com>`): a URL, not prose. */
function isAutolink(node: JSONNode): boolean {
  const ref = isRecord(node.data) && isRecord(node.data.ref) ? node.data.ref : null;
  if (node.type !== 'link' || ref?.kind !== 'url' || typeof ref.url !== 'string') return false;
  const text = nodeText(node).trim();
  return text === ref.url || `mailto:${text}` === ref.url;
}

/* -------------------------------------------------------------------------- */
/* Segment text -> inline content                                              */
/* -------------------------------------------------------------------------- */

type Piece = { kind: 'text'; text: string; marks: Mark[] } | { kind: 'inline'; node: JSONNode } | { kind: 'container'; node: JSONNode; pieces: Piece[] };

type Report = (kind: RebuildIssue['kind'], tag?: string) => void;

/**
 * Reads a translated segment back into inline nodes. Marks are a set that
 * tags turn on and off, so badly nested tags still give the right marks; one
 * container is open at a time (opening another closes the first). Unknown
 * and repeated tags are text; an orphan closing tag is dropped; a tag left
 * open closes at the end; a mark whose tags were dropped loses its
 * formatting but keeps its text; a link whose tags were dropped comes back
 * around its original text if the translation has it verbatim (see
 * `rewrap`), else its text stays unlinked; a dropped placeholder is put back
 * at the end, since its content cannot be translated again.
 */
function decodeBlock(encoding: BlockEncoding, translation: string, report: Report): JSONNode[] {
  const { tags, style } = encoding;
  const top: Piece[] = [];
  const active = new Map<number, string>();
  const opened = new Set<number>();
  const closed = new Set<number>();
  let current: { n: number; node: JSONNode; pieces: Piece[]; deferred: Piece[] } | null = null;

  const activeMarks = (): Mark[] => {
    const keys = [...new Set(active.values())];
    const known = style.markArrays.get([...keys].sort().join('\u0000'));
    if (known) return known.map((m) => structuredClone(m));
    const marks = keys.map((key) => [...tags.values()].find((t): t is Extract<TagInfo, { kind: 'm' }> => t.kind === 'm' && t.key === key)!.mark);
    return marks.sort((a, b) => (style.markRank.get(markKey(a)) ?? 0) - (style.markRank.get(markKey(b)) ?? 0)).map((m) => structuredClone(m));
  };
  const text = (value: string) => {
    if (value) (current?.pieces ?? top).push({ kind: 'text', text: value, marks: activeMarks() });
  };
  const closeContainer = () => {
    if (!current) return;
    closed.add(current.n);
    top.push({ kind: 'container', node: current.node, pieces: current.pieces }, ...current.deferred);
    current = null;
  };
  const placeholder = (n: number, item: PlaceholderItem) => {
    if (item.kind === 'leaf') {
      (current?.pieces ?? top).push({ kind: 'text', text: item.leaf.text, marks: structuredClone(item.leaf.marks) });
    } else if (!current) {
      top.push({ kind: 'inline', node: item.node });
    } else if (ALLOWED_IN_CONTAINER[current.node.type ?? '']?.has(item.node.type ?? '')) {
      current.pieces.push({ kind: 'inline', node: item.node });
    } else {
      // Not allowed inside this link or annotation: right after it.
      report('moved-placeholder', `<x${n}/>`);
      current.deferred.push({ kind: 'inline', node: item.node });
    }
  };

  for (const token of tokenize(encoding.lead + translation.trim() + encoding.trail)) {
    if (token.kind === 'text') {
      text(token.text);
      continue;
    }
    const info = tags.get(token.n);
    if (!info || info.kind !== token.name) {
      report('unknown-tag', token.raw);
      text(token.raw);
      continue;
    }
    if (info.kind === 'x') {
      if (token.form === 'close') continue; // `<x3></x3>`, as HTML parsers write an empty element
      if (opened.has(token.n)) {
        report('duplicate-tag', token.raw);
        text(token.raw);
        continue;
      }
      opened.add(token.n);
      placeholder(token.n, info.item);
      continue;
    }
    if (token.form === 'self') {
      report('dropped-tag', token.raw);
      continue;
    }
    if (token.form === 'open') {
      if (opened.has(token.n)) {
        report('duplicate-tag', token.raw);
        text(token.raw);
        continue;
      }
      opened.add(token.n);
      if (info.kind === 'm') {
        active.set(token.n, info.key);
      } else {
        if (current) report('dropped-tag', `</a${current.n}>`);
        closeContainer();
        current = { n: token.n, node: info.container.node, pieces: [], deferred: [] };
      }
      continue;
    }
    // A closing tag.
    if (closed.has(token.n)) {
      report('duplicate-tag', token.raw);
      text(token.raw);
    } else if (!opened.has(token.n)) {
      report('dropped-tag', token.raw);
    } else if (info.kind === 'm') {
      active.delete(token.n);
      closed.add(token.n);
    } else if (current?.n === token.n) {
      closeContainer();
    }
  }
  if (current) report('dropped-tag', `</a${(current as { n: number }).n}>`);
  closeContainer();
  for (const n of active.keys()) report('dropped-tag', `</m${n}>`);

  for (const [n, info] of tags) {
    if (info.kind === 'a' && !opened.has(n) && rewrap(top, info.container)) {
      opened.add(n);
      report('dropped-tag', `<a${n}>`);
    }
  }
  for (const [n, info] of tags) {
    if (opened.has(n)) continue;
    report('dropped-tag', info.kind === 'x' ? `<x${n}/>` : `<${info.kind}${n}>`);
    if (info.kind !== 'x') continue;
    const last = top[top.length - 1];
    if (last?.kind === 'text' && !/\s$/u.test(last.text)) top.push({ kind: 'text', text: ' ', marks: [] });
    placeholder(n, info.item);
  }

  return buildNodes(top, style.padded, style.textKeys.get(null) ?? [], style);
}

/**
 * A link whose tags were dropped, put back around its text when the
 * translation still holds that text exactly once (a product name, a
 * command, a URL written out): true when it was.
 */
function rewrap(top: Piece[], container: Container): boolean {
  const needle = container.text;
  if (!container.plain || needle.trim() === '') return false;
  const hits = top.flatMap((piece, i) => (piece.kind === 'text' && piece.text.includes(needle) ? [i] : []));
  if (hits.length !== 1) return false;
  const piece = top[hits[0]] as Extract<Piece, { kind: 'text' }>;
  const at = piece.text.indexOf(needle);
  if (piece.text.indexOf(needle, at + 1) >= 0) return false;
  const parts: Piece[] = [];
  if (at > 0) parts.push({ kind: 'text', text: piece.text.slice(0, at), marks: piece.marks });
  parts.push({ kind: 'container', node: container.node, pieces: [{ kind: 'text', text: needle, marks: structuredClone(piece.marks) }] });
  const rest = piece.text.slice(at + needle.length);
  if (rest) parts.push({ kind: 'text', text: rest, marks: structuredClone(piece.marks) });
  top.splice(hits[0], 1, ...parts);
  return true;
}

/**
 * Pieces -> nodes, normalized as the block was: adjacent text merges into
 * one text node (one leaf per mark set), an empty text node stands around
 * inlines when the original had them, text nodes take the original keys.
 */
function buildNodes(pieces: Piece[], pad: boolean, keys: string[], style: BlockStyle): JSONNode[] {
  const out: JSONNode[] = [];
  const keyQueue = [...keys];
  let leaves: Leaf[] = [];
  const textNode = (content: Leaf[]): JSONNode => {
    const key = keyQueue.shift();
    return key === undefined ? { object: 'text', leaves: content } : { object: 'text', key, leaves: content };
  };
  const flushText = (force: boolean) => {
    if (leaves.length) out.push(textNode(leaves));
    else if (force) out.push(textNode([{ object: 'leaf', text: '', marks: [] }]));
    leaves = [];
  };
  for (const piece of pieces) {
    if (piece.kind === 'text') {
      const last = leaves[leaves.length - 1];
      if (last && markSetKey(last.marks) === markSetKey(piece.marks)) last.text += piece.text;
      else leaves.push({ object: 'leaf', text: piece.text, marks: piece.marks });
      continue;
    }
    flushText(pad);
    if (piece.kind === 'inline') out.push(piece.node);
    else out.push({ ...piece.node, nodes: buildNodes(piece.pieces, style.containerPadded.get(piece.node) ?? false, style.textKeys.get(piece.node) ?? [], style) });
  }
  flushText(pad || out.length === 0);
  return out;
}

/* -------------------------------------------------------------------------- */
/* Heading anchors                                                             */
/* -------------------------------------------------------------------------- */

const HEADING_ID = /^[-a-z0-9.+_]+$/;

/**
 * A heading's anchor comes from its text unless it has an id, so
 * translating it would break `#anchor` links and anchor refs: a heading whose
 * text changed gets the source anchor as its id (when the schema allows that
 * id; an anchor of non-Latin letters cannot be kept).
 */
function keepHeadingAnchors(source: JSONDocument, output: JSONDocument) {
  const before = documentHeadings(source);
  const after = documentHeadings(output);
  if (before.length !== after.length) return;
  const slugger = createAnchorSlugger();
  before.forEach((heading, i) => {
    const explicit = typeof heading.data?.id === 'string' && heading.data.id ? heading.data.id : null;
    const title = nodeText(heading).trim();
    const anchor = slugger(explicit ?? title);
    const translated = after[i];
    const hasId = typeof translated.data?.id === 'string' && translated.data.id !== '';
    if (hasId || nodeText(translated).trim() === title || !HEADING_ID.test(anchor)) return;
    translated.data = { ...(translated.data ?? {}), id: anchor };
  });
}


/**
 * Renders the content of a space (or one page of it) to a PDF, for GitBook's
 * `GET /v1/spaces/{spaceId}/change-requests/{changeRequestId}/pdf`.
 *
 * Input is a flat, ordered list of pages (title, depth, description and the
 * GitBook rich-text JSONDocument); output is the bytes of one PDF. The first PDF
 * page carries the space title; every top-level page (the smallest depth in the
 * input, so 0- and 1-based depths both work, and so does an `only`-one-page
 * export) starts on a new PDF page; deeper pages follow on the page of their
 * parent. Every page gets an outline (bookmark) entry, nested by depth, and every
 * PDF page but the title page a "n / N" footer.
 *
 * Rendering is synchronous pdfkit; images are the only asynchronous input, so
 * they are all loaded first (images.ts: each distinct ref once) and checked
 * (PNG/JPEG only, structurally valid), then the whole document is laid out in
 * one pass. Pages are buffered until the end:
 * the shaded boxes of code blocks and hints are drawn after their content (a
 * translucent overlay, so their height need not be known beforehand), on every
 * PDF page the box spans.
 *
 * Unicode: strings drawn with the standard fonts are made WinAnsi first
 * (win-ansi.ts); with `fonts` (TrueType/OpenType bytes, e.g. DejaVu Sans) the
 * renderer embeds those instead (fonts.ts). The document info (Title) and the
 * outline are PDF text strings (UTF-16) and keep every character.
 *
 * Determinism: with the same input and `createdAt`, the bytes are identical
 * (pdfkit derives the file ID from the document info). Without `createdAt`,
 * pdfkit stamps the current time as CreationDate.
 */
import PDFDocument from 'pdfkit';
import { type ContentRef, type JSONDocument, type JSONNode } from '../document/model.ts';
import { emojiText } from '../emoji.ts';
import {
  childNodes,
  dataOf,
  documentNodes,
  fragmentNamed,
  fragmentsOf,
  isBlock,
  leavesOf,
  linkTarget,
  plainText,
  refLabel,
  str,
  tableCellText,
} from './document-text.ts';
import { createFaces, slotFor, type Face, type FontSlot, type PdfFonts } from './fonts.ts';
import { imageRefKey, loadImages, type CheckedImage } from './images.ts';

export interface PdfPageInput {
  title: string;
  /** Depth in the page tree; the smallest depth of the input is "top-level". */
  depth: number;
  description?: string | null;
  document: JSONDocument | null;
}

export interface RenderContentPdfInput {
  /** The space title: the title page, and the document info Title. */
  title: string;
  pages: PdfPageInput[];
  /** Bytes of an image (block `image` or `drawing` ref); null or a rejection renders its alt text. */
  loadImage?: (ref: ContentRef) => Promise<Uint8Array | null>;
  /** Document info CreationDate; pdfkit uses the current time when absent. */
  createdAt?: Date;
  fonts?: PdfFonts;
}

const PRODUCER = 'docs-publishing-api (PDFKit)';
const CREATOR = 'docs-publishing-api';

// Layout, in PDF points (A4).
const MARGIN = 56;
const BODY_SIZE = 10.5;
const BODY_LINE_GAP = 2;
const SMALL_SIZE = 9;
const CODE_SIZE = 9;
const BLOCK_GAP = 7;
const LIST_GAP = 3;
const PAGE_TITLE_SIZES = [22, 18, 15, 13.5];
const HEADING_SIZES: Record<string, number> = { 'heading-1': 17, 'heading-2': 14.5, 'heading-3': 12.5 };
const TEXT_COLOR = '#111111';
const MUTED_COLOR = '#555555';
const LINK_COLOR = '#1d4ed8';
const RULE_COLOR = '#b8bcc4';
const HINT_COLORS: Record<string, string> = {
  info: '#2563eb',
  warning: '#d97706',
  danger: '#dc2626',
  success: '#16a34a',
};

/** Renders the pages to a PDF; resolves to its bytes (starting with `%PDF-`). */
export async function renderContentPdf(input: RenderContentPdfInput): Promise<Uint8Array> {
  const images = await loadImages(input.pages.map((page) => page.document), input.loadImage);
  const createdAt = input.createdAt && !Number.isNaN(input.createdAt.getTime()) ? input.createdAt : undefined;
  const doc = new PDFDocument({
    size: 'A4',
    margins: { top: MARGIN, bottom: MARGIN, left: MARGIN, right: MARGIN },
    bufferPages: true,
    pdfVersion: '1.4',
    displayTitle: true,
    info: {
      Title: input.title,
      Producer: PRODUCER,
      Creator: CREATOR,
      ...(createdAt ? { CreationDate: createdAt } : {}),
    },
  });
  const output = collect(doc);
  try {
    new Renderer(doc, images, input.fonts).render(input);
  } finally {
    doc.end();
  }
  return output;
}

function collect(doc: PDFKit.PDFDocument): Promise<Uint8Array> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    doc.on('data', (chunk: Buffer) => chunks.push(chunk));
    doc.on('error', reject);
    doc.on('end', () => {
      const all = Buffer.concat(chunks);
      resolve(new Uint8Array(all.buffer, all.byteOffset, all.byteLength));
    });
  });
}

interface Box {
  x: number;
  width: number;
}

interface Run {
  text: string;
  bold?: boolean;
  italic?: boolean;
  mono?: boolean;
  strike?: boolean;
  link?: string | null;
  color?: string;
}

interface TextStyle {
  size: number;
  color?: string;
  bold?: boolean;
  italic?: boolean;
  align?: 'left' | 'center' | 'right';
  lineGap?: number;
}

interface Position {
  page: number;
  y: number;
}

class Renderer {
  private readonly faces: Record<FontSlot, Face>;
  private readonly openedImages = new Map<string, unknown>();
  private readonly top: number;
  private readonly bottom: number;
  private readonly content: Box;
  private noteCounter = 0;

  constructor(
    private readonly doc: PDFKit.PDFDocument,
    private readonly images: Map<string, CheckedImage | null>,
    fonts: PdfFonts | undefined,
  ) {
    this.faces = createFaces(doc, fonts);
    const page = doc.page;
    this.top = page.margins.top;
    this.bottom = page.height - page.margins.bottom;
    this.content = { x: page.margins.left, width: page.width - page.margins.left - page.margins.right };
  }

  // --- entry -----------------------------------------------------------------

  render(input: RenderContentPdfInput): void {
    const doc = this.doc;
    this.titlePage(input.title);
    const minDepth = input.pages.reduce((min, p) => Math.min(min, Number.isFinite(p.depth) ? p.depth : 0), Infinity);
    const outline: { depth: number; item: PDFKit.PDFOutline }[] = [];
    let onTitlePage = true;
    for (const page of input.pages) {
      const depth = Math.max(0, (Number.isFinite(page.depth) ? page.depth : 0) - minDepth);
      if (depth === 0 || onTitlePage) {
        this.newPage();
        onTitlePage = false;
      } else {
        doc.y += 16;
        this.ensureSpace(PAGE_TITLE_SIZES[Math.min(depth, 3)]! * 1.4 + 3 * BODY_SIZE * 1.3);
      }
      while (outline.length > 0 && outline[outline.length - 1]!.depth >= depth) outline.pop();
      const parent = outline.length > 0 ? outline[outline.length - 1]!.item : doc.outline;
      outline.push({ depth, item: parent.addItem(page.title || 'Untitled') });
      this.noteCounter = 0;
      this.pageContent(page, depth);
    }
    this.footers();
  }

  private titlePage(title: string): void {
    const doc = this.doc;
    doc.y = this.top + (this.bottom - this.top) * 0.3;
    this.runs([{ text: title || 'Untitled', bold: true }], this.content, { size: 28, align: 'center' });
    const y = doc.y + 10;
    doc.save().moveTo(this.content.x + 120, y).lineTo(this.content.x + this.content.width - 120, y).lineWidth(0.8);
    doc.strokeColor(RULE_COLOR).stroke().restore();
  }

  private pageContent(page: PdfPageInput, depth: number): void {
    const doc = this.doc;
    const size = PAGE_TITLE_SIZES[Math.min(depth, 3)]!;
    this.runs([{ text: page.title || 'Untitled', bold: true }], this.content, { size });
    doc.y += 4;
    if (page.description) {
      this.runs([{ text: page.description, italic: true }], this.content, { size: 11, color: MUTED_COLOR });
      doc.y += 4;
    }
    doc.y += 6;
    this.blocks(documentNodes(page.document), this.content);
  }

  private footers(): void {
    const doc = this.doc;
    const range = doc.bufferedPageRange();
    const total = range.count - 1;
    for (let i = 1; i < range.count; i++) {
      doc.switchToPage(range.start + i);
      const margins = doc.page.margins;
      const bottom = margins.bottom;
      margins.bottom = 0; // text below the bottom margin would otherwise open a new page
      this.font('sans', 8).fillColor(MUTED_COLOR);
      doc.text(`${i} / ${total}`, this.content.x, doc.page.height - MARGIN / 2 - 4, {
        width: this.content.width,
        align: 'center',
        lineBreak: false,
      });
      margins.bottom = bottom;
    }
  }

  // --- primitives ------------------------------------------------------------

  private font(slot: FontSlot, size: number): PDFKit.PDFDocument {
    return this.doc.font(this.faces[slot].name).fontSize(size);
  }

  private pageIndex(): number {
    const range = this.doc.bufferedPageRange();
    return range.start + range.count - 1;
  }

  private position(): Position {
    return { page: this.pageIndex(), y: this.doc.y };
  }

  private newPage(): void {
    this.doc.addPage();
    this.doc.y = this.top;
  }

  private ensureSpace(height: number): void {
    if (this.doc.y + height > this.bottom && this.doc.y > this.top) this.newPage();
  }

  private lineHeight(size: number, lineGap = BODY_LINE_GAP): number {
    return size * 1.16 + lineGap;
  }

  /** Draws styled runs as one wrapped paragraph at the current y; advances y past it. */
  private runs(runs: Run[], box: Box, style: TextStyle): void {
    const doc = this.doc;
    const prepared = runs
      .map((run) => {
        const merged = { ...run, bold: run.bold || style.bold, italic: run.italic || style.italic };
        const slot = slotFor(merged);
        return { run: merged, slot, text: this.faces[slot].clean(run.text) };
      })
      .filter((p) => p.text !== '');
    if (prepared.length === 0) return;
    const lineGap = style.lineGap ?? BODY_LINE_GAP;
    prepared.forEach(({ run, slot, text }, i) => {
      const size = run.mono ? style.size * 0.92 : style.size;
      this.font(slot, size).fillColor(run.link ? LINK_COLOR : (run.color ?? style.color ?? TEXT_COLOR));
      const options: PDFKit.Mixins.TextOptions = {
        width: box.width,
        align: style.align ?? 'left',
        lineGap,
        continued: i < prepared.length - 1,
        link: run.link ?? null,
        underline: Boolean(run.link),
        strike: Boolean(run.strike),
      };
      if (i === 0) doc.text(text, box.x, doc.y, options);
      else doc.text(text, options);
    });
    doc.fillColor(TEXT_COLOR);
    doc.x = box.x;
  }

  /** Draws a translucent box (and optional left bar) behind what was drawn between `start` and `end`. */
  private shade(start: Position, end: Position, box: Box, fill: string | null, opacity: number, bar?: string): void {
    const doc = this.doc;
    const { x: savedX, y: savedY } = doc;
    for (let page = start.page; page <= end.page; page++) {
      doc.switchToPage(page);
      const top = page === start.page ? start.y : this.top - 6;
      const bottom = page === end.page ? end.y : this.bottom + 6;
      if (bottom <= top) continue;
      if (fill) doc.save().fillOpacity(opacity).rect(box.x, top, box.width, bottom - top).fill(fill).restore();
      if (bar) doc.save().rect(box.x, top, 3, bottom - top).fill(bar).restore();
    }
    doc.switchToPage(end.page);
    doc.x = savedX;
    doc.y = savedY;
  }

  // --- inlines ---------------------------------------------------------------

  private inlineRuns(nodes: JSONNode[], inherited: Omit<Run, 'text'>, notes: string[]): Run[] {
    const out: Run[] = [];
    for (const node of nodes) {
      if (node.object === 'text') {
        for (const leaf of leavesOf(node)) {
          const marks = new Set((leaf.marks ?? []).map((m) => m.type));
          out.push({
            ...inherited,
            text: leaf.text,
            bold: inherited.bold || marks.has('bold'),
            italic: inherited.italic || marks.has('italic'),
            mono: inherited.mono || marks.has('code') || marks.has('keyboard'),
            strike: inherited.strike || marks.has('strikethrough'),
          });
        }
        continue;
      }
      if (node.object === 'block') {
        // Malformed (a block inside text): keep its text.
        out.push({ ...inherited, text: plainText(node) });
        continue;
      }
      const data = dataOf(node);
      switch (node.type) {
        case 'link': {
          const link = linkTarget(data.ref) ?? inherited.link ?? null;
          const inner = this.inlineRuns(childNodes(node), { ...inherited, link }, notes);
          if (inner.every((r) => r.text.trim() === '')) inner.push({ ...inherited, link, text: refLabel(data.ref) });
          out.push(...inner);
          break;
        }
        case 'mention':
        case 'button': {
          const text = node.type === 'button' ? (str(data.label) ?? refLabel(data.ref)) : refLabel(data.ref);
          out.push({ ...inherited, text, link: linkTarget(data.ref) ?? inherited.link ?? null });
          break;
        }
        case 'inline-image':
          out.push({ ...inherited, italic: true, text: `[${str(data.alt) ?? str(data.caption) ?? 'image'}]` });
          break;
        case 'inline-math':
        case 'expression':
          out.push({ ...inherited, mono: true, text: plainText(node) });
          break;
        case 'emoji':
          out.push({ ...inherited, text: emojiText(data.code) });
          break;
        case 'icon':
          break;
        case 'annotation': {
          out.push(...this.inlineRuns(childNodes(node), inherited, notes));
          const body = fragmentsOf(node).map(plainText).filter(Boolean).join(' ');
          if (body) {
            notes.push(body);
            out.push({ ...inherited, text: `[${++this.noteCounter}]` });
          }
          break;
        }
        default:
          out.push(...this.inlineRuns(childNodes(node), inherited, notes));
      }
    }
    return out;
  }

  private textBlock(node: JSONNode, box: Box, style: TextStyle, gapAfter: number): void {
    const notes: string[] = [];
    const runs = this.inlineRuns(childNodes(node), {}, notes);
    const align = dataOf(node).align;
    const startY = this.doc.y;
    this.runs(runs, box, { ...style, align: style.align ?? (align === 'center' ? 'center' : align === 'end' ? 'right' : 'left') });
    if (this.doc.y === startY) this.doc.y += this.lineHeight(style.size) * 0.6; // empty paragraph
    const first = this.noteCounter - notes.length + 1;
    notes.forEach((note, i) => {
      this.doc.y += 2;
      this.runs([{ text: `[${first + i}] ${note}`, italic: true }], { x: box.x + 10, width: box.width - 10 }, {
        size: SMALL_SIZE,
        color: MUTED_COLOR,
      });
    });
    this.doc.y += gapAfter;
  }

  // --- blocks ----------------------------------------------------------------

  private blocks(nodes: JSONNode[], box: Box, gap = BLOCK_GAP): void {
    for (const node of nodes) this.block(node, box, gap);
  }

  private block(node: JSONNode, box: Box, gap: number): void {
    const doc = this.doc;
    if (node.object !== 'block') {
      // Inline content at block level (malformed): a paragraph of it.
      this.textBlock({ object: 'block', type: 'paragraph', nodes: [node] }, box, { size: BODY_SIZE }, gap);
      return;
    }
    const data = dataOf(node);
    switch (node.type) {
      case 'paragraph':
        this.textBlock(node, box, { size: BODY_SIZE }, gap);
        return;
      case 'heading-1':
      case 'heading-2':
      case 'heading-3': {
        const size = HEADING_SIZES[node.type]!;
        doc.y += size * 0.5;
        this.ensureSpace(this.lineHeight(size) + 2 * this.lineHeight(BODY_SIZE));
        this.textBlock(node, box, { size, bold: true }, 4);
        return;
      }
      case 'list-ordered':
      case 'list-unordered':
      case 'list-tasks':
      case 'stepper':
        this.list(node, box, 0);
        doc.y += gap - LIST_GAP;
        return;
      case 'list-item':
        this.blocks(childNodes(node), box, LIST_GAP);
        return;
      case 'code':
        this.code(node, box);
        doc.y += gap;
        return;
      case 'hint':
        this.callout(node, box, HINT_COLORS[String(data.style)] ?? HINT_COLORS.info!, (str(data.style) ?? 'note').toUpperCase());
        doc.y += gap;
        return;
      case 'blockquote':
        this.callout(node, box, RULE_COLOR, null);
        doc.y += gap;
        return;
      case 'table':
        this.table(node, box);
        doc.y += gap;
        return;
      case 'images':
        for (const child of childNodes(node)) this.block(child, box, gap);
        return;
      case 'image':
      case 'drawing':
        this.image(node, box);
        doc.y += gap;
        return;
      case 'divider': {
        this.ensureSpace(14);
        const y = doc.y + 6;
        doc.save().moveTo(box.x, y).lineTo(box.x + box.width, y).lineWidth(0.8).strokeColor(RULE_COLOR).stroke().restore();
        doc.y = y + 6 + gap;
        return;
      }
      case 'math':
        this.runs([{ text: str(data.formula) ?? plainText(node), mono: true }], { x: box.x + 14, width: box.width - 14 }, {
          size: BODY_SIZE,
        });
        doc.y += gap;
        return;
      case 'expandable': {
        const title = fragmentNamed(node, 'expandable-title');
        const body = fragmentNamed(node, 'expandable-body');
        for (const paragraph of title ? childNodes(title) : []) {
          this.textBlock(paragraph, box, { size: BODY_SIZE, bold: true }, LIST_GAP);
        }
        if (body) this.blocks(childNodes(body), { x: box.x + 12, width: box.width - 12 }, gap);
        for (const other of fragmentsOf(node)) {
          if (other !== title && other !== body) this.blocks(childNodes(other), box, gap);
        }
        return;
      }
      case 'tabs':
        for (const item of childNodes(node)) {
          const title = str(dataOf(item).title);
          if (title) this.runs([{ text: title, bold: true }], box, { size: BODY_SIZE });
          doc.y += LIST_GAP;
          this.blocks(childNodes(item), { x: box.x + 12, width: box.width - 12 }, gap);
        }
        return;
      case 'embed':
      case 'content-ref':
      case 'file': {
        const ref = node.type === 'embed' ? { kind: 'url', url: data.url } : data.ref;
        const label = refLabel(ref);
        const prefix = node.type === 'embed' ? 'Embed' : node.type === 'file' ? 'File' : 'See';
        this.runs([{ text: `${prefix}: `, bold: true }, { text: label, link: linkTarget(ref) }], box, { size: BODY_SIZE });
        doc.y += gap;
        return;
      }
      case 'swagger':
      case 'openapi-operation':
      case 'openapi-webhook':
      case 'openapi-schemas': {
        const what = [str(data.method)?.toUpperCase(), str(data.path) ?? str(data.name), ...(Array.isArray(data.schemas) ? data.schemas : [])]
          .filter((v): v is string => typeof v === 'string' && v !== '')
          .join(' ');
        this.placeholder(`OpenAPI${what ? `: ${what}` : ''}`, box, gap);
        return;
      }
      case 'integration': {
        const url = str(data.url);
        this.placeholder(`Integration${str(data.integration) ? `: ${data.integration}` : ''}${url ? ` (${url})` : ''}`, box, gap);
        return;
      }
      case 'reusable-content':
        this.placeholder('Reusable content', box, gap);
        return;
      default:
        this.unknownBlock(node, box, gap);
    }
  }

  /** Any other block: its child blocks, or its text as a paragraph, then its fragments. */
  private unknownBlock(node: JSONNode, box: Box, gap: number): void {
    const children = childNodes(node);
    if (children.some(isBlock)) this.blocks(children, box, gap);
    else if (children.length > 0) this.textBlock(node, box, { size: BODY_SIZE }, gap);
    for (const fragment of fragmentsOf(node)) this.blocks(childNodes(fragment), box, gap);
    if (children.length === 0 && fragmentsOf(node).length === 0) {
      const text = plainText(node);
      this.placeholder(text || String(node.type ?? 'block'), box, gap);
    }
  }

  private placeholder(text: string, box: Box, gap: number): void {
    this.runs([{ text: `[${text}]`, italic: true }], box, { size: SMALL_SIZE + 0.5, color: MUTED_COLOR });
    this.doc.y += gap;
  }

  private list(node: JSONNode, box: Box, depth: number): void {
    const doc = this.doc;
    const ordered = node.type === 'list-ordered' || node.type === 'stepper';
    const tasks = node.type === 'list-tasks';
    const start = dataOf(node).start;
    let n = typeof start === 'number' && Number.isFinite(start) ? Math.trunc(start) : 1;
    const items = childNodes(node);
    this.font('sans', BODY_SIZE);
    const widest = ordered ? doc.widthOfString(`${n + items.length - 1}.`) : 0;
    const indent = tasks ? 24 : Math.max(16, widest + 8);
    const inner: Box = { x: box.x + indent, width: box.width - indent };
    for (const item of items) {
      this.ensureSpace(this.lineHeight(BODY_SIZE));
      const y = doc.y;
      const page = this.pageIndex();
      const marker = ordered
        ? `${n}.`
        : tasks
          ? dataOf(item).checked
            ? '[x]'
            : '[ ]'
          : (['\u2022', '\u2013', '\u00b7'][depth % 3] ?? '\u2022');
      this.font(tasks ? 'mono' : 'sans', tasks ? BODY_SIZE * 0.92 : BODY_SIZE).fillColor(TEXT_COLOR);
      doc.text(marker, box.x, y, { width: indent - 5, align: 'right', lineBreak: false });
      doc.x = inner.x;
      doc.y = y;
      const children = childNodes(item);
      if (children.length === 0 || !children.some(isBlock)) {
        // An item whose content is inline (or nothing): one paragraph.
        this.textBlock(item, inner, { size: BODY_SIZE }, LIST_GAP);
      } else {
        for (const child of children) {
          if (child.type === 'list-ordered' || child.type === 'list-unordered' || child.type === 'list-tasks') {
            this.list(child, inner, depth + 1);
          } else {
            this.block(child, inner, LIST_GAP);
          }
        }
      }
      if (this.pageIndex() === page && doc.y < y + this.lineHeight(BODY_SIZE)) doc.y = y + this.lineHeight(BODY_SIZE);
      n++;
    }
  }

  private code(node: JSONNode, box: Box): void {
    const doc = this.doc;
    const title = str(dataOf(node).title);
    const lines = childNodes(node).map(plainText); // code-line blocks, one per line
    const source = lines.join('\n');
    const pad = 6;
    const lineH = this.lineHeight(CODE_SIZE, 1.5);
    this.ensureSpace((title ? 16 : 0) + 2 * pad + lineH * Math.min(Math.max(lines.length, 1), 3));
    if (title) {
      this.runs([{ text: title, bold: true }], box, { size: SMALL_SIZE, color: MUTED_COLOR });
      doc.y += 2;
    }
    const start = this.position();
    doc.y += pad;
    this.font('mono', CODE_SIZE).fillColor(TEXT_COLOR);
    const text = this.faces.mono.clean(source);
    if (text.replace(/\n/g, '') === '') doc.y += lineH * Math.max(lines.length, 1);
    else doc.text(text, box.x + pad + 2, doc.y, { width: box.width - 2 * pad - 2, lineGap: 1.5 });
    doc.y += pad - 1.5;
    this.shade(start, this.position(), box, '#64748b', 0.1);
    doc.x = box.x;
  }

  private callout(node: JSONNode, box: Box, color: string, label: string | null): void {
    const doc = this.doc;
    const pad = label ? 7 : 3;
    this.ensureSpace(2 * pad + 2 * this.lineHeight(BODY_SIZE));
    const start = this.position();
    doc.y += pad;
    const inner: Box = { x: box.x + 14, width: box.width - 14 - (label ? 8 : 0) };
    if (label) {
      this.runs([{ text: label, bold: true, color }], inner, { size: SMALL_SIZE - 0.5 });
      doc.y += 3;
    }
    const children = childNodes(node);
    if (children.some(isBlock)) this.blocks(children, inner, LIST_GAP + 1);
    else this.textBlock(node, inner, { size: BODY_SIZE }, LIST_GAP);
    doc.y += pad - LIST_GAP;
    const end = this.position();
    if (label) this.shade(start, end, box, color, 0.08, color);
    else this.shade(start, end, box, null, 0, color);
  }

  private table(node: JSONNode, box: Box): void {
    const doc = this.doc;
    const data = dataOf(node);
    const view = (data.view && typeof data.view === 'object' ? data.view : {}) as Record<string, unknown>;
    const definitions = (data.definition && typeof data.definition === 'object' ? data.definition : {}) as Record<
      string,
      Record<string, unknown>
    >;
    const records = (data.records && typeof data.records === 'object' ? data.records : {}) as Record<
      string,
      { orderIndex?: string; values?: Record<string, unknown> }
    >;
    const ids = (Array.isArray(view.columns) ? (view.columns as unknown[]) : Object.keys(definitions)).filter(
      (id): id is string => typeof id === 'string' && Boolean(definitions[id]),
    );
    if (ids.length === 0) return;
    const widths = (view.columnWidths && typeof view.columnWidths === 'object' ? view.columnWidths : {}) as Record<string, unknown>;
    const weights = ids.map((id) => (typeof widths[id] === 'number' && (widths[id] as number) > 0 ? (widths[id] as number) : NaN));
    const known = weights.filter((w) => !Number.isNaN(w));
    const fallback = known.length > 0 ? known.reduce((a, b) => a + b, 0) / known.length : 1;
    const filled = weights.map((w) => (Number.isNaN(w) ? fallback : w));
    const sum = filled.reduce((a, b) => a + b, 0);
    // No column narrower than half its equal share, so text always has room.
    const minShare = 0.5 / ids.length;
    const shares = filled.map((w) => Math.max(w / sum, minShare));
    const shareSum = shares.reduce((a, b) => a + b, 0);
    const colWidths = shares.map((s) => (s / shareSum) * box.width);

    const rows = Object.entries(records)
      .sort(([ka, a], [kb, b]) => {
        const oa = a?.orderIndex ?? '';
        const ob = b?.orderIndex ?? '';
        return oa < ob ? -1 : oa > ob ? 1 : ka < kb ? -1 : ka > kb ? 1 : 0;
      })
      .map(([, record]) => ids.map((id) => tableCellText(node, definitions[id]!, record?.values?.[id])));
    const header = view.hideHeader === true ? null : ids.map((id) => str(definitions[id]!.title) ?? '');

    const pad = 4;
    const fontSize = SMALL_SIZE;
    const measure = (cells: string[], bold: boolean) => {
      const face = this.faces[bold ? 'sansBold' : 'sans'];
      this.font(bold ? 'sansBold' : 'sans', fontSize);
      const texts = cells.map((c) => face.clean(c));
      const height = Math.max(
        ...texts.map((t, i) => (t === '' ? 0 : doc.heightOfString(t, { width: colWidths[i]! - 2 * pad, lineGap: 1 }))),
        this.lineHeight(fontSize, 1),
      );
      return { texts, height: height + 2 * pad };
    };
    const draw = (cells: { texts: string[]; height: number }, bold: boolean) => {
      const y = doc.y;
      let x = box.x;
      if (bold) doc.save().rect(box.x, y, box.width, cells.height).fill('#eef0f3').restore();
      this.font(bold ? 'sansBold' : 'sans', fontSize).fillColor(TEXT_COLOR);
      cells.texts.forEach((text, i) => {
        if (text !== '') doc.text(text, x + pad, y + pad, { width: colWidths[i]! - 2 * pad, lineGap: 1 });
        x += colWidths[i]!;
      });
      doc.save().lineWidth(0.5).strokeColor(RULE_COLOR);
      x = box.x;
      for (const w of colWidths) {
        doc.rect(x, y, w, cells.height).stroke();
        x += w;
      }
      doc.restore();
      doc.x = box.x;
      doc.y = y + cells.height;
    };

    const headerCells = header ? measure(header, true) : null;
    const usable = this.bottom - this.top - (headerCells?.height ?? 0);
    this.ensureSpace((headerCells?.height ?? 0) + (rows.length > 0 ? measure(rows[0]!, false).height : 0));
    if (headerCells) draw(headerCells, true);
    for (const row of rows) {
      const cells = measure(row, false);
      if (cells.height > usable) {
        // Taller than a page: the row as "Column: text" paragraphs instead of a grid row.
        doc.y += 3;
        row.forEach((text, i) => {
          this.runs([{ text: `${header?.[i] || `Column ${i + 1}`}: `, bold: true }, { text }], box, { size: fontSize });
        });
        doc.y += 3;
        continue;
      }
      if (doc.y + cells.height > this.bottom) {
        this.newPage();
        if (headerCells) draw(headerCells, true);
      }
      draw(cells, false);
    }
  }

  private image(node: JSONNode, box: Box): void {
    const doc = this.doc;
    const data = dataOf(node);
    const caption = fragmentNamed(node, 'caption');
    const alt = str(data.alt) ?? (caption ? plainText(caption) : undefined);
    const key = imageRefKey(data.ref);
    const checked = key ? this.images.get(key) : null;
    const opened = checked && key ? this.openImage(key, checked) : null;
    if (opened) {
      const scale = 0.75; // CSS pixels to points
      let w = opened.width * scale;
      let h = opened.height * scale;
      const maxH = (this.bottom - this.top) * 0.6;
      const fit = Math.min(1, box.width / w, maxH / h);
      w *= fit;
      h *= fit;
      this.ensureSpace(h);
      doc.image(opened.image as PDFKit.Mixins.ImageSrc, box.x, doc.y, { width: w, height: h });
      doc.x = box.x;
      doc.y += h;
    } else {
      const label = node.type === 'drawing' ? 'Drawing' : 'Image';
      this.runs([{ text: `[${label}${alt ? `: ${alt}` : ''}]`, italic: true }], box, { size: BODY_SIZE, color: MUTED_COLOR });
    }
    if (caption && childNodes(caption).length > 0) {
      doc.y += 3;
      for (const paragraph of childNodes(caption)) {
        this.textBlock(paragraph, box, { size: SMALL_SIZE, italic: true, color: MUTED_COLOR }, 1);
      }
    }
  }

  private openImage(key: string, checked: CheckedImage): { image: unknown; width: number; height: number } | null {
    let image = this.openedImages.get(key);
    if (image === undefined) {
      try {
        image = (this.doc as unknown as { openImage(src: Buffer): unknown }).openImage(checked.bytes);
      } catch {
        image = null; // pdfkit refused it (throws strings for bad JPEGs)
      }
      const dims = image as { width?: number; height?: number; colorSpace?: unknown; orientation?: number } | null;
      if (
        !dims ||
        !(Number(dims.width) > 0 && Number(dims.height) > 0) ||
        (checked.kind === 'jpeg' && typeof dims.colorSpace !== 'string')
      ) {
        image = null;
      }
      this.openedImages.set(key, image);
    }
    if (!image) return null;
    const dims = image as { width: number; height: number; orientation?: number };
    const rotated = (dims.orientation ?? 1) > 4;
    return { image, width: rotated ? dims.height : dims.width, height: rotated ? dims.width : dims.height };
  }
}

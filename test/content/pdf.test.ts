import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { getDocument } from 'pdfjs-dist/legacy/build/pdf.mjs';
import { describe, expect, it } from 'vitest';
import { type ContentRef, type JSONDocument, type JSONNode } from '../../src/content/document/model.ts';
import { renderContentPdf, type PdfPageInput } from '../../src/content/pdf/render.ts';
import { toWinAnsi } from '../../src/content/pdf/win-ansi.ts';
import { png } from '../helpers/png.ts';

// --- document builders -------------------------------------------------------

type Mark = 'bold' | 'italic' | 'code' | 'strikethrough';

function t(text: string, ...marks: Mark[]): JSONNode {
  return { object: 'text', leaves: [{ object: 'leaf', text, marks: marks.map((type) => ({ object: 'mark', type })) }] };
}
function block(type: string, nodes: JSONNode[] = [], data: Record<string, unknown> = {}, extra: Record<string, unknown> = {}): JSONNode {
  return { object: 'block', type, data, nodes, ...extra };
}
const p = (...nodes: (JSONNode | string)[]) => block('paragraph', nodes.map((n) => (typeof n === 'string' ? t(n) : n)));
const h = (level: 1 | 2 | 3, text: string) => block(`heading-${level}`, [t(text)]);
const li = (...nodes: JSONNode[]) => block('list-item', nodes);
const link = (ref: ContentRef, text: string): JSONNode => ({ object: 'inline', type: 'link', data: { ref }, nodes: [t(text)] });
const doc = (...nodes: JSONNode[]): JSONDocument => ({ object: 'document', data: {}, nodes });
const image = (ref: ContentRef, alt: string, caption?: string): JSONNode => ({
  object: 'block',
  type: 'image',
  isVoid: true,
  data: { ref, alt },
  fragments: caption ? [{ object: 'fragment', fragment: 'caption', nodes: [p(caption)] }] : [],
});
const code = (...lines: string[]) =>
  block(
    'code',
    lines.map((line) => block('code-line', [t(line)])),
    { syntax: 'javascript' },
  );
function table(columns: string[], rows: string[][]): JSONNode {
  const definition = Object.fromEntries(columns.map((title, i) => [`c${i}`, { id: `c${i}`, title, type: 'text', textAlignment: 'left' }]));
  const fragments: JSONNode[] = [];
  const records = Object.fromEntries(
    rows.map((row, r) => [
      `r${r}`,
      {
        orderIndex: `a${String(r).padStart(3, '0')}`,
        values: Object.fromEntries(
          row.map((cell, c) => {
            fragments.push({ object: 'fragment', fragment: `f${r}-${c}`, nodes: [p(cell)] });
            return [`c${c}`, `f${r}-${c}`];
          }),
        ),
      },
    ]),
  );
  return {
    object: 'block',
    type: 'table',
    isVoid: true,
    data: { view: { type: 'grid', columns: columns.map((_, i) => `c${i}`), hideHeader: false }, definition, records },
    fragments,
  };
}

// --- PDF reading -------------------------------------------------------------

const pdfjsRoot = dirname(createRequire(import.meta.url).resolve('pdfjs-dist/package.json'));
const standardFontDataUrl = join(pdfjsRoot, 'standard_fonts') + '/';

async function open(data: Uint8Array) {
  // pdfjs takes ownership of (detaches) the buffer it is given: hand it a copy.
  return getDocument({ data: data.slice(), useSystemFonts: false, disableFontFace: true, standardFontDataUrl, verbosity: 0 })
    .promise;
}

async function read(data: Uint8Array) {
  const pdf = await open(data);
  const pages: string[] = [];
  for (let i = 1; i <= pdf.numPages; i++) {
    const content = await (await pdf.getPage(i)).getTextContent();
    pages.push(content.items.map((item) => ('str' in item ? item.str + (item.hasEOL ? '\n' : '') : '')).join(''));
  }
  const meta = await pdf.getMetadata();
  await pdf.destroy();
  return { pages, text: pages.join('\n'), info: meta.info as Record<string, unknown> };
}

const flat = (s: string) => s.replace(/\s+/g, ' ');

// --- tests -------------------------------------------------------------------

describe('renderContentPdf', () => {
  const goodRef: ContentRef = { kind: 'file', file: 'img-ok' };
  const alphaRef: ContentRef = { kind: 'url', url: 'https://example.com/alpha.png' };
  const missingRef: ContentRef = { kind: 'file', file: 'img-missing' };
  const loadImage = async (ref: ContentRef) => {
    if ('file' in ref && ref.file === 'img-ok') return png(4, 3);
    if ('url' in ref && ref.url === 'https://example.com/alpha.png') return png(2, 2, { alpha: true });
    if ('file' in ref && ref.file === 'img-throws') throw new Error('storage down');
    if ('file' in ref && ref.file === 'img-corrupt') return png(2, 2, { alpha: true, corruptData: true });
    if ('file' in ref && ref.file === 'img-bad-filter') return png(2, 2, { alpha: true, badFilter: true });
    if ('file' in ref && ref.file === 'img-gif') return new Uint8Array(Buffer.from('GIF89a\x01\x00\x01\x00', 'latin1'));
    return null;
  };

  const richPages: PdfPageInput[] = [
    {
      title: 'Getting started',
      depth: 0,
      description: 'How to begin with the product',
      document: doc(
        h(1, 'Installation guide'),
        p('Plain start, ', t('bold words', 'bold'), ', ', t('slanted words', 'italic'), ', ', t('both styles', 'bold', 'italic'), ', ', t('npm install', 'code'), ' and ', t('old text', 'strikethrough'), '.'),
        p('Visit ', link({ kind: 'url', url: 'https://example.com/docs' }, 'the website'), ' or ', link({ kind: 'page', page: 'pg-2' }, 'the next page'), '.'),
        h(2, 'Steps to follow'),
        block('list-ordered', [
          li(p('First step')),
          li(p('Second step'), block('list-unordered', [li(p('Nested bullet one')), li(p('Nested bullet two'))])),
          li(p('Third step')),
        ]),
        block('list-tasks', [block('list-item', [p('Done task')], { checked: true }), block('list-item', [p('Open task')], { checked: false })]),
        h(3, 'Some code'),
        code('function greet(name) {', '    return `Hello ${name}`;', '}'),
        block('hint', [p('Remember to restart the server.')], { style: 'warning' }),
        block('blockquote', [p('A wise quotation here.')]),
        table(['Name', 'Role'], [['Alice Example', 'Maintainer of the grid'], ['Bob Sample', 'Reviewer']]),
        image(goodRef, 'A working picture', 'Figure one caption'),
        image(missingRef, 'Alt text of the missing picture'),
        block('divider', [], {}, { isVoid: true }),
        p('After the divider.'),
        block('mystery-block', [p('Text inside an unknown block type')]),
        {
          object: 'block',
          type: 'expandable',
          isVoid: true,
          data: {},
          fragments: [
            { object: 'fragment', fragment: 'expandable-title', type: 'expandable-title', nodes: [p('Expandable title')] },
            { object: 'fragment', fragment: 'expandable-body', type: 'expandable-body', nodes: [p('Expandable body')] },
          ],
        },
        block('tabs', [block('tabs-item', [p('First tab body')], { title: 'First tab' })]),
        p(
          'Formula ',
          { object: 'inline', type: 'inline-math', isVoid: true, data: { formula: 'E = mc^2' } },
          ' and ',
          { object: 'inline', type: 'annotation', nodes: [t('annotated words')], fragments: [{ object: 'fragment', type: 'annotation-body', nodes: [p('The annotation body')] }] },
          '.',
        ),
        image(goodRef, 'The same picture again'),
      ),
    },
    { title: 'Child page', depth: 1, description: null, document: doc(p('Child page body text.')) },
    { title: 'Second chapter', depth: 0, document: doc(p('Second chapter body.'), image(alphaRef, 'Translucent picture')) },
    { title: 'Empty page', depth: 0, document: null },
  ];

  it('renders headings, marks, links, lists, code, hint, table, images and dividers', async () => {
    const loaded: ContentRef[] = [];
    const pdf = await renderContentPdf({
      title: 'Product Handbook',
      pages: richPages,
      loadImage: (ref) => (loaded.push(ref), loadImage(ref)),
    });
    expect(loaded).toHaveLength(3); // each distinct ref once
    expect(Buffer.from(pdf.subarray(0, 5)).toString('latin1')).toBe('%PDF-');

    const { pages, text, info } = await read(pdf);
    expect(pages[0]).toContain('Product Handbook');
    expect(info.Title).toBe('Product Handbook');
    expect(String(info.Producer)).toContain('PDFKit');
    expect(info.Creator).toBe('docs-publishing-api');

    // The first page's content runs over two PDF pages; each later top-level page starts a new one.
    const at = (title: string) => pages.findIndex((page) => page.startsWith(title));
    expect(at('Getting started')).toBe(1);
    expect(at('Second chapter')).toBeGreaterThan(1);
    expect(at('Empty page')).toBe(at('Second chapter') + 1);
    expect(pages).toHaveLength(at('Empty page') + 1);

    const first = flat(pages.slice(1, at('Second chapter')).join('\n'));
    for (const expected of [
      'Getting started',
      'How to begin with the product',
      'Installation guide',
      'Plain start,',
      'bold words',
      'slanted words',
      'both styles',
      'npm install',
      'old text',
      'the website',
      'the next page',
      'Steps to follow',
      '1.',
      'First step',
      '2.',
      'Second step',
      'Nested bullet one',
      'Nested bullet two',
      '3.',
      'Third step',
      '[x]',
      'Done task',
      '[ ]',
      'Open task',
      'function greet(name) {',
      'return `Hello ${name}`;',
      'WARNING',
      'Remember to restart the server.',
      'A wise quotation here.',
      'Name',
      'Role',
      'Alice Example',
      'Maintainer of the grid',
      'Bob Sample',
      'Reviewer',
      'Figure one caption',
      'Alt text of the missing picture',
      'After the divider.',
      'Text inside an unknown block type',
      'Expandable title',
      'Expandable body',
      'First tab',
      'First tab body',
      'E = mc^2',
      'annotated words[1]',
      '[1] The annotation body',
      'Child page',
      'Child page body text.',
    ]) {
      expect(first, expected).toContain(expected);
    }
    // The loaded image is drawn, not replaced by its alt text.
    expect(first).not.toContain('A working picture');
    expect(first).not.toContain('The same picture again');
    expect(flat(pages[at('Second chapter')]!)).toContain('Second chapter body.');
    expect(flat(pages[at('Second chapter')]!)).not.toContain('Translucent picture');
    // Code lines are kept: indentation survives, one line each.
    expect(text).toMatch(/function greet\(name\) \{\n\s*return/);
    expect(text).not.toContain('undefined');
  });

  it('draws loaded PNGs (RGB and RGBA) as images and makes url links clickable', async () => {
    const pdf = await renderContentPdf({ title: 'Images', pages: richPages, loadImage });
    const document = await open(pdf);
    const { OPS } = await import('pdfjs-dist/legacy/build/pdf.mjs');
    let images = 0;
    const links: string[] = [];
    for (let n = 1; n <= document.numPages; n++) {
      const page = await document.getPage(n);
      images += (await page.getOperatorList()).fnArray.filter((fn) => fn === OPS.paintImageXObject).length;
      for (const annotation of await page.getAnnotations()) if (annotation.subtype === 'Link') links.push(annotation.url);
    }
    expect(images).toBe(3); // the RGB picture twice, the RGBA one once
    expect(links).toEqual(['https://example.com/docs']); // the page ref is text only
    await document.destroy();
  });

  it('shows the alt text of images that fail to load, are corrupt or not PNG/JPEG', async () => {
    const pages: PdfPageInput[] = [
      {
        title: 'Broken images',
        depth: 0,
        document: doc(
          image({ kind: 'file', file: 'img-throws' }, 'Alt of a throwing loader'),
          image({ kind: 'file', file: 'img-corrupt' }, 'Alt of a corrupt PNG'),
          image({ kind: 'file', file: 'img-bad-filter' }, 'Alt of a PNG with a bad filter byte'),
          image({ kind: 'file', file: 'img-gif' }, 'Alt of a GIF'),
          image({ kind: 'file', file: 'img-missing' }, 'Alt of a missing file'),
        ),
      },
    ];
    const { text } = await read(await renderContentPdf({ title: 'Space', pages, loadImage }));
    for (const alt of [
      'Alt of a throwing loader',
      'Alt of a corrupt PNG',
      'Alt of a PNG with a bad filter byte',
      'Alt of a GIF',
      'Alt of a missing file',
    ]) {
      expect(flat(text)).toContain(alt);
    }
    // Without a loader, images are their alt text too.
    const noLoader = await read(await renderContentPdf({ title: 'Space', pages }));
    expect(flat(noLoader.text)).toContain('Alt of a GIF');
  });

  it('gives a valid one-page PDF for a space without pages', async () => {
    const pdf = await renderContentPdf({ title: 'Empty space', pages: [] });
    expect(Buffer.from(pdf.subarray(0, 5)).toString('latin1')).toBe('%PDF-');
    const { pages } = await read(pdf);
    expect(pages).toHaveLength(1);
    expect(pages[0]).toContain('Empty space');
  });

  it('starts each top-level page on a new PDF page; deeper pages follow their parent', async () => {
    const { pages } = await read(
      await renderContentPdf({
        title: 'Space',
        pages: [
          { title: 'Alpha', depth: 0, document: doc(p('Alpha body')) },
          { title: 'Alpha child', depth: 1, document: doc(p('Alpha child body')) },
          { title: 'Alpha grandchild', depth: 2, document: doc(p('Alpha grandchild body')) },
          { title: 'Beta', depth: 0, description: 'Beta description', document: doc(p('Beta body')) },
          { title: 'Gamma', depth: 0, document: null },
        ],
      }),
    );
    expect(pages).toHaveLength(4);
    expect(flat(pages[1]!)).toMatch(/^Alpha Alpha body Alpha child Alpha child body Alpha grandchild Alpha grandchild body/);
    expect(flat(pages[2]!)).toMatch(/^Beta Beta description Beta body/);
    expect(flat(pages[3]!)).toMatch(/^Gamma/);
  });

  it('treats the smallest depth as top-level (a single-page export)', async () => {
    const only = await read(await renderContentPdf({ title: 'S', pages: [{ title: 'Deep page', depth: 3, document: doc(p('Body')) }] }));
    expect(only.pages).toHaveLength(2);
    expect(only.pages[1]).toContain('Deep page');
  });

  it('renders a 200-page space', async () => {
    const pages: PdfPageInput[] = Array.from({ length: 200 }, (_, i) => ({
      title: `Page number ${i + 1}`,
      depth: 0,
      description: `Description ${i + 1}`,
      document: doc(h(2, `Section ${i + 1}`), p(`Body of page ${i + 1}, `, t('with marks', 'bold'), '.'), code(`const n = ${i};`)),
    }));
    const pdf = await renderContentPdf({ title: 'Big space', pages });
    const document = await open(pdf);
    expect(document.numPages).toBe(201);
    const last = await (await document.getPage(201)).getTextContent();
    expect(flat(last.items.map((item) => ('str' in item ? item.str : '')).join(''))).toContain('Body of page 200, with marks.');
    await document.destroy();
  });

  it('keeps long code blocks and tables whole across PDF pages', async () => {
    const lines = Array.from({ length: 120 }, (_, i) => `line ${i + 1};`);
    const rows = Array.from({ length: 60 }, (_, i) => [`Row ${i + 1}`, `Value ${i + 1} `.repeat(8)]);
    const { pages, text } = await read(
      await renderContentPdf({ title: 'Long', pages: [{ title: 'Long content', depth: 0, document: doc(code(...lines), table(['Key', 'Value'], rows)) }] }),
    );
    expect(pages.length).toBeGreaterThan(3);
    for (let i = 1; i <= 120; i++) expect(text).toContain(`line ${i};`);
    for (let i = 1; i <= 60; i++) expect(text).toContain(`Row ${i}`);
    // The header is repeated on the pages the table continues on.
    expect(pages.filter((page) => /Key\s*Value/.test(page)).length).toBeGreaterThan(1);
  });

  it('replaces characters the standard fonts cannot show instead of writing garbage', async () => {
    expect(toWinAnsi('café – “quoted” … €5 naïve')).toBe('café – “quoted” … €5 naïve');
    expect(toWinAnsi('a → b ≤ c ≠ d − e')).toBe('a -> b <= c != d - e');
    expect(toWinAnsi('Őrség ā ﬁne Ａ')).toBe('Orség a fine A');
    expect(toWinAnsi('日本 👍🏽 🇫🇷 Привет')).toBe('?? ? ? ??????');
    expect(toWinAnsi('zero\u200bwidth\tTab\u00adsoft e\u0301')).toBe('zerowidth    Tabsoft é');

    const title = 'Unicode → 日本';
    const pdf = await renderContentPdf({
      title,
      pages: [{ title: 'Arrows → here', depth: 0, document: doc(p('Snow ☃ and ', t('code ≥ 2', 'code'), ' then 👍.'), code('x → y')) }],
    });
    const { pages, info } = await read(pdf);
    expect(pages[0]).toContain('Unicode -> ??');
    const body = flat(pages[1]!);
    expect(body).toContain('Arrows -> here');
    expect(body).toContain('Snow ? and code >= 2 then ?.');
    expect(body).toContain('x -> y');
    // The document info is a UTF-16 string: kept as is.
    expect(info.Title).toBe(title);
  });

  it('embeds given TrueType fonts and keeps the characters they cover', async () => {
    const fontsDir = join(pdfjsRoot, 'standard_fonts');
    const fonts = {
      regular: new Uint8Array(readFileSync(join(fontsDir, 'LiberationSans-Regular.ttf'))),
      bold: new Uint8Array(readFileSync(join(fontsDir, 'LiberationSans-Bold.ttf'))),
    };
    const { pages } = await read(
      await renderContentPdf({
        title: 'Привет мир',
        pages: [{ title: 'Ελληνικά', depth: 0, document: doc(p('Кириллица → ', t('жирный', 'bold'), ' 日本')) }],
        fonts,
      }),
    );
    expect(pages[0]).toContain('Привет мир');
    const body = flat(pages[1]!);
    expect(body).toContain('Ελληνικά');
    expect(body).toContain('Кириллица → жирный ??'); // Liberation Sans has the arrow, not CJK
  });

  it('is deterministic for a given createdAt', async () => {
    const createdAt = new Date('2024-05-06T07:08:09Z');
    const input = { title: 'Stable', pages: richPages, loadImage, createdAt };
    const a = await renderContentPdf(input);
    const b = await renderContentPdf(input);
    expect(Buffer.from(a).equals(Buffer.from(b))).toBe(true);
    const { info } = await read(a);
    expect(String(info.CreationDate)).toMatch(/^D:20240506/);
  });
});

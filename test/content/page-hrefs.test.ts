import { describe, expect, it } from 'vitest';
import { markdownToDocument } from '../../src/content/document/markdown-parse.ts';
import type { ContentRef, JSONDocument, JSONNode } from '../../src/content/document/model.ts';
import { hrefsNamedIn, pageKey, parseHrefTable, resolveFromTable, serializeHrefTable, type HrefTable } from '../../src/content/page-hrefs.ts';

const page = (id: string): ContentRef => ({ kind: 'page', page: id });

/** A 1,000-page table, plus pages whose names only the cautious rules keep (pages by where they stand). */
function table(): HrefTable {
  const entries: [string, ContentRef][] = [];
  for (let i = 0; i < 1000; i++) entries.push([pageKey(`section-${i % 10}/page-${i}`), page(`p${i}`)]);
  entries.push([pageKey('guide'), page('guide')], [pageKey('guide/install'), page('install')], [pageKey('odd/a(b)c'), page('paren')], [pageKey('faq'), page('faq')]);
  return new Map(entries);
}

/** Every page a document's links and content references name. */
function refsOf(document: JSONDocument): string[] {
  const found: string[] = [];
  const walk = (nodes: readonly JSONNode[]) => {
    for (const node of nodes) {
      const ref = (node.data as { ref?: ContentRef } | undefined)?.ref;
      if (ref?.kind === 'page' || (ref?.kind === 'anchor' && ref.page)) found.push(ref.page as string);
      if ('nodes' in node && Array.isArray(node.nodes)) walk(node.nodes as JSONNode[]);
    }
  };
  walk(document.nodes);
  return found.sort();
}

describe('hrefsNamedIn', () => {
  const markdowns = [
    'Read [Install](./guide/install.md#linux) and [the guide](guide/README.md), then [a page](/section-3/page-13/).',
    'See [one][ref] and <section-4/page-4>.\n\n[ref]: section-5/page-5.md "Title"',
    '{% content-ref url="section-6/page-16.md" %}\n[page-16](section-6/page-16.md)\n{% endcontent-ref %}',
    'A [strange name](odd/a(b)c) and [faq](faq?x=1).',
    'Nothing links here, though page-7 is mentioned.',
  ];

  it('keeps every entry the Markdown can name, so a conversion with the subset finds what it finds with the whole table', () => {
    const whole = table();
    for (const markdown of markdowns) {
      const named = hrefsNamedIn(whole, markdown);
      expect(named.size).toBeLessThan(10);
      const withWhole = refsOf(markdownToDocument(markdown, { resolveHref: resolveFromTable(whole) }).document);
      const withNamed = refsOf(markdownToDocument(markdown, { resolveHref: resolveFromTable(named) }).document);
      expect(withNamed).toEqual(withWhole);
    }
    expect(refsOf(markdownToDocument(markdowns[0]!, { resolveHref: resolveFromTable(hrefsNamedIn(whole, markdowns[0]!)) }).document)).toEqual(['guide', 'install', 'p13']);
    expect([...hrefsNamedIn(whole, markdowns[3]!).keys()]).toEqual(['/odd/a(b)c', '/faq']);
  });

  it("keeps the pages of the page's own folder and those above it, which README.md, ./ and ../ name without their names", () => {
    const whole: HrefTable = new Map([
      [pageKey(''), page('intro')],
      [pageKey('guide'), page('guide')],
      [pageKey('guide/advanced'), page('advanced')],
      [pageKey('guide/advanced/tuning'), page('tuning')],
      [pageKey('other'), page('other')],
    ]);
    const markdown = '[here](README.md) [up](../) [top](../../README.md)';
    const named = hrefsNamedIn(whole, markdown, 'guide/advanced');
    expect([...named.keys()]).toEqual(['/', '/guide', '/guide/advanced']);
    const resolve = (table: HrefTable) => refsOf(markdownToDocument(markdown, { resolveHref: resolveFromTable(table, 'guide/advanced') }).document);
    expect(resolve(named)).toEqual(resolve(whole));
    expect(resolve(named)).toEqual(['advanced', 'guide', 'intro']);
  });

  it('keeps the whole table when names may be written through character references or escapes', () => {
    const whole = table();
    for (const markdown of ['[x](section-1/page-&#49;1.md)', '[x](section-1/page\\-11.md)', '[x](gu&iuml;de)']) {
      expect(hrefsNamedIn(whole, markdown)).toBe(whole);
      const ref = refsOf(markdownToDocument(markdown, { resolveHref: resolveFromTable(hrefsNamedIn(whole, markdown)) }).document);
      expect(ref).toEqual(refsOf(markdownToDocument(markdown, { resolveHref: resolveFromTable(whole) }).document));
    }
    expect(refsOf(markdownToDocument('[x](section-1/page-&#49;1.md)', { resolveHref: resolveFromTable(whole) }).document)).toEqual(['p11']);
  });

  it('crosses to a worker as text and back as the same table', () => {
    const whole = table();
    expect(parseHrefTable(serializeHrefTable(whole))).toEqual(whole);
    expect(serializeHrefTable(whole)).toBe(serializeHrefTable(whole));
  });
});

describe('resolveFromTable', () => {
  // The layout of a revision as Git export writes it: README.md (Introduction), getting-started/README.md
  // (a page with children), getting-started/install.md, getting-started/configure.md, faq.md.
  const layout: HrefTable = new Map([
    [pageKey('introduction'), page('intro')],
    [pageKey('getting-started'), page('gs')],
    [pageKey('getting-started/install'), page('install')],
    [pageKey('getting-started/configure'), page('configure')],
    [pageKey('faq'), page('faq')],
    [pageKey('README.md'), page('intro')],
    ['my-ref', page('batch')],
  ]);

  it.each([
    // From README.md and faq.md (the top folder).
    ['', 'getting-started/install.md', page('install')],
    ['', './getting-started/install', page('install')],
    ['', 'getting-started/README.md', page('gs')],
    ['', 'getting-started/', page('gs')],
    ['', 'faq.md#why', { kind: 'anchor', anchor: 'why', page: 'faq' }],
    ['', 'README.md', page('intro')],
    ['', 'introduction.md', page('intro')],
    ['', '../faq.md', null],
    // From getting-started/install.md and getting-started/README.md (the folder getting-started).
    ['getting-started', 'configure.md', page('configure')],
    ['getting-started', './configure', page('configure')],
    ['getting-started', '../faq.md', page('faq')],
    ['getting-started', '../README.md', page('intro')],
    ['getting-started', 'README.md#setup', { kind: 'anchor', anchor: 'setup', page: 'gs' }],
    ['getting-started', '/faq.md', page('faq')],
    // A plain path naming nothing from the folder names the page at that path from the top, as before;
    // written relative (`./`, `../`), it names only what it names from the folder.
    ['getting-started', 'faq.md', page('faq')],
    ['getting-started', 'getting-started/install.md', page('install')],
    ['getting-started', './faq.md', null],
    ['getting-started', '../../faq.md', null],
    // A batch ref names its page from anywhere; URLs are not the table's.
    ['getting-started', './my-ref.md', page('batch')],
    ['getting-started', 'my-ref#top', { kind: 'anchor', anchor: 'top', page: 'batch' }],
    ['', 'https://example.com/faq.md', null],
    ['', 'ftp://example.com/faq.md', null],
  ])('from the folder %j, %s names %j', (folder, href, expected) => {
    expect(resolveFromTable(layout, folder)(href)).toEqual(expected);
  });
});

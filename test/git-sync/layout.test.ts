/**
 * The Git Sync layout both ways, on in-memory repositories: what an import
 * reads (SUMMARY.md, folders, frontmatter, relative links, assets), that ids
 * stay put across imports, and that importing an export gives the content
 * back unchanged.
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { markdownToDocument } from '../../src/content/document/markdown-parse.ts';
import { type ContentRef } from '../../src/content/document/model.ts';
import { extractReferences } from '../../src/content/document/references.ts';
import { pagePaths, placePage } from '../../src/content/page-tree.ts';
import { cloneSnapshot, putDocument } from '../../src/content/revision-store.ts';
import type { FileSnapshot, PageSnapshot, RevisionSnapshot } from '../../src/content/snapshot.ts';
import { exportRepository, importRepository, type StoredFile } from '../../src/git-sync/layout.ts';
import { parseSummary, printSummary } from '../../src/git-sync/summary.ts';
import { pageSnapshot } from '../helpers/snapshot.ts';

const T1 = new Date('2026-01-01T00:00:00Z');
const T2 = new Date('2026-02-01T00:00:00Z');
const T3 = new Date('2026-03-01T00:00:00Z');

const encoder = new TextEncoder();
const decoder = new TextDecoder();

function repository(entries: Record<string, string | Uint8Array>): Map<string, Uint8Array> {
  return new Map(Object.entries(entries).map(([path, content]) => [path, typeof content === 'string' ? encoder.encode(content) : content]));
}

/** Object storage in memory, keyed by sha-256 as the real one is. */
function fakeStorage() {
  const blobs = new Map<string, Uint8Array>();
  const types: Record<string, string> = { png: 'image/png', svg: 'image/svg+xml', pdf: 'application/pdf' };
  const storeFile = async (bytes: Uint8Array, name: string): Promise<StoredFile> => {
    const storageKey = createHash('sha256').update(bytes).digest('hex');
    blobs.set(storageKey, bytes);
    const extension = name.split('.').pop()!.toLowerCase();
    return { storageKey, size: bytes.byteLength, contentType: types[extension] ?? 'application/octet-stream', width: null, height: null };
  };
  const readFile = async (storageKey: string): Promise<Uint8Array> => {
    const bytes = blobs.get(storageKey);
    if (!bytes) throw new Error(`no blob ${storageKey}`);
    return bytes;
  };
  return { storeFile, readFile, blobs };
}

const PNG = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2, 3]);

/** A repository as people write them: content under docs/, assets beside the pages, one page left out of SUMMARY.md. */
const FIXTURE = {
  '.gitbook.yaml': 'root: ./docs/\n\nstructure:\n  readme: README.md\n  summary: SUMMARY.md\n\nredirects:\n  old/page: guide/install.md\n',
  'README.md': '# The repository README, outside the content root\n',
  'docs/SUMMARY.md': [
    '# Summary',
    '',
    '* [Welcome](README.md)',
    '* [Guide](guide/README.md)',
    '    * [Install](guide/install.md)',
    '    * [Configure](guide/configure.md)',
    '        * [Advanced](guide/advanced/README.md)',
    '* [Status page](https://status.example.com)',
    '',
    '## Reference',
    '',
    '* [API](reference/api.md)',
    '* [CLI](reference/cli.md)',
    '',
  ].join('\n'),
  'docs/README.md': '---\ndescription: Where to start\n---\n\n# Welcome\n\nStart with the [install guide](guide/install.md).\n',
  'docs/guide/README.md': '# Guide\n\nAn overview.\n',
  'docs/guide/install.md': [
    '---',
    'description: Installing the tool',
    'icon: download',
    '---',
    '',
    '# Install',
    '',
    '![A screenshot](../images/shot.png)',
    '',
    'Then read about [authentication](../reference/api.md#authentication).',
    '',
  ].join('\n'),
  'docs/guide/configure.md': '# Configure\n\nSee [the CLI](../reference/cli.md).\n',
  'docs/guide/advanced/README.md': '# Advanced\n\nBack to [install](../install.md); the same ![shot](../../images/shot.png).\n',
  'docs/reference/api.md': '# API\n\nUse [the CLI](cli.md), not [the draft](../drafts/unlisted.md) nor [this](nope.md).\n',
  'docs/reference/cli.md': '# CLI\n\n{% file src="../files/manual.pdf" %}\n',
  'docs/drafts/unlisted.md': '# Unlisted draft\n',
  'docs/images/shot.png': PNG,
  'docs/files/manual.pdf': '%PDF-1.4 manual',
};

function byPath(snapshot: RevisionSnapshot): Map<string, PageSnapshot> {
  const paths = pagePaths(snapshot.pages);
  return new Map([...snapshot.pages.values()].map((p) => [paths.get(p.id)!, p]));
}

function refsOf(snapshot: RevisionSnapshot, page: PageSnapshot): ContentRef[] {
  return extractReferences(snapshot.documents.get(page.documentHash!)!).map((r) => r.ref);
}

function fileNamed(snapshot: RevisionSnapshot, name: string): FileSnapshot {
  const file = [...snapshot.files.values()].find((f) => f.name === name);
  if (!file) throw new Error(`no file ${name}`);
  return file;
}

/** The tree as `path title kind`, in tree order. */
function outline(snapshot: RevisionSnapshot): string[] {
  const paths = pagePaths(snapshot.pages);
  const out: string[] = [];
  const walk = (parentId: string | null, depth: number) => {
    const children = [...snapshot.pages.values()].filter((p) => p.parentId === parentId).sort((a, b) => a.index - b.index);
    children.forEach((p, i) => {
      expect(p.index).toBe(i);
      out.push(`${'  '.repeat(depth)}${paths.get(p.id)} | ${p.title} | ${p.kind}`);
      walk(p.id, depth + 1);
    });
  };
  walk(null, 0);
  return out;
}

/** The fixture's content plus what only the API makes: link pages to pages, nested and non-trailing groups, layout, emoji, files no page uses. */
async function richContent() {
  const storage = fakeStorage();
  const { snapshot: imported } = await importRepository(repository(FIXTURE), { storeFile: storage.storeFile, now: T1 });
  const x = cloneSnapshot(imported);
  const pages = byPath(x);
  const id = (path: string) => pages.get(path)!.id;
  const addFile = async (id: string, name: string, bytes: Uint8Array) => {
    const stored = await storage.storeFile(bytes, name);
    const file: FileSnapshot = { id, name, ...stored };
    x.files.set(id, file);
    return file;
  };
  await addFile('file-logo', 'logo.svg', encoder.encode('<svg/>'));
  await addFile('~file-shot-2', 'shot.png', new Uint8Array([...PNG, 9]));
  await addFile('file-odd', 'odd name #1?.png', new Uint8Array([...PNG, 8]));

  const add = (fields: Partial<PageSnapshot> & { id: string; title: string; slug: string }, parentId: string | null, at?: number, markdown?: string) => {
    const page = pageSnapshot({ parentId, createdAt: T1, updatedAt: T1, ...fields });
    if (page.kind === 'document') page.documentHash = putDocument(x, markdownToDocument(markdown ?? '').document);
    placePage(x.pages, page, parentId, at);
  };
  // A link page to a page, before the page itself, at the top and beside it.
  add({ id: 'link-install-top', kind: 'link', title: 'Install shortcut', slug: 'install-shortcut', linkTarget: { kind: 'page', page: id('guide/install') } }, null, 1);
  add({ id: 'link-install-beside', kind: 'link', title: 'Install again', slug: 'install-again', linkTarget: { kind: 'page', page: id('guide/install') } }, id('guide'), 0);
  add({ id: 'link-anchor', kind: 'link', title: 'Auth', slug: 'auth', linkTarget: { kind: 'anchor', anchor: 'authentication', page: id('reference/api') } }, null, 2);
  add({ id: 'link-file', kind: 'link', title: 'Logo', slug: 'logo', linkTarget: { kind: 'file', file: 'file-logo' } }, null, 3);
  // A group below the root, holding a page that uses the second shot.png and a strangely named file.
  add({ id: 'group-extras', kind: 'group', title: 'Extras', slug: 'extras' }, id('guide'));
  add({ id: 'page-extra', title: 'Extra', slug: 'extra', emoji: '1f680' }, 'group-extras', 0, '![other](/files/~file-shot-2) ![odd](/files/file-odd)\n\nA [dangling](/pages/no-such-page) link.\n');
  // Metadata GitBook keeps in frontmatter.
  x.pages.set(id('guide'), {
    ...x.pages.get(id('guide'))!,
    hidden: true,
    noIndex: true,
    noRobotsIndex: true,
    emoji: '1f4d6',
    layout: { width: 'wide', cover: true, coverSize: 'hero', title: true, outline: false, pagination: true },
  });
  // Page settings: a cover of a file with a dark URL twin, meta links to a page and a URL, variables, computed content.
  x.pages.set(id('guide/configure'), {
    ...x.pages.get(id('guide/configure'))!,
    cover: { ref: { kind: 'file', file: 'file-logo' }, refDark: { kind: 'url', url: 'https://cdn.example.com/dark.png' }, yPos: -40, height: 320 },
    metaLinks: { canonical: { kind: 'page', page: id('guide/install') }, alternates: [{ kind: 'url', url: 'https://example.fr/configurer' }] },
    variables: { product: 'Acme', major: 2, beta: false },
    computed: { type: 'builtin:openapi', props: { doc: 'models' }, dependencies: { spec: { ref: { kind: 'openapi', spec: 'petstore' } } } },
    computedSeed: 'seed-1',
  });
  x.variables = { product: 'Acme', version: '2.1', released: true };
  // Tags: one with an emoji (a variation selector kept), one with an icon and a color, one plain; two pages carry them.
  x.tags = new Map([
    ['beta', { slug: 'beta', label: 'Beta', color: 'default', emoji: '1f6e0-fe0f', icon: null }],
    ['new', { slug: 'new', label: 'New: shiny', color: '$primary', emoji: null, icon: 'sparkle' }],
    ['api', { slug: 'api', label: 'API', color: 'default', emoji: null, icon: null }],
  ]);
  x.pages.set(id('guide/install'), { ...x.pages.get(id('guide/install'))!, tags: [{ tag: 'api' }, { tag: 'beta', primary: true }] });
  x.pages.set(id('guide/configure'), { ...x.pages.get(id('guide/configure'))!, tags: [{ tag: 'new' }] });
  // Reusable contents: one linking to a page, included by a page; one no page includes.
  const warning = markdownToDocument(`Mind the **rate limit**. See [install](/pages/${id('guide/install')}).\n`).document;
  x.reusableContents.set('rc-warning', { id: 'rc-warning', title: 'API warning', documentHash: putDocument(x, warning) });
  x.reusableContents.set('rc-unused', { id: 'rc-unused', title: 'Unused snippet', documentHash: putDocument(x, markdownToDocument('Nobody includes this.\n').document) });
  // Another space's reusable content and page keep their space (they have no file here).
  add(
    { id: 'page-includes', title: 'Includes', slug: 'includes' },
    id('guide'),
    undefined,
    'Before.\n\n{% include "/reusable-contents/rc-warning" %}\n\n{% include "/spaces/space-2/reusable-contents/rc-shared" %}\n\nSee [theirs](/spaces/space-2/pages/p-9).\n',
  );
  // A page whose text starts with a heading other than its title; a page whose slug reads as SUMMARY.md.
  add({ id: 'page-notes', title: 'Notes', slug: 'notes', description: '' }, null, undefined, '# _\n\n# Real heading\n\nText.\n');
  add({ id: 'page-summary', title: 'Summary page', slug: 'summary' }, null);
  // Reference is no longer the last root page: it is written as a plain item, More as a heading.
  // A group with an emoji and a slug its title would not give; a link page with an icon and an emoji; a redirect.
  add({ id: 'group-more', kind: 'group', title: 'More', slug: 'misc', emoji: '1f6e0-fe0f' }, null);
  x.pages.set('link-anchor', { ...x.pages.get('link-anchor')!, icon: 'key', emoji: '1f511' });
  x.redirects = new Map([['help/install', id('guide/install')]]);
  add({ id: 'page-faq', title: 'FAQ', slug: 'faq' }, 'group-more', 0, 'See [notes](/pages/page-notes).\n');
  add({ id: 'group-empty', kind: 'group', title: 'Empty group', slug: 'empty-group' }, null);
  return { x, storage };
}

describe('importRepository', () => {
  it('reads the tree from SUMMARY.md under the configured root', async () => {
    const { storeFile } = fakeStorage();
    const { snapshot, warnings } = await importRepository(repository(FIXTURE), { storeFile, now: T1 });
    expect(outline(snapshot)).toEqual([
      'welcome | Welcome | document',
      'guide | Guide | document',
      '  guide/install | Install | document',
      '  guide/configure | Configure | document',
      '    guide/configure/advanced | Advanced | document',
      'status-page | Status page | link',
      'reference | Reference | group',
      '  reference/api | API | document',
      '  reference/cli | CLI | document',
    ]);
    const pages = byPath(snapshot);
    expect(pages.get('status-page')!.linkTarget).toEqual({ kind: 'url', url: 'https://status.example.com' });
    expect(pages.get('welcome')!.description).toBe('Where to start');
    expect(pages.get('guide/install')).toMatchObject({ description: 'Installing the tool', icon: 'download', hidden: false, createdAt: T1, updatedAt: T1 });
    // The page file not in SUMMARY.md is not a page (GitBook ignores it), and says so.
    expect([...snapshot.pages.values()].some((p) => p.title === 'Unlisted draft')).toBe(false);
    expect(warnings).toContain('1 Markdown file is not in docs/SUMMARY.md and not imported: docs/drafts/unlisted.md');
    expect(warnings.filter((w) => w.startsWith('docs/reference/api.md:'))).toEqual([
      'docs/reference/api.md: link to "../drafts/unlisted.md" is not a page of the table of contents; kept as a URL',
      'docs/reference/api.md: link to "nope.md" points to a missing file; kept as a URL',
    ]);
    expect(warnings).toHaveLength(3);
    // .gitbook.yaml's redirect, relative to the root, leads to the page of its file.
    expect([...snapshot.redirects]).toEqual([['old/page', pages.get('guide/install')!.id]]);
  });

  it('turns relative links into page and file references', async () => {
    const { storeFile } = fakeStorage();
    const { snapshot } = await importRepository(repository(FIXTURE), { storeFile, now: T1 });
    const pages = byPath(snapshot);
    const id = (path: string) => pages.get(path)!.id;
    const shot = fileNamed(snapshot, 'shot.png');
    const manual = fileNamed(snapshot, 'manual.pdf');
    expect(snapshot.files.size).toBe(2);
    expect(shot).toMatchObject({ contentType: 'image/png', size: PNG.byteLength, storageKey: createHash('sha256').update(PNG).digest('hex') });

    expect(refsOf(snapshot, pages.get('welcome')!)).toEqual([{ kind: 'page', page: id('guide/install') }]);
    expect(refsOf(snapshot, pages.get('guide/install')!)).toEqual([
      { kind: 'file', file: shot.id },
      { kind: 'anchor', anchor: 'authentication', page: id('reference/api') },
    ]);
    // Across folders, `../` and the same image from two pages (one file).
    expect(refsOf(snapshot, pages.get('guide/configure')!)).toEqual([{ kind: 'page', page: id('reference/cli') }]);
    expect(refsOf(snapshot, pages.get('guide/configure/advanced')!)).toEqual([
      { kind: 'page', page: id('guide/install') },
      { kind: 'file', file: shot.id },
    ]);
    // Targets that are not pages stay as written, as URLs.
    expect(refsOf(snapshot, pages.get('reference/api')!)).toEqual([
      { kind: 'page', page: id('reference/cli') },
      { kind: 'url', url: '../drafts/unlisted.md' },
      { kind: 'url', url: 'nope.md' },
    ]);
    const cli = snapshot.documents.get(pages.get('reference/cli')!.documentHash!)!;
    expect(cli.nodes[0]).toMatchObject({ type: 'file', data: { ref: { kind: 'file', file: manual.id } } });
  });

  it('keeps ids, creation and update dates when the same repository is imported again', async () => {
    const { storeFile } = fakeStorage();
    const first = await importRepository(repository(FIXTURE), { storeFile, now: T1 });
    const again = await importRepository(repository(FIXTURE), { storeFile, now: T2, previous: first.snapshot });
    expect(again.snapshot).toEqual(first.snapshot);

    // One page edited: its id stays, only its updatedAt moves.
    const edited = repository({ ...FIXTURE, 'docs/guide/configure.md': '# Configure\n\nEdited.\n' });
    const third = await importRepository(edited, { storeFile, now: T3, previous: again.snapshot });
    const before = byPath(again.snapshot);
    const after = byPath(third.snapshot);
    expect([...after.keys()]).toEqual([...before.keys()]);
    for (const [path, page] of after) {
      expect(page.id).toBe(before.get(path)!.id);
      expect(page.createdAt).toEqual(T1);
      expect(page.updatedAt).toEqual(path === 'guide/configure' ? T3 : T1);
    }
    expect([...third.snapshot.files.keys()].sort()).toEqual([...first.snapshot.files.keys()].sort());
  });

  it('builds the tree from folders when there is no SUMMARY.md', async () => {
    const { storeFile } = fakeStorage();
    const { snapshot, warnings } = await importRepository(
      repository({
        'README.md': '# Home\n',
        'getting-started.md': '# Getting started\n',
        'guide/README.md': '# The guide\n\nSee [a](a.md).\n',
        'guide/b.md': '# B page\n',
        'guide/a.md': 'No heading here.\n',
        'guide/deep/x.md': '# X\n',
        'reference/api.md': '# API\n',
        '.github/ISSUE_TEMPLATE.md': '# Not content\n',
        'notes.txt': 'not a page',
      }),
      { storeFile, now: T1 },
    );
    expect(warnings).toEqual([]);
    expect(outline(snapshot)).toEqual([
      'home | Home | document',
      'getting-started | Getting started | document',
      'guide | The guide | document',
      '  guide/a | A | document',
      '  guide/b | B page | document',
      '  guide/deep | Deep | document',
      '    guide/deep/x | X | document',
      'reference | Reference | group',
      '  reference/api | API | document',
    ]);
    const pages = byPath(snapshot);
    expect(refsOf(snapshot, pages.get('guide')!)).toEqual([{ kind: 'page', page: pages.get('guide/a')!.id }]);
    expect(snapshot.documents.get(pages.get('guide/deep')!.documentHash!)!.nodes).toEqual([]);
  });

  it("reads GitHub alerts as hints, and writes them back in GitBook's hint form", async () => {
    const { storeFile, readFile } = fakeStorage();
    const { snapshot } = await importRepository(repository({ 'README.md': '# Home\n\n> [!TIP]\n> Use the CLI.\n\n> [!CAUTION]\n> It deletes.\n' }), { storeFile, now: T1 });
    const home = byPath(snapshot).get('home')!;
    expect(snapshot.documents.get(home.documentHash!)!.nodes.map((n) => [n.type, n.data])).toEqual([
      ['hint', { style: 'success' }],
      ['hint', { style: 'danger' }],
    ]);
    const exported = await exportRepository(snapshot, { readFile });
    expect(decoder.decode(exported.get('README.md'))).toBe(
      '# Home\n\n{% hint style="success" %}\nUse the CLI.\n{% endhint %}\n\n{% hint style="danger" %}\nIt deletes.\n{% endhint %}\n',
    );
  });

  it('skips binary and non-UTF-8 page files with a warning', async () => {
    const { storeFile } = fakeStorage();
    const { snapshot, warnings } = await importRepository(
      repository({
        'README.md': '# Home\n',
        'SUMMARY.md': '* [Home](README.md)\n* [Binary](binary.md)\n    * [Child](child.md)\n* [Latin-1](latin.md)\n* [Gone](gone.md)\n',
        'binary.md': new Uint8Array([0x23, 0x20, 0x00, 0x01]),
        'child.md': '# Child\n',
        'latin.md': new Uint8Array([0x23, 0x20, 0xe9, 0x74, 0xe9]),
      }),
      { storeFile, now: T1 },
    );
    expect(outline(snapshot)).toEqual(['home | Home | document', 'child | Child | document']);
    expect(warnings).toEqual(['binary.md: binary file, skipped', 'latin.md: not UTF-8 text, skipped', 'SUMMARY.md: gone.md is missing, skipped']);
  });

  it('skips page files over a Markdown limit with a warning naming it, and a SUMMARY.md over one', async () => {
    const { storeFile } = fakeStorage();
    const { snapshot, warnings } = await importRepository(
      repository({
        'README.md': '# Home\n',
        'SUMMARY.md': '* [Home](README.md)\n* [Emphasis](emphasis.md)\n    * [Child](child.md)\n* [Hints](hints.md)\n',
        'emphasis.md': '*a'.repeat(32_000),
        'child.md': '# Child\n',
        'hints.md': `${'{% hint %}\n\n'.repeat(40)}x\n\n${'{% endhint %}\n\n'.repeat(40)}`,
      }),
      { storeFile, now: T1 },
    );
    expect(outline(snapshot)).toEqual(['home | Home | document', 'child | Child | document', 'hints | Hints | document']);
    const hints = [...snapshot.pages.values()].find((p) => p.slug === 'hints')!;
    expect(snapshot.documents.get(hints.documentHash!)!.nodes).toEqual([]);
    expect(warnings).toEqual([
      'emphasis.md: at most 500 inline delimiters (runs of *, _, ~ and backticks; [, ] and <) in one paragraph (MARKDOWN_MAX_INLINE_DELIMITERS); the paragraph at line 1 has more; skipped',
      'hints.md: block quotes, list items, footnote definitions, GitBook blocks and <details> nest at most 32 deep (MARKDOWN_MAX_NESTING); the document nests deeper; its content is skipped',
    ]);

    const deepSummary = await importRepository(
      repository({ 'README.md': '# Home\n', 'SUMMARY.md': `${'> '.repeat(40)}* [Home](README.md)\n`, 'other.md': '# Other\n' }),
      { storeFile, now: T1 },
    );
    expect(deepSummary.warnings[0]).toMatch(/^SUMMARY\.md: block quotes, .* \(MARKDOWN_MAX_NESTING\); line 1 nests deeper; skipped$/);
    // Without its table of contents the tree comes from the folders.
    expect(outline(deepSummary.snapshot)).toEqual(['home | Home | document', 'other | Other | document']);
  });

  it('takes the title from SUMMARY.md and keeps a different first heading in the text', async () => {
    const { storeFile } = fakeStorage();
    const { snapshot } = await importRepository(
      repository({
        'README.md': '# Home\n',
        'SUMMARY.md': '* [Home](README.md)\n* [Short](page.md)\n',
        'page.md': '---\nhidden: true\n---\n# A much longer heading\n\nBody.\n',
      }),
      { storeFile, now: T1 },
    );
    const page = byPath(snapshot).get('page')!;
    expect(page).toMatchObject({ title: 'Short', hidden: true });
    const document = snapshot.documents.get(page.documentHash!)!;
    expect(document.nodes.map((n) => n.type)).toEqual(['heading-1', 'paragraph']);
  });

  it("reads a group's emoji, icon and slug, ends it at a rule, reads redirects, and leaves out a computed entry with a warning", async () => {
    const { storeFile } = fakeStorage();
    const { snapshot, warnings } = await importRepository(
      repository({
        '.gitbook.yaml': 'redirects:\n  /help/: api/overview.md\n  old: missing.md\n  ../out: README.md\n',
        'README.md': '# Home\n',
        'SUMMARY.md': [
          '# Table of contents',
          '',
          '* [Home](README.md)',
          '',
          '## <i class="fa-code">:code:</i> 🧰 API reference <a href="#api" id="api"></a>',
          '',
          '* [Overview](api/overview.md)',
          '* ```yaml',
          '  type: builtin:openapi',
          '  props:',
          '    models: true',
          '  ```',
          '',
          '***',
          '',
          '* [🚀 Launch](https://example.com/launch)',
          '',
        ].join('\n'),
        'api/overview.md': '# Overview\n',
      }),
      { storeFile, now: T1 },
    );
    expect(outline(snapshot)).toEqual(['home | Home | document', 'api | API reference | group', '  api/overview | Overview | document', 'launch | Launch | link']);
    const pages = byPath(snapshot);
    expect(pages.get('api')).toMatchObject({ icon: 'code', emoji: '1f9f0' });
    expect(pages.get('launch')).toMatchObject({ emoji: '1f680', icon: null });
    expect([...snapshot.redirects]).toEqual([['help', pages.get('api/overview')!.id]]);
    expect(warnings).toEqual([
      '.gitbook.yaml: redirect "../out": "README.md" is not a path to a page file, ignored',
      'SUMMARY.md: a computed entry (builtin:openapi) is not imported: computed pages are not supported yet',
      '.gitbook.yaml: redirect "old" leads to missing.md, which is not a page; ignored',
    ]);
  });

  it('reads structure.readme and structure.summary relative to the root, in the project directory', async () => {
    const { storeFile } = fakeStorage();
    const { snapshot, warnings } = await importRepository(
      repository({
        '.gitbook.yaml': 'root: ./not-this/\n',
        'packages/api/.gitbook.yaml': 'root: ./docs\nstructure:\n  readme: intro.md\n  summary: ./toc/SUMMARY.md\n',
        'packages/api/docs/intro.md': '# Intro\n',
        'packages/api/docs/toc/SUMMARY.md': '# Summary\n\n* [Usage](../usage.md)\n',
        'packages/api/docs/usage.md': '# Usage\n\n![logo](../../../shared/logo.png)\n',
        'shared/logo.png': PNG,
      }),
      { projectDirectory: '/packages/api/', storeFile, now: T1 },
    );
    expect(outline(snapshot)).toEqual(['intro | Intro | document', 'usage | Usage | document']);
    // Files outside the project directory are not the section's.
    expect(snapshot.files.size).toBe(0);
    expect(warnings).toEqual(['packages/api/docs/usage.md: link to "../../../shared/logo.png" points to a missing file; kept as a URL']);
  });

  it('falls back to the defaults for an unreadable .gitbook.yaml', async () => {
    const { storeFile } = fakeStorage();
    const { snapshot, warnings } = await importRepository(
      repository({ '.gitbook.yaml': 'root: [unclosed\n', 'README.md': '# Home\n', 'other.gitbook.yaml': 'root: ../../\n' }),
      { storeFile, now: T1 },
    );
    expect(outline(snapshot)).toEqual(['home | Home | document']);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/^\.gitbook\.yaml: unreadable \(.*\), defaults used$/);
    const outside = await importRepository(repository({ '.gitbook.yaml': 'root: ../elsewhere\n', 'README.md': '# Home\n' }), { storeFile, now: T1 });
    expect(outside.warnings).toEqual(['.gitbook.yaml: root "../elsewhere" is not a path inside the repository, default used']);
  });

  it('imports a repository of 1,000 pages', async () => {
    const { storeFile } = fakeStorage();
    const entries: Record<string, string | Uint8Array> = { 'README.md': '# Home\n', 'assets/logo.png': PNG };
    const summary = ['# Summary', '', '* [Home](README.md)'];
    for (let s = 0; s < 20; s++) {
      summary.push(`* [Section ${s}](section-${s}/README.md)`);
      entries[`section-${s}/README.md`] = `# Section ${s}\n\n![logo](../assets/logo.png)\n`;
      for (let p = 0; p < 49; p++) {
        summary.push(`    * [Page ${s}.${p}](section-${s}/page-${p}.md)`);
        const next = p < 48 ? `page-${p + 1}.md` : `../section-${(s + 1) % 20}/README.md`;
        entries[`section-${s}/page-${p}.md`] = `---\ndescription: Page ${p} of section ${s}\n---\n# Page ${s}.${p}\n\nNext: [next](${next}).\n`;
      }
    }
    entries['SUMMARY.md'] = summary.join('\n');
    const { snapshot, warnings } = await importRepository(repository(entries), { storeFile, now: T1 });
    expect(warnings).toEqual([]);
    expect(snapshot.pages.size).toBe(1 + 20 + 20 * 49);
    expect(snapshot.files.size).toBe(1);
    const pages = byPath(snapshot);
    const page = pages.get('section-3/page-48')!;
    expect(page).toMatchObject({ title: 'Page 3.48', description: 'Page 48 of section 3', parentId: pages.get('section-3')!.id, index: 48 });
    expect(refsOf(snapshot, page)).toEqual([{ kind: 'page', page: pages.get('section-4')!.id }]);
    const roots = [...snapshot.pages.values()].filter((p) => p.parentId === null);
    expect(roots.map((p) => p.index).sort((a, b) => a - b)).toEqual([...Array(21).keys()]);
  });
});

describe('exportRepository', () => {
  it('writes the GitBook layout', async () => {
    const { x, storage } = await richContent();
    // A redirect to a page the content lost has nowhere to lead: it is not written.
    x.redirects.set('old/gone', 'no-such-page');
    const out = await exportRepository(x, { readFile: storage.readFile });
    const text = (path: string) => decoder.decode(out.get(path)!);
    expect([...out.keys()]).toEqual([
      '.gitbook.yaml',
      '.gitbook/assets/logo.svg',
      '.gitbook/assets/manual.pdf',
      '.gitbook/assets/odd name #1?.png',
      '.gitbook/assets/shot (1).png',
      '.gitbook/assets/shot.png',
      '.gitbook/includes/api-warning.md',
      '.gitbook/includes/unused-snippet.md',
      '.gitbook/tags.yaml',
      '.gitbook/vars.yaml',
      'README.md',
      'SUMMARY.md',
      'guide/README.md',
      'guide/configure/README.md',
      'guide/configure/advanced.md',
      'guide/extras/extra.md',
      'guide/includes.md',
      'guide/install.md',
      'misc/faq.md',
      'notes.md',
      'reference/api.md',
      'reference/cli.md',
      'summary/README.md',
    ]);
    expect(text('.gitbook.yaml')).toBe('root: ./\nstructure:\n  readme: README.md\n  summary: SUMMARY.md\nredirects:\n  help/install: guide/install.md\n');
    expect(text('SUMMARY.md')).toBe(
      [
        '# Table of contents',
        '',
        '* [Welcome](README.md)',
        '* [Install shortcut](guide/install.md)',
        '* [<i class="fa-key">:key:</i> 🔑 Auth](reference/api.md#authentication)',
        '* [Logo](.gitbook/assets/logo.svg)',
        '* [Guide](guide/README.md)',
        '  * [Install again](guide/install.md)',
        '  * [Install](guide/install.md)',
        '  * [Configure](guide/configure/README.md)',
        '    * [Advanced](guide/configure/advanced.md)',
        '  * Extras',
        '    * [Extra](guide/extras/extra.md)',
        '  * [Includes](guide/includes.md)',
        '* [Status page](https://status.example.com)',
        '',
        '## Reference',
        '',
        '* [API](reference/api.md)',
        '* [CLI](reference/cli.md)',
        '',
        '***',
        '',
        '* [Notes](notes.md)',
        '* [Summary page](summary/README.md)',
        '',
        '## 🛠️ More <a href="#misc" id="misc"></a>',
        '',
        '* [FAQ](misc/faq.md)',
        '',
        '## Empty group',
        '',
      ].join('\n'),
    );
    expect(text('README.md')).toBe('---\ndescription: Where to start\n---\n\n# Welcome\n\nStart with the [install guide](guide/install.md).\n');
    expect(text('guide/README.md')).toBe(
      [
        '---',
        'emoji: 1f4d6',
        'hidden: true',
        'noIndex: true',
        'noRobotsIndex: true',
        'layout:',
        '  width: wide',
        '  cover:',
        '    visible: true',
        '    size: hero',
        '  title:',
        '    visible: true',
        '  outline:',
        '    visible: false',
        '  pagination:',
        '    visible: true',
        '---',
        '',
        '# Guide',
        '',
        'An overview.',
        '',
      ].join('\n'),
    );
    // Links are relative to the page's own file, wherever it moved.
    expect(text('guide/configure/advanced.md')).toBe('# Advanced\n\nBack to [install](../install.md); the same ![shot](../../.gitbook/assets/shot.png).\n');
    expect(text('guide/extras/extra.md')).toContain('![other](../../.gitbook/assets/shot%20\\(1\\).png)');
    expect(text('guide/extras/extra.md')).toContain('odd%20name%20%231%3F.png');
    expect(text('guide/extras/extra.md')).toContain('[dangling](/pages/no-such-page)');
    expect(text('reference/cli.md')).toBe('# CLI\n\n{% file src="../.gitbook/assets/manual.pdf" %}\n');
    expect(out.get('.gitbook/assets/shot.png')).toEqual(PNG);
  });

  it('writes the same bytes for the same content', async () => {
    const { x, storage } = await richContent();
    const first = await exportRepository(x, { readFile: storage.readFile });
    const second = await exportRepository(cloneSnapshot(x), { readFile: storage.readFile });
    expect([...second.keys()]).toEqual([...first.keys()]);
    for (const [path, bytes] of first) expect(Buffer.from(second.get(path)!).equals(Buffer.from(bytes)), path).toBe(true);
  });

  it('places the content under the project directory and root', async () => {
    const { x, storage } = await richContent();
    const out = await exportRepository(x, { projectDirectory: 'packages/docs', root: 'content', readFile: storage.readFile });
    expect(decoder.decode(out.get('packages/docs/.gitbook.yaml')!)).toBe(
      'root: ./content/\nstructure:\n  readme: README.md\n  summary: SUMMARY.md\nredirects:\n  help/install: guide/install.md\n',
    );
    expect(out.has('packages/docs/content/SUMMARY.md')).toBe(true);
    expect(out.has('packages/docs/content/.gitbook/assets/logo.svg')).toBe(true);
    expect([...out.keys()].every((p) => p.startsWith('packages/docs/'))).toBe(true);
    const back = await importRepository(out, { projectDirectory: 'packages/docs', previous: x, storeFile: storage.storeFile, now: T3 });
    expect(back.snapshot).toEqual(x);
  });
});

describe('page settings and variables', () => {
  it('reads covers, coverY, vars and .gitbook/vars.yaml as GitBook writes them', async () => {
    const storage = fakeStorage();
    const files = repository({
      ...FIXTURE,
      'docs/guide/configure.md': '---\ncover: ../images/shot.png\ncoverY: 12\nvars:\n  tool: acme\n  bad name: x\n---\n\n# Configure\n',
      'docs/guide/install.md': '---\ncover:\n  light: https://cdn.example.com/light.png\n  dark: ../images/shot.png\n---\n\n# Install\n',
      'docs/.gitbook/vars.yaml': 'product: Acme\nversion: "2.1"\nseats: 5\nnested: { no: 1 }\n',
    });
    const { snapshot, warnings } = await importRepository(files, { storeFile: storage.storeFile, now: T1 });
    const pages = byPath(snapshot);
    const shot = fileNamed(snapshot, 'shot.png');
    expect(pages.get('guide/configure')!.cover).toEqual({ ref: { kind: 'file', file: shot.id }, yPos: 12 });
    expect(pages.get('guide/configure')!.variables).toEqual({ tool: 'acme' });
    expect(pages.get('guide/install')!.cover).toEqual({ ref: { kind: 'url', url: 'https://cdn.example.com/light.png' }, refDark: { kind: 'file', file: shot.id }, yPos: 0 });
    expect(snapshot.variables).toEqual({ product: 'Acme', version: '2.1', seats: 5 });
    expect(warnings).toContain('docs/.gitbook/vars.yaml: "nested" not read (a name is letters, digits and "_"; a value a string of at most 256 characters, a number or a boolean)');
  });

  it('writes them back to frontmatter and vars.yaml, paths relative to the page', async () => {
    const { x, storage } = await richContent();
    const exported = await exportRepository(x, { readFile: storage.readFile });
    const text = (path: string) => decoder.decode(exported.get(path)!);
    expect(text('guide/configure/README.md')).toContain(
      [
        'cover:',
        '  light: ../../.gitbook/assets/logo.svg',
        '  dark: https://cdn.example.com/dark.png',
        'coverY: -40',
        'coverHeight: 320',
        'metaLinks:',
        '  canonical: ../install.md',
        '  alternates:',
        '    - https://example.fr/configurer',
        'vars:',
        '  product: Acme',
        '  major: 2',
        '  beta: false',
      ].join('\n'),
    );
    expect(text('.gitbook/vars.yaml')).toBe('product: Acme\nversion: "2.1"\nreleased: true\n');
  });
});

describe('tags', () => {
  it("reads .gitbook/tags.yaml and the pages' frontmatter tags as GitBook writes them; what it cannot use is left out with a warning", async () => {
    const storage = fakeStorage();
    const files = repository({
      ...FIXTURE,
      'docs/.gitbook/tags.yaml': [
        '- tag: beta',
        '  label: Beta',
        '  emoji: 🎉',
        '- tag: new',
        '  label: New',
        '  icon: sparkle',
        '- tag: api',
        '  color: purple',
        '- tag: Bad Slug',
        '  label: Bad',
        '- tag: beta',
        '  label: Beta again',
        '- just a word',
        '',
      ].join('\n'),
      'docs/guide/install.md': '---\ntags:\n  - beta\n  - tag: new\n    primary: true\n  - missing\n---\n\n# Install\n',
    });
    const { snapshot, warnings } = await importRepository(files, { storeFile: storage.storeFile, now: T1 });
    expect([...snapshot.tags.values()]).toEqual([
      { slug: 'beta', label: 'Beta', color: 'default', emoji: '1f389', icon: null },
      { slug: 'new', label: 'New', color: 'default', emoji: null, icon: 'sparkle' },
      { slug: 'api', label: 'api', color: 'purple', emoji: null, icon: null },
    ]);
    const pages = byPath(snapshot);
    expect(pages.get('guide/install')!.tags).toEqual([{ tag: 'beta' }, { tag: 'new', primary: true }]);
    expect(pages.get('guide/configure')!.tags).toBeNull();
    expect(warnings).toEqual(
      expect.arrayContaining([
        'docs/.gitbook/tags.yaml: entry 4 left out (tag: "Bad Slug": a slug is lowercase letters and digits, "-" or "_" between them, at most 64 characters)',
        'docs/.gitbook/tags.yaml: tag "beta" is listed twice; the first is kept',
        'docs/.gitbook/tags.yaml: entry 6 is not a mapping of tag, label, emoji or icon, and color; left out',
        'docs/guide/install.md: tag "missing" is not in .gitbook/tags.yaml; left out',
      ]),
    );
  });

  it('writes them to .gitbook/tags.yaml (emoji as the character, color only when not the default) and to frontmatter', async () => {
    const { x, storage } = await richContent();
    const exported = await exportRepository(x, { readFile: storage.readFile });
    const text = (path: string) => decoder.decode(exported.get(path)!);
    expect(text('.gitbook/tags.yaml')).toBe('- tag: beta\n  label: Beta\n  emoji: 🛠️\n- tag: new\n  label: "New: shiny"\n  icon: sparkle\n  color: $primary\n- tag: api\n  label: API\n');
    expect(text('guide/install.md')).toContain('\nicon: download\ntags:\n  - api\n  - tag: beta\n    primary: true\n---\n');
    expect(text('guide/configure/README.md')).toContain('\ntags:\n  - new\n');
    // Without tags, no file.
    const none = cloneSnapshot(x);
    none.tags = new Map();
    for (const [id, page] of none.pages) none.pages.set(id, { ...page, tags: null });
    expect((await exportRepository(none, { readFile: storage.readFile })).has('.gitbook/tags.yaml')).toBe(false);
  });
});

describe('reusable contents', () => {
  it('reads .gitbook/includes/ and the includes of pages as GitBook lays them out', async () => {
    const storage = fakeStorage();
    const files = repository({
      ...FIXTURE,
      'docs/.gitbook/includes/api-warning.md': '---\ntitle: API warning\n---\n\nMind the rate limit; see [the CLI](../../reference/cli.md).\n',
      'docs/.gitbook/includes/footer.md': 'Thanks for reading.\n',
      'docs/guide/configure.md': '# Configure\n\n{% include "../.gitbook/includes/api-warning.md" %}\n\nDone.\n',
    });
    const { snapshot, paths } = await importRepository(files, { storeFile: storage.storeFile, now: T1 });
    const contents = [...snapshot.reusableContents.values()];
    expect(contents.map((c) => c.title).sort()).toEqual(['API warning', 'Footer']);
    const warning = contents.find((c) => c.title === 'API warning')!;
    const pages = byPath(snapshot);
    expect(extractReferences(snapshot.documents.get(warning.documentHash)!).map((r) => r.ref)).toEqual([{ kind: 'page', page: pages.get('reference/cli')!.id }]);
    const configure = snapshot.documents.get(pages.get('guide/configure')!.documentHash!)!;
    expect(configure.nodes.find((n) => n.type === 'reusable-content')?.data).toEqual({ ref: { kind: 'reusable-content', reusableContent: warning.id } });
    expect(paths.reusableContents[warning.id]).toBe('docs/.gitbook/includes/api-warning.md');
    // Imported again with the first as previous: the same ids.
    const again = await importRepository(files, { previous: snapshot, storeFile: storage.storeFile, now: T2 });
    expect([...again.snapshot.reusableContents.keys()].sort()).toEqual([...snapshot.reusableContents.keys()].sort());
  });

  it('writes them to .gitbook/includes/ with their title, and pages include them by relative path', async () => {
    const { x, storage } = await richContent();
    const exported = await exportRepository(x, { readFile: storage.readFile });
    const text = (path: string) => decoder.decode(exported.get(path)!);
    expect(text('.gitbook/includes/api-warning.md')).toBe('---\ntitle: API warning\n---\n\nMind the **rate limit**. See [install](../../guide/install.md).\n');
    expect(text('.gitbook/includes/unused-snippet.md')).toContain('Nobody includes this.');
    expect(text('guide/includes.md')).toContain('{% include "../.gitbook/includes/api-warning.md" %}');
    expect(text('guide/includes.md')).toContain('{% include "/spaces/space-2/reusable-contents/rc-shared" %}');
    expect(text('guide/includes.md')).toContain('[theirs](/spaces/space-2/pages/p-9)');
  });
});

describe('round trip', () => {
  it('importing an export gives the same content: ids, tree, titles, slugs, metadata, documents, files', async () => {
    const storage = fakeStorage();
    const { snapshot: imported } = await importRepository(repository(FIXTURE), { storeFile: storage.storeFile, now: T1 });
    const exported = await exportRepository(imported, { readFile: storage.readFile });
    const back = await importRepository(exported, { previous: imported, storeFile: storage.storeFile, now: T3 });
    expect(back.snapshot).toEqual(imported);
  });

  it('holds for content only the API makes', async () => {
    const { x, storage } = await richContent();
    const exported = await exportRepository(x, { readFile: storage.readFile });
    const back = await importRepository(exported, { previous: x, storeFile: storage.storeFile, now: T3 });
    // The only warnings are those of the links that were already URLs to nowhere.
    expect(back.warnings).toEqual([
      'reference/api.md: link to "../drafts/unlisted.md" points to a missing file; kept as a URL',
      'reference/api.md: link to "nope.md" points to a missing file; kept as a URL',
    ]);
    expect(back.snapshot).toEqual(x);
    // And the export of what came back is the same repository.
    const again = await exportRepository(back.snapshot, { readFile: storage.readFile });
    expect([...again].map(([p, b]) => [p, decoder.decode(b)])).toEqual([...exported].map(([p, b]) => [p, decoder.decode(b)]));
  });

  it('holds without a previous content for the tree, titles, slugs and documents', async () => {
    const storage = fakeStorage();
    const { snapshot: imported } = await importRepository(repository(FIXTURE), { storeFile: storage.storeFile, now: T1 });
    const exported = await exportRepository(imported, { readFile: storage.readFile });
    const fresh = await importRepository(exported, { storeFile: storage.storeFile, now: T3 });
    expect(outline(fresh.snapshot)).toEqual(outline(imported));
    expect(new Set(fresh.snapshot.documents.keys()).size).toBe(imported.documents.size);
  });
});

describe('parseSummary', () => {
  const entry = (title: string, href: string | null, heading: boolean, children: unknown[] = [], more: object = {}) => ({
    title,
    href,
    heading,
    emoji: null,
    icon: null,
    anchor: null,
    children,
    ...more,
  });

  it('reads headings as groups, unlinked items as groups, and ignores the title', () => {
    expect(parseSummary('# Summary\n\n* [A](a.md)\n  * Loose\n    * [B](b.md "Sidebar label")\n\n## Part\n\n- [C](<c d.md>)\n')).toEqual([
      entry('A', 'a.md', false, [entry('Loose', null, false, [entry('B', 'b.md', false)])]),
      entry('Part', null, true, [entry('C', 'c d.md', false)]),
    ]);
  });

  it('ends a heading group at a rule, as GitBook writes pages that follow a group', () => {
    expect(parseSummary('# Table of contents\n\n## Start\n\n* [A](a.md)\n\n***\n\n* [B](b.md)\n\n## End\n\n* [C](c.md)\n')).toEqual([
      entry('Start', null, true, [entry('A', 'a.md', false)]),
      entry('B', 'b.md', false),
      entry('End', null, true, [entry('C', 'c.md', false)]),
    ]);
  });

  it("keeps GitBook's computed entries (a YAML block) apart", () => {
    const text = '* [Intro](README.md)\n* ```yaml\n  type: builtin:openapi\n  props:\n    models: true\n  ```\n';
    expect(parseSummary(text)).toEqual([entry('Intro', 'README.md', false), entry('', null, false, [], { computed: 'type: builtin:openapi\nprops:\n  models: true' })]);
  });

  it('reads an emoji, an icon and an anchor around a title, and writes them back the same', () => {
    const text = [
      '# Table of contents',
      '',
      '## 🛠️ SDKs & API Reference <a href="#sdks" id="sdks"></a>',
      '',
      '* [🚀 Status](https://status.example.com)',
      '* [<i class="fa-book">:book:</i> Guide](guide.md)',
      '',
      '## <i class="fa-gear">:gear:</i> Settings',
      '',
    ].join('\n');
    const items = parseSummary(text);
    expect(items).toEqual([
      entry('SDKs & API Reference', null, true, [entry('Status', 'https://status.example.com', false, [], { emoji: '1f680' }), entry('Guide', 'guide.md', false, [], { icon: 'book' })], {
        emoji: '1f6e0-fe0f',
        anchor: 'sdks',
      }),
      entry('Settings', null, true, [], { icon: 'gear' }),
    ]);
    expect(printSummary(items)).toBe(text);
  });
});

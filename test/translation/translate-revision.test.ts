import { describe, expect, it } from 'vitest';
import { hashDocument } from '../../src/content/document/hash.ts';
import { markdownToDocument } from '../../src/content/document/markdown-parse.ts';
import { type JSONDocument } from '../../src/content/document/model.ts';
import type { FileSnapshot, RevisionSnapshot } from '../../src/content/snapshot.ts';
import { TranslationProviderError } from '../../src/errors/external.ts';
import {
  translateRevision,
  translationCacheKey,
  type TranslateRevisionProgress,
  type TranslationCache,
} from '../../src/translation/translate-revision.ts';
import { validateSchema } from '../helpers/openapi-schema.ts';
import { pageSnapshot } from '../helpers/snapshot.ts';
import { allText, fakeTranslator } from './fixtures.ts';

const T1 = new Date('2026-02-01T00:00:00Z');
const T2 = new Date('2026-03-01T00:00:00Z');
const page = pageSnapshot;

const FILE: FileSnapshot = { id: 'file-1', name: 'diagram.png', contentType: 'image/png', size: 10, storageKey: 'a'.repeat(64), width: 10, height: 10 };

/** A small space: two document pages (one in a group), a link page, a file; the same paragraph appears twice. */
function sourceSnapshot(intro = 'Welcome to **the docs**. Read the [guide](/pages/guide).'): RevisionSnapshot {
  const home = markdownToDocument(`${intro}\n\n\`\`\`sh\nnpm install\n\`\`\`\n\nThanks for reading.\n`).document;
  const guide = markdownToDocument('## Install\n\nRun `npm install` first.\n\nThanks for reading.\n\n![Diagram](/files/file-1)\n').document;
  const documents = new Map<string, JSONDocument>([
    [hashDocument(home), home],
    [hashDocument(guide), guide],
  ]);
  const pages = [
    page({ id: 'home', title: 'Home', slug: 'home', description: 'Start here', emoji: '1f3e0', documentHash: hashDocument(home) }),
    page({ id: 'guides', kind: 'group', title: 'Guides', slug: 'guides', index: 1 }),
    page({ id: 'guide', title: 'Installation guide', slug: 'installation', parentId: 'guides', documentHash: hashDocument(guide) }),
    page({ id: 'site', kind: 'link', title: 'Website', slug: 'website', index: 2, linkTarget: { kind: 'url', url: 'https://example.com' } }),
  ];
  return { pages: new Map(pages.map((p) => [p.id, p])), files: new Map([[FILE.id, FILE]]), documents, variables: {}, reusableContents: new Map(), redirects: new Map(), tags: new Map() };
}

function memoryCache() {
  const entries = new Map<string, string>();
  const cache: TranslationCache & { entries: Map<string, string>; gets: number; puts: number } = {
    entries,
    gets: 0,
    puts: 0,
    async get(keys) {
      cache.gets++;
      return new Map(keys.filter((k) => entries.has(k)).map((k) => [k, entries.get(k)!]));
    },
    async put(batch) {
      cache.puts++;
      for (const [k, v] of batch) entries.set(k, v);
    },
  };
  return cache;
}

describe('translateRevision', () => {
  it('translates titles, descriptions and documents, keeping ids, tree, slugs and files', async () => {
    const source = sourceSnapshot();
    const translator = fakeTranslator({ batchSize: 3 });
    const cache = memoryCache();
    const progress: TranslateRevisionProgress[] = [];
    const { snapshot, stats } = await translateRevision({ source, translator, target: 'fr', sourceLanguage: 'en', cache, onProgress: (p) => progress.push(p), now: T1 });

    // Home, Start here, Guides, Installation guide, Website; 2 + 1 + 2 (shared "Thanks for reading.") document texts, the alt text.
    expect(stats).toEqual({ pages: 4, segments: 10, translatedSegments: 10, cachedSegments: 0, words: 21, repairedSegments: 0 });
    expect(translator.calls.map((c) => c.length)).toEqual([3, 3, 3, 1]);
    expect(translator.calls.flat()).toContain('Welcome to <m1>the docs</m1>. Read the <a2>guide</a2>.');
    expect(translator.calls.flat().filter((t) => t === 'Thanks for reading.')).toHaveLength(1);
    expect(translator.calls.flat().join('\n')).not.toContain('npm install');
    expect(progress).toEqual([
      { done: 0, total: 10, step: 'translate' },
      { done: 3, total: 10, step: 'translate' },
      { done: 6, total: 10, step: 'translate' },
      { done: 9, total: 10, step: 'translate' },
      { done: 10, total: 10, step: 'translate' },
      { done: 4, total: 4, step: 'documents' },
    ]);

    expect([...snapshot.pages.keys()]).toEqual(['home', 'guides', 'guide', 'site']);
    for (const [id, translated] of snapshot.pages) {
      const original = source.pages.get(id)!;
      expect(translated).toEqual({ ...original, title: original.title.toUpperCase(), description: original.description?.toUpperCase() ?? null, documentHash: translated.documentHash, createdAt: T1, updatedAt: T1 });
      if (original.documentHash === null) expect(translated.documentHash).toBeNull();
      else expect(snapshot.documents.get(translated.documentHash!)).toBeDefined();
    }
    expect(snapshot.files).toEqual(source.files);
    expect(snapshot.documents.size).toBe(2);
    for (const [hash, document] of snapshot.documents) {
      validateSchema('JSONDocument', document);
      expect(hashDocument(document)).toBe(hash);
    }
    const home = snapshot.documents.get(snapshot.pages.get('home')!.documentHash!)!;
    expect(allText(home)).toBe('WELCOME TO THE DOCS. READ THE |GUIDE|.|npm install|THANKS FOR READING.');
    expect(home.nodes[0].nodes![1]).toMatchObject({ type: 'link', data: { ref: { kind: 'page', page: 'guide' } } });
    const guide = snapshot.documents.get(snapshot.pages.get('guide')!.documentHash!)!;
    expect(guide.nodes[0].data).toEqual({ id: 'install' });
    expect(JSON.stringify(guide)).toContain('"alt":"DIAGRAM"');
    expect(JSON.stringify(guide)).toContain('"file":"file-1"');

    expect(cache.entries.size).toBe(10);
    expect([...cache.entries.keys()].every((k) => /^fr:[0-9a-f]{64}$/.test(k))).toBe(true);
  });

  it('translates reusable contents, title and document, keeping their ids', async () => {
    const source = sourceSnapshot();
    const warning = markdownToDocument('Mind the **rate limit**.\n').document;
    source.documents.set(hashDocument(warning), warning);
    source.reusableContents.set('rc-1', { id: 'rc-1', title: 'Rate limits', documentHash: hashDocument(warning) });
    const { snapshot } = await translateRevision({ source, translator: fakeTranslator(), target: 'fr', cache: memoryCache(), now: T1 });
    const content = snapshot.reusableContents.get('rc-1')!;
    expect(content.title).toBe('RATE LIMITS');
    const document = snapshot.documents.get(content.documentHash)!;
    expect(hashDocument(document)).toBe(content.documentHash);
    expect(allText(document)).toBe('MIND THE RATE LIMIT.');
  });

  it('translates only what changed on a second run, and keeps unchanged pages as they were', async () => {
    const cache = memoryCache();
    const first = await translateRevision({ source: sourceSnapshot(), translator: fakeTranslator(), target: 'fr', cache, now: T1 });

    const changed = sourceSnapshot('Welcome to **the new docs**. Read the [guide](/pages/guide).');
    changed.pages.set('site', { ...changed.pages.get('site')!, title: 'Our website' });
    const translator = fakeTranslator();
    const second = await translateRevision({ source: changed, previousTarget: first.snapshot, translator, target: 'fr', cache, now: T2 });

    expect(translator.calls).toEqual([['Welcome to <m1>the new docs</m1>. Read the <a2>guide</a2>.', 'Our website']]);
    expect(second.stats).toMatchObject({ segments: 10, translatedSegments: 2, cachedSegments: 8, words: 10 });
    // Unchanged pages are the previous target's, timestamps included; changed ones are updated now.
    expect(second.snapshot.pages.get('guide')).toEqual(first.snapshot.pages.get('guide'));
    expect(second.snapshot.pages.get('guides')).toEqual(first.snapshot.pages.get('guides'));
    expect(second.snapshot.pages.get('home')).toMatchObject({ createdAt: T1, updatedAt: T2 });
    expect(second.snapshot.pages.get('site')).toMatchObject({ title: 'OUR WEBSITE', createdAt: T1, updatedAt: T2 });
    expect(allText(second.snapshot.documents.get(second.snapshot.pages.get('home')!.documentHash!)!)).toContain('WELCOME TO THE NEW DOCS.');

    // A third run of the same source sends nothing.
    const idle = fakeTranslator();
    const third = await translateRevision({ source: changed, previousTarget: second.snapshot, translator: idle, target: 'fr', cache, now: T2 });
    expect(idle.calls).toEqual([]);
    expect(third.stats).toMatchObject({ translatedSegments: 0, cachedSegments: 10, words: 0 });
    expect(third.snapshot).toEqual(second.snapshot);
  });

  it('keys the cache by target language and instructions', async () => {
    const cache = memoryCache();
    await translateRevision({ source: sourceSnapshot(), translator: fakeTranslator(), target: 'fr', cache });
    const german = fakeTranslator();
    expect((await translateRevision({ source: sourceSnapshot(), translator: german, target: 'de', cache })).stats.translatedSegments).toBe(10);
    const formal = fakeTranslator();
    expect((await translateRevision({ source: sourceSnapshot(), translator: formal, target: 'fr', instructions: 'Use "vous".', cache })).stats.translatedSegments).toBe(10);
    expect(translationCacheKey('abc', { target: 'fr' })).toBe('fr:abc');
    expect(translationCacheKey('abc', { target: 'fr', instructions: ' ' })).toBe('fr:abc');
    expect(translationCacheKey('abc', { target: 'fr', instructions: 'Use "vous".' })).toMatch(/^fr\+[0-9a-f]{12}:abc$/);
  });

  it('stops when aborted, keeping the batches already translated in the cache', async () => {
    const cache = memoryCache();
    const controller = new AbortController();
    const translator = fakeTranslator({ batchSize: 4 });
    const progress: TranslateRevisionProgress[] = [];
    const run = translateRevision({
      source: sourceSnapshot(),
      translator,
      target: 'fr',
      cache,
      signal: controller.signal,
      onProgress: (p) => {
        progress.push(p);
        if (p.done === 4) controller.abort(new Error('cancelled'));
      },
    });
    await expect(run).rejects.toThrow('cancelled');
    expect(translator.calls).toHaveLength(1);
    expect(cache.entries.size).toBe(4);
    expect(progress.at(-1)).toEqual({ done: 4, total: 10, step: 'translate' });

    const before = new AbortController();
    before.abort(new Error('never started'));
    await expect(translateRevision({ source: sourceSnapshot(), translator, target: 'fr', cache, signal: before.signal })).rejects.toThrow('never started');
  });

  it('keeps the original of blank translations, and does not cache them', async () => {
    const cache = memoryCache();
    const translator = fakeTranslator({ transform: (text) => (text === 'Home' ? ' ' : text.toUpperCase()) });
    const { snapshot, stats } = await translateRevision({ source: sourceSnapshot(), translator, target: 'fr', cache });
    expect(snapshot.pages.get('home')!.title).toBe('Home');
    expect(cache.entries.size).toBe(9);
    expect(stats.translatedSegments).toBe(10);
  });

  it('fails when the translator answers the wrong number of texts', async () => {
    const translator = { name: 'broken', translate: async (texts: string[]) => texts.slice(1) };
    const error = await translateRevision({ source: sourceSnapshot(), translator, target: 'fr', cache: memoryCache() }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TranslationProviderError);
    expect((error as Error).message).toBe('The broken translator returned 9 translations for 10 texts');
  });

  it('refuses a source whose documents are not loaded', async () => {
    const source = sourceSnapshot();
    source.documents.clear();
    await expect(translateRevision({ source, translator: fakeTranslator(), target: 'fr', cache: memoryCache() })).rejects.toThrow(/is not loaded/);
  });
});

/**
 * The search index on a real database (SQLite, or PostgreSQL when
 * TEST_DATABASE_URL is set): snapshots are built by hand, indexed with
 * reindexSpace and queried with searchSpace. No Organization/Space/Revision
 * rows are needed: the index only knows space ids.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashDocument } from '../../src/content/document/hash.ts';
import { type JSONDocument, type JSONNode } from '../../src/content/document/model.ts';
import type { PageSnapshot, RevisionSnapshot } from '../../src/content/snapshot.ts';
import { closeDb, createDb, type Db } from '../../src/db/client.ts';
import { jsonInput } from '../../src/db/json.ts';
import type { Provider } from '../../src/db/provider/config.ts';
import { InvalidInputError } from '../../src/errors/index.ts';
import { ftsMatchExpression } from '../../src/search/query.ts';
import {
  reindexSpace,
  searchSpace,
  deleteSpaceIndex,
  type SearchSpaceInput,
} from '../../src/search/search-index.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/database.ts';
import { pageSnapshot, paragraph, textNode } from '../helpers/snapshot.ts';

// ---------------------------------------------------------------- builders

const h1 = (title: string): JSONNode => ({ object: 'block', type: 'heading-1', nodes: [textNode(title)] });
const h2 = (title: string): JSONNode => ({ object: 'block', type: 'heading-2', nodes: [textNode(title)] });
const p = paragraph;
const doc = (...nodes: JSONNode[]): JSONDocument => ({ object: 'document', data: {}, nodes });

type PageSpec = { id: string; title: string; doc?: JSONDocument; parent?: string } & Partial<Omit<PageSnapshot, 'id' | 'title' | 'parentId'>>;

/** A snapshot of document pages (slug = id unless given), with the documents of all of them. */
function snapshot(specs: PageSpec[]): RevisionSnapshot {
  const s: RevisionSnapshot = { pages: new Map(), reusableContents: new Map(), files: new Map(), documents: new Map(), variables: {}, redirects: new Map(), tags: new Map() };
  specs.forEach((spec, index) => {
    const { id, title, doc: document, parent, ...rest } = spec;
    const documentHash = document ? hashDocument(document) : null;
    if (document) s.documents.set(documentHash!, document);
    s.pages.set(id, pageSnapshot({ id, parentId: parent ?? null, index, title, slug: id, documentHash, ...rest }));
  });
  return s;
}

/** A long paragraph of filler words with `word` in the middle. */
function filler(word: string, words = 80): string {
  const fill = Array.from({ length: words }, (_, i) => `lorem${i % 7}`);
  fill.splice(words / 2, 0, word);
  return fill.join(' ');
}

// ---------------------------------------------------------------- setup

let database: TestDatabase;
let db: Db;
let provider: Provider;

beforeAll(async () => {
  database = await createTestDatabase();
  db = createDb(database.config);
  provider = database.config.provider;
});

afterAll(async () => {
  await closeDb(db);
  await database.drop();
});

/** Each test works in a space of its own. */
let spaceCounter = 0;
const newSpace = () => `space-${++spaceCounter}`;

/** A new space whose index holds `pages`, indexed from nothing. */
async function indexedSpace(pages: PageSpec[]): Promise<string> {
  const space = newSpace();
  await reindexSpace(db, provider, { spaceId: space, previous: null, current: snapshot(pages) });
  return space;
}

const search = (spaceId: string, query: string, options: Partial<SearchSpaceInput> = {}) =>
  searchSpace(db, provider, { spaceId, query, limit: 20, ...options });
const pageIds = async (spaceId: string, query: string, options: Partial<SearchSpaceInput> = {}) =>
  (await search(spaceId, query, options)).items.map((item) => item.id);

// ---------------------------------------------------------------- tests

describe('the search tables', () => {
  it('are created by the migrations (createTestDatabase ran them)', async () => {
    expect(await search(newSpace(), 'anything')).toEqual({ items: [], next: null });
  });
});

describe('searchSpace', () => {
  it('ranks a page whose title matches above a page whose body mentions the word once', async () => {
    const space = await indexedSpace([
      { id: 'events', title: 'Events', doc: doc(p('Events are delivered to your endpoint; configure webhooks in the settings and retry on failure.')) },
      { id: 'webhooks', title: 'Webhooks', doc: doc(p('Receive a notification when something happens.')) },
      { id: 'other', title: 'Other', doc: doc(p('Nothing relevant here.')) },
    ]);
    expect(await pageIds(space, 'webhooks')).toEqual(['webhooks', 'events']);
  });

  it('returns the matching sections, best first, with a snippet around the match and their paths', async () => {
    const space = await indexedSpace([
      {
        id: 'guide',
        title: 'Guide',
        doc: doc(
          p('Welcome to the guide.'),
          h1('Network'),
          p(filler('firewall')),
          h2('Firewall rules'),
          p('Open port 443 in the firewall.'),
          h2('Storage'),
          p('Disks and volumes.'),
        ),
      },
    ]);
    const { items, next } = await search(space, 'firewall');
    expect(next).toBeNull();
    expect(items).toHaveLength(1);
    const [page] = items;
    expect(page).toMatchObject({ id: 'guide', title: 'Guide', path: 'guide' });
    // The section titled "Firewall rules" outranks a mention deep in a long paragraph.
    expect(page!.sections.map((s) => [s.id, s.title, s.path])).toEqual([
      ['firewall-rules', 'Firewall rules', 'guide#firewall-rules'],
      ['network', 'Network', 'guide#network'],
    ]);
    expect(page!.sections[0]!.body).toBe('Open port 443 in the firewall.');
    const snippet = page!.sections[1]!.body;
    expect(snippet).toContain('firewall');
    expect(snippet.length).toBeLessThan(filler('firewall').length / 2);
    expect(snippet.startsWith('…')).toBe(true);
    expect(snippet.endsWith('…')).toBe(true);
    // No highlight marks in the text the API returns.
    expect(snippet).not.toMatch(/[\u0002\u0003]/u);
  });

  it("gives the text before a page's first heading the page's own id and title", async () => {
    const space = await indexedSpace([{ id: 'intro', title: 'Introduction', doc: doc(p('Welcome aboard, traveller.'), h1('Next'), p('More text.')) }]);
    const [page] = (await search(space, 'traveller')).items;
    expect(page!.sections.map((s) => [s.id, s.title, s.path])).toEqual([['intro', 'Introduction', 'intro']]);
  });

  it('returns a page matching by its title alone with no sections, and only the sections matching on their own', async () => {
    const space = await indexedSpace([
      { id: 'install', title: 'Install', doc: doc(h1('Windows'), p('Run setup.exe.'), h1('Linux'), p('Install the package with apt.')) },
      { id: 'deploy', title: 'Deploy', doc: doc(p('Ship it.')) },
    ]);
    const [page] = (await search(space, 'install')).items;
    expect(page!.sections.map((s) => s.path)).toEqual(['install#linux']);
    // Every word must be in the section or its page's title: "install windows" is the Windows section of Install.
    const [both] = (await search(space, 'install windows')).items;
    expect(both!.sections.map((s) => s.id)).toEqual(['windows']);
    await reindexSpace(db, provider, { spaceId: space, previous: null, current: snapshot([{ id: 'empty', title: 'Install' }]) });
    expect((await search(space, 'install')).items).toEqual([{ id: 'empty', title: 'Install', path: 'empty', sections: [], score: expect.any(Number), rank: 1 }]);
  });

  it('stems words ("installing" finds "install") and matches the last word as a prefix ("instal", "config")', async () => {
    const space = await indexedSpace([
      { id: 'a', title: 'Setup', doc: doc(p('How to install the tool.')) },
      { id: 'b', title: 'Reference', doc: doc(p('The installation folder and the configuration file.')) },
    ]);
    expect((await pageIds(space, 'installing')).sort()).toEqual(['a', 'b']);
    expect((await pageIds(space, 'installs')).sort()).toEqual(['a', 'b']);
    expect((await pageIds(space, 'instal')).sort()).toEqual(['a', 'b']);
    expect(await pageIds(space, 'config')).toEqual(['b']);
    // Only the last word is a prefix.
    expect(await pageIds(space, 'configuration fil')).toEqual(['b']);
    expect(await pageIds(space, 'config file')).toEqual([]);
    // A partial word longer than its stem does not match until it is complete (see docs/decisions.md, "Search").
    expect(await pageIds(space, 'installat')).toEqual([]);
    expect((await pageIds(space, 'installation')).sort()).toEqual(['a', 'b']);
  });

  it('returns no items for an empty or blank query, or one without letters or digits', async () => {
    const space = await indexedSpace([{ id: 'a', title: 'A', doc: doc(p('text')) }]);
    for (const query of ['', '   ', '\n\t', '"', '* - ( ) :', '""']) {
      expect(await search(space, query)).toEqual({ items: [], next: null });
    }
  });

  it('treats FTS syntax characters and operators in the query as plain text', async () => {
    const space = await indexedSpace([
      { id: 'install', title: 'Install', doc: doc(p('Install the CLI on Windows or macOS, near the end of the setup.')) },
      { id: 'configure', title: 'Configure', doc: doc(p('Configure the CLI, then install plugins.')) },
      { id: 'windows', title: 'Windows', doc: doc(p('Notes about the body of work.')) },
    ]);
    const same: [string, string][] = [
      ['"install"', 'install'],
      ['"install windows"', 'install windows'],
      ['install*', 'install'],
      ['(install)', 'install'],
      ['install: windows', 'install windows'],
      ['-windows install', 'windows install'],
      ['install OR windows', 'install or windows'],
      ['install AND NOT windows', 'install and not windows'],
      ['NEAR install windows', 'near install windows'],
      ['^install +cli', 'install cli'],
      ["'install'", 'install'],
    ];
    expect(await pageIds(space, 'install')).toHaveLength(2);
    for (const [query, plain] of same) {
      expect({ query, ids: await pageIds(space, query) }).toEqual({ query, ids: await pageIds(space, plain) });
    }
    // Not an exclusion: "-windows" requires windows like any word.
    expect(await pageIds(space, '-windows install')).toEqual(['install']);
    // Not a column filter (FTS5 `body:`), not a NEAR group: no error, and nothing matches these words.
    for (const query of ['body:install', 'NEAR(install windows)', 'install NEAR/2 windows)', '{page_title}: x', 'a"b', 'install"']) {
      await expect(search(space, query)).resolves.toBeDefined();
    }
    expect(await pageIds(space, 'body:install')).toEqual([]);
    // The FTS5 expression quotes every word.
    expect(ftsMatchExpression('say "hi" OR -x*')).toBe('"say" """hi""" "OR" "-x*" *');
  });

  it('searches non-Latin text as far as the tokenizer allows', async () => {
    const space = await indexedSpace([
      { id: 'ja', title: 'インストール', doc: doc(p('インストール方法を説明します。設定ファイルは後で。')) },
      { id: 'ru', title: 'Установка', doc: doc(p('Установка пакета через менеджер пакетов.')) },
      { id: 'fr', title: 'Café', doc: doc(p('Le café est prêt.')) },
    ]);
    // Japanese has no spaces: a run of kana and kanji up to punctuation is one token, so a
    // word matches the start of a run (prefix of the last word), never its middle.
    expect(await pageIds(space, 'インストール')).toEqual(['ja']);
    expect(await pageIds(space, 'インストール方法を説明します')).toEqual(['ja']);
    expect(await pageIds(space, '設定')).toEqual(['ja']);
    expect(await pageIds(space, '説明')).toEqual([]);
    // Cyrillic words are tokens (case-folded) but not stemmed (porter and 'english' are English only):
    // another inflection is not found, a prefix of the last word is.
    expect(await pageIds(space, 'установка')).toEqual(['ru']);
    expect(await pageIds(space, 'ПАКЕТА')).toEqual(['ru']);
    expect(await pageIds(space, 'установку')).toEqual([]);
    expect(await pageIds(space, 'установ')).toEqual(['ru']);
    // Accents: SQLite folds them (remove_diacritics 2); PostgreSQL's 'english' keeps them.
    expect(await pageIds(space, 'café')).toEqual(['fr']);
    expect(await pageIds(space, 'pret')).toEqual(provider === 'sqlite' ? ['fr'] : []);
  });

  it('returns only the given space’s pages', async () => {
    const [one, two] = [newSpace(), newSpace()];
    await reindexSpace(db, provider, { spaceId: one, previous: null, current: snapshot([{ id: 'p1', title: 'Billing', doc: doc(p('Invoices.')) }]) });
    // The same page id in another space is another page.
    await reindexSpace(db, provider, { spaceId: two, previous: null, current: snapshot([{ id: 'p1', title: 'Billing v2', doc: doc(p('Invoices.')) }]) });
    expect((await search(one, 'billing')).items.map((i) => i.title)).toEqual(['Billing']);
    expect((await search(two, 'invoices')).items.map((i) => i.title)).toEqual(['Billing v2']);
    await deleteSpaceIndex(db, provider, one);
    expect(await pageIds(one, 'billing')).toEqual([]);
    expect(await pageIds(two, 'billing')).toEqual(['p1']);
  });

  it('pages through 25 results 10 at a time, in path order for equal ranks', async () => {
    const space = newSpace();
    const ids = Array.from({ length: 25 }, (_, i) => `page-${String(i + 1).padStart(2, '0')}`);
    // Inserted in reverse so that path order is not insertion order.
    await reindexSpace(db, provider, {
      spaceId: space,
      previous: null,
      current: snapshot([...ids].reverse().map((id) => ({ id, title: 'Chapter', doc: doc(p('The common word alpha.')) }))),
    });
    const seen: string[] = [];
    const ranks: number[] = [];
    let after: string | null = null;
    const sizes: number[] = [];
    do {
      const result = await search(space, 'alpha', { limit: 10, after });
      sizes.push(result.items.length);
      seen.push(...result.items.map((i) => i.id));
      ranks.push(...result.items.map((i) => i.rank));
      after = result.next;
    } while (after !== null && sizes.length < 5);
    expect(sizes).toEqual([10, 10, 5]);
    expect(seen).toEqual(ids);
    // Ranks run on across result pages.
    expect(ranks).toEqual(ids.map((_, i) => i + 1));
    // Exactly `limit` results left: the last page says so.
    const exact = await search(space, 'alpha', { limit: 25 });
    expect([exact.items.length, exact.next]).toEqual([25, null]);
  });

  it('rejects a cursor it did not make, and a limit out of range', async () => {
    const space = newSpace();
    await expect(search(space, 'x', { after: 'not-a-cursor' })).rejects.toBeInstanceOf(InvalidInputError);
    await expect(search(space, 'x', { after: Buffer.from('{"offset":-1}').toString('base64url') })).rejects.toBeInstanceOf(InvalidInputError);
    await expect(search(space, 'x', { limit: 0 })).rejects.toBeInstanceOf(InvalidInputError);
    await expect(search(space, 'x', { limit: 1001 })).rejects.toBeInstanceOf(InvalidInputError);
  });

  it('finds hidden pages, unless asked not to', async () => {
    const space = newSpace();
    await reindexSpace(db, provider, {
      spaceId: space,
      previous: null,
      current: snapshot([{ id: 'secret', title: 'Changelog', hidden: true, doc: doc(p('Release notes.')) }]),
    });
    expect(await pageIds(space, 'release')).toEqual(['secret']);
    expect(await pageIds(space, 'release', { includeHidden: false })).toEqual([]);
  });
});

describe('reindexSpace', () => {
  const v1 = () =>
    snapshot([
      { id: 'intro', title: 'Introduction', doc: doc(p('Welcome aboard.')) },
      { id: 'setup', title: 'Setup', doc: doc(p('Use the legacy installer.')) },
      { id: 'faq', title: 'FAQ', doc: doc(p('Frequently asked questions.')) },
      { id: 'api', title: 'API', doc: doc(p('Endpoints.')) },
      { id: 'tokens', title: 'Tokens', parent: 'api', doc: doc(p('Bearer tokens.')) },
    ]);

  it('after an edit, finds the new words and no longer the old ones, rewriting only the changed page', async () => {
    const space = newSpace();
    const before = v1();
    await reindexSpace(db, provider, { spaceId: space, previous: null, current: before });
    expect(await pageIds(space, 'legacy')).toEqual(['setup']);

    const after = v1();
    const edited = doc(p('Use the modern package manager.'));
    after.pages.get('setup')!.documentHash = hashDocument(edited);
    after.documents.set(hashDocument(edited), edited);
    expect(await reindexSpace(db, provider, { spaceId: space, previous: before, current: after })).toEqual({ indexed: 1, removed: 0 });
    expect(await pageIds(space, 'legacy')).toEqual([]);
    expect(await pageIds(space, 'modern')).toEqual(['setup']);
    expect(await pageIds(space, 'welcome')).toEqual(['intro']);
    // Nothing changed: nothing to do.
    expect(await reindexSpace(db, provider, { spaceId: space, previous: after, current: after })).toEqual({ indexed: 0, removed: 0 });
  });

  it("finds a page by its description, shown in the snippet of its opening text, and follows a change of description alone", async () => {
    const space = newSpace();
    const before = snapshot([
      { id: 'lenses', title: 'Lenses', description: 'Cleaning telescope optics safely', doc: doc(h1('Cloths'), p('Use a soft cloth.')) },
      { id: 'mounts', title: 'Mounts', description: 'Equatorial mounts', doc: doc(p('Balance the tube first.')) },
    ]);
    await reindexSpace(db, provider, { spaceId: space, previous: null, current: before });
    const found = await search(space, 'optics');
    expect(found.items.map((i) => i.id)).toEqual(['lenses']);
    expect(found.items[0]!.sections).toEqual([{ id: 'lenses', title: 'Lenses', path: 'lenses', body: expect.stringContaining('Cleaning telescope'), score: expect.any(Number) }]);
    // With text of its own before the first heading, the description comes first in that section.
    expect((await search(space, 'equatorial')).items[0]!.sections[0]!.body).toMatch(/Equatorial mounts\s+Balance the tube/);

    const after = snapshot([
      { id: 'lenses', title: 'Lenses', description: 'Collimation and cleaning', doc: doc(h1('Cloths'), p('Use a soft cloth.')) },
      { id: 'mounts', title: 'Mounts', description: 'Equatorial mounts', doc: doc(p('Balance the tube first.')) },
    ]);
    // Same documents, same titles: only the description changed.
    after.pages.set('mounts', before.pages.get('mounts')!);
    expect(await reindexSpace(db, provider, { spaceId: space, previous: before, current: after })).toEqual({ indexed: 1, removed: 0 });
    expect(await pageIds(space, 'optics')).toEqual([]);
    expect(await pageIds(space, 'collimation')).toEqual(['lenses']);
    // The section after the heading is still its own result.
    expect((await search(space, 'cloth')).items[0]!.sections.map((s) => s.id)).toEqual(['cloths']);
  });

  it('removes deleted pages and pages that are no longer documents', async () => {
    const space = newSpace();
    const before = v1();
    await reindexSpace(db, provider, { spaceId: space, previous: null, current: before });
    const after = v1();
    after.pages.delete('faq');
    Object.assign(after.pages.get('intro')!, { kind: 'group', documentHash: null });
    expect(await reindexSpace(db, provider, { spaceId: space, previous: before, current: after })).toEqual({ indexed: 0, removed: 2 });
    expect(await pageIds(space, 'questions')).toEqual([]);
    expect(await pageIds(space, 'welcome')).toEqual([]);
    expect(await pageIds(space, 'endpoints')).toEqual(['api']);
  });

  it('follows renames and moves: new titles, and new paths for the page and its descendants', async () => {
    const space = newSpace();
    const before = v1();
    await reindexSpace(db, provider, { spaceId: space, previous: null, current: before });
    expect((await search(space, 'bearer')).items[0]).toMatchObject({ path: 'api/tokens' });

    const after = v1();
    Object.assign(after.pages.get('api')!, { slug: 'reference', title: 'Reference' });
    expect(await reindexSpace(db, provider, { spaceId: space, previous: before, current: after })).toEqual({ indexed: 2, removed: 0 });
    expect((await search(space, 'bearer')).items[0]).toMatchObject({ id: 'tokens', path: 'reference/tokens' });
    expect(await pageIds(space, 'api')).toEqual([]);
    expect(await pageIds(space, 'reference')).toEqual(['api']);
  });

  it('reindexes the descendants of a renamed or moved page even when they are the same objects in both contents', async () => {
    // Revisions read from shared chunks share their unchanged pages' objects; paths still follow the tree.
    const space = newSpace();
    const before = v1();
    await reindexSpace(db, provider, { spaceId: space, previous: null, current: before });
    const renamed = { ...before, pages: new Map(before.pages) };
    renamed.pages.set('api', { ...before.pages.get('api')!, slug: 'reference' });
    expect(await reindexSpace(db, provider, { spaceId: space, previous: before, current: renamed })).toEqual({ indexed: 2, removed: 0 });
    expect((await search(space, 'bearer')).items[0]).toMatchObject({ id: 'tokens', path: 'reference/tokens' });

    const moved = { ...renamed, pages: new Map(renamed.pages) };
    moved.pages.set('api', { ...renamed.pages.get('api')!, parentId: 'faq', index: 0 });
    expect(await reindexSpace(db, provider, { spaceId: space, previous: renamed, current: moved })).toEqual({ indexed: 2, removed: 0 });
    expect((await search(space, 'bearer')).items[0]).toMatchObject({ id: 'tokens', path: 'faq/reference/tokens' });

    // Only a title changed: the page alone, its descendants untouched.
    const retitled = { ...moved, pages: new Map(moved.pages) };
    retitled.pages.set('api', { ...moved.pages.get('api')!, title: 'Reference' });
    expect(await reindexSpace(db, provider, { spaceId: space, previous: moved, current: retitled })).toEqual({ indexed: 1, removed: 0 });
  });

  it('loads documents the snapshot lacks from ContentDocument', async () => {
    const space = newSpace();
    const stored = doc(h1('Quotas'), p('Each plan has a monthly quota.'));
    await db.contentDocument.upsert({
      where: { hash: hashDocument(stored) },
      create: { hash: hashDocument(stored), json: jsonInput(stored) },
      update: {},
    });
    const current = snapshot([{ id: 'limits', title: 'Limits', doc: stored }]);
    current.documents.clear();
    await reindexSpace(db, provider, { spaceId: space, previous: null, current });
    expect((await search(space, 'monthly')).items[0]!.sections.map((s) => s.path)).toEqual(['limits#quotas']);

    const missing = snapshot([{ id: 'lost', title: 'Lost', doc: doc(p('never stored')) }]);
    missing.documents.clear();
    await expect(reindexSpace(db, provider, { spaceId: space, previous: current, current: missing })).rejects.toThrow(/documents not found/);
    // The failed call changed nothing.
    expect(await pageIds(space, 'monthly')).toEqual(['limits']);
  });

  it('runs inside the caller’s transaction: rolled back with it', async () => {
    const space = newSpace();
    const before = v1();
    await reindexSpace(db, provider, { spaceId: space, previous: null, current: before });
    const after = v1();
    after.pages.delete('setup');
    await db
      .$transaction(async (tx) => {
        await reindexSpace(tx, provider, { spaceId: space, previous: before, current: after });
        expect(await searchSpace(tx, provider, { spaceId: space, query: 'legacy', limit: 10 })).toEqual({ items: [], next: null });
        throw new Error('abort');
      })
      .catch(() => undefined);
    expect(await pageIds(space, 'legacy')).toEqual(['setup']);
  });

  it('indexes a large change in batches', async () => {
    const space = newSpace();
    const pages = Array.from({ length: 700 }, (_, i) => ({
      id: `bulk-${i}`,
      title: `Bulk ${i}`,
      doc: doc(h1('One'), p(`first needle${i % 3}`), h1('Two'), p('second')),
    }));
    const before = snapshot(pages);
    await reindexSpace(db, provider, { spaceId: space, previous: null, current: before });
    const result = await search(space, 'needle0', { limit: 1000 });
    expect(result.items).toHaveLength(234);
    const after = snapshot(pages.slice(100));
    expect(await reindexSpace(db, provider, { spaceId: space, previous: before, current: after })).toEqual({ indexed: 0, removed: 100 });
    expect((await search(space, 'needle0', { limit: 1000 })).items).toHaveLength(200);
  });
});

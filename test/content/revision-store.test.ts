/**
 * Writing and reading revisions on a real database (SQLite, or PostgreSQL when
 * TEST_DATABASE_URL is set): a revision reads back exactly as written, and
 * shares every chunk of pages it did not change with the revision before.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ContentRef, type JSONDocument, type JSONNode } from '../../src/content/document/model.ts';
import { cloneSnapshot, emptySnapshot, loadSnapshot, putDocument, writeRevision } from '../../src/content/revision-store.ts';
import type { PageSnapshot, RevisionSnapshot } from '../../src/content/snapshot.ts';
import { closeDb, createDb, type Db } from '../../src/db/client.ts';
import { RevisionChunkCache } from '../../src/db/revision-chunks.ts';
import { newId } from '../../src/ids.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/database.ts';
import { pageSnapshot, paragraphs as doc, textNode } from '../helpers/snapshot.ts';

let database: TestDatabase;
let db: Db;
let spaceId: string;

/** A document page whose document is one paragraph of `text`, stored in `snapshot`. */
function page(snapshot: RevisionSnapshot, id: string, parentId: string | null, index: number, text: string): PageSnapshot {
  return pageSnapshot({ id, parentId, index, title: id.toUpperCase(), slug: id, documentHash: putDocument(snapshot, doc(text)) });
}

beforeAll(async () => {
  database = await createTestDatabase();
  db = createDb(database.config);
  const user = await db.user.create({ data: { id: newId(), email: `${newId()}@example.com`, displayName: 'U' } });
  const org = await db.organization.create({ data: { id: newId(), title: 'Org' } });
  spaceId = newId();
  await db.space.create({ data: { id: spaceId, organizationId: org.id, revisionId: 'none' } });
  void user;
});
afterAll(async () => {
  await closeDb(db);
  await database.drop();
});

function comparable(snapshot: RevisionSnapshot) {
  return [...snapshot.pages.values()].sort((a, b) => (a.id < b.id ? -1 : 1));
}

describe('writeRevision', () => {
  it('stores only the chunks an edit changed, and reads back exactly what was written', async () => {
    const first = emptySnapshot();
    for (let i = 0; i < 300; i++) first.pages.set(`p${i}`, page(first, `p${i}`, null, i, `text ${i}`));
    first.pages.set('a1', page(first, 'a1', 'p0', 0, 'child'));
    first.files.set('f1', { id: 'f1', name: 'a.png', contentType: 'image/png', size: 3, storageKey: 'k1', width: 1, height: 1 });
    const firstId = await db.$transaction((tx) => writeRevision(tx, { spaceId, parentId: null, type: 'edits', snapshot: first }));
    const stored = await db.revisionChunk.count();
    expect(comparable(await loadSnapshot(db, firstId, { documents: false }))).toEqual(comparable(first));

    // One page's document changes: one chunk is new, every other one is the first revision's.
    const next = cloneSnapshot(first);
    next.pages.set('p7', { ...next.pages.get('p7')!, documentHash: putDocument(next, doc('new text')), updatedAt: new Date() });
    const statements: string[] = [];
    const counting = createDb(database.config, { onQuery: (sql) => statements.push(sql) });
    try {
      const nextId = await counting.$transaction((tx) => writeRevision(tx, { spaceId, parentId: firstId, type: 'edits', snapshot: next }));
      expect(await db.revisionChunk.count()).toBe(stored + 1);
      expect(statements.filter((sql) => /INSERT INTO "?RevisionChunk"?/i.test(sql))).toHaveLength(1);
      const read = await loadSnapshot(db, nextId, { documents: true });
      expect(comparable(read)).toEqual(comparable(next));
      expect([...read.files.values()]).toEqual([...next.files.values()]);
      expect(read.documents.get(next.pages.get('p7')!.documentHash!)).toEqual(doc('new text'));
      const [a, b] = await db.revision.findMany({ where: { id: { in: [firstId, nextId] } }, orderBy: { createdAt: 'asc' } });
      const shared = (a!.pageChunks as string[]).filter((hash) => (b!.pageChunks as string[]).includes(hash));
      expect(shared).toHaveLength((a!.pageChunks as string[]).length - 1);
      expect(b!.fileChunks).toEqual(a!.fileChunks);
    } finally {
      await closeDb(counting);
    }

    // A page added and another removed: at most two chunks each.
    const third = cloneSnapshot(next);
    third.pages.set('new', page(third, 'new', null, 300, 'added'));
    third.pages.delete('p150');
    const before = await db.revisionChunk.count();
    const thirdId = await db.$transaction((tx) => writeRevision(tx, { spaceId, parentId: null, type: 'edits', snapshot: third }));
    expect(await db.revisionChunk.count()).toBeLessThanOrEqual(before + 4);
    expect(comparable(await loadSnapshot(db, thirdId, { documents: false }))).toEqual(comparable(third));
  });

  it('takes the hashes of the chunks a loaded content did not change instead of hashing them again, and gets the same revision', async () => {
    const first = emptySnapshot();
    for (let i = 0; i < 400; i++) first.pages.set(`q${i}`, page(first, `q${i}`, null, i, `text ${i}`));
    first.pages.set('q3', { ...first.pages.get('q3')!, kind: 'link', documentHash: null, linkTarget: { kind: 'url', url: 'https://example.com' } as ContentRef, layout: { cover: false } });
    const firstId = await db.$transaction((tx) => writeRevision(tx, { spaceId, parentId: null, type: 'edits', snapshot: first }));

    const loaded = await loadSnapshot(db, firstId, { documents: false });
    expect(loaded.storedChunks?.size).toBeGreaterThan(10);
    const edited = cloneSnapshot(loaded);
    edited.pages.set('q200', { ...edited.pages.get('q200')!, title: 'Edited', updatedAt: new Date() });
    // The same content without what it was read from: every chunk hashed anew.
    const unknown = { ...cloneSnapshot(edited), storedChunks: undefined };

    const statements: string[] = [];
    const counting = createDb(database.config, { onQuery: (sql) => statements.push(sql) });
    // The values a chunk lookup binds (SQLite's `?`, PostgreSQL's `$n`): one per hash looked up.
    const lookedUp = () => {
      const lookups = statements.splice(0).filter((sql) => /^SELECT .*FROM [`"]?([a-z0-9_]+[`"]?\.)?[`"]?RevisionChunk[`"]?/is.test(sql));
      expect(lookups).toHaveLength(1);
      return (/ IN \(([^)]*)\)/.exec(lookups[0]!)?.[1]?.match(/\?|\$\d+/g) ?? []).length;
    };
    try {
      const reusedId = await counting.$transaction((tx) => writeRevision(tx, { spaceId, parentId: firstId, type: 'edits', snapshot: edited }));
      // Only the edited page's chunk is looked up (the others are known to be stored) and written.
      const reusedLookups = lookedUp();
      const hashedId = await counting.$transaction((tx) => writeRevision(tx, { spaceId, parentId: firstId, type: 'edits', snapshot: unknown }));
      const hashedLookups = lookedUp();
      expect(reusedLookups).toBeLessThanOrEqual(2);
      expect(hashedLookups).toBeGreaterThan(10);
      const [reused, hashed] = await Promise.all([reusedId, hashedId].map((id) => db.revision.findUniqueOrThrow({ where: { id } })));
      expect(reused!.pageChunks).toEqual(hashed!.pageChunks);
      expect(reused!.fileChunks).toEqual(hashed!.fileChunks);
      expect(comparable(await loadSnapshot(db, reusedId, { documents: false }))).toEqual(comparable(edited));
    } finally {
      await closeDb(counting);
    }
  });

  it('reads chunks once per process through the cache, and never lets a reader change what others share', async () => {
    const first = emptySnapshot();
    for (let i = 0; i < 100; i++) first.pages.set(`c${i}`, page(first, `c${i}`, null, i, `text ${i}`));
    first.pages.set('c5', { ...first.pages.get('c5')!, layout: { cover: true } });
    const id = await db.$transaction((tx) => writeRevision(tx, { spaceId, parentId: null, type: 'edits', snapshot: first }));
    const cache = new RevisionChunkCache(10_000);
    const statements: string[] = [];
    const counting = createDb(database.config, { onQuery: (sql) => statements.push(sql) });
    try {
      const once = await loadSnapshot(counting, id, { documents: false, chunks: cache });
      const chunkReads = () => statements.filter((sql) => /FROM [`"]?([a-z0-9_]+[`"]?\.)?[`"]?RevisionChunk[`"]?/i.test(sql)).length;
      expect(chunkReads()).toBe(1);
      const twice = await loadSnapshot(counting, id, { documents: false, chunks: cache });
      expect(chunkReads()).toBe(1);
      expect(comparable(twice)).toEqual(comparable(once));
      expect(comparable(twice)).toEqual(comparable(first));
      // Readers share the pages of a kept chunk (one object per page), frozen: no reader changes them for others.
      expect(twice.pages.get('c5')).toBe(once.pages.get('c5'));
      expect(() => {
        twice.pages.get('c5')!.title = 'Mine';
      }).toThrow(TypeError);
      expect(once.pages.get('c5')!.title).toBe('C5');
      expect(() => {
        (twice.pages.get('c5')!.layout as Record<string, unknown>).cover = false;
      }).toThrow(TypeError);
      // Nothing kept: every load reads.
      const none = new RevisionChunkCache(0);
      await loadSnapshot(counting, id, { documents: false, chunks: none });
      await loadSnapshot(counting, id, { documents: false, chunks: none });
      expect(chunkReads()).toBe(3);
    } finally {
      await closeDb(counting);
    }
  });

  it('stores the documents and references of a large revision in a few multi-row statements', async () => {
    const snapshot = emptySnapshot();
    const pages = 1200;
    for (let i = 0; i < pages; i++) {
      const id = `big-${i}`;
      const link = (ref: ContentRef, text: string): JSONNode => ({ object: 'inline', type: 'link', data: { ref }, nodes: [textNode(text)] });
      const nodes = [textNode(`page ${i} links to `), link({ kind: 'url', url: `https://example.com/${i}` }, 'a site'), link({ kind: 'page', page: `big-${(i + 1) % pages}` }, 'the next page')];
      const document: JSONDocument = { object: 'document', data: {}, nodes: [{ object: 'block', type: 'paragraph', nodes }] };
      const p = page(snapshot, id, null, i, '');
      snapshot.pages.set(id, { ...p, documentHash: putDocument(snapshot, document) });
    }
    for (const hash of [...snapshot.documents.keys()]) if (![...snapshot.pages.values()].some((p) => p.documentHash === hash)) snapshot.documents.delete(hash);

    const statements: string[] = [];
    const counting = createDb(database.config, { onQuery: (sql) => statements.push(sql) });
    try {
      const id = await counting.$transaction((tx) => writeRevision(tx, { spaceId, parentId: null, type: 'edits', snapshot }));
      // 1,200 documents in batches of 500, 2,400 references in batches of 1,000.
      expect(statements.filter((sql) => /INSERT INTO "?ContentDocument"?/i.test(sql))).toHaveLength(3);
      expect(statements.filter((sql) => /INSERT INTO "?DocumentReference"?/i.test(sql))).toHaveLength(3);
      const read = await loadSnapshot(db, id, { documents: true });
      expect(read.documents).toEqual(snapshot.documents);
      const hashes = [...snapshot.documents.keys()];
      expect(await db.documentReference.count({ where: { documentHash: { in: hashes } } })).toBe(2 * pages);
      expect(await db.documentReference.count({ where: { documentHash: { in: hashes }, targetKind: 'page', target: 'big-0' } })).toBe(1);

      // Written again (another revision of the same documents): nothing new to store.
      statements.length = 0;
      await counting.$transaction((tx) => writeRevision(tx, { spaceId, parentId: id, type: 'edits', snapshot }));
      expect(statements.filter((sql) => /INSERT INTO "?(ContentDocument|DocumentReference)"?/i.test(sql))).toHaveLength(0);
    } finally {
      await closeDb(counting);
    }
  });
});

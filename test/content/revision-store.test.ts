/**
 * Writing and reading revisions on a real database (SQLite, or PostgreSQL when
 * TEST_DATABASE_URL is set): a revision written by copying the unchanged rows
 * of its source reads back exactly like one written in full.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ContentRef, type JSONDocument, type JSONNode } from '../../src/content/document/model.ts';
import { placePage } from '../../src/content/page-tree.ts';
import { cloneSnapshot, emptySnapshot, loadSnapshot, putDocument, writeRevision } from '../../src/content/revision-store.ts';
import type { PageSnapshot, RevisionSnapshot } from '../../src/content/snapshot.ts';
import { closeDb, createDb, type Db } from '../../src/db/client.ts';
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
  it('copies unchanged rows from its source and reads back identical to a full write', async () => {
    const first = emptySnapshot();
    for (const [i, id] of ['a', 'b', 'c', 'd'].entries()) first.pages.set(id, page(first, id, null, i, `text ${id}`));
    first.pages.set('a1', page(first, 'a1', 'a', 0, 'child'));
    first.pages.set('c1', page(first, 'c1', 'c', 0, 'unchanged child'));
    const firstId = await db.$transaction((tx) => writeRevision(tx, { spaceId, parentId: null, type: 'edits', snapshot: first }));

    // Change one page's document, move another, rename a parent (its child's path changes).
    const next = cloneSnapshot(first);
    next.pages.set('b', { ...next.pages.get('b')!, documentHash: putDocument(next, doc('new b')), updatedAt: new Date() });
    placePage(next.pages, next.pages.get('d')!, null, 0);
    next.pages.set('a', { ...next.pages.get('a')!, slug: 'renamed' });

    const statements: string[] = [];
    const counting = createDb(database.config, { onQuery: (sql) => statements.push(sql) });
    try {
      const copiedId = await counting.$transaction((tx) =>
        writeRevision(tx, { spaceId, parentId: firstId, type: 'edits', snapshot: next, copyFrom: { revisionId: firstId, snapshot: first } }),
      );
      const fullId = await db.$transaction((tx) => writeRevision(tx, { spaceId, parentId: firstId, type: 'edits', snapshot: next }));
      const copied = await loadSnapshot(db, copiedId, { documents: true });
      const full = await loadSnapshot(db, fullId, { documents: true });
      expect(comparable(copied)).toEqual(comparable(full));
      expect(copied.documents).toEqual(full.documents);
      const paths = await db.revisionPage.findMany({ where: { revisionId: copiedId }, select: { pageId: true, path: true }, orderBy: { pageId: 'asc' } });
      expect(paths).toEqual([
        { pageId: 'a', path: 'renamed' },
        { pageId: 'a1', path: 'renamed/a1' },
        { pageId: 'b', path: 'b' },
        { pageId: 'c', path: 'c' },
        { pageId: 'c1', path: 'c/c1' },
        { pageId: 'd', path: 'd' },
      ]);
      // Only c1 kept its row unchanged (index, path and content; its parent c moved down one): it is copied.
      const inserts = statements.filter((sql) => /INSERT INTO "?RevisionPage"?/i.test(sql));
      expect(inserts.some((sql) => /SELECT/i.test(sql))).toBe(true);
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

import { describe, expect, it } from 'vitest';
import { hashDocument } from '../../src/content/document/hash.ts';
import { type JSONDocument } from '../../src/content/document/model.ts';
import { mergeDocuments } from '../../src/content/merge-documents.ts';
import { mergeRevisions, type MergeConflict } from '../../src/content/merge.ts';
import type { FileSnapshot, PageSnapshot, RevisionSnapshot, TagSnapshot } from '../../src/content/snapshot.ts';
import { pageSnapshot, paragraph, paragraphs as doc } from '../helpers/snapshot.ts';

// ---------------------------------------------------------------- builder

function texts(document: JSONDocument | undefined): string[] {
  return (document?.nodes ?? []).map((n) => n.nodes?.[0]?.leaves?.[0]?.text ?? '?');
}

type PageSpec = { id: string; parent?: string | null; doc?: JSONDocument } & Partial<Omit<PageSnapshot, 'id' | 'parentId'>>;

/** A snapshot from pages listed in sibling order (index = order among the same parent). */
function build(specs: PageSpec[], files: Partial<FileSnapshot>[] = []): RevisionSnapshot {
  const s: RevisionSnapshot = { pages: new Map(), reusableContents: new Map(), files: new Map(), documents: new Map(), variables: {}, redirects: new Map(), tags: new Map() };
  for (const spec of specs) {
    const { id, parent = null, doc: document, ...rest } = spec;
    let documentHash: string | null = null;
    if (document) {
      documentHash = hashDocument(document);
      s.documents.set(documentHash, document);
    }
    s.pages.set(id, pageSnapshot({ id, parentId: parent, title: id.toUpperCase(), slug: id, documentHash, ...rest }));
  }
  renumberAll(s);
  for (const f of files) s.files.set(f.id!, file(f));
  return s;
}

function file(f: Partial<FileSnapshot>): FileSnapshot {
  return { id: f.id!, name: `${f.id}.png`, contentType: 'image/png', size: 10, storageKey: `key-${f.id}`, width: null, height: null, ...f };
}

/** Children of a parent in index order. */
function children(s: RevisionSnapshot, parentId: string | null): string[] {
  return [...s.pages.values()]
    .filter((p) => p.parentId === parentId)
    .sort((a, b) => a.index - b.index || (a.id < b.id ? -1 : 1))
    .map((p) => p.id);
}

function renumberAll(s: RevisionSnapshot, preferred?: { id: string; at: number }) {
  // stable: equal indexes keep the map's order (the builder's order)
  const order = new Map([...s.pages.keys()].map((id, i) => [id, i]));
  const groups = new Map<string | null, PageSnapshot[]>();
  for (const p of s.pages.values()) {
    if (p.id === preferred?.id) continue;
    groups.set(p.parentId, [...(groups.get(p.parentId) ?? []), p]);
  }
  const moving = preferred && s.pages.get(preferred.id);
  if (moving && !groups.has(moving.parentId)) groups.set(moving.parentId, []);
  for (const [parent, list] of groups) {
    list.sort((a, b) => a.index - b.index || order.get(a.id)! - order.get(b.id)!);
    if (moving && moving.parentId === parent) list.splice(Math.min(preferred.at, list.length), 0, moving);
    list.forEach((p, i) => s.pages.set(p.id, { ...p, index: i }));
  }
}

/** A deep copy to edit (the "change" of one side). */
function edit(s: RevisionSnapshot, fn: (e: Editor) => void): RevisionSnapshot {
  const copy = structuredClone(s);
  fn(new Editor(copy));
  // a revision holds the documents of its pages only
  const used = new Set([...copy.pages.values()].map((p) => p.documentHash));
  for (const hash of copy.documents.keys()) if (!used.has(hash)) copy.documents.delete(hash);
  return copy;
}

class Editor {
  constructor(readonly s: RevisionSnapshot) {}
  set(id: string, patch: Partial<PageSnapshot>) {
    this.s.pages.set(id, { ...this.s.pages.get(id)!, ...patch });
    return this;
  }
  setDoc(id: string, document: JSONDocument) {
    const hash = hashDocument(document);
    this.s.documents.set(hash, document);
    return this.set(id, { documentHash: hash });
  }
  /** Moves (or inserts, with `page`) under `parent` at `at` (end by default). */
  place(id: string, parent: string | null, at?: number, page?: Partial<PageSnapshot>) {
    const existing = this.s.pages.get(id);
    const previousParent = existing?.parentId;
    const base = existing ?? build([{ id }]).pages.get(id)!;
    this.s.pages.set(id, { ...base, ...page, parentId: parent, index: Number.MAX_SAFE_INTEGER });
    renumberAll(this.s, { id, at: at ?? Number.MAX_SAFE_INTEGER });
    void previousParent;
    return this;
  }
  insert(id: string, parent: string | null, at?: number, page?: Partial<PageSnapshot>) {
    return this.place(id, parent, at, page);
  }
  remove(id: string) {
    const ids = new Set([id]);
    for (let grew = true; grew; ) {
      grew = false;
      for (const p of this.s.pages.values()) if (p.parentId && ids.has(p.parentId) && !ids.has(p.id)) (ids.add(p.id), (grew = true));
    }
    for (const i of ids) this.s.pages.delete(i);
    renumberAll(this.s);
    return this;
  }
  addFile(f: Partial<FileSnapshot>) {
    this.s.files.set(f.id!, file(f));
    return this;
  }
  setFile(id: string, patch: Partial<FileSnapshot>) {
    this.s.files.set(id, { ...this.s.files.get(id)!, ...patch });
    return this;
  }
  removeFile(id: string) {
    this.s.files.delete(id);
    return this;
  }
}

/** The comparable content of a snapshot: pages without timestamps, files, document hashes. */
function shape(s: RevisionSnapshot) {
  const pages = [...s.pages.values()]
    .map(({ createdAt: _c, updatedAt: _u, ...rest }) => rest)
    .sort((a, b) => (a.id < b.id ? -1 : 1));
  const files = [...s.files.values()].sort((a, b) => (a.id < b.id ? -1 : 1));
  return { pages, files, documents: [...s.documents.keys()].sort() };
}

/** Every invariant a merged snapshot keeps, conflicts or not. */
function expectValidTree(s: RevisionSnapshot) {
  const parents = new Set<string | null>();
  for (const p of s.pages.values()) {
    parents.add(p.parentId);
    if (p.parentId !== null) expect(s.pages.has(p.parentId), `parent of ${p.id}`).toBe(true);
    const seen = new Set<string>();
    for (let at: string | null = p.id; at !== null; at = s.pages.get(at)!.parentId) {
      expect(seen.has(at), `cycle through ${p.id}`).toBe(false);
      seen.add(at);
    }
  }
  for (const parent of parents) {
    const list = [...s.pages.values()].filter((p) => p.parentId === parent);
    expect(list.map((p) => p.index).sort((a, b) => a - b)).toEqual(list.map((_, i) => i));
    expect(new Set(list.map((p) => p.slug)).size, `unique slugs under ${parent}`).toBe(list.length);
  }
  const hashes = new Set([...s.pages.values()].map((p) => p.documentHash).filter((h): h is string => h !== null));
  expect(new Set(s.documents.keys())).toEqual(hashes);
  for (const [hash, document] of s.documents) expect(hashDocument(document)).toBe(hash);
}

function merge(base: RevisionSnapshot, ours: RevisionSnapshot, theirs: RevisionSnapshot) {
  const result = mergeRevisions({ base, ours, theirs });
  expectValidTree(result.snapshot);
  return result;
}

function pick(conflicts: MergeConflict[]) {
  return conflicts.map((c) => `${c.kind}:${c.id}:${c.reason}${c.fields ? `:${c.fields.join(',')}` : ''}`);
}

/**
 * root-level: intro, guide (with guide-a, guide-b, guide-c), api (with api-x), faq
 */
function sample(): RevisionSnapshot {
  return build(
    [
      { id: 'intro', doc: doc('Welcome', 'Second', 'Third', 'Fourth') },
      { id: 'guide', doc: doc('Guide') },
      { id: 'guide-a', parent: 'guide', doc: doc('A') },
      { id: 'guide-b', parent: 'guide', doc: doc('B') },
      { id: 'guide-c', parent: 'guide', doc: doc('C') },
      { id: 'api', kind: 'group', documentHash: null },
      { id: 'api-x', parent: 'api', doc: doc('X') },
      { id: 'faq', doc: doc('FAQ') },
    ],
    [{ id: 'logo' }],
  );
}

// ---------------------------------------------------------------- tests

describe('mergeRevisions', () => {
  it('returns the base when nothing changed', () => {
    const base = sample();
    const { snapshot, conflicts } = merge(base, structuredClone(base), structuredClone(base));
    expect(conflicts).toEqual([]);
    expect(shape(snapshot)).toEqual(shape(base));
  });

  const oursChanges = (e: Editor) =>
    e
      .set('intro', { title: 'Welcome!' })
      .place('guide-c', 'guide', 0) // reorder
      .place('api-x', 'guide', 1) // move to another parent
      .insert('new', 'api', 0, { title: 'New', slug: 'new' })
      .insert('tail', null, undefined, { slug: 'tail' })
      .remove('faq')
      .addFile({ id: 'diagram' })
      .setDoc('guide-a', doc('A, rewritten'));

  it('keeps every change made by ours only (title, reorder, move, insert, delete, document, file add)', () => {
    const base = sample();
    const ours = edit(base, oursChanges);
    const { snapshot, conflicts } = merge(base, ours, structuredClone(base));
    expect(conflicts).toEqual([]);
    expect(shape(snapshot)).toEqual(shape(ours));
    expect(children(snapshot, 'guide')).toEqual(['guide-c', 'api-x', 'guide-a', 'guide-b']);
  });

  it('keeps every change made by theirs only', () => {
    const base = sample();
    const theirs = edit(base, oursChanges);
    const { snapshot, conflicts } = merge(base, structuredClone(base), theirs);
    expect(conflicts).toEqual([]);
    expect(shape(snapshot)).toEqual(shape(theirs));
  });

  it('keeps ours-only reorders of many siblings exactly (update: the change request keeps its order)', () => {
    const base = build(['a', 'b', 'c', 'd', 'e', 'f'].map((id) => ({ id })));
    const ours = edit(base, (e) => e.place('f', null, 0).place('b', null, 4).insert('n', null, 2).remove('d'));
    const { snapshot } = merge(base, ours, structuredClone(base));
    expect(children(snapshot, null)).toEqual(children(ours, null));
    expect(children(snapshot, null)).toEqual(['f', 'a', 'n', 'c', 'b', 'e']);
  });

  it('merges changes to different pages on both sides', () => {
    const base = sample();
    const ours = edit(base, (e) => e.set('intro', { title: 'Hello' }).insert('ours-page', 'guide'));
    const theirs = edit(base, (e) => e.set('faq', { emoji: '1f600' }).remove('api').addFile({ id: 'pdf' }));
    const { snapshot, conflicts } = merge(base, ours, theirs);
    expect(conflicts).toEqual([]);
    expect(snapshot.pages.get('intro')!.title).toBe('Hello');
    expect(snapshot.pages.get('faq')!.emoji).toBe('1f600');
    expect(snapshot.pages.has('api')).toBe(false);
    expect(snapshot.pages.has('api-x')).toBe(false);
    expect(children(snapshot, 'guide')).toEqual(['guide-a', 'guide-b', 'guide-c', 'ours-page']);
    expect([...snapshot.files.keys()].sort()).toEqual(['logo', 'pdf']);
  });

  it('merges changes to different fields of the same page', () => {
    const base = sample();
    const ours = edit(base, (e) => e.set('guide', { title: 'The Guide', layout: { cover: true } }));
    const theirs = edit(base, (e) => e.set('guide', { description: 'All about it', hidden: true, updatedAt: new Date('2026-02-01T00:00:00Z') }));
    const { snapshot, conflicts } = merge(base, ours, theirs);
    expect(conflicts).toEqual([]);
    expect(snapshot.pages.get('guide')).toMatchObject({ title: 'The Guide', layout: { cover: true }, description: 'All about it', hidden: true });
    expect(snapshot.pages.get('guide')!.updatedAt.toISOString()).toBe('2026-02-01T00:00:00.000Z');
  });

  it('accepts the same change made on both sides', () => {
    const base = sample();
    const change = (e: Editor) => e.set('faq', { title: 'Questions' }).setDoc('faq', doc('FAQ v2')).remove('api-x');
    const { snapshot, conflicts } = merge(base, edit(base, change), edit(base, change));
    expect(conflicts).toEqual([]);
    expect(snapshot.pages.get('faq')!.title).toBe('Questions');
    expect(texts(snapshot.documents.get(snapshot.pages.get('faq')!.documentHash!))).toEqual(['FAQ v2']);
  });

  it('reports the same field changed differently on both sides, listing the fields', () => {
    const base = sample();
    const ours = edit(base, (e) => e.set('faq', { title: 'Ours', emoji: 'a', hidden: true }));
    const theirs = edit(base, (e) => e.set('faq', { title: 'Theirs', emoji: 'b', description: 'fine' }));
    const { snapshot, conflicts } = merge(base, ours, theirs);
    expect(conflicts).toEqual([{ kind: 'page', id: 'faq', reason: 'both-modified', fields: ['title', 'emoji'] }]);
    // best effort: ours' value for the conflicting fields, the clean ones merged
    expect(snapshot.pages.get('faq')).toMatchObject({ title: 'Ours', emoji: 'a', hidden: true, description: 'fine' });
  });

  it('merges edits to different paragraphs of one document into a document holding both', () => {
    const base = sample();
    const ours = edit(base, (e) => e.setDoc('intro', doc('Welcome, friend', 'Second', 'Third', 'Fourth')));
    const theirs = edit(base, (e) => e.setDoc('intro', doc('Welcome', 'Second', 'Third', 'Fourth, updated', 'Fifth')));
    const { snapshot, conflicts } = merge(base, ours, theirs);
    expect(conflicts).toEqual([]);
    const hash = snapshot.pages.get('intro')!.documentHash!;
    expect(texts(snapshot.documents.get(hash))).toEqual(['Welcome, friend', 'Second', 'Third', 'Fourth, updated', 'Fifth']);
    expect(hash).toBe(hashDocument(snapshot.documents.get(hash)!));
    // the documents of the merged pages, and only those
    expect(snapshot.documents.has(ours.pages.get('intro')!.documentHash!)).toBe(false);
    expect(snapshot.documents.has(theirs.pages.get('intro')!.documentHash!)).toBe(false);
  });

  it('merges edits to adjacent paragraphs (which plain diff3 would call a conflict)', () => {
    const base = sample();
    const ours = edit(base, (e) => e.setDoc('intro', doc('Welcome', 'Second (ours)', 'Third', 'Fourth')));
    const theirs = edit(base, (e) => e.setDoc('intro', doc('Welcome', 'Second', 'Third (theirs)', 'Fourth')));
    const { snapshot, conflicts } = merge(base, ours, theirs);
    expect(conflicts).toEqual([]);
    expect(texts(snapshot.documents.get(snapshot.pages.get('intro')!.documentHash!))).toEqual(['Welcome', 'Second (ours)', 'Third (theirs)', 'Fourth']);
  });

  it('reports the same paragraph edited differently as a conflict on the page', () => {
    const base = sample();
    const ours = edit(base, (e) => e.setDoc('intro', doc('Welcome', 'Second (ours)', 'Third', 'Fourth', 'Fifth')));
    const theirs = edit(base, (e) => e.setDoc('intro', doc('Welcome', 'Second (theirs)', 'Third', 'Fourth')));
    const { snapshot, conflicts } = merge(base, ours, theirs);
    expect(conflicts).toEqual([{ kind: 'page', id: 'intro', reason: 'both-modified', fields: ['documentHash'] }]);
    expect(snapshot.pages.get('intro')!.documentHash).toBe(ours.pages.get('intro')!.documentHash);
  });

  it('reports a page ours deleted and theirs modified (deleted-modified), keeping it', () => {
    const base = sample();
    const ours = edit(base, (e) => e.remove('faq'));
    const theirs = edit(base, (e) => e.set('faq', { title: 'Still here' }));
    const { snapshot, conflicts } = merge(base, ours, theirs);
    expect(conflicts).toEqual([{ kind: 'page', id: 'faq', reason: 'deleted-modified', fields: ['title'] }]);
    expect(snapshot.pages.get('faq')!.title).toBe('Still here');
  });

  it('reports a page ours modified and theirs deleted (modified-deleted)', () => {
    const base = sample();
    const ours = edit(base, (e) => e.setDoc('faq', doc('FAQ, longer')));
    const theirs = edit(base, (e) => e.remove('faq'));
    const { snapshot, conflicts } = merge(base, ours, theirs);
    expect(conflicts).toEqual([{ kind: 'page', id: 'faq', reason: 'modified-deleted', fields: ['documentHash'] }]);
    expect(snapshot.pages.has('faq')).toBe(true);
  });

  it('deletes a page (and its descendants) deleted on one side and untouched on the other, even when reordered there', () => {
    const base = sample();
    const ours = edit(base, (e) => e.remove('guide'));
    const theirs = edit(base, (e) => e.place('faq', null, 0)); // shifts guide's index: not a change to guide
    const { snapshot, conflicts } = merge(base, ours, theirs);
    expect(conflicts).toEqual([]);
    expect(children(snapshot, null)).toEqual(['faq', 'intro', 'api']);
    expect([...snapshot.pages.keys()].filter((id) => id.startsWith('guide'))).toEqual([]);
  });

  it('reports a descendant modified under a page the other side deleted, and keeps the tree valid', () => {
    const base = sample();
    const ours = edit(base, (e) => e.remove('guide'));
    const theirs = edit(base, (e) => e.set('guide-b', { title: 'B2' }));
    const { snapshot, conflicts } = merge(base, ours, theirs);
    expect(pick(conflicts)).toEqual(['page:guide-b:deleted-modified:title']);
    expect(snapshot.pages.get('guide-b')!.parentId).toBe('guide');
    expect(snapshot.pages.has('guide')).toBe(true);
  });

  it('reports a new child under a page the other side deleted as orphaned (both ways)', () => {
    const base = sample();
    const deleting = edit(base, (e) => e.remove('api'));
    const adding = edit(base, (e) => e.insert('api-y', 'api'));
    const one = merge(base, deleting, adding);
    expect(pick(one.conflicts)).toEqual(['page:api-y:orphaned:parentId']);
    expect(one.snapshot.pages.get('api-y')!.parentId).toBe('api');
    const other = merge(base, adding, deleting);
    expect(pick(other.conflicts)).toEqual(['page:api-y:orphaned:parentId']);
  });

  it('reports a page moved under a page the other side deleted as orphaned', () => {
    const base = sample();
    const ours = edit(base, (e) => e.place('faq', 'api-x'));
    const theirs = edit(base, (e) => e.remove('api'));
    const { conflicts } = merge(base, ours, theirs);
    expect(pick(conflicts)).toEqual(['page:faq:orphaned:parentId']);
  });

  it('reports moves that form a cycle', () => {
    const base = sample();
    const ours = edit(base, (e) => e.place('guide', 'api'));
    const theirs = edit(base, (e) => e.place('api', 'guide'));
    const { snapshot, conflicts } = merge(base, ours, theirs);
    expect(pick(conflicts)).toEqual(['page:api:cycle:parentId', 'page:guide:cycle:parentId']);
    // ours' move is undone in the best-effort snapshot
    expect(snapshot.pages.get('guide')!.parentId).toBeNull();
    expect(snapshot.pages.get('api')!.parentId).toBe('guide');
  });

  it('reports a longer cycle through a page only ours has', () => {
    const base = build([{ id: 'a' }, { id: 'b' }]);
    const ours = edit(base, (e) => e.insert('n', 'a').place('b', 'n'));
    const theirs = edit(base, (e) => e.place('a', 'b'));
    const { conflicts } = merge(base, ours, theirs);
    expect(pick(conflicts)).toEqual(['page:a:cycle:parentId', 'page:b:cycle:parentId', 'page:n:cycle:parentId']);
  });

  it('reports a parent changed differently on both sides', () => {
    const base = sample();
    const ours = edit(base, (e) => e.place('faq', 'guide'));
    const theirs = edit(base, (e) => e.place('faq', 'api'));
    const { snapshot, conflicts } = merge(base, ours, theirs);
    expect(pick(conflicts)).toEqual(['page:faq:both-modified:parentId']);
    expect(snapshot.pages.get('faq')!.parentId).toBe('guide');
  });

  it('orders siblings when both sides insert into the same parent: all present, deterministic', () => {
    const base = sample();
    const ours = edit(base, (e) => e.insert('o1', 'guide', 1).insert('o2', 'guide', 2).insert('o-end', 'guide'));
    const theirs = edit(base, (e) => e.insert('t1', 'guide', 1).insert('t-end', 'guide').insert('t0', 'guide', 0));
    const first = merge(base, ours, theirs);
    expect(first.conflicts).toEqual([]);
    // theirs' order, ours' insertions right after their preceding sibling in ours
    expect(children(first.snapshot, 'guide')).toEqual(['t0', 'guide-a', 'o1', 'o2', 't1', 'guide-b', 'guide-c', 'o-end', 't-end']);
    const again = merge(structuredClone(base), structuredClone(ours), structuredClone(theirs));
    expect(shape(again.snapshot)).toEqual(shape(first.snapshot));
  });

  it('re-places a page ours moved among siblings that theirs reordered', () => {
    const base = build(['a', 'b', 'c', 'd'].map((id) => ({ id })));
    const ours = edit(base, (e) => e.place('a', null)); // a to the end: b c d a
    const theirs = edit(base, (e) => e.place('c', null, 0).insert('t', null, 1)); // c t a b d
    const { snapshot } = merge(base, ours, theirs);
    expect(children(snapshot, null)).toEqual(['c', 't', 'b', 'd', 'a']);
  });

  it('places an ours insertion at its clamped index when its preceding sibling is gone', () => {
    const base = build(['a', 'b', 'c'].map((id) => ({ id })));
    const ours = edit(base, (e) => e.insert('n', null, 2)); // a b n c
    const theirs = edit(base, (e) => e.remove('b').remove('c')); // a
    const { snapshot } = merge(base, ours, theirs);
    expect(children(snapshot, null)).toEqual(['a', 'n']);
  });

  it('suffixes a slug that clashes among siblings after the merge (the page already live keeps it)', () => {
    const base = sample();
    const ours = edit(base, (e) => e.insert('o-setup', 'guide', 0, { slug: 'setup' }).set('faq', { slug: 'help' }));
    const theirs = edit(base, (e) => e.insert('t-setup', 'guide', 3, { slug: 'setup' }).insert('t-help', null, undefined, { slug: 'help' }));
    const { snapshot, conflicts } = merge(base, ours, theirs);
    expect(conflicts).toEqual([]);
    expect(snapshot.pages.get('t-setup')!.slug).toBe('setup');
    expect(snapshot.pages.get('o-setup')!.slug).toBe('setup-2');
    expect(snapshot.pages.get('t-help')!.slug).toBe('help');
    expect(snapshot.pages.get('faq')!.slug).toBe('help-2');
  });

  it('suffixes the later sibling when neither page is live', () => {
    const base = build([{ id: 'a' }]);
    const ours = edit(base, (e) => e.insert('x', null, undefined, { slug: 'dup' }).insert('y', null, undefined, { slug: 'dup-2' }));
    const theirs = edit(base, (e) => e.set('a', { slug: 'dup' }));
    const { snapshot } = merge(base, ours, theirs);
    // a is live as 'dup'; x clashes and skips 'dup-2' (taken by y)
    expect([snapshot.pages.get('a')!.slug, snapshot.pages.get('x')!.slug, snapshot.pages.get('y')!.slug]).toEqual(['dup', 'dup-3', 'dup-2']);
  });

  it('merges files by the same rules', () => {
    const base = build([{ id: 'a' }], [{ id: 'f1' }, { id: 'f2' }, { id: 'f3' }, { id: 'f4' }, { id: 'f5' }]);
    const ours = edit(base, (e) =>
      e.setFile('f1', { name: 'one.png' }).setFile('f2', { name: 'ours.png' }).removeFile('f3').setFile('f4', { size: 99 }).addFile({ id: 'o' }),
    );
    const theirs = edit(base, (e) =>
      e.setFile('f1', { width: 10 }).setFile('f2', { name: 'theirs.png' }).setFile('f3', { storageKey: 'other' }).removeFile('f4').removeFile('f5').addFile({ id: 't' }),
    );
    const { snapshot, conflicts } = merge(base, ours, theirs);
    expect(pick(conflicts)).toEqual(['file:f2:both-modified:name', 'file:f3:deleted-modified:storageKey', 'file:f4:modified-deleted:size']);
    expect(snapshot.files.get('f1')).toMatchObject({ name: 'one.png', width: 10 });
    expect([...snapshot.files.keys()].sort()).toEqual(['f1', 'f2', 'f3', 'f4', 'o', 't']);
  });

  it('merges tags per slug (ours then theirs new ones), page tags as a field, and drops a page tag whose tag is gone', () => {
    const tag = (slug: string, fields: Partial<TagSnapshot> = {}): TagSnapshot => ({ slug, label: slug, color: 'default', emoji: null, icon: null, ...fields });
    const base = build([{ id: 'a', tags: [{ tag: 't1' }] }, { id: 'b' }]);
    base.tags = new Map([
      ['t1', tag('t1')],
      ['t2', tag('t2')],
      ['t3', tag('t3')],
    ]);
    const ours = edit(base, (e) => {
      e.s.tags.set('t1', tag('t1', { label: 'Ours' }));
      e.s.tags.set('t2', tag('t2', { color: 'red' }));
      e.s.tags.delete('t3');
      e.s.tags.set('o', tag('o'));
      e.set('a', { tags: [{ tag: 't1' }, { tag: 'o', primary: true }] });
    });
    const theirs = edit(base, (e) => {
      e.s.tags.set('t1', tag('t1', { label: 'Theirs' }));
      e.s.tags.set('t2', tag('t2', { icon: 'gear' }));
      e.s.tags.set('t', tag('t'));
      e.set('a', { tags: [{ tag: 't2' }] });
      e.set('b', { tags: [{ tag: 't3' }, { tag: 't' }] });
    });
    const { snapshot, conflicts } = merge(base, ours, theirs);
    expect(pick(conflicts)).toEqual(['page:a:both-modified:tags', 'tag:t1:both-modified:label']);
    expect([...snapshot.tags.keys()]).toEqual(['t1', 't2', 'o', 't']);
    expect(snapshot.tags.get('t2')).toEqual(tag('t2', { color: 'red', icon: 'gear' }));
    // t3 deleted by ours, given to b by theirs: b no longer carries it.
    expect(snapshot.pages.get('b')!.tags).toEqual([{ tag: 't' }]);
    expect(snapshot.pages.get('a')!.tags).toEqual([{ tag: 't1' }, { tag: 'o', primary: true }]);
    // An emoji given on one side and an icon on the other cannot stand together: ours' kept, a conflict.
    const withEmoji = edit(base, (e) => e.s.tags.set('t2', tag('t2', { emoji: '1f389' })));
    const withIcon = edit(base, (e) => e.s.tags.set('t2', tag('t2', { icon: 'gear' })));
    const clash = merge(base, withEmoji, withIcon);
    expect(pick(clash.conflicts)).toEqual(['tag:t2:both-modified:emoji,icon']);
    expect(clash.snapshot.tags.get('t2')).toEqual(tag('t2', { emoji: '1f389' }));
  });

  it('merges a page added on both sides with the same id: equal is fine, different conflicts', () => {
    const base = build([{ id: 'a' }]);
    const same = merge(base, edit(base, (e) => e.insert('n', null)), edit(base, (e) => e.insert('n', null)));
    expect(same.conflicts).toEqual([]);
    const different = merge(base, edit(base, (e) => e.insert('n', null, undefined, { title: 'X' })), edit(base, (e) => e.insert('n', null, undefined, { title: 'Y' })));
    expect(pick(different.conflicts)).toEqual(['page:n:both-modified:title']);
  });

  it('reports a document that is not loaded as a conflict instead of throwing', () => {
    const base = sample();
    const ours = edit(base, (e) => e.setDoc('faq', doc('ours')));
    const theirs = edit(base, (e) => e.setDoc('faq', doc('theirs')));
    base.documents.clear();
    const { conflicts } = mergeRevisions({ base, ours, theirs });
    expect(pick(conflicts)).toEqual(['page:faq:both-modified:documentHash']);
  });

  it('does not mutate its inputs', () => {
    const base = sample();
    const ours = edit(base, (e) => oursChanges(e).set('guide', { layout: { cover: true } }).setDoc('intro', doc('W', 'Second', 'Third', 'Fourth')).insert('setup', 'guide', 0));
    const theirs = edit(base, (e) => e.place('api', 'guide').insert('setup2', 'guide', 0, { slug: 'setup' }).setDoc('intro', doc('Welcome', 'Second', 'Third', 'Fourth!')).remove('guide-b'));
    const copies = [structuredClone(base), structuredClone(ours), structuredClone(theirs)];
    const { snapshot } = merge(base, ours, theirs);
    expect([base, ours, theirs]).toEqual(copies);
    // the result's pages are its own
    for (const page of snapshot.pages.values()) {
      expect(page).not.toBe(ours.pages.get(page.id));
      expect(page).not.toBe(theirs.pages.get(page.id));
    }
    snapshot.pages.get('guide')!.layout!.cover = false;
    expect(ours.pages.get('guide')!.layout).toEqual({ cover: true });
  });

  it('merges a 1,000-page snapshot with 100 changed pages on each side', () => {
    const specs: PageSpec[] = [];
    for (let s = 0; s < 10; s++) {
      specs.push({ id: `s${s}`, kind: 'group', documentHash: null });
      for (let p = 0; p < 98; p++) specs.push({ id: `s${s}-p${p}`, parent: `s${s}`, doc: doc(`s${s} p${p} first`, 'middle', `s${s} p${p} last`) });
    }
    specs.push(...Array.from({ length: 10 }, (_, i) => ({ id: `r${i}` })));
    const base = build(specs);
    expect(base.pages.size).toBe(1000);
    // ours: first paragraphs of 60 pages, titles of 20, 10 moves to another section, 10 inserts
    const ours = edit(base, (e) => {
      for (let i = 0; i < 60; i++) e.setDoc(`s${i % 10}-p${i}`, doc(`ours ${i}`, 'middle', `s${i % 10} p${i} last`));
      for (let i = 60; i < 80; i++) e.set(`s${i % 10}-p${i}`, { title: `Ours ${i}` });
      for (let i = 80; i < 90; i++) e.place(`s${i % 10}-p${i}`, `s${(i + 1) % 10}`, 0);
      for (let i = 0; i < 10; i++) e.insert(`ours-new-${i}`, `s${i}`, 5);
    });
    // theirs: last paragraphs of the same 60 pages, descriptions of 20 others, 10 deletions, 10 inserts
    const theirs = edit(base, (e) => {
      for (let i = 0; i < 60; i++) e.setDoc(`s${i % 10}-p${i}`, doc(`s${i % 10} p${i} first`, 'middle', `theirs ${i}`));
      for (let i = 60; i < 80; i++) e.set(`s${(i + 3) % 10}-p${i}`, { description: `Theirs ${i}` });
      for (let i = 90; i < 98; i++) e.remove(`s${i % 10}-p${i}`);
      e.remove('r8').remove('r9');
      for (let i = 0; i < 10; i++) e.insert(`theirs-new-${i}`, `s${i}`, 5);
    });
    const { snapshot, conflicts } = merge(base, ours, theirs);
    expect(conflicts).toEqual([]);
    expect(snapshot.pages.size).toBe(1000 - 10 + 20);
    for (let i = 0; i < 60; i++) {
      const page = snapshot.pages.get(`s${i % 10}-p${i}`)!;
      expect(texts(snapshot.documents.get(page.documentHash!))).toEqual([`ours ${i}`, 'middle', `theirs ${i}`]);
    }
    for (let i = 60; i < 80; i++) {
      expect(snapshot.pages.get(`s${i % 10}-p${i}`)!.title).toBe(`Ours ${i}`);
      expect(snapshot.pages.get(`s${(i + 3) % 10}-p${i}`)!.description).toBe(`Theirs ${i}`);
    }
    for (let i = 80; i < 90; i++) expect(snapshot.pages.get(`s${i % 10}-p${i}`)!.parentId).toBe(`s${(i + 1) % 10}`);
    for (let i = 0; i < 10; i++) {
      const list = children(snapshot, `s${i}`);
      expect(list).toContain(`ours-new-${i}`);
      expect(list).toContain(`theirs-new-${i}`);
      expect(list[0]).toBe(`s${(i + 9) % 10}-p${80 + ((i + 9) % 10)}`);
    }
    expect(snapshot.pages.has('r9')).toBe(false);
    expect(snapshot.pages.has('s0-p90')).toBe(false);
  });
});

describe('mergeRevisions on random edits', () => {
  /** A small deterministic PRNG (mulberry32). */
  function random(seed: number) {
    return () => {
      seed = (seed + 0x6d2b79f5) | 0;
      let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
      t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
      return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    };
  }

  function randomEdits(base: RevisionSnapshot, seed: number, prefix: string): RevisionSnapshot {
    const rnd = random(seed);
    const pickOne = <T,>(list: T[]) => list[Math.floor(rnd() * list.length)]!;
    return edit(base, (e) => {
      for (let step = 0; step < 8; step++) {
        const ids = [...e.s.pages.keys()].sort();
        if (ids.length === 0) break;
        const id = pickOne(ids);
        const op = Math.floor(rnd() * 6);
        if (op === 0) e.set(id, { title: `${prefix} ${step}` });
        else if (op === 1) e.remove(id);
        else if (op === 2) e.insert(`${prefix}-${step}`, rnd() < 0.3 ? null : id, Math.floor(rnd() * 4));
        else if (op === 3) {
          // move under a page that is not in its own subtree
          const below = new Set([id]);
          for (let grew = true; grew; ) {
            grew = false;
            for (const p of e.s.pages.values()) if (p.parentId && below.has(p.parentId) && !below.has(p.id)) (below.add(p.id), (grew = true));
          }
          const targets = ids.filter((t) => !below.has(t));
          e.place(id, targets.length && rnd() < 0.7 ? pickOne(targets) : null, Math.floor(rnd() * 4));
        } else if (op === 4) {
          const document = e.s.documents.get(e.s.pages.get(id)!.documentHash ?? '');
          if (document) e.setDoc(id, { ...document, nodes: document.nodes.map((n, i) => (i === step % document.nodes.length ? paragraph(`${prefix} ${step}`) : n)) });
        } else {
          const siblings = children(e.s, e.s.pages.get(id)!.parentId);
          e.place(id, e.s.pages.get(id)!.parentId, Math.floor(rnd() * siblings.length));
        }
      }
    });
  }

  it('keeps one-sided changes exactly and keeps a valid tree on two-sided ones (200 seeds)', () => {
    const base = sample();
    for (let seed = 1; seed <= 200; seed++) {
      const ours = randomEdits(base, seed, 'o');
      const theirs = randomEdits(base, seed * 7919, 't');
      const oursOnly = merge(base, ours, structuredClone(base));
      expect(oursOnly.conflicts, `seed ${seed}`).toEqual([]);
      expect(shape(oursOnly.snapshot), `seed ${seed}`).toEqual(shape(ours));
      const theirsOnly = merge(base, structuredClone(base), theirs);
      expect(theirsOnly.conflicts, `seed ${seed}`).toEqual([]);
      expect(shape(theirsOnly.snapshot), `seed ${seed}`).toEqual(shape(theirs));
      const both = merge(base, ours, theirs); // valid tree, no throw
      const again = mergeRevisions({ base, ours, theirs });
      expect(shape(again.snapshot)).toEqual(shape(both.snapshot));
      expect(again.conflicts).toEqual(both.conflicts);
    }
  });
});

describe('mergeDocuments', () => {
  it('merges both sides inserting at different places and deleting different blocks', () => {
    const base = doc('a', 'b', 'c', 'd', 'e');
    const r = mergeDocuments(base, doc('new', 'a', 'b', 'c', 'e'), doc('a', 'c', 'd', 'e', 'end'));
    expect(r.clean).toBe(true);
    expect(texts(r.document)).toEqual(['new', 'a', 'c', 'e', 'end']);
  });

  it('conflicts on two insertions at the same place, and returns ours there as the best effort', () => {
    const r = mergeDocuments(doc('a', 'b'), doc('a', 'x', 'b'), doc('a', 'y', 'b'));
    expect(r.clean).toBe(false);
    expect(r.conflicts).toHaveLength(1);
    expect(texts(r.document)).toEqual(['a', 'x', 'b']);
  });

  it('conflicts on a block deleted on one side and edited on the other', () => {
    const r = mergeDocuments(doc('a', 'b', 'c'), doc('a', 'c'), doc('a', 'B', 'c'));
    expect(r.clean).toBe(false);
  });

  it('compares blocks by canonical JSON (key order does not matter)', () => {
    const base = doc('a', 'b');
    const reordered: JSONDocument = { nodes: base.nodes.map((n) => ({ nodes: n.nodes, type: n.type, object: n.object })), data: {}, object: 'document' };
    const r = mergeDocuments(base, reordered, doc('a', 'b', 'c'));
    expect(r.clean).toBe(true);
    expect(texts(r.document)).toEqual(['a', 'b', 'c']);
  });

  it("merges the document's own data like a field", () => {
    const base = doc('a');
    expect(mergeDocuments(base, { ...doc('a'), data: { x: 1 } }, doc('a', 'b')).document).toMatchObject({ data: { x: 1 } });
    expect(mergeDocuments(base, { ...doc('a'), data: { x: 1 } }, { ...doc('a'), data: { x: 2 } }).clean).toBe(false);
  });
});

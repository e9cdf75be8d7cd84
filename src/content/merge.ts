/**
 * Three-way merge of revisions: a change request's content (`ours`) into the
 * space's current content (`theirs`), both derived from `base` (the revision
 * the change request branched from). The same call serves "update" (bring a
 * change request up to date): every change made on one side only is kept,
 * whichever side it is on, so the caller may keep `snapshot` as either side's
 * new content.
 *
 * Rules, per page id (the fields of PAGE_FIELDS except `index`) and per file id:
 * - a field changed on one side only takes that side's value; changed to the
 *   same value on both is fine; changed differently on both is a conflict
 *   (`both-modified`, listing the fields), except `documentHash` when both
 *   documents are loaded: their top-level blocks merge three-way
 *   (`mergeDocuments`) and only a conflicting hunk is a conflict;
 * - added on one side: kept; added on both: merged with no base (any
 *   difference conflicts);
 * - deleted on one side, unchanged on the other: deleted; deleted on one side
 *   and changed on the other: conflict (`modified-deleted` when ours changed
 *   and theirs deleted, `deleted-modified` the other way round), and the
 *   changed page is kept in the best-effort snapshot; deleted on both: deleted.
 * - tree: `parentId` merges like a field. A page that ends up under a deleted
 *   page is `orphaned` (the deleted ancestors are restored in the best-effort
 *   snapshot); merged parents that form a cycle are a `cycle` conflict on the
 *   moved pages of the cycle (ours' moves in it are undone in the snapshot).
 * - sibling order: see `orderSiblings`; slugs: see `dedupeSlugs`.
 * - files and reusable contents merge per id and field as pages do (without a
 *   tree); a reusable content's document changed on both sides merges by block.
 * - variables (the space's, and each page's `variables`) merge per variable name
 *   by the same rule as fields: a variable both sides set differently (or one
 *   changed and the other removed) is a conflict, `variable` named by its name
 *   for the space's, the page's field `variables.<name>` for a page's.
 * - redirects merge per old path by the same rule (`redirect` named by the path).
 * - tags merge per slug as files do (`tag` named by its slug), in ours' order then theirs' new
 *   ones; a page's `tags` is a page field. A page left carrying a tag the merged content lacks
 *   (one side deleted it, the other gave it to the page) no longer carries it, as delete_tag
 *   takes it from every page.
 *
 * With conflicts the snapshot is still a valid tree: each conflicting field
 * holds ours' value (the change request's), except a parent undone to break
 * a cycle. Never throws on valid input, never mutates the inputs (pages and
 * files of the result are copies; unchanged documents are shared, as
 * revisions share them).
 */
import { stringify } from 'safe-stable-stringify';
import { joinStoredChunks } from '../db/revision-chunks.ts';
import { uniqueSlug } from '../slug.ts';
import { hashDocument } from './document/hash.ts';
import { type JSONDocument } from './document/model.ts';
import { mergeDocuments } from './merge-documents.ts';
import { PAGE_FIELDS, type FileSnapshot, type PageSnapshot, type ReusableContentSnapshot, type RevisionSnapshot, type TagSnapshot, type Variables } from './snapshot.ts';

export type MergeConflictReason = 'both-modified' | 'modified-deleted' | 'deleted-modified' | 'cycle' | 'orphaned';

export interface MergeConflict {
  kind: 'page' | 'file' | 'reusable-content' | 'variable' | 'redirect' | 'tag';
  id: string;
  /**
   * `both-modified`: both sides changed `fields` differently;
   * `modified-deleted`: ours changed it (`fields`), theirs deleted it;
   * `deleted-modified`: ours deleted it, theirs changed it (`fields`);
   * `cycle`: the merged parents form a cycle through this page;
   * `orphaned`: the page ends up under a page the other side deleted.
   */
  reason: MergeConflictReason;
  fields?: string[];
}

export interface MergeInput {
  /** The common ancestor. */
  base: RevisionSnapshot;
  /** The change request's content. */
  ours: RevisionSnapshot;
  /** The space's current content. */
  theirs: RevisionSnapshot;
}

export interface MergeResult {
  snapshot: RevisionSnapshot;
  conflicts: MergeConflict[];
}

/** The page fields merged one by one (`index` is rebuilt by the ordering). */
const MERGED_PAGE_FIELDS = PAGE_FIELDS.filter((field) => field !== 'index');

export const FILE_FIELDS = ['name', 'contentType', 'size', 'storageKey', 'width', 'height'] as const satisfies readonly (keyof FileSnapshot)[];
const REUSABLE_CONTENT_FIELDS = ['title', 'documentHash'] as const satisfies readonly (keyof ReusableContentSnapshot)[];
const TAG_FIELDS = ['label', 'color', 'emoji', 'icon'] as const satisfies readonly (keyof TagSnapshot)[];

function same(x: unknown, y: unknown): boolean {
  if (x === y) return true;
  if (x === null || y === null || typeof x !== 'object' || typeof y !== 'object') return false;
  return stringify(x) === stringify(y);
}

function changedFields<T>(fields: readonly (keyof T & string)[], from: T, to: T): string[] {
  return fields.filter((field) => !same(from[field], to[field]));
}

const byId = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** Children of every parent (null = root), in index order (ties by id). */
function childOrder(pages: ReadonlyMap<string, PageSnapshot>): Map<string | null, string[]> {
  const lists = new Map<string | null, PageSnapshot[]>();
  for (const page of pages.values()) {
    const list = lists.get(page.parentId);
    if (list) list.push(page);
    else lists.set(page.parentId, [page]);
  }
  const out = new Map<string | null, string[]>();
  for (const [parent, list] of lists) {
    list.sort((a, b) => a.index - b.index || byId(a.id, b.id));
    out.set(
      parent,
      list.map((p) => p.id),
    );
  }
  return out;
}

/** The ids of a longest increasing subsequence of `values` (keyed by id). */
function longestIncreasing(items: { id: string; value: number }[]): Set<string> {
  const tails: number[] = []; // index into items of the smallest tail of each length
  const previous: number[] = new Array(items.length).fill(-1);
  for (let i = 0; i < items.length; i++) {
    let lo = 0;
    let hi = tails.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (items[tails[mid]!]!.value < items[i]!.value) lo = mid + 1;
      else hi = mid;
    }
    if (lo > 0) previous[i] = tails[lo - 1]!;
    tails[lo] = i;
  }
  const out = new Set<string>();
  for (let i = tails.length ? tails[tails.length - 1]! : -1; i >= 0; i = previous[i]!) out.add(items[i]!.id);
  return out;
}

class Conflicts {
  readonly list: MergeConflict[] = [];
  private readonly seen = new Set<string>();

  add(kind: MergeConflict['kind'], id: string, reason: MergeConflictReason, fields?: string[]) {
    const key = `${kind}\u0000${id}\u0000${reason}`;
    if (this.seen.has(key)) return;
    this.seen.add(key);
    this.list.push(fields ? { kind, id, reason, fields } : { kind, id, reason });
  }

  sorted(): MergeConflict[] {
    const kinds = { page: 0, file: 1, 'reusable-content': 2, variable: 3, redirect: 4, tag: 5 };
    return [...this.list].sort((a, b) => kinds[a.kind] - kinds[b.kind] || byId(a.id, b.id) || byId(a.reason, b.reason));
  }
}

export function mergeRevisions(input: MergeInput): MergeResult {
  const { base, ours, theirs } = input;
  const conflicts = new Conflicts();
  const mergedDocuments = new Map<string, JSONDocument>();
  const documentOf = (hash: string): JSONDocument | undefined =>
    mergedDocuments.get(hash) ?? ours.documents.get(hash) ?? theirs.documents.get(hash) ?? base.documents.get(hash);

  // ---- pages, one by one ----
  const pages = new Map<string, PageSnapshot>();
  const kept = new Set<string>(); // deleted on one side, kept because changed on the other
  const ids = [...new Set([...base.pages.keys(), ...ours.pages.keys(), ...theirs.pages.keys()])].sort(byId);
  for (const id of ids) {
    const b = base.pages.get(id);
    const o = ours.pages.get(id);
    const t = theirs.pages.get(id);
    if (o && t) {
      const { page, fields } = mergePage(b, o, t, documentOf, mergedDocuments);
      pages.set(id, page);
      if (fields.length) conflicts.add('page', id, 'both-modified', fields);
    } else if (o || t) {
      const present = (o ?? t)!;
      if (!b) {
        pages.set(id, structuredClone(present)); // added on one side
        continue;
      }
      const fields = changedFields(MERGED_PAGE_FIELDS, b, present);
      if (fields.length === 0) continue; // deleted on one side, unchanged on the other
      pages.set(id, structuredClone(present));
      kept.add(id);
      conflicts.add('page', id, o ? 'modified-deleted' : 'deleted-modified', fields);
    }
    // deleted on both sides (or present in base only): gone
  }

  repairTree(pages, input, conflicts, kept);
  orderSiblings(pages, input);
  dedupeSlugs(pages, theirs);

  const documents = new Map<string, JSONDocument>();
  for (const page of pages.values()) {
    if (page.documentHash === null || documents.has(page.documentHash)) continue;
    const document = documentOf(page.documentHash);
    if (document) documents.set(page.documentHash, document);
  }

  const files = mergeRecords('file', FILE_FIELDS, { base: base.files, ours: ours.files, theirs: theirs.files }, conflicts);
  // A reusable content's document changed on both sides merges by block, as a page's does.
  const reusableContents = mergeRecords(
    'reusable-content',
    REUSABLE_CONTENT_FIELDS,
    { base: base.reusableContents, ours: ours.reusableContents, theirs: theirs.reusableContents },
    conflicts,
    (field, b, o, t) => {
      if (field !== 'documentHash') return undefined;
      const merged = mergeDocumentHashes(b?.documentHash ?? null, o.documentHash, t.documentHash, documentOf);
      if (!merged) return undefined;
      mergedDocuments.set(merged.hash, merged.document);
      return merged.hash;
    },
  );
  for (const content of reusableContents.values()) {
    const document = documentOf(content.documentHash);
    if (document) documents.set(content.documentHash, document);
  }
  const variables = mergeVariables(base.variables, ours.variables, theirs.variables);
  for (const name of variables.conflicts) conflicts.add('variable', name, 'both-modified');
  const redirects = mergeEntries(base.redirects, ours.redirects, theirs.redirects);
  for (const source of redirects.conflicts) conflicts.add('redirect', source, 'both-modified');
  // A tag has an emoji or an icon: one side setting each is a conflict (ours' decoration kept).
  const merged = mergeRecords('tag', TAG_FIELDS, { base: base.tags, ours: ours.tags, theirs: theirs.tags }, conflicts, undefined, (tag, o) => {
    if (tag.emoji === null || tag.icon === null) return [];
    Object.assign(tag, { emoji: o.emoji, icon: o.icon });
    return ['emoji', 'icon'];
  });
  // In ours' order, then theirs' new tags in theirs' order (a list, as `.gitbook/tags.yaml` is).
  const tags = new Map<string, TagSnapshot>();
  for (const slug of [...ours.tags.keys(), ...theirs.tags.keys(), ...base.tags.keys()]) if (merged.has(slug)) tags.set(slug, merged.get(slug)!);
  for (const [id, page] of pages) {
    if (!page.tags?.some((t) => !tags.has(t.tag))) continue;
    const kept = page.tags.filter((t) => tags.has(t.tag));
    pages.set(id, { ...page, tags: kept.length ? kept : null });
  }

  return {
    snapshot: {
      pages,
      reusableContents,
      tags,
      files,
      documents,
      variables: variables.merged,
      redirects: new Map(redirects.merged),
      storedChunks: joinStoredChunks(ours.storedChunks, theirs.storedChunks),
    },
    conflicts: conflicts.sorted(),
  };
}

function mergePage(
  b: PageSnapshot | undefined,
  o: PageSnapshot,
  t: PageSnapshot,
  documentOf: (hash: string) => JSONDocument | undefined,
  mergedDocuments: Map<string, JSONDocument>,
): { page: PageSnapshot; fields: string[] } {
  const page = structuredClone(o);
  const record = page as unknown as Record<string, unknown>;
  const fields: string[] = [];
  let theirsChanged = false;
  for (const field of MERGED_PAGE_FIELDS) {
    const ov = o[field];
    const tv = t[field];
    if (same(ov, tv)) continue; // unchanged, or changed alike
    if (b && same(ov, b[field])) {
      record[field] = structuredClone(tv); // changed by theirs only
      theirsChanged = true;
      continue;
    }
    if (b && same(tv, b[field])) continue; // changed by ours only
    if (field === 'variables') {
      const merged = mergeVariables(b?.variables ?? {}, o.variables ?? {}, t.variables ?? {});
      page.variables = Object.keys(merged.merged).length ? merged.merged : null;
      if (!same(page.variables, o.variables)) theirsChanged = true;
      for (const name of merged.conflicts) fields.push(`variables.${name}`);
      continue;
    }
    if (field === 'documentHash' && o.documentHash !== null && t.documentHash !== null) {
      const merged = mergeDocumentHashes(b?.documentHash ?? null, o.documentHash, t.documentHash, documentOf);
      if (merged) {
        mergedDocuments.set(merged.hash, merged.document);
        page.documentHash = merged.hash;
        theirsChanged = true;
        continue;
      }
    }
    fields.push(field); // both changed differently: keep ours' value
  }
  if (theirsChanged && t.updatedAt.getTime() > page.updatedAt.getTime()) page.updatedAt = new Date(t.updatedAt.getTime());
  return { page, fields };
}

/**
 * Three-way merge of variable maps, per name: set or removed on one side only takes that side's
 * value; a name both sides changed differently keeps ours' value and is listed in `conflicts`.
 */
export function mergeVariables(base: Variables, ours: Variables, theirs: Variables): { merged: Variables; conflicts: string[] } {
  const result = mergeEntries(new Map(Object.entries(base)), new Map(Object.entries(ours)), new Map(Object.entries(theirs)));
  return { merged: Object.fromEntries(result.merged), conflicts: result.conflicts };
}

/**
 * Three-way merge of keyed primitive values by the rule of fields, in ours' order then theirs'
 * new keys: a key set, changed or removed on one side only takes that side's value; one both
 * sides changed differently keeps ours' value and is listed in `conflicts` (sorted).
 */
export function mergeEntries<V extends string | number | boolean>(
  base: ReadonlyMap<string, V>,
  ours: ReadonlyMap<string, V>,
  theirs: ReadonlyMap<string, V>,
): { merged: [string, V][]; conflicts: string[] } {
  const merged: [string, V][] = [];
  const conflicts: string[] = [];
  for (const key of new Set([...ours.keys(), ...theirs.keys(), ...base.keys()])) {
    const b = base.get(key);
    const o = ours.get(key);
    const t = theirs.get(key);
    let value = o;
    if (o !== t) {
      if (o === b) value = t;
      else if (t !== b) conflicts.push(key);
    }
    if (value !== undefined) merged.push([key, value]);
  }
  return { merged, conflicts: conflicts.sort(byId) };
}

function mergeDocumentHashes(
  baseHash: string | null,
  oursHash: string,
  theirsHash: string,
  documentOf: (hash: string) => JSONDocument | undefined,
): { hash: string; document: JSONDocument } | null {
  const oursDocument = documentOf(oursHash);
  const theirsDocument = documentOf(theirsHash);
  const baseDocument = baseHash === null ? null : documentOf(baseHash);
  // a document that is not loaded cannot be merged: the page conflicts
  if (!oursDocument || !theirsDocument || baseDocument === undefined) return null;
  const result = mergeDocuments(baseDocument, oursDocument, theirsDocument);
  if (!result.clean) return null;
  return { hash: hashDocument(result.document), document: result.document };
}

/**
 * Makes the merged parents a tree: restores deleted pages that still have
 * merged children (`orphaned` on each such child, unless the child is itself
 * a deleted-vs-modified conflict, or restored),
 * and breaks cycles by undoing ours' moves in them (`cycle` on every page of
 * the cycle that either side moved). Repeats until both hold.
 */
function repairTree(pages: Map<string, PageSnapshot>, input: MergeInput, conflicts: Conflicts, kept: ReadonlySet<string>) {
  const { base, ours, theirs } = input;
  const restored = new Set<string>();
  for (let changed = true; changed; ) {
    changed = false;

    const orphans = [...pages.values()].filter((page) => page.parentId !== null && !pages.has(page.parentId));
    for (const page of orphans.sort((a, b) => byId(a.id, b.id))) {
      changed = true;
      const parentId = page.parentId!;
      // a page kept because it is itself deleted on one side already says so; restored pages are not the cause
      if (!kept.has(page.id) && !restored.has(page.id)) conflicts.add('page', page.id, 'orphaned', ['parentId']);
      if (pages.has(parentId)) continue;
      const version = theirs.pages.get(parentId) ?? ours.pages.get(parentId) ?? base.pages.get(parentId);
      if (version) {
        pages.set(parentId, structuredClone(version));
        restored.add(parentId);
      } else {
        page.parentId = null; // a parent no revision knows (invalid input): make it a root page
      }
    }

    for (const cycle of findCycles(pages)) {
      changed = true;
      for (const id of cycle) {
        const b = base.pages.get(id);
        if (!b || ours.pages.get(id)?.parentId !== b.parentId || theirs.pages.get(id)?.parentId !== b.parentId) {
          conflicts.add('page', id, 'cycle', ['parentId']);
        }
      }
      let broken = false;
      for (const id of cycle) {
        const page = pages.get(id)!;
        const t = theirs.pages.get(id);
        if (t && t.parentId !== page.parentId) {
          page.parentId = t.parentId;
          broken = true;
        }
      }
      // theirs alone is a tree, so the cycle holds at least one page whose parent is not theirs';
      // should the input be invalid anyway, the first page of the cycle becomes a root page
      if (!broken) pages.get([...cycle].sort(byId)[0]!)!.parentId = null;
    }
  }
}

/** The cycles of the parent graph (each as the ids on it). */
function findCycles(pages: ReadonlyMap<string, PageSnapshot>): string[][] {
  const state = new Map<string, 1 | 2>(); // 1: on the current path, 2: done
  const cycles: string[][] = [];
  for (const start of [...pages.keys()].sort(byId)) {
    const path: string[] = [];
    let id: string | null = start;
    while (id !== null && pages.has(id) && !state.has(id)) {
      state.set(id, 1);
      path.push(id);
      id = pages.get(id)!.parentId;
    }
    if (id !== null && state.get(id) === 1) cycles.push(path.slice(path.indexOf(id)));
    for (const p of path) state.set(p, 2);
  }
  return cycles;
}

/**
 * Sibling order, per merged parent: start from theirs' order of the pages
 * theirs has under that parent; then re-place, in ours' order, every page ours
 * placed there differently from base (inserted, moved in from another parent,
 * or reordered: not on a longest common subsequence of base's and ours'
 * orders), or that theirs does not have there: right after its preceding
 * sibling in ours when that sibling is in the list (first when it has none),
 * else at ours' index clamped to the list. Pages neither side has there (a
 * restored parent) go at base's index, clamped. Then `index` = 0..n-1.
 * With theirs = base the result is ours' order; with ours = base, theirs'.
 */
function orderSiblings(pages: Map<string, PageSnapshot>, input: MergeInput) {
  const { base, ours, theirs } = input;
  const baseChildren = childOrder(base.pages);
  const oursChildren = childOrder(ours.pages);
  const theirsChildren = childOrder(theirs.pages);
  const members = new Map<string | null, Set<string>>();
  for (const page of pages.values()) {
    const set = members.get(page.parentId);
    if (set) set.add(page.id);
    else members.set(page.parentId, new Set([page.id]));
  }

  for (const [parentId, group] of members) {
    const list = (theirsChildren.get(parentId) ?? []).filter((id) => group.has(id));
    const inTheirs = new Set(list);

    const oursList = oursChildren.get(parentId) ?? [];
    const basePosition = new Map((baseChildren.get(parentId) ?? []).map((id, i) => [id, i]));
    const stable = longestIncreasing(
      oursList.filter((id) => basePosition.has(id)).map((id) => ({ id, value: basePosition.get(id)! })),
    );
    const replace = new Set(oursList.filter((id) => group.has(id) && (!stable.has(id) || !inTheirs.has(id))));
    const ordered = list.filter((id) => !replace.has(id));
    oursList.forEach((id, oursIndex) => {
      if (!replace.has(id)) return;
      const before = oursIndex > 0 ? ordered.indexOf(oursList[oursIndex - 1]!) : -1;
      const at = oursIndex === 0 ? 0 : before >= 0 ? before + 1 : Math.min(oursIndex, ordered.length);
      ordered.splice(at, 0, id);
    });

    const placed = new Set(ordered);
    const rest = [...group].filter((id) => !placed.has(id));
    rest
      .map((id) => ({ id, at: basePosition.get(id) ?? Number.POSITIVE_INFINITY }))
      .sort((a, b) => a.at - b.at || byId(a.id, b.id))
      .forEach(({ id, at }) => ordered.splice(Math.min(at, ordered.length), 0, id));

    ordered.forEach((id, index) => {
      pages.get(id)!.index = index;
    });
  }
}

/**
 * Unique slugs among siblings: a page keeps its slug when theirs has it under
 * the same parent with the same slug (its path is already live), otherwise the
 * earlier sibling keeps it; the others get `-2`, `-3`, ...
 */
function dedupeSlugs(pages: Map<string, PageSnapshot>, theirs: RevisionSnapshot) {
  const groups = childOrder(pages);
  for (const ids of groups.values()) {
    const group = ids.map((id) => pages.get(id)!);
    const established = (page: PageSnapshot) => {
      const t = theirs.pages.get(page.id);
      return t !== undefined && t.parentId === page.parentId && t.slug === page.slug;
    };
    const priority = [...group.filter(established), ...group.filter((page) => !established(page))];
    const taken = new Set<string>();
    const clashing: PageSnapshot[] = [];
    for (const page of priority) {
      if (taken.has(page.slug)) clashing.push(page);
      else taken.add(page.slug);
    }
    for (const page of clashing) {
      page.slug = uniqueSlug(page.slug, taken);
      taken.add(page.slug);
    }
  }
}

/**
 * Merges records of one kind by id (a tag's: its slug), field by field (files; reusable contents; tags): the rules of pages,
 * without a tree. `mergeField` may settle a field both sides changed (a document, block by block);
 * `clashes` names fields each changed on one side that cannot stand together (restoring ours' values).
 */
function mergeRecords<T extends object>(
  kind: 'file' | 'reusable-content' | 'tag',
  fieldsOf: readonly (keyof T & string)[],
  maps: { base: ReadonlyMap<string, T>; ours: ReadonlyMap<string, T>; theirs: ReadonlyMap<string, T> },
  conflicts: Conflicts,
  mergeField?: (field: keyof T & string, b: T | undefined, o: T, t: T) => unknown,
  clashes?: (merged: T, o: T) => string[],
): Map<string, T> {
  const { base, ours, theirs } = maps;
  const out = new Map<string, T>();
  const ids = [...new Set([...base.keys(), ...ours.keys(), ...theirs.keys()])].sort(byId);
  for (const id of ids) {
    const b = base.get(id);
    const o = ours.get(id);
    const t = theirs.get(id);
    if (o && t) {
      const merged = structuredClone(o);
      const record = merged as unknown as Record<string, unknown>;
      const fields: string[] = [];
      for (const field of fieldsOf) {
        if (same(o[field], t[field])) continue;
        if (b && same(o[field], b[field])) record[field] = t[field];
        else if (!b || !same(t[field], b[field])) {
          const settled = mergeField?.(field, b, o, t);
          if (settled !== undefined) record[field] = settled;
          else fields.push(field);
        }
      }
      for (const field of clashes?.(merged, o) ?? []) if (!fields.includes(field)) fields.push(field);
      out.set(id, merged);
      if (fields.length) conflicts.add(kind, id, 'both-modified', fields);
    } else if (o || t) {
      const present = (o ?? t)!;
      if (!b) {
        out.set(id, structuredClone(present));
        continue;
      }
      const fields = changedFields(fieldsOf, b, present);
      if (fields.length === 0) continue;
      out.set(id, structuredClone(present));
      conflicts.add(kind, id, o ? 'modified-deleted' : 'deleted-modified', fields);
    }
  }
  return out;
}

/**
 * Three-way merge of one page's document: the unit is a top-level block,
 * compared by its canonical JSON (keys sorted), so two people editing
 * different paragraphs of a page merge cleanly and the same paragraph edited
 * differently conflicts.
 *
 * node-diff3's `diff3Merge` finds the stable and changed regions. Plain diff3
 * treats changes that merely touch (ours edits block 2, theirs edits block 3)
 * as one conflicting region; such a region is refined here: when the two
 * sides' edits inside it do not overlap in the base, both are applied. Edits
 * that overlap, or two insertions at the same place, stay a conflict.
 *
 * The document's own fields besides `nodes` (`data`, ...) merge as one value:
 * changed on one side → that side; changed differently on both → conflict.
 */
import { diff3Merge, diffIndices } from 'node-diff3';
import { stringify } from 'safe-stable-stringify';
import { type JSONDocument, type JSONNode } from './document/model.ts';

export interface DocumentMergeConflict {
  /** Where the conflicting hunk starts in the base's blocks (`-1`: the document's own fields). */
  baseIndex: number;
  /** The conflicting blocks of each side. */
  base: JSONNode[];
  ours: JSONNode[];
  theirs: JSONNode[];
}

export interface DocumentMergeResult {
  /** True when nothing conflicted: `document` is the merge. */
  clean: boolean;
  /**
   * The merged document. With conflicts, a best effort: every clean hunk
   * merged, ours' side of each conflicting hunk.
   */
  document: JSONDocument;
  conflicts: DocumentMergeConflict[];
}

const EMPTY_DOCUMENT: JSONDocument = { object: 'document', nodes: [] };

function canonical(value: unknown): string {
  return stringify(value) ?? 'null';
}

interface Side {
  keys: string[];
  rest: string;
  restValue: Omit<JSONDocument, 'nodes'>;
}

function side(document: JSONDocument | null | undefined, blocks: Map<string, JSONNode>): Side {
  const { nodes, ...rest } = document ?? EMPTY_DOCUMENT;
  const keys = (Array.isArray(nodes) ? nodes : []).map((node) => {
    const key = canonical(node);
    if (!blocks.has(key)) blocks.set(key, node);
    return key;
  });
  return { keys, rest: canonical(rest), restValue: rest as Omit<JSONDocument, 'nodes'> };
}

interface Hunk {
  oStart: number;
  oEnd: number;
  content: string[];
}

function hunks(o: string[], x: string[]): Hunk[] {
  return diffIndices(o, x).map((d) => ({
    oStart: d.buffer1[0],
    oEnd: d.buffer1[0] + d.buffer1[1],
    content: d.buffer2Content,
  }));
}

function sameHunk(x: Hunk, y: Hunk): boolean {
  return x.oStart === y.oStart && x.oEnd === y.oEnd && x.content.length === y.content.length && x.content.every((c, i) => c === y.content[i]);
}

function overlaps(x: Hunk, y: Hunk): boolean {
  if (x.oStart < y.oEnd && y.oStart < x.oEnd) return true; // both change a common base block
  // two insertions at the same place: their order is ambiguous
  return x.oStart === x.oEnd && y.oStart === y.oEnd && x.oStart === y.oStart;
}

/**
 * Tries to resolve one conflicting diff3 region whose two sides changed
 * disjoint parts of the base. Returns the merged blocks, or null.
 */
function resolveRegion(a: string[], o: string[], b: string[]): string[] | null {
  const ha = hunks(o, a);
  const hb = hunks(o, b);
  const all: Hunk[] = [];
  for (const x of ha) {
    for (const y of hb) if (!sameHunk(x, y) && overlaps(x, y)) return null;
    all.push(x);
  }
  for (const y of hb) if (!ha.some((x) => sameHunk(x, y))) all.push(y);
  // insertions before a replacement that starts at the same base index
  all.sort((x, y) => x.oStart - y.oStart || x.oEnd - x.oStart - (y.oEnd - y.oStart));
  const out: string[] = [];
  let at = 0;
  for (const h of all) {
    out.push(...o.slice(at, h.oStart), ...h.content);
    at = h.oEnd;
  }
  out.push(...o.slice(at));
  return out;
}

/** Merges `ours` and `theirs`, both derived from `base` (null: no common document, e.g. a page added on both sides). */
export function mergeDocuments(
  base: JSONDocument | null | undefined,
  ours: JSONDocument,
  theirs: JSONDocument,
): DocumentMergeResult {
  const blocks = new Map<string, JSONNode>();
  const o = side(base, blocks);
  const a = side(ours, blocks);
  const b = side(theirs, blocks);
  const conflicts: DocumentMergeConflict[] = [];
  const block = (key: string) => structuredClone(blocks.get(key)!);

  let rest = a.restValue;
  if (a.rest !== b.rest) {
    if (a.rest === o.rest) rest = b.restValue;
    else if (b.rest !== o.rest) conflicts.push({ baseIndex: -1, base: [], ours: [], theirs: [] });
  }

  const merged: string[] = [];
  for (const region of diff3Merge<string>(a.keys, o.keys, b.keys)) {
    if (region.ok) {
      merged.push(...region.ok);
      continue;
    }
    const c = region.conflict!;
    const resolved = resolveRegion(c.a, c.o, c.b);
    if (resolved) {
      merged.push(...resolved);
    } else {
      conflicts.push({ baseIndex: c.oIndex, base: c.o.map(block), ours: c.a.map(block), theirs: c.b.map(block) });
      merged.push(...c.a);
    }
  }

  const document = { ...structuredClone(rest), object: 'document', nodes: merged.map(block) } as JSONDocument;
  return { clean: conflicts.length === 0, document, conflicts };
}

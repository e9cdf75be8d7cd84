/**
 * Order of spaces and collections under one parent (a collection, or the
 * organization's top level). Positions are fractional, so moving one item
 * rewrites one row and list cursors stay valid.
 */
import type { Db } from '../db/client.ts';
import { ConflictError, InvalidInputError } from '../errors/index.ts';

/** A sibling to place an item before or after. */
export type ContentPointer = { type: 'space'; space: string } | { type: 'collection'; collection: string };

export interface ContentPosition {
  before?: ContentPointer | null;
  after?: ContentPointer | null;
}

type Tx = Pick<Db, 'space' | 'collection'>;

interface Sibling {
  kind: 'space' | 'collection';
  id: string;
  position: number;
}

/** The order of siblings: by position, then by id (two items can share a position after a race). */
function byOrder(a: { position: number; id: string }, b: { position: number; id: string }): number {
  return a.position - b.position || a.id.localeCompare(b.id);
}

async function siblings(db: Tx, organizationId: string, parentId: string | null, excludeId: string): Promise<Sibling[]> {
  const [spaces, collections] = await Promise.all([
    db.space.findMany({ where: { organizationId, parentId, deletedAt: null, id: { not: excludeId } }, select: { id: true, position: true } }),
    db.collection.findMany({ where: { organizationId, parentId, id: { not: excludeId } }, select: { id: true, position: true } }),
  ]);
  return [
    ...spaces.map((s) => ({ kind: 'space' as const, ...s })),
    ...collections.map((c) => ({ kind: 'collection' as const, ...c })),
  ].sort(byOrder);
}

/** Rewrites sibling positions to 1, 2, 3... when fractions run out of precision. */
async function renumber(db: Tx, list: Sibling[]) {
  for (const [i, s] of list.entries()) {
    s.position = i + 1;
    if (s.kind === 'space') await db.space.update({ where: { id: s.id }, data: { position: s.position } });
    else await db.collection.update({ where: { id: s.id }, data: { position: s.position } });
  }
}

/** Where a moved item is now, for resolvePosition to tell a move that changes nothing. */
export interface CurrentPlace {
  kind: 'space' | 'collection';
  parentId: string | null;
  position: number;
}

/**
 * The position for item `itemId` placed under `parentId` as `position` says
 * (at the end when absent). A pointer to an item that is not a sibling there is a 400.
 *
 * For a move, `current` is where the item is now. A move that leaves it where
 * it is answers 409 (api.md, move collection: "operation would not change
 * anything"): the same parent without a position, or the same parent with a
 * position that names the place it already has (after its previous sibling,
 * or before its next one).
 */
export async function resolvePosition(
  db: Tx,
  target: { organizationId: string; parentId: string | null; itemId: string },
  position?: ContentPosition | null,
  current?: CurrentPlace,
): Promise<number> {
  const list = await siblings(db, target.organizationId, target.parentId, target.itemId);
  const sameParent = current !== undefined && current.parentId === target.parentId;
  const unchanged = () => new ConflictError(`The ${current?.kind} is already there: the move would not change anything`);
  const anchor = position?.before ?? position?.after;
  if (!anchor) {
    if (sameParent) throw unchanged();
    return (list[list.length - 1]?.position ?? 0) + 1;
  }
  const anchorId = anchor.type === 'space' ? anchor.space : anchor.collection;
  const find = () => list.findIndex((s) => s.kind === anchor.type && s.id === anchorId);
  if (find() < 0) {
    throw new InvalidInputError(`position: ${anchor.type} ${JSON.stringify(anchorId)} is not an item of the target ${target.parentId ? 'collection' : 'organization top level'}`);
  }
  if (sameParent) {
    // Index among the other siblings: where the item is now, and where it would go.
    const now = list.filter((s) => byOrder(s, { id: target.itemId, position: current.position }) < 0).length;
    const next = find() + (position?.before ? 0 : 1);
    if (now === next) throw unchanged();
  }
  const between = () => {
    const i = find();
    const [low, high] = position?.before
      ? [list[i - 1]?.position ?? list[i]!.position - 2, list[i]!.position]
      : [list[i]!.position, list[i + 1]?.position ?? list[i]!.position + 2];
    return { low, high, mid: (low + high) / 2 };
  };
  let { low, high, mid } = between();
  if (!(mid > low && mid < high)) {
    await renumber(db, list);
    ({ mid } = between());
  }
  return mid;
}

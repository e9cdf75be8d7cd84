/**
 * Order and paths inside a site's structure. Siblings share one order of
 * fractional positions: the site spaces of one section (or of the root of a
 * site without sections); the sections and section groups of one parent (the
 * top level, or a group). Moving an item rewrites its own row only, unless the
 * fractions run out of precision (then its siblings are renumbered 1, 2, 3...).
 */
import type { Db } from '../../db/client.ts';
import { InvalidInputError } from '../../errors/index.ts';

export type Tx = Pick<Db, 'site' | 'siteSection' | 'siteSectionGroup' | 'siteSpace' | 'space'>;

/** How every structure list is ordered (the order of the REST structure). */
export const STRUCTURE_ORDER = [{ position: 'asc' as const }, { id: 'asc' as const }];

/**
 * The site spaces of many sections in one statement (a list of sections with their site spaces),
 * in the order of the index SiteSpace(sectionId, position, id), so SQLite reads them sorted
 * instead of sorting them (1,000 rows of 100 sections: 2.0 -> 1.1 ms). Within one section it is
 * STRUCTURE_ORDER.
 */
export const SECTION_SITE_SPACES_ORDER = [{ sectionId: 'asc' as const }, ...STRUCTURE_ORDER];

export type ItemKind = 'site-space' | 'site-section' | 'site-section-group';

export interface Placed {
  kind: ItemKind;
  id: string;
  position: number;
}

/** Position, then id (two rows can share a position after a race), as the database orders them. */
export function byOrder(a: { position: number; id: string }, b: { position: number; id: string }): number {
  return a.position - b.position || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}

export function invalidPosition(reason: string): InvalidInputError {
  return new InvalidInputError(`position: invalid position: ${reason}`);
}

export interface Anchor {
  kind: string;
  id: string;
  before: boolean;
}

/** Position after the last of `siblings`. */
export function endPosition(siblings: ReadonlyArray<{ position: number }>): number {
  return siblings.reduce((max, s) => Math.max(max, s.position), 0) + 1;
}

/**
 * The position for an item placed before/after `anchor` among `siblings`
 * (the other items of its parent, the item itself left out), or at the end
 * without an anchor. An anchor that is not one of `siblings` is a 400
 * ("invalid position"). `renumber` rewrites the siblings' positions when two
 * neighbours are too close to put anything between them.
 */
export async function placeAmong(
  siblings: Placed[],
  anchor: Anchor | null,
  renumber: (items: Placed[]) => Promise<void>,
  describeParent: string,
): Promise<number> {
  const list = [...siblings].sort(byOrder);
  if (!anchor) return endPosition(list);
  const index = list.findIndex((s) => s.kind === anchor.kind && s.id === anchor.id);
  if (index < 0) throw invalidPosition(`${anchor.kind} ${JSON.stringify(anchor.id)} is not an item of ${describeParent}`);
  const between = () => {
    const [low, high] = anchor.before
      ? [list[index - 1]?.position ?? list[index]!.position - 2, list[index]!.position]
      : [list[index]!.position, list[index + 1]?.position ?? list[index]!.position + 2];
    return { low, high, mid: (low + high) / 2 };
  };
  const { low, high, mid } = between();
  if (mid > low && mid < high) return mid;
  list.forEach((s, i) => (s.position = i + 1));
  await renumber(list);
  return between().mid;
}

/** Renumbers sections and groups (siblings of one parent). */
export async function renumberSectionsAndGroups(tx: Tx, items: Placed[]): Promise<void> {
  for (const item of items) {
    if (item.kind === 'site-section') await tx.siteSection.update({ where: { id: item.id }, data: { position: item.position } });
    else await tx.siteSectionGroup.update({ where: { id: item.id }, data: { position: item.position } });
  }
}

export async function renumberSiteSpaces(tx: Tx, items: Placed[]): Promise<void> {
  for (const item of items) await tx.siteSpace.update({ where: { id: item.id }, data: { position: item.position } });
}

const except = (id: string | undefined) => (id ? { id: { not: id } } : {});

/** The sections and groups directly under `groupId` (null: the top level of the site), in order. */
export async function sectionSiblings(tx: Tx, siteId: string, groupId: string | null, excludeId?: string): Promise<Placed[]> {
  const [sections, groups] = await Promise.all([
    tx.siteSection.findMany({ where: { siteId, sectionGroupId: groupId, ...except(excludeId) }, select: { id: true, position: true } }),
    tx.siteSectionGroup.findMany({ where: { siteId, parentGroupId: groupId, ...except(excludeId) }, select: { id: true, position: true } }),
  ]);
  return [
    ...sections.map((s) => ({ kind: 'site-section' as const, ...s })),
    ...groups.map((g) => ({ kind: 'site-section-group' as const, ...g })),
  ].sort(byOrder);
}

/** The site spaces of one section (null: the root of a site without sections), in order. */
export async function siteSpaceSiblings(tx: Tx, siteId: string, sectionId: string | null, excludeId?: string): Promise<Placed[]> {
  const rows = await tx.siteSpace.findMany({ where: { siteId, sectionId, ...except(excludeId) }, select: { id: true, position: true } });
  return rows.map((r) => ({ kind: 'site-space' as const, ...r })).sort(byOrder);
}


/**
 * A site's structure as commands see it: the limits of its items, finding
 * them, their paths and defaults, and their order. Siblings share one order of
 * fractional positions: the site spaces of one section (or of the root of a
 * site without sections); the sections and section groups of one parent (the
 * top level, or a group). Moving an item rewrites its own row only, unless the
 * fractions run out of precision (then its siblings are renumbered 1, 2, 3...).
 */
import { z } from 'zod';
import type { Context } from '../context.ts';
import type { Db } from '../db/client.ts';
import { InvalidInputError, NotFoundError } from '../errors/index.ts';
import { slugify, uniqueSlug } from '../slug.ts';
import { loadSpace } from './space.ts';

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

// ---- Limits of structure items

/** Section groups nest at most this deep (a group in a top-level group; not deeper). */
export const MAX_GROUP_DEPTH = 2;
export const PATH = z.string().min(1, 'must be between 1 and 100 characters').max(100, 'must be between 1 and 100 characters');
export const CONDITION = z.string().max(1024, 'must be at most 1024 characters');
export const ICON = z.string().max(50, 'must be at most 50 characters');

// ---- Site spaces

/**
 * A space that may go on a site of `organizationId`: one the caller can read,
 * not in the bin, of the same organization. A 400 naming `field` otherwise
 * (like other ids given in a body), so another organization's space never lands on a site.
 */
export async function loadSpaceForSite(ctx: Context, organizationId: string, spaceId: string, field = 'spaceId') {
  const space = await loadSpace(ctx, spaceId, 'space:read').catch((error: unknown) => {
    if (error instanceof NotFoundError) throw new InvalidInputError(`${field}: no space ${JSON.stringify(spaceId)}`);
    throw error;
  });
  if (space.organizationId !== organizationId) {
    throw new InvalidInputError(`${field}: space ${JSON.stringify(spaceId)} belongs to another organization; a site publishes spaces of its own organization only`);
  }
  return space;
}

/** A path for a new site space of `space` among the site spaces of its section (or root): the slug of its title, made unique. */
export async function newSiteSpacePath(tx: Tx, siteId: string, sectionId: string | null, title: string): Promise<string> {
  const taken = await tx.siteSpace.findMany({ where: { siteId, sectionId }, select: { path: true } });
  return uniqueSlug(slugify(title, 'space'), new Set(taken.map((s) => s.path)));
}

/** Makes `siteSpaceId` the only default site space of its section (or root), or, with null, the first one left. */
export async function setDefaultSiteSpace(tx: Tx, siteId: string, sectionId: string | null, siteSpaceId: string | null): Promise<void> {
  const chosen = siteSpaceId ?? (await tx.siteSpace.findFirst({ where: { siteId, sectionId }, orderBy: STRUCTURE_ORDER, select: { id: true } }))?.id ?? null;
  await tx.siteSpace.updateMany({ where: { siteId, sectionId, isDefault: true, ...(chosen ? { id: { not: chosen } } : {}) }, data: { isDefault: false } });
  if (chosen) await tx.siteSpace.update({ where: { id: chosen }, data: { isDefault: true } });
  if (sectionId) await tx.siteSection.update({ where: { id: sectionId }, data: { defaultSiteSpaceId: chosen } });
}

/** Where a space added without `sectionId` goes: the site's default section (else its first), or the root when it has no sections. */
export async function defaultSectionOf(tx: Tx, site: { id: string; defaultSectionId: string | null }): Promise<string | null> {
  if (site.defaultSectionId) {
    const found = await tx.siteSection.findFirst({ where: { id: site.defaultSectionId, siteId: site.id }, select: { id: true } });
    if (found) return found.id;
  }
  const first = await tx.siteSection.findFirst({ where: { siteId: site.id }, orderBy: STRUCTURE_ORDER, select: { id: true } });
  return first?.id ?? null;
}

export async function findSiteSpace(db: Tx, siteId: string, siteSpaceId: string) {
  const found = await db.siteSpace.findFirst({ where: { id: siteSpaceId, siteId } });
  if (!found) throw new NotFoundError('SiteSpace', siteSpaceId);
  return found;
}

// ---- Sections

/** A section title from a space title: as is when 2..128 characters; padded when shorter. */
export function sectionTitleFor(spaceTitle: string): string {
  const title = spaceTitle.trim().slice(0, 128);
  if (title.length >= 2) return title;
  return title ? `${title} section` : 'Untitled section';
}

export async function newSectionPath(tx: Tx, siteId: string, title: string): Promise<string> {
  const taken = await tx.siteSection.findMany({ where: { siteId }, select: { path: true } });
  return uniqueSlug(slugify(title, 'section'), new Set(taken.map((s) => s.path)));
}

/** The first section of a site in structure order (depth first through its groups), or null. */
export async function firstSectionInStructure(tx: Tx, siteId: string): Promise<string | null> {
  const [sections, groups] = await Promise.all([
    tx.siteSection.findMany({ where: { siteId }, select: { id: true, position: true, sectionGroupId: true } }),
    tx.siteSectionGroup.findMany({ where: { siteId }, select: { id: true, position: true, parentGroupId: true } }),
  ]);
  const first = (parent: string | null): string | null => {
    const items = [
      ...sections.filter((s) => s.sectionGroupId === parent).map((s) => ({ ...s, group: false })),
      ...groups.filter((g) => g.parentGroupId === parent).map((g) => ({ ...g, group: true })),
    ].sort(byOrder);
    for (const item of items) {
      const found = item.group ? first(item.id) : item.id;
      if (found) return found;
    }
    return null;
  };
  // A section in a group that is itself in no reachable place cannot happen; fall back to the first by position anyway.
  return first(null) ?? [...sections].sort(byOrder)[0]?.id ?? null;
}

export async function findSection(db: Tx, siteId: string, sectionId: string) {
  const section = await db.siteSection.findFirst({ where: { id: sectionId, siteId } });
  if (!section) throw new NotFoundError('SiteSection', sectionId);
  return section;
}

// ---- Moves

interface PointerPosition<P> {
  before?: P | null;
  after?: P | null;
}

/** The anchor of a move's position: `{before}` or `{after}`, one of them; 400 "invalid position" otherwise. */
export function anchorOf<P>(position: PointerPosition<P> | null | undefined): { pointer: P; before: boolean } | null {
  if (!position) return null;
  if (position.before && position.after) throw invalidPosition('give `before` or `after`, not both');
  if (position.before) return { pointer: position.before, before: true };
  if (position.after) return { pointer: position.after, before: false };
  throw invalidPosition('give `before` or `after`');
}

export interface Located {
  kind: ItemKind;
  id: string;
  /** The parent: a section for site spaces (null: root), a group for sections and groups (null: top level). */
  parentId: string | null;
}

export async function locate(tx: Tx, siteId: string, kind: ItemKind, id: string): Promise<Located> {
  if (kind === 'site-space') {
    const row = await tx.siteSpace.findFirst({ where: { id, siteId }, select: { sectionId: true } });
    if (row) return { kind, id, parentId: row.sectionId };
  } else if (kind === 'site-section') {
    const row = await tx.siteSection.findFirst({ where: { id, siteId }, select: { sectionGroupId: true } });
    if (row) return { kind, id, parentId: row.sectionGroupId };
  } else {
    const row = await tx.siteSectionGroup.findFirst({ where: { id, siteId }, select: { parentGroupId: true } });
    if (row) return { kind, id, parentId: row.parentGroupId };
  }
  throw new NotFoundError(kind === 'site-space' ? 'SiteSpace' : kind === 'site-section' ? 'SiteSection' : 'SiteSectionGroup', id);
}

/** A group a section or group can go into: one of this site, at a depth that keeps nesting within MAX_GROUP_DEPTH. */
export async function parentGroupFor(tx: Tx, siteId: string, groupId: string, movingGroupId?: string) {
  const group = await tx.siteSectionGroup.findFirst({ where: { id: groupId, siteId }, select: { id: true, parentGroupId: true } });
  if (!group) throw new InvalidInputError(`sectionGroup: the site has no section group ${JSON.stringify(groupId)}`);
  if (movingGroupId) {
    if (groupId === movingGroupId) throw new InvalidInputError('sectionGroup: a group cannot be put into itself');
    if (group.parentGroupId) throw new InvalidInputError(`sectionGroup: section groups nest ${MAX_GROUP_DEPTH} deep at most`);
    const nested = await tx.siteSectionGroup.count({ where: { parentGroupId: movingGroupId } });
    if (nested > 0) throw new InvalidInputError(`sectionGroup: the group has groups of its own; section groups nest ${MAX_GROUP_DEPTH} deep at most`);
  }
  return group;
}

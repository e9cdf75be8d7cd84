/**
 * Loading the structure of a site in one statement per level that has data.
 *
 * A site's tree (sections and section groups, nested two deep, or root site
 * spaces) would cost one statement per place in the document if every level
 * were a nested relation: plugin-prisma plans (and Prisma runs) a query for
 * each path, sections at the top, in a group and in a nested group each with
 * their site spaces and spaces, and runs them for empty levels too. Here the
 * `structure` field reads each model once instead, for every place of the
 * document at once: all the sections of the site (with what the document
 * selects beneath them, merged from every place a section appears), all its
 * groups, or its root site spaces; then builds the tree in memory. Counts on
 * the site row say which levels hold anything, so an empty level costs nothing.
 *
 * The rows are loaded with `queryFromInfo({ paths })`, which records the
 * selections beneath each place for plugin-prisma, so a section inside a
 * group answers `siteSpaces { space }` from the same statements as one at the
 * top. The structure of several sites in one response (a list of sites) is
 * batched: one statement per level for all of them.
 *
 * A group's `children` and `sections` read the tree it was loaded with; a
 * group read elsewhere (`Site.sectionGroups`, a mutation's result) loads the
 * tree of its site, batched for every group of the response.
 */
import { queryFromInfo } from '@pothos/plugin-prisma';
import DataLoader from 'dataloader';
import type { GraphQLResolveInfo } from 'graphql';
import type { Context } from '../../context.ts';
import type PrismaTypes from '../../db/generated/pothos-types.ts';
import { withColumns } from '../../db/select.ts';
import { byOrder, STRUCTURE_ORDER } from '../../services/site-structure.ts';
import { visibleSectionGroupWhere, visibleSectionWhere, visibleSiteSpaceWhere } from '../../services/site.ts';
import { rowsForSelection } from '../shared/select.ts';

/**
 * Rows as Prisma returns them: every column, or (from `loadStructure`: SiteSection and SiteSpace
 * are in select mode) what the document selects and the columns the tree is built from (TREE_COLUMNS).
 */
type SectionRow = PrismaTypes['SiteSection']['Shape'];
type GroupRow = PrismaTypes['SiteSectionGroup']['Shape'];
type SiteSpaceRow = PrismaTypes['SiteSpace']['Shape'];
export type StructureItem = SectionRow | GroupRow | SiteSpaceRow;

/** What a site row tells about its structure before any of it is read (`_count` on the site's statement). */
export interface StructureCounts {
  id: string;
  _count: { sections: number; sectionGroups: number };
}

/** A group's items, as read with the tree it came in. */
interface GroupItems {
  onlyVisible: boolean;
  children: Array<SectionRow | GroupRow>;
  sections: SectionRow[];
}

/** Group row -> its items, for the rows of a tree read in this request (a notebook of the request's loaders). */
const itemsOfGroup = (ctx: Context) => ctx.loaders.notes<GroupRow, GroupItems>('site-structure:group-items');

/** What building the tree reads off the rows of each level, whatever the document selects. */
const TREE_COLUMNS = {
  section: { id: true, siteId: true, sectionGroupId: true, position: true, path: true },
  siteSpace: { id: true, siteId: true },
} as const;

/** The select of the `structure` field: the counts deciding which levels to read. */
export const STRUCTURE_COUNTS = { _count: { select: { sections: true, sectionGroups: true } } } as const;

// Every place a section or a group can be in a document, relative to the `structure` field.
// Groups nest two deep (MAX_GROUP_DEPTH), so sections are at most two groups down.
const inGroup = (name: 'children' | 'sections') => ({ name, type: 'SiteSectionGroup' });
const SECTION_PLACES = [
  [],
  [inGroup('children')],
  [inGroup('sections')],
  [inGroup('children'), inGroup('children')],
  [inGroup('children'), inGroup('sections')],
];
const GROUP_PLACES = [[], [inGroup('children')]];

interface Queries {
  section: Record<string, unknown>;
  group: Record<string, unknown>;
  siteSpace: Record<string, unknown>;
}

interface Loaded {
  sections: SectionRow[];
  groups: GroupRow[];
  siteSpaces: SiteSpaceRow[];
}

interface StructureLoad {
  site: StructureCounts;
  queries: Queries;
}

/** `info.path` as a key: response keys without list indices (every site of a list shares it). */
function placeKey(path: GraphQLResolveInfo['path'] | undefined): string {
  const keys: string[] = [];
  for (let p = path; p; p = p.prev) if (typeof p.key === 'string') keys.unshift(p.key);
  return keys.join('.');
}

function bySite<Row extends { siteId: string }>(rows: Row[]): Map<string, Row[]> {
  const map = new Map<string, Row[]>();
  for (const row of rows) {
    const list = map.get(row.siteId);
    if (list) list.push(row);
    else map.set(row.siteId, [row]);
  }
  return map;
}

/**
 * Per place in the document: a batch of the sites whose structure is read
 * there (an uncached batch of the request's loaders: each `structure` field
 * reads once, so a write earlier in the request is never hidden).
 */
function structureBatch(ctx: Context, key: string, onlyVisible: boolean): DataLoader<StructureLoad, Loaded> {
  return ctx.loaders.batch<StructureLoad, Loaded>(`site-structure:${key}`, async (loads) => {
    // One plan per place, so the first load's queries stand for all of them.
    const { queries } = loads[0]!;
    const ids = (pick: (site: StructureCounts) => boolean) => [...new Set(loads.filter((l) => pick(l.site)).map((l) => l.site.id))];
    const withSections = ids((s) => s._count.sections > 0);
    const withGroups = ids((s) => s._count.sections > 0 && s._count.sectionGroups > 0);
    const withRoot = ids((s) => s._count.sections === 0);
    const [sections, groups, siteSpaces] = await Promise.all([
      withSections.length === 0
        ? []
        : ctx.db.siteSection.findMany({
            ...queries.section,
            where: { siteId: { in: withSections }, ...(onlyVisible ? visibleSectionWhere(ctx) : {}) },
            orderBy: STRUCTURE_ORDER,
          }),
      withGroups.length === 0
        ? []
        : ctx.db.siteSectionGroup.findMany({
            ...queries.group,
            where: { siteId: { in: withGroups }, ...(onlyVisible ? visibleSectionGroupWhere(ctx) : {}) },
            orderBy: STRUCTURE_ORDER,
          }),
      withRoot.length === 0
        ? []
        : ctx.db.siteSpace.findMany({
            ...queries.siteSpace,
            where: { siteId: { in: withRoot }, sectionId: null, ...(onlyVisible ? visibleSiteSpaceWhere(ctx) : {}) },
            orderBy: STRUCTURE_ORDER,
          }),
    ]);
    const [sectionsBySite, groupsBySite, siteSpacesBySite] = [bySite(sections), bySite(groups), bySite(siteSpaces)];
    return loads.map(({ site }) => ({
      sections: sectionsBySite.get(site.id) ?? [],
      groups: groupsBySite.get(site.id) ?? [],
      siteSpaces: siteSpacesBySite.get(site.id) ?? [],
    }));
  });
}

/**
 * The top-level items of a site's sections and groups, each group's items
 * recorded for its `children` and `sections`.
 */
function buildTree(ctx: Context, sections: SectionRow[], groups: GroupRow[], onlyVisible: boolean): Array<SectionRow | GroupRow> {
  const items = new Map<string | null, { children: Array<SectionRow | GroupRow>; sections: SectionRow[] }>();
  const itemsOf = (groupId: string | null) => {
    let entry = items.get(groupId);
    if (!entry) items.set(groupId, (entry = { children: [], sections: [] }));
    return entry;
  };
  // Rows come in STRUCTURE_ORDER, so each list is in order before the merge of sections and groups.
  for (const section of sections) {
    const entry = itemsOf(section.sectionGroupId);
    entry.children.push(section);
    entry.sections.push(section);
  }
  for (const group of groups) itemsOf(group.parentGroupId).children.push(group);
  for (const group of groups) {
    const entry = itemsOf(group.id);
    itemsOfGroup(ctx).set(group, { onlyVisible, children: entry.children.sort(byOrder), sections: entry.sections });
  }
  return itemsOf(null).children.sort(byOrder);
}

/**
 * The `structure` of a site (its `_count` selected with STRUCTURE_COUNTS): its
 * sections and groups (top level, in order) when it has sections, else its root
 * site spaces.
 */
export async function loadStructure(ctx: Context, info: GraphQLResolveInfo, site: StructureCounts, onlyVisible: boolean): Promise<StructureItem[]> {
  // Planned for every load (not once per batch): planning records, under this field's own path,
  // what the rows carry, which is how the resolvers beneath find it.
  const queries: Queries = {
    section: withColumns(queryFromInfo({ context: ctx, info, typeName: 'SiteSection', paths: SECTION_PLACES }) as Record<string, unknown>, TREE_COLUMNS.section),
    group: queryFromInfo({ context: ctx, info, typeName: 'SiteSectionGroup', paths: GROUP_PLACES }) as Record<string, unknown>,
    siteSpace: withColumns(queryFromInfo({ context: ctx, info, typeName: 'SiteSpace', paths: [[]] }) as Record<string, unknown>, TREE_COLUMNS.siteSpace),
  };
  const loaded = await structureBatch(ctx, `${placeKey(info.path)}|${onlyVisible}`, onlyVisible).load({ site, queries });
  if (site._count.sections === 0) return loaded.siteSpaces;
  // The paths of site space URLs, without another statement.
  for (const section of loaded.sections) ctx.loaders.sectionPathById.prime(section.id, section.path);
  return buildTree(ctx, loaded.sections, loaded.groups, onlyVisible);
}

/**
 * The items of every group of sites (key `onlyVisible:siteId`), for groups
 * read outside a structure (plain rows: what a document selects beneath them
 * loads on its own). Batched for every group of a response; not cached, like
 * the above.
 */
function siteGroupItems(ctx: Context): DataLoader<string, Map<string, GroupItems>> {
  return ctx.loaders.batch<string, Map<string, GroupItems>>('site-structure:group-items', async (keys) => {
    const byKey = new Map<string, Map<string, GroupItems>>();
    for (const onlyVisible of [false, true]) {
      const siteIds = [...new Set(keys.filter((k) => k.startsWith(`${onlyVisible}:`)).map((k) => k.slice(k.indexOf(':') + 1)))];
      if (siteIds.length === 0) continue;
      const [sections, groups] = await Promise.all([
        ctx.db.siteSection.findMany({ where: { siteId: { in: siteIds }, ...(onlyVisible ? visibleSectionWhere(ctx) : {}) }, orderBy: STRUCTURE_ORDER }),
        ctx.db.siteSectionGroup.findMany({ where: { siteId: { in: siteIds }, ...(onlyVisible ? visibleSectionGroupWhere(ctx) : {}) }, orderBy: STRUCTURE_ORDER }),
      ]);
      const sectionsBySite = bySite(sections);
      for (const [siteId, siteGroups] of bySite(groups)) {
        buildTree(ctx, sectionsBySite.get(siteId) ?? [], siteGroups, onlyVisible);
        byKey.set(`${onlyVisible}:${siteId}`, new Map(siteGroups.map((g) => [g.id, itemsOfGroup(ctx).get(g)!])));
      }
    }
    return keys.map((key) => byKey.get(key) ?? new Map());
  });
}

/** A group's items, and whether they were read with the structure it came in (with the document's selection). */
async function itemsOf(ctx: Context, group: GroupRow, onlyVisible: boolean): Promise<{ items: GroupItems | undefined; planned: boolean }> {
  const known = itemsOfGroup(ctx).get(group);
  if (known?.onlyVisible === onlyVisible) return { items: known, planned: true };
  // A group the read leaves out (none of its sections visible) has no items.
  return { items: (await siteGroupItems(ctx).load(`${onlyVisible}:${group.siteId}`)).get(group.id), planned: false };
}

const isSection = (item: SectionRow | GroupRow): item is SectionRow => 'defaultSiteSpaceId' in item;

/**
 * Items read outside a structure are plain rows (every column): the sections among them answer
 * the document's selection as rowsForSelection says (SiteSection is in select mode).
 */
function answerItems<T extends SectionRow | GroupRow>(ctx: Context, info: GraphQLResolveInfo, items: T[], planned: boolean): Promise<T[]> | T[] {
  if (planned) return items;
  return rowsForSelection(ctx, info, 'SiteSection', items, isSection, (query, ids) =>
    ctx.db.siteSection.findMany({ ...query, where: { id: { in: ids } } }) as Promise<T[]>,
  );
}

/** The sections and nested groups of a group, in their order. */
export async function groupChildren(ctx: Context, info: GraphQLResolveInfo, group: GroupRow, onlyVisible: boolean): Promise<Array<SectionRow | GroupRow>> {
  const { items, planned } = await itemsOf(ctx, group, onlyVisible);
  return answerItems(ctx, info, items?.children ?? [], planned);
}

/** The sections directly in a group, in their order. */
export async function groupSections(ctx: Context, info: GraphQLResolveInfo, group: GroupRow, onlyVisible: boolean): Promise<SectionRow[]> {
  const { items, planned } = await itemsOf(ctx, group, onlyVisible);
  return answerItems(ctx, info, items?.sections ?? [], planned);
}

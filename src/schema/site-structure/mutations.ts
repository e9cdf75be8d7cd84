/**
 * Sorting a site's structure (sortSiteStructure) and section groups (GraphQL
 * only: GitBook's REST API has no endpoint for them). Needs site:update.
 */
import { queryFromInfo } from '@pothos/plugin-prisma';
import { z } from 'zod';
import { builder } from '../../builder.ts';
import { InvalidInputError, NotFoundError } from '../../errors/index.ts';
import { newId } from '../../ids.ts';
import {
  byOrder,
  endPosition,
  invalidPosition,
  placeAmong,
  renumberSectionsAndGroups,
  renumberSiteSpaces,
  sectionSiblings,
  siteSpaceSiblings,
  type ItemKind,
  type Placed,
  ICON,
  anchorOf,
  MAX_GROUP_DEPTH,
  locate,
  parentGroupFor,
} from '../../services/site-structure.ts';
import { revalidateRenderer } from '../../services/renderer-revalidation.ts';
import { loadSite } from '../../services/site.ts';
import { siteArgs } from '../site/args.ts';
import { SiteSectionGroup, SiteStructureItem } from './type.ts';

const ITEM_KINDS = ['site-space', 'site-section', 'site-section-group'] as const;
const GROUP_TITLE = z.string().min(1, 'must be between 1 and 100 characters').max(100, 'must be between 1 and 100 characters');

const SiteStructureItemPointerInput = builder.inputType('SiteStructureItemPointerInput', {
  fields: (t) => ({
    type: t.string({ required: true, description: '`site-space`, `site-section` or `site-section-group`' }),
    id: t.string({ required: true }),
  }),
});

const SiteStructureItemMovePositionInput = builder.inputType('SiteStructureItemMovePositionInput', {
  description: 'Before or after another item of the same parent',
  fields: (t) => ({
    before: t.field({ type: SiteStructureItemPointerInput }),
    after: t.field({ type: SiteStructureItemPointerInput }),
  }),
});

const SortSiteStructureInput = builder.inputType('SortSiteStructureInput', {
  fields: (t) => ({
    item: t.field({ type: SiteStructureItemPointerInput, required: true, description: 'The item to move' }),
    position: t.field({ type: SiteStructureItemMovePositionInput, description: 'Where to move it; at the end of its parent when absent' }),
  }),
});

const CreateSiteSectionGroupInput = builder.inputType('CreateSiteSectionGroupInput', {
  fields: (t) => ({
    title: t.string({ required: true, validate: GROUP_TITLE }),
    icon: t.string({ validate: ICON }),
    sectionGroup: t.string({ description: `Id of the parent group (a top-level one: groups nest ${MAX_GROUP_DEPTH} deep at most); absent: the top level` }),
  }),
});

const UpdateSiteSectionGroupInput = builder.inputType('UpdateSiteSectionGroupInput', {
  fields: (t) => ({
    title: t.string({ validate: GROUP_TITLE }),
    icon: t.string({ validate: ICON, description: 'null removes it' }),
    sectionGroup: t.string({ description: 'Id of a (top-level) group to move the group into, at its end; null: to the top level' }),
  }),
});

builder.mutationFields((t) => ({
  sortSiteStructure: t.field({
    type: SiteStructureItem,
    description: 'Move a site space, section or section group before or after another item of the same parent',
    authScopes: { authenticated: true },
    args: { ...siteArgs, input: t.arg({ type: SortSiteStructureInput, required: true }) },
    resolve: async (_root, args, ctx, info) => {
      const site = await loadSite(ctx, String(args.organizationId), String(args.siteId), 'site:update');
      const { item, position } = args.input;
      if (!(ITEM_KINDS as readonly string[]).includes(item.type)) {
        throw new InvalidInputError(`item.type: must be one of ${ITEM_KINDS.map((k) => `\`${k}\``).join(', ')}`);
      }
      const kind = item.type as ItemKind;
      await locate(ctx.db, site.id, kind, item.id);
      const anchor = anchorOf(position);
      if (anchor) {
        const allowed: readonly string[] = kind === 'site-space' ? ['site-space'] : ['site-section', 'site-section-group'];
        if (!allowed.includes(anchor.pointer.type)) {
          throw invalidPosition(`a ${kind} moves relative to ${allowed.map((k) => `a \`${k}\``).join(' or ')}, not ${JSON.stringify(anchor.pointer.type)}`);
        }
        if (anchor.pointer.type === kind && anchor.pointer.id === item.id) throw invalidPosition('an item cannot be placed relative to itself');
      }
      const typeName = kind === 'site-space' ? 'SiteSpace' : kind === 'site-section' ? 'SiteSection' : 'SiteSectionGroup';
      const query = queryFromInfo({ context: ctx, info, typeName }) as Record<string, unknown>;
      const written = await ctx.db.$transaction(async (tx) => {
        const located = await locate(tx, site.id, kind, item.id);
        const target = anchor && { kind: anchor.pointer.type, id: anchor.pointer.id, before: anchor.before };
        if (kind === 'site-space') {
          const siblings = await siteSpaceSiblings(tx, site.id, located.parentId, item.id);
          const where = located.parentId ? 'the same section' : 'the root of the site';
          const newPosition = await placeAmong(siblings, target, (items) => renumberSiteSpaces(tx, items), where);
          return tx.siteSpace.update({ ...query, where: { id: item.id }, data: { position: newPosition } });
        }
        const siblings = await sectionSiblings(tx, site.id, located.parentId, item.id);
        const where = located.parentId ? 'the same section group' : 'the top level of the site';
        const newPosition = await placeAmong(siblings, target, (items) => renumberSectionsAndGroups(tx, items), where);
        if (kind === 'site-section') return tx.siteSection.update({ ...query, where: { id: item.id }, data: { position: newPosition } });
        return tx.siteSectionGroup.update({ ...query, where: { id: item.id }, data: { position: newPosition } });
      });
      await revalidateRenderer(ctx, { kind: 'site-structure', site });
      return written;
    },
  }),
  createSiteSectionGroup: t.prismaField({
    type: SiteSectionGroup,
    description: 'Add a section group at the end of the top level of a site (or of a group); sections go into it with updateSiteSection',
    authScopes: { authenticated: true },
    args: { ...siteArgs, input: t.arg({ type: CreateSiteSectionGroupInput, required: true }) },
    resolve: async (query, _root, args, ctx) => {
      const site = await loadSite(ctx, String(args.organizationId), String(args.siteId), 'site:update');
      const { input } = args;
      const written = await ctx.db.$transaction(async (tx) => {
        if ((await tx.siteSection.count({ where: { siteId: site.id } })) === 0) {
          throw new InvalidInputError('The site has no sections: section groups hold sections, add a section first');
        }
        const parent = input.sectionGroup ? await parentGroupFor(tx, site.id, input.sectionGroup) : null;
        if (parent?.parentGroupId) throw new InvalidInputError(`sectionGroup: section groups nest ${MAX_GROUP_DEPTH} deep at most`);
        const id = newId();
        return tx.siteSectionGroup.create({
          ...query,
          data: {
            id,
            siteId: site.id,
            parentGroupId: parent?.id ?? null,
            title: input.title,
            icon: input.icon ?? null,
            position: endPosition(await sectionSiblings(tx, site.id, parent?.id ?? null)),
          },
        });
      });
      await revalidateRenderer(ctx, { kind: 'site-structure', site });
      return written;
    },
  }),
  updateSiteSectionGroup: t.prismaField({
    type: SiteSectionGroup,
    authScopes: { authenticated: true },
    args: { ...siteArgs, siteSectionGroupId: t.arg.id({ required: true }), input: t.arg({ type: UpdateSiteSectionGroupInput, required: true }) },
    resolve: async (query, _root, args, ctx) => {
      const site = await loadSite(ctx, String(args.organizationId), String(args.siteId), 'site:update');
      const id = String(args.siteSectionGroupId);
      const { input } = args;
      const written = await ctx.db.$transaction(async (tx) => {
        const group = await tx.siteSectionGroup.findFirst({ where: { id, siteId: site.id } });
        if (!group) throw new NotFoundError('SiteSectionGroup', id);
        let move: { parentGroupId: string | null; position: number } | undefined;
        if (input.sectionGroup !== undefined && input.sectionGroup !== group.parentGroupId) {
          const parent = input.sectionGroup ? await parentGroupFor(tx, site.id, input.sectionGroup, id) : null;
          move = { parentGroupId: parent?.id ?? null, position: endPosition(await sectionSiblings(tx, site.id, parent?.id ?? null, id)) };
        }
        return tx.siteSectionGroup.update({
          ...query,
          where: { id },
          data: { title: input.title ?? undefined, icon: input.icon, ...move },
        });
      });
      await revalidateRenderer(ctx, { kind: 'site-structure', site });
      return written;
    },
  }),
  deleteSiteSectionGroup: t.boolean({
    description: "Delete a section group. Its sections and groups take its place in its parent, in their order. False when there was nothing to delete.",
    authScopes: { authenticated: true },
    args: { ...siteArgs, siteSectionGroupId: t.arg.id({ required: true }) },
    resolve: async (_root, args, ctx) => {
      const site = await loadSite(ctx, String(args.organizationId), String(args.siteId), 'site:update');
      const id = String(args.siteSectionGroupId);
      const written = await ctx.db.$transaction(async (tx) => {
        const group = await tx.siteSectionGroup.findFirst({ where: { id, siteId: site.id } });
        if (!group) return false;
        const children = await sectionSiblings(tx, site.id, id);
        const siblings = await sectionSiblings(tx, site.id, group.parentGroupId, id);
        // The children go between the group's previous place and its next sibling.
        const next = siblings.filter((s) => byOrder(s, group) > 0)[0];
        const high = next?.position ?? group.position + 1;
        const step = (high - group.position) / (children.length + 1);
        const placed: Placed[] = children.map((c, i) => ({ ...c, position: group.position + step * (i + 1) }));
        if (placed.some((c, i) => !(c.position > (placed[i - 1]?.position ?? group.position - 1) && c.position < high))) {
          // No room between two doubles: renumber the whole parent with the children in the group's place.
          const all = [...siblings.filter((s) => byOrder(s, group) < 0), ...children, ...siblings.filter((s) => byOrder(s, group) > 0)];
          all.forEach((s, i) => (s.position = i + 1));
          placed.splice(0, placed.length, ...all);
        }
        for (const c of placed) {
          if (c.kind === 'site-section') await tx.siteSection.update({ where: { id: c.id }, data: { sectionGroupId: group.parentGroupId, position: c.position } });
          else await tx.siteSectionGroup.update({ where: { id: c.id }, data: { parentGroupId: group.parentGroupId, position: c.position } });
        }
        await tx.siteSectionGroup.delete({ where: { id } });
        return true;
      });
      if (written) await revalidateRenderer(ctx, { kind: 'site-structure', site });
      return written;
    },
  }),
}));

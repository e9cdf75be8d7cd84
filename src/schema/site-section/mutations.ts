/**
 * Site sections: add (with a first site space), update, delete, and the
 * deprecated move. A site is either a list of root site spaces or a list of
 * sections: when a site with root site spaces gets its first section, they
 * become a first section of their own (see docs/decisions.md, "Site structure").
 */
import { z } from 'zod';
import { builder } from '../../builder.ts';
import { ConflictError, InvalidInputError } from '../../errors/index.ts';
import { isUniqueViolation } from '../../errors/prisma.ts';
import { newId } from '../../ids.ts';
import {
  endPosition,
  invalidPosition,
  placeAmong,
  renumberSectionsAndGroups,
  sectionSiblings,
  STRUCTURE_ORDER,
  anchorOf,
  CONDITION,
  loadSpaceForSite,
  newSiteSpacePath,
  PATH,
  setDefaultSiteSpace,
  ICON,
  sectionTitleFor,
  newSectionPath,
  firstSectionInStructure,
  findSection,
} from '../../services/site-structure.ts';
import { revalidateRenderer } from '../../services/renderer-revalidation.ts';
import { loadSite } from '../../services/site.ts';
import { siteArgs } from '../site/args.ts';
import { SiteSection } from './type.ts';

const TITLE = z.string().min(2, 'must be between 2 and 128 characters').max(128, 'must be between 2 and 128 characters');
const DESCRIPTION = z.string().max(256, 'must be at most 256 characters');

const AddSectionToSiteInput = builder.inputType('AddSectionToSiteInput', {
  fields: (t) => ({
    spaceId: t.string({ required: true, description: 'A space of the same organization: the first site space (the default) of the section' }),
    title: t.string({ validate: TITLE, description: "2 to 128 characters; default: the space's title" }),
    icon: t.string({ validate: ICON }),
  }),
});

const UpdateSiteSectionInput = builder.inputType('UpdateSiteSectionInput', {
  fields: (t) => ({
    title: t.string({ validate: TITLE }),
    path: t.string({ validate: PATH, description: 'Unique among the sections of the site' }),
    defaultSiteSpace: t.string({ description: 'Id of a site space of this section, to be its default' }),
    condition: t.string({ validate: CONDITION, description: 'Unset keeps it; null removes it' }),
    icon: t.string({ validate: ICON, description: 'null removes it' }),
    description: t.string({ validate: DESCRIPTION, description: 'null removes it' }),
    sectionGroup: t.string({ description: 'Id of a section group to move the section into (at its end); null: to the top level of the site' }),
  }),
});

const SiteSectionPointerInput = builder.inputType('SiteSectionPointerInput', {
  fields: (t) => ({
    type: t.string({ required: true, description: '`site-section`' }),
    siteSection: t.string({ required: true, description: 'Id of a section of the same site and parent' }),
  }),
});

const SiteSectionMovePositionInput = builder.inputType('SiteSectionMovePositionInput', {
  fields: (t) => ({
    before: t.field({ type: SiteSectionPointerInput }),
    after: t.field({ type: SiteSectionPointerInput }),
  }),
});

const MoveSiteSectionInput = builder.inputType('MoveSiteSectionInput', {
  fields: (t) => ({
    position: t.field({ type: SiteSectionMovePositionInput, description: 'Where to move the section; at the end of its parent when absent' }),
  }),
});

/** Runs `write`, answering 409 when it breaks the one-path-per-site rule (a concurrent change may take the path after the check). */
async function withPathCheck<T>(path: string | null | undefined, write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (error) {
    if (isUniqueViolation(error)) {
      throw new ConflictError(`path: another section of the site already has ${path ? `the path ${JSON.stringify(path)}` : 'this path'}`);
    }
    throw error;
  }
}

builder.mutationFields((t) => ({
  addSectionToSite: t.prismaField({
    type: SiteSection,
    description:
      'Add a section at the end of a site, with a site space for `spaceId` as its default. The first section becomes the default ' +
      'section; when the site had root site spaces, they first become a section of their own.',
    authScopes: { authenticated: true },
    args: { ...siteArgs, input: t.arg({ type: AddSectionToSiteInput, required: true }) },
    resolve: async (query, _root, args, ctx) => {
      const site = await loadSite(ctx, String(args.organizationId), String(args.siteId), 'site:update');
      const space = await loadSpaceForSite(ctx, site.organizationId, args.input.spaceId);
      const section = await withPathCheck(null, () =>
        ctx.db.$transaction(async (tx) => {
          const current = await tx.site.findUniqueOrThrow({ where: { id: site.id }, select: { defaultSectionId: true } });
          let defaultSectionId = current.defaultSectionId;
          let position = endPosition(await sectionSiblings(tx, site.id, null));
          if ((await tx.siteSection.count({ where: { siteId: site.id } })) === 0) {
            // The root site spaces become the first section (the default one), led by their default.
            const roots = await tx.siteSpace.findMany({
              where: { siteId: site.id, sectionId: null },
              orderBy: STRUCTURE_ORDER,
              select: { id: true, isDefault: true, space: { select: { title: true } } },
            });
            if (roots.length > 0) {
              const lead = roots.find((r) => r.isDefault) ?? roots[0]!;
              const title = sectionTitleFor(lead.space.title);
              const firstId = newId();
              await tx.siteSection.create({
                data: { id: firstId, siteId: site.id, title, path: await newSectionPath(tx, site.id, title), position: position++ },
              });
              await tx.siteSpace.updateMany({ where: { siteId: site.id, sectionId: null }, data: { sectionId: firstId } });
              await setDefaultSiteSpace(tx, site.id, firstId, lead.id);
              defaultSectionId = firstId;
            }
            // Section groups only exist among sections (a site left without sections has none).
          }
          const id = newId();
          const title = args.input.title ?? sectionTitleFor(space.title);
          await tx.siteSection.create({
            data: { id, siteId: site.id, title, path: await newSectionPath(tx, site.id, title), icon: args.input.icon ?? null, position },
          });
          const siteSpaceId = newId();
          await tx.siteSpace.create({
            data: { id: siteSpaceId, siteId: site.id, sectionId: id, spaceId: space.id, path: await newSiteSpacePath(tx, site.id, id, space.title), position: 1 },
          });
          await setDefaultSiteSpace(tx, site.id, id, siteSpaceId);
          if (!defaultSectionId) defaultSectionId = id;
          if (defaultSectionId !== current.defaultSectionId) await tx.site.update({ where: { id: site.id }, data: { defaultSectionId } });
          return tx.siteSection.findUniqueOrThrow({ ...query, where: { id } });
        }),
      );
      await revalidateRenderer(ctx, { kind: 'site-structure', site, spaceIds: [space.id] });
      return section;
    },
  }),
  updateSiteSection: t.prismaField({
    type: SiteSection,
    authScopes: { authenticated: true },
    args: { ...siteArgs, siteSectionId: t.arg.id({ required: true }), input: t.arg({ type: UpdateSiteSectionInput, required: true }) },
    resolve: async (query, _root, args, ctx) => {
      const site = await loadSite(ctx, String(args.organizationId), String(args.siteId), 'site:update');
      const id = String(args.siteSectionId);
      const { input } = args;
      await findSection(ctx.db, site.id, id);
      const updated = await withPathCheck(input.path, () =>
        ctx.db.$transaction(async (tx) => {
          const section = await findSection(tx, site.id, id);
          if (input.path && input.path !== section.path) {
            const clash = await tx.siteSection.findFirst({ where: { siteId: site.id, path: input.path, id: { not: id } }, select: { id: true } });
            if (clash) throw new ConflictError(`path: another section of the site already has the path ${JSON.stringify(input.path)}`);
          }
          if (input.defaultSiteSpace) {
            const siteSpace = await tx.siteSpace.findFirst({ where: { id: input.defaultSiteSpace, sectionId: id }, select: { id: true } });
            if (!siteSpace) throw new InvalidInputError(`defaultSiteSpace: the section has no site space ${JSON.stringify(input.defaultSiteSpace)}`);
            await setDefaultSiteSpace(tx, site.id, id, siteSpace.id);
          }
          let move: { sectionGroupId: string | null; position: number } | undefined;
          if (input.sectionGroup !== undefined && input.sectionGroup !== section.sectionGroupId) {
            const groupId = input.sectionGroup;
            if (groupId && !(await tx.siteSectionGroup.findFirst({ where: { id: groupId, siteId: site.id }, select: { id: true } }))) {
              throw new InvalidInputError(`sectionGroup: the site has no section group ${JSON.stringify(groupId)}`);
            }
            move = { sectionGroupId: groupId, position: endPosition(await sectionSiblings(tx, site.id, groupId, id)) };
          }
          return tx.siteSection.update({
            ...query,
            where: { id },
            data: {
              title: input.title ?? undefined,
              path: input.path ?? undefined,
              condition: input.condition,
              icon: input.icon,
              description: input.description,
              ...move,
            },
          });
        }),
      );
      await revalidateRenderer(ctx, { kind: 'site-structure', site });
      return updated;
    },
  }),
  deleteSiteSection: t.boolean({
    description:
      'Delete a section and its site spaces. False when there was nothing to delete. Deleting the default section makes the first ' +
      'one left the default; deleting the last one leaves a site without sections (and without section groups).',
    authScopes: { authenticated: true },
    args: { ...siteArgs, siteSectionId: t.arg.id({ required: true }) },
    resolve: async (_root, args, ctx) => {
      const site = await loadSite(ctx, String(args.organizationId), String(args.siteId), 'site:update');
      const id = String(args.siteSectionId);
      const deleted = await ctx.db.$transaction(async (tx) => {
        const section = await tx.siteSection.findFirst({ where: { id, siteId: site.id }, select: { id: true } });
        if (!section) return false;
        await tx.siteSpace.deleteMany({ where: { sectionId: id } });
        await tx.siteSection.delete({ where: { id } });
        const { defaultSectionId } = await tx.site.findUniqueOrThrow({ where: { id: site.id }, select: { defaultSectionId: true } });
        const left = await tx.siteSection.count({ where: { siteId: site.id } });
        if (left === 0) await tx.siteSectionGroup.deleteMany({ where: { siteId: site.id } });
        if (defaultSectionId === id || (left === 0 && defaultSectionId)) {
          await tx.site.update({ where: { id: site.id }, data: { defaultSectionId: await firstSectionInStructure(tx, site.id) } });
        }
        return true;
      });
      if (deleted) await revalidateRenderer(ctx, { kind: 'site-structure', site });
      return deleted;
    },
  }),
  moveSiteSection: t.prismaField({
    type: SiteSection,
    description: 'Move a section before or after another section of the same parent (the top level, or the same group)',
    deprecationReason: 'Use sortSiteStructure',
    authScopes: { authenticated: true },
    args: { ...siteArgs, siteSectionId: t.arg.id({ required: true }), input: t.arg({ type: MoveSiteSectionInput, required: true }) },
    resolve: async (query, _root, args, ctx) => {
      const site = await loadSite(ctx, String(args.organizationId), String(args.siteId), 'site:update');
      const id = String(args.siteSectionId);
      await findSection(ctx.db, site.id, id);
      const anchor = anchorOf(args.input.position);
      if (anchor && anchor.pointer.type !== 'site-section') {
        throw invalidPosition(`a section moves relative to a \`site-section\`, not ${JSON.stringify(anchor.pointer.type)}`);
      }
      if (anchor && anchor.pointer.siteSection === id) throw invalidPosition('a section cannot be placed relative to itself');
      const moved = await ctx.db.$transaction(async (tx) => {
        const section = await findSection(tx, site.id, id);
        const siblings = await sectionSiblings(tx, site.id, section.sectionGroupId, id);
        const position = await placeAmong(
          siblings,
          anchor && { kind: 'site-section', id: anchor.pointer.siteSection, before: anchor.before },
          (items) => renumberSectionsAndGroups(tx, items),
          section.sectionGroupId ? 'the same section group' : 'the top level of the site',
        );
        return tx.siteSection.update({ ...query, where: { id }, data: { position } });
      });
      await revalidateRenderer(ctx, { kind: 'site-structure', site });
      return moved;
    },
  }),
}));

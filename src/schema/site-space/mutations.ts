/**
 * Site spaces: add a space to a site (at its root, or in a section), update,
 * delete and move among the site spaces of the same section. Every change to
 * a site's structure needs site:update (src/auth/policies.ts); a site space's
 * customization overrides, like the site's customizations, site:configure.
 */
import { authorize } from '../../auth/policies.ts';
import { builder } from '../../builder.ts';
import { jsonInput } from '../../db/json.ts';
import { ConflictError, InvalidInputError } from '../../errors/index.ts';
import { newId } from '../../ids.ts';
import {
  endPosition,
  invalidPosition,
  placeAmong,
  renumberSiteSpaces,
  siteSpaceSiblings,
  PATH,
  CONDITION,
  loadSpaceForSite,
  newSiteSpacePath,
  setDefaultSiteSpace,
  defaultSectionOf,
  findSiteSpace,
  anchorOf,
} from '../../services/site-structure.ts';
import { revalidateRenderer } from '../../services/renderer-revalidation.ts';
import { loadSite } from '../../services/site.ts';
import { siteArgs } from '../site/args.ts';
import { applySiteSpaceCustomizations } from '../site/customizations.ts';
import { SiteSpace } from './type.ts';

const AddSpaceToSiteInput = builder.inputType('AddSpaceToSiteInput', {
  fields: (t) => ({
    spaceId: t.string({ required: true, description: 'A space of the same organization' }),
    sectionId: t.string({ description: 'The section to add the space to; default: the default section, or the root of a site without sections' }),
  }),
});

const UpdateSiteSpaceInput = builder.inputType('UpdateSiteSpaceInput', {
  fields: (t) => ({
    path: t.string({ validate: PATH, description: 'Unique among the site spaces of its section (or root)' }),
    condition: t.string({ validate: CONDITION, description: 'Unset keeps it; null removes it' }),
    spaceId: t.string({ description: 'Another space of the organization for the site space to publish' }),
    hidden: t.boolean({ description: 'Leave the site space out of the navigation; unset keeps it' }),
    customizations: t.field({
      type: 'JSON',
      description:
        "Extension: overrides of the site's customizations (a partial SiteCustomizationSettings), deep-merged into the site space's current ones; null removes every override",
    }),
  }),
});

/** Another request changed the overrides between our read and our write: the transaction is run again. */
class OverridesChanged extends Error {}

const SiteSpacePointerInput = builder.inputType('SiteSpacePointerInput', {
  fields: (t) => ({
    type: t.string({ required: true, description: '`site-space`' }),
    siteSpace: t.string({ required: true, description: 'Id of a site space of the same section' }),
  }),
});

const SiteSpaceMovePositionInput = builder.inputType('SiteSpaceMovePositionInput', {
  description: 'Before or after another site space of the same section (or root)',
  fields: (t) => ({
    before: t.field({ type: SiteSpacePointerInput }),
    after: t.field({ type: SiteSpacePointerInput }),
  }),
});

const MoveSiteSpaceInput = builder.inputType('MoveSiteSpaceInput', {
  fields: (t) => ({
    position: t.field({ type: SiteSpaceMovePositionInput, description: 'Where to move the site space; at the end of its section when absent' }),
  }),
});

builder.mutationFields((t) => ({
  addSpaceToSite: t.prismaField({
    type: SiteSpace,
    description: 'Publish a space on a site: at the end of a section (the default one unless `sectionId` says), or of the root of a site without sections',
    authScopes: { authenticated: true },
    args: { ...siteArgs, input: t.arg({ type: AddSpaceToSiteInput, required: true }) },
    resolve: async (query, _root, args, ctx) => {
      const site = await loadSite(ctx, String(args.organizationId), String(args.siteId), 'site:update');
      const space = await loadSpaceForSite(ctx, site.organizationId, args.input.spaceId);
      const added = await ctx.db.$transaction(async (tx) => {
        let sectionId: string | null;
        if (args.input.sectionId) {
          const section = await tx.siteSection.findFirst({ where: { id: args.input.sectionId, siteId: site.id }, select: { id: true } });
          if (!section) throw new InvalidInputError(`sectionId: the site has no section ${JSON.stringify(args.input.sectionId)}`);
          sectionId = section.id;
        } else {
          sectionId = await defaultSectionOf(tx, site);
        }
        const siblings = await tx.siteSpace.findMany({ where: { siteId: site.id, sectionId }, select: { position: true, isDefault: true } });
        const id = newId();
        await tx.siteSpace.create({
          data: {
            id,
            siteId: site.id,
            sectionId,
            spaceId: space.id,
            path: await newSiteSpacePath(tx, site.id, sectionId, space.title),
            position: endPosition(siblings),
            isDefault: false,
          },
        });
        if (!siblings.some((s) => s.isDefault)) await setDefaultSiteSpace(tx, site.id, sectionId, id);
        return tx.siteSpace.findUniqueOrThrow({ ...query, where: { id } });
      });
      await revalidateRenderer(ctx, { kind: 'site-structure', site, spaceIds: [space.id] });
      return added;
    },
  }),
  updateSiteSpace: t.prismaField({
    type: SiteSpace,
    authScopes: { authenticated: true },
    args: { ...siteArgs, siteSpaceId: t.arg.id({ required: true }), input: t.arg({ type: UpdateSiteSpaceInput, required: true }) },
    resolve: async (query, _root, args, ctx) => {
      const site = await loadSite(ctx, String(args.organizationId), String(args.siteId), 'site:update');
      const id = String(args.siteSpaceId);
      const { input } = args;
      if (input.customizations !== undefined) authorize(ctx.access.organization(site.organizationId), 'site:configure', { type: 'Site', id: site.id });
      await findSiteSpace(ctx.db, site.id, id);
      const space = input.spaceId ? await loadSpaceForSite(ctx, site.organizationId, input.spaceId) : null;
      // The overrides are merged into what is stored, compare-and-set (as a site's customizations):
      // two concurrent partial updates both land, the loser running again on the winner's value.
      for (let attempt = 1; attempt <= 5; attempt++) {
        try {
          const updated = await ctx.db.$transaction(async (tx) => {
            const siteSpace = await findSiteSpace(tx, site.id, id);
            if (input.path && input.path !== siteSpace.path) {
              const clash = await tx.siteSpace.findFirst({ where: { siteId: site.id, sectionId: siteSpace.sectionId, path: input.path, id: { not: id } }, select: { id: true } });
              if (clash) throw new ConflictError(`path: another site space of the ${siteSpace.sectionId ? 'section' : 'site'} already has the path ${JSON.stringify(input.path)}`);
            }
            if (input.customizations !== undefined) {
              const { customizations: siteStored } = await tx.site.findUniqueOrThrow({ where: { id: site.id }, select: { customizations: true } });
              const next = applySiteSpaceCustomizations(siteSpace.customizations, input.customizations, siteStored);
              const written = await tx.siteSpace.updateMany({
                where: { id, customizations: { equals: jsonInput(siteSpace.customizations) } },
                data: { customizations: jsonInput(next) },
              });
              if (written.count === 0) throw new OverridesChanged();
            }
            return tx.siteSpace.update({
              ...query,
              where: { id },
              data: {
                path: input.path ?? undefined,
                condition: input.condition,
                spaceId: space?.id,
                hidden: input.hidden ?? undefined,
              },
            });
          });
          await revalidateRenderer(ctx, { kind: 'site-structure', site, spaceIds: space ? [space.id] : [] });
          return updated;
        } catch (error) {
          if (!(error instanceof OverridesChanged)) throw error;
        }
      }
      throw new ConflictError('customizations: the site space was changed concurrently too many times; try again');
    },
  }),
  deleteSiteSpace: t.boolean({
    description: 'Remove a site space from its site (the space stays). False when there was nothing to delete. The next one becomes the default when the default is deleted.',
    authScopes: { authenticated: true },
    args: { ...siteArgs, siteSpaceId: t.arg.id({ required: true }) },
    resolve: async (_root, args, ctx) => {
      const site = await loadSite(ctx, String(args.organizationId), String(args.siteId), 'site:update');
      const id = String(args.siteSpaceId);
      const deleted = await ctx.db.$transaction(async (tx) => {
        const siteSpace = await tx.siteSpace.findFirst({ where: { id, siteId: site.id }, select: { sectionId: true, isDefault: true } });
        if (!siteSpace) return false;
        await tx.siteSpace.delete({ where: { id } });
        if (siteSpace.isDefault) await setDefaultSiteSpace(tx, site.id, siteSpace.sectionId, null);
        return true;
      });
      if (deleted) await revalidateRenderer(ctx, { kind: 'site-structure', site });
      return deleted;
    },
  }),
  moveSiteSpace: t.prismaField({
    type: SiteSpace,
    description: 'Move a site space before or after another site space of the same section (or root)',
    authScopes: { authenticated: true },
    args: { ...siteArgs, siteSpaceId: t.arg.id({ required: true }), input: t.arg({ type: MoveSiteSpaceInput, required: true }) },
    resolve: async (query, _root, args, ctx) => {
      const site = await loadSite(ctx, String(args.organizationId), String(args.siteId), 'site:update');
      const id = String(args.siteSpaceId);
      await findSiteSpace(ctx.db, site.id, id);
      const anchor = anchorOf(args.input.position);
      if (anchor && anchor.pointer.type !== 'site-space') throw invalidPosition(`a site space moves relative to a \`site-space\`, not ${JSON.stringify(anchor.pointer.type)}`);
      if (anchor && anchor.pointer.siteSpace === id) throw invalidPosition('a site space cannot be placed relative to itself');
      const moved = await ctx.db.$transaction(async (tx) => {
        const siteSpace = await findSiteSpace(tx, site.id, id);
        const siblings = await siteSpaceSiblings(tx, site.id, siteSpace.sectionId, id);
        const position = await placeAmong(
          siblings,
          anchor && { kind: 'site-space', id: anchor.pointer.siteSpace, before: anchor.before },
          (items) => renumberSiteSpaces(tx, items),
          siteSpace.sectionId ? 'the same section' : 'the root of the site',
        );
        return tx.siteSpace.update({ ...query, where: { id }, data: { position } });
      });
      await revalidateRenderer(ctx, { kind: 'site-structure', site });
      return moved;
    },
  }),
}));

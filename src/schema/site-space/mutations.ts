/**
 * Site spaces: add a space to a site (at its root, or in a section), update,
 * delete and move among the site spaces of the same section. Every change to
 * a site's structure needs site:update (src/auth/policies.ts).
 */
import { z } from 'zod';
import { builder } from '../../builder.ts';
import type { Context } from '../../context.ts';
import { ConflictError, InvalidInputError, NotFoundError } from '../../errors/index.ts';
import { newId } from '../../ids.ts';
import { loadSite } from '../site/queries.ts';
import { forgetSiteFacts } from '../site-structure/access.ts';
import {
  endPosition,
  invalidPosition,
  placeAmong,
  renumberSiteSpaces,
  siteSpaceSiblings,
  STRUCTURE_ORDER,
  type Tx,
} from '../site-structure/position.ts';
import { slugify, uniqueSlug } from '../shared/slug.ts';
import { loadSpace } from '../space/queries.ts';
import { SiteSpace } from './type.ts';

export const PATH = z.string().min(1, 'must be between 1 and 100 characters').max(100, 'must be between 1 and 100 characters');
export const CONDITION = z.string().max(1024, 'must be at most 1024 characters');

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
async function defaultSectionOf(tx: Tx, site: { id: string; defaultSectionId: string | null }): Promise<string | null> {
  if (site.defaultSectionId) {
    const found = await tx.siteSection.findFirst({ where: { id: site.defaultSectionId, siteId: site.id }, select: { id: true } });
    if (found) return found.id;
  }
  const first = await tx.siteSection.findFirst({ where: { siteId: site.id }, orderBy: STRUCTURE_ORDER, select: { id: true } });
  return first?.id ?? null;
}

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
  }),
});

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

const siteArgs = builder.args((t) => ({
  organizationId: t.id({ required: true }),
  siteId: t.id({ required: true }),
}));

async function findSiteSpace(db: Tx, siteId: string, siteSpaceId: string) {
  const found = await db.siteSpace.findFirst({ where: { id: siteSpaceId, siteId } });
  if (!found) throw new NotFoundError('SiteSpace', siteSpaceId);
  return found;
}

builder.mutationFields((t) => ({
  addSpaceToSite: t.prismaField({
    type: SiteSpace,
    description: 'Publish a space on a site: at the end of a section (the default one unless `sectionId` says), or of the root of a site without sections',
    authScopes: { authenticated: true },
    args: { ...siteArgs, input: t.arg({ type: AddSpaceToSiteInput, required: true }) },
    resolve: async (query, _root, args, ctx) => {
      const site = await loadSite(ctx, String(args.organizationId), String(args.siteId), 'site:update');
      const space = await loadSpaceForSite(ctx, site.organizationId, args.input.spaceId);
      const created = await ctx.db.$transaction(async (tx) => {
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
      forgetSiteFacts(ctx);
      return created;
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
      await findSiteSpace(ctx.db, site.id, id);
      const space = input.spaceId ? await loadSpaceForSite(ctx, site.organizationId, input.spaceId) : null;
      const updated = await ctx.db.$transaction(async (tx) => {
        const siteSpace = await findSiteSpace(tx, site.id, id);
        if (input.path && input.path !== siteSpace.path) {
          const clash = await tx.siteSpace.findFirst({ where: { siteId: site.id, sectionId: siteSpace.sectionId, path: input.path, id: { not: id } }, select: { id: true } });
          if (clash) throw new ConflictError(`path: another site space of the ${siteSpace.sectionId ? 'section' : 'site'} already has the path ${JSON.stringify(input.path)}`);
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
      forgetSiteFacts(ctx);
      return updated;
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
      forgetSiteFacts(ctx);
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
      return ctx.db.$transaction(async (tx) => {
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
    },
  }),
}));

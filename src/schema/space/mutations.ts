import { z } from 'zod';
import { authorize, can } from '../../auth/policies.ts';
import { builder } from '../../builder.ts';
import type { Db } from '../../db/client.ts';
import { jsonInput } from '../../db/json.ts';
import { ConflictError, InvalidInputError } from '../../errors/index.ts';
import { setSearchLanguage } from '../../search/search-index.ts';
import { loadParentCollection } from '../../services/collection.ts';
import { dropGrantsOn } from '../../services/content-grant.ts';
import { resolvePosition, type ContentPosition } from '../../services/content-position.ts';
import { spaceMergeRules } from '../../services/merge-rules.ts';
import { loadOrganization } from '../../services/organization.ts';
import { revalidateRenderer } from '../../services/renderer-revalidation.ts';
import { loadSpace, SPACE_RETENTION_MS, createSpaceRow } from '../../services/space.ts';
import { ContentVisibility, DefaultLevel, SpaceEditMode, TranslationLanguage } from '../shared/enums.ts';
import { ContentPositionInput } from '../shared/position.ts';
import { TransferInput } from '../shared/transfer.ts';
import { Space } from './type.ts';

const title = z.string().max(50, 'must be at most 50 characters');
const emoji = z.string().max(50, 'must be at most 50 characters');

const CreateSpaceInput = builder.inputType('CreateSpaceInput', {
  fields: (t) => ({
    title: t.string({ validate: title }),
    emoji: t.string({ validate: emoji }),
    parent: t.string({ description: 'Id of the parent collection' }),
    language: t.field({ type: TranslationLanguage }),
    editMode: t.field({ type: SpaceEditMode }),
    visibility: t.field({ type: ContentVisibility }),
    empty: t.boolean({ description: 'Create the space without content (the default until templates exist)' }),
  }),
});

const UpdateSpaceInput = builder.inputType('UpdateSpaceInput', {
  fields: (t) => ({
    title: t.string({ validate: title }),
    emoji: t.string({ validate: emoji, description: 'null removes it' }),
    editMode: t.field({ type: SpaceEditMode }),
    defaultLevel: t.field({ type: DefaultLevel, description: 'null: members get no access by default; inherit: as the parent' }),
    language: t.field({ type: TranslationLanguage }),
    visibility: t.field({ type: ContentVisibility }),
    mergeRules: t.field({ type: 'JSON', validate: spaceMergeRules }),
  }),
});

const MoveSpaceInput = builder.inputType('MoveSpaceInput', {
  fields: (t) => ({
    parent: t.string({ description: 'Id of the new parent collection; null for the top level' }),
    position: t.field({ type: ContentPositionInput }),
  }),
});

builder.mutationFields((t) => ({
  createSpace: t.prismaField({
    type: Space,
    authScopes: { authenticated: true },
    args: { organizationId: t.arg.id({ required: true }), input: t.arg({ type: CreateSpaceInput, required: true }) },
    resolve: async (query, _root, args, ctx) => {
      const organizationId = String(args.organizationId);
      await loadOrganization(ctx, organizationId, 'organization:create-content');
      const parentId = args.input.parent ?? null;
      if (parentId) await loadParentCollection(ctx, organizationId, parentId);
      if (args.input.visibility === 'in-collection' && !parentId) {
        throw new InvalidInputError('visibility: in-collection is only for spaces in a collection');
      }
      return createSpaceRow(ctx, query, {
        organizationId,
        parentId,
        title: args.input.title ?? '',
        emoji: args.input.emoji ?? '',
        visibility: args.input.visibility,
        editMode: args.input.editMode,
        language: args.input.language,
      });
    },
  }),
  updateSpace: t.prismaField({
    type: Space,
    authScopes: { authenticated: true },
    args: { spaceId: t.arg.id({ required: true }), input: t.arg({ type: UpdateSpaceInput, required: true }) },
    resolve: async (query, _root, { spaceId, input }, ctx) => {
      const id = String(spaceId);
      const space = await loadSpace(ctx, id, 'space:update');
      const settings = ['editMode', 'defaultLevel', 'mergeRules', 'visibility'] as const;
      if (settings.some((k) => input[k] !== undefined)) authorize(await ctx.access.space(space), 'space:configure', { type: 'Space', id });
      if (input.visibility === 'in-collection' && !space.parentId) {
        throw new InvalidInputError('visibility: in-collection is only for spaces in a collection');
      }
      const update = (db: Pick<Db, 'space'>) =>
        db.space.update({
          ...query,
          where: { id },
          data: {
            title: input.title ?? undefined,
            emoji: input.emoji === null ? '' : input.emoji,
            editMode: input.editMode ?? undefined,
            defaultLevel: input.defaultLevel,
            language: input.language,
            visibility: input.visibility ?? undefined,
            mergeRules: input.mergeRules ? jsonInput(input.mergeRules) : undefined,
          },
        });
      const updated =
        input.language === undefined
          ? await update(ctx.db)
          : // Its search rows are stemmed with its language: they change with it.
            await ctx.db.$transaction(async (tx) => {
              const row = await update(tx);
              await setSearchLanguage(tx, ctx.provider, id, input.language ?? null);
              return row;
            });
      // What a site shows of the space (not its edit mode, default level or merge rules).
      if ((['title', 'emoji', 'language', 'visibility'] as const).some((k) => input[k] !== undefined)) await revalidateRenderer(ctx, { kind: 'space', space });
      return updated;
    },
  }),
  deleteSpace: t.boolean({
    description: 'Move a space to the bin for 7 days. False when there was nothing to delete.',
    authScopes: { authenticated: true },
    args: { spaceId: t.arg.id({ required: true }) },
    resolve: async (_root, { spaceId }, ctx) => {
      const id = String(spaceId);
      const found = await ctx.db.space.findUnique({ where: { id }, select: { deletedAt: true } });
      if (!found || found.deletedAt) return false;
      const space = await loadSpace(ctx, id, 'space:delete');
      await ctx.db.space.update({ where: { id }, data: { deletedAt: new Date() } });
      // Sites leave out spaces in the bin.
      await revalidateRenderer(ctx, { kind: 'space', space });
      return true;
    },
  }),
  restoreSpace: t.prismaField({
    type: Space,
    description: 'Bring a space back from the bin (within 7 days of its deletion)',
    authScopes: { authenticated: true },
    args: { spaceId: t.arg.id({ required: true }) },
    resolve: async (query, _root, { spaceId }, ctx) => {
      const id = String(spaceId);
      const live = await ctx.db.space.findUnique({ where: { id }, select: { deletedAt: true, organizationId: true } });
      if (live && !live.deletedAt && can(ctx.access.organization(live.organizationId), 'organization:read')) {
        throw new ConflictError('The space is not deleted: there is nothing to restore');
      }
      const space = await loadSpace(ctx, id, 'space:restore', undefined, { inBin: true });
      if (space.deletedAt!.getTime() < Date.now() - SPACE_RETENTION_MS) {
        throw new ConflictError('The space was deleted more than 7 days ago and can no longer be restored');
      }
      const restored = await ctx.db.$transaction(async (tx) => {
        // The parent collection may be gone; the space then comes back at the top level.
        const parent = space.parentId ? await tx.collection.findUnique({ where: { id: space.parentId }, select: { id: true } }) : null;
        const parentId = parent?.id ?? null;
        // Its old place among its siblings means nothing any more (they may have moved, or
        // taken its position): it comes back last, as a new or moved space without a position would.
        const position = await resolvePosition(tx, { organizationId: space.organizationId, parentId, itemId: id });
        return tx.space.update({ ...query, where: { id }, data: { deletedAt: null, parentId, position } });
      });
      await revalidateRenderer(ctx, { kind: 'space', space });
      return restored;
    },
  }),
  duplicateSpace: t.prismaField({
    type: Space,
    description: 'Copy a space next to the original',
    authScopes: { authenticated: true },
    args: { spaceId: t.arg.id({ required: true }) },
    resolve: async (query, _root, { spaceId }, ctx) => {
      const source = await loadSpace(ctx, String(spaceId), 'space:duplicate');
      authorize(ctx.access.organization(source.organizationId), 'organization:create-content', { type: 'Organization', id: source.organizationId });
      return createSpaceRow(ctx, query, {
        organizationId: source.organizationId,
        parentId: source.parentId,
        title: `Copy of ${source.title}`.slice(0, 50),
        emoji: source.emoji,
        visibility: source.visibility,
        editMode: source.editMode,
        language: source.language,
        defaultLevel: source.defaultLevel,
        mergeRules: source.mergeRules,
        parentRevisionId: source.revisionId,
        after: source.id,
      });
    },
  }),
  moveSpace: t.prismaField({
    type: Space,
    authScopes: { authenticated: true },
    args: { spaceId: t.arg.id({ required: true }), input: t.arg({ type: MoveSpaceInput, required: true }) },
    resolve: async (query, _root, { spaceId, input }, ctx) => {
      const id = String(spaceId);
      const space = await loadSpace(ctx, id, 'space:move');
      if (input.parent === undefined && !input.position) throw new InvalidInputError('give `parent`, `position` or both');
      const parentId = input.parent === undefined ? space.parentId : input.parent;
      if (parentId) await loadParentCollection(ctx, space.organizationId, parentId);
      const position = input.position as ContentPosition | null | undefined;
      const anchor = position?.before ?? position?.after;
      if (anchor?.type === 'space' && anchor.space === id) throw new InvalidInputError('position: a space cannot be placed relative to itself');
      const visibility = !parentId && space.visibility === 'in-collection' ? 'private' : undefined;
      return ctx.db.$transaction(async (tx) => {
        // 409 when the space would stay where it is (see resolvePosition); its place read here, in the transaction.
        const now = await tx.space.findUniqueOrThrow({ where: { id }, select: { parentId: true, position: true } });
        const current = { kind: 'space' as const, ...now };
        const newPosition = await resolvePosition(tx, { organizationId: space.organizationId, parentId, itemId: id }, position, current);
        return tx.space.update({ ...query, where: { id }, data: { parentId, position: newPosition, visibility } });
      });
    },
  }),
  transferSpace: t.prismaField({
    type: Space,
    description: 'Move a space to another organization (at its top level)',
    authScopes: { authenticated: true },
    args: { spaceId: t.arg.id({ required: true }), input: t.arg({ type: TransferInput, required: true }) },
    resolve: async (query, _root, { spaceId, input }, ctx) => {
      const id = String(spaceId);
      const space = await loadSpace(ctx, id, 'space:transfer');
      const target = input.organization;
      if (target === space.organizationId) throw new ConflictError('The space already belongs to this organization: the transfer would not change anything');
      await loadOrganization(ctx, target, 'organization:create-content');
      return ctx.db.$transaction(async (tx) => {
        const position = await resolvePosition(tx, { organizationId: target, parentId: null, itemId: id });
        const visibility = space.visibility === 'in-collection' ? 'private' : undefined;
        // Roles held by the old organization's users and teams stay behind.
        await dropGrantsOn(tx, { organizationId: space.organizationId, spaceIds: [id] });
        return tx.space.update({ ...query, where: { id }, data: { organizationId: target, parentId: null, position, visibility } });
      });
    },
  }),
}));

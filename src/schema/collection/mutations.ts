import { z } from 'zod';
import { authorize } from '../../auth/policies.ts';
import { builder } from '../../builder.ts';
import { ConflictError, InvalidInputError, PreconditionFailedError } from '../../errors/index.ts';
import { newId } from '../../ids.ts';
import { loadCollection, collectionSubtree, loadParentCollection } from '../../services/collection.ts';
import { dropGrantsOn } from '../../services/content-grant.ts';
import { resolvePosition, type ContentPosition } from '../../services/content-position.ts';
import { loadOrganization } from '../../services/organization.ts';
import { DefaultLevel } from '../shared/enums.ts';
import { ContentPositionInput } from '../shared/position.ts';
import { TransferInput } from '../shared/transfer.ts';
import { Collection } from './type.ts';

const title = z.string().max(50, 'must be at most 50 characters');

const CreateCollectionInput = builder.inputType('CreateCollectionInput', {
  fields: (t) => ({
    title: t.string({ validate: title }),
    parent: t.string({ description: 'Id of the parent collection' }),
  }),
});

const UpdateCollectionInput = builder.inputType('UpdateCollectionInput', {
  fields: (t) => ({
    title: t.string({ validate: title }),
    description: t.string({ validate: z.string().max(100, 'must be at most 100 characters') }),
    defaultLevel: t.field({ type: DefaultLevel }),
  }),
});

const MoveCollectionInput = builder.inputType('MoveCollectionInput', {
  fields: (t) => ({
    parent: t.string({ description: 'Id of the new parent collection; null for the top level' }),
    position: t.field({ type: ContentPositionInput }),
  }),
});

builder.mutationFields((t) => ({
  createCollection: t.prismaField({
    type: Collection,
    authScopes: { authenticated: true },
    args: { organizationId: t.arg.id({ required: true }), input: t.arg({ type: CreateCollectionInput, required: true }) },
    resolve: async (query, _root, args, ctx) => {
      const organizationId = String(args.organizationId);
      await loadOrganization(ctx, organizationId, 'collection:create');
      const parentId = args.input.parent ?? null;
      if (parentId) await loadParentCollection(ctx, organizationId, parentId);
      const id = newId();
      return ctx.db.$transaction(async (tx) => {
        const position = await resolvePosition(tx, { organizationId, parentId, itemId: id });
        return tx.collection.create({
          ...query,
          data: { id, organizationId, parentId, title: args.input.title ?? 'Untitled', position },
        });
      });
    },
  }),
  updateCollection: t.prismaField({
    type: Collection,
    authScopes: { authenticated: true },
    args: { collectionId: t.arg.id({ required: true }), input: t.arg({ type: UpdateCollectionInput, required: true }) },
    resolve: async (query, _root, { collectionId, input }, ctx) => {
      const id = String(collectionId);
      const collection = await loadCollection(ctx, id, 'collection:update');
      if (input.defaultLevel !== undefined) authorize(await ctx.access.collection(collection), 'collection:admin', { type: 'Collection', id });
      return ctx.db.collection.update({
        ...query,
        where: { id },
        data: { title: input.title ?? undefined, description: input.description, defaultLevel: input.defaultLevel },
      });
    },
  }),
  deleteCollection: t.boolean({
    description: 'Delete a collection, its nested collections, and move their spaces to the bin. False when there was nothing to delete.',
    authScopes: { authenticated: true },
    args: { collectionId: t.arg.id({ required: true }) },
    resolve: async (_root, { collectionId }, ctx) => {
      const id = String(collectionId);
      const found = await ctx.db.collection.findUnique({ where: { id } });
      if (!found) return false;
      await loadCollection(ctx, id, 'collection:delete');
      await ctx.db.$transaction(async (tx) => {
        const ids = await collectionSubtree(tx, id);
        // Spaces go to the bin at the top level, so a restore within 7 days brings them back.
        await tx.space.updateMany({ where: { parentId: { in: ids }, deletedAt: null }, data: { deletedAt: new Date() } });
        await tx.space.updateMany({ where: { parentId: { in: ids } }, data: { parentId: null } });
        // Children first: the parent relation restricts deleting a collection that still has children.
        for (const childId of ids.reverse()) await tx.collection.delete({ where: { id: childId } });
        // The roles held on the collections go with them (the spaces in the bin keep theirs, for a restore).
        await dropGrantsOn(tx, { collectionIds: ids });
      });
      return true;
    },
  }),
  moveCollection: t.prismaField({
    type: Collection,
    authScopes: { authenticated: true },
    args: { collectionId: t.arg.id({ required: true }), input: t.arg({ type: MoveCollectionInput, required: true }) },
    resolve: async (query, _root, { collectionId, input }, ctx) => {
      const id = String(collectionId);
      const collection = await loadCollection(ctx, id, 'collection:move');
      if (input.parent === undefined && !input.position) throw new InvalidInputError('give `parent`, `position` or both');
      const parentId = input.parent === undefined ? collection.parentId : input.parent;
      if (parentId) {
        await loadParentCollection(ctx, collection.organizationId, parentId);
        const subtree = await collectionSubtree(ctx.db, id);
        if (subtree.includes(parentId)) throw new InvalidInputError('parent: a collection cannot be moved into itself or one of its nested collections');
      }
      const position = input.position as ContentPosition | null | undefined;
      const anchor = position?.before ?? position?.after;
      if (anchor?.type === 'collection' && anchor.collection === id) throw new InvalidInputError('position: a collection cannot be placed relative to itself');
      return ctx.db.$transaction(async (tx) => {
        // 409 when the collection would stay where it is (see resolvePosition); its place read here, in the transaction.
        const now = await tx.collection.findUniqueOrThrow({ where: { id }, select: { parentId: true, position: true } });
        const current = { kind: 'collection' as const, ...now };
        const newPosition = await resolvePosition(tx, { organizationId: collection.organizationId, parentId, itemId: id }, position, current);
        return tx.collection.update({ ...query, where: { id }, data: { parentId, position: newPosition } });
      });
    },
  }),
  transferCollection: t.prismaField({
    type: Collection,
    description: 'Move a top-level collection, with everything in it, to another organization',
    authScopes: { authenticated: true },
    args: { collectionId: t.arg.id({ required: true }), input: t.arg({ type: TransferInput, required: true }) },
    resolve: async (query, _root, { collectionId, input }, ctx) => {
      const id = String(collectionId);
      const collection = await loadCollection(ctx, id, 'collection:transfer');
      const target = input.organization;
      if (target === collection.organizationId) throw new ConflictError('The collection already belongs to this organization: the transfer would not change anything');
      await loadOrganization(ctx, target, 'organization:create-content');
      if (collection.parentId) {
        throw new PreconditionFailedError('The collection cannot be moved: it is nested in another collection; move it to the top level first');
      }
      return ctx.db.$transaction(async (tx) => {
        const ids = await collectionSubtree(tx, id);
        const spaces = await tx.space.findMany({ where: { parentId: { in: ids } }, select: { id: true } });
        await tx.collection.updateMany({ where: { id: { in: ids } }, data: { organizationId: target } });
        await tx.space.updateMany({ where: { parentId: { in: ids } }, data: { organizationId: target } });
        // Roles held by the old organization's users and teams stay behind.
        await dropGrantsOn(tx, { organizationId: collection.organizationId, collectionIds: ids, spaceIds: spaces.map((s) => s.id) });
        const position = await resolvePosition(tx, { organizationId: target, parentId: null, itemId: id });
        return tx.collection.update({ ...query, where: { id }, data: { position } });
      });
    },
  }),
}));


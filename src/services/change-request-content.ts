/**
 * Applies a batch of content changes to a change request as one new revision:
 * file bytes first (outside the transaction), then the changes, the revision
 * and the change request's move to it, all or nothing.
 */
import { applyContentChanges, type ContentChange } from '../content/apply-changes.ts';
import { loadDocuments, loadSnapshot } from '../content/revision-store.ts';
import { prepareUploads, type FileUploadInput } from '../content/uploads.ts';
import type { Context } from '../context.ts';
import { ConflictError, InvalidInputError } from '../errors/index.ts';
import { commitChangeRequestRevision, lockChangeRequest } from './change-request.ts';

type SpaceRow = { id: string; organizationId: string };
type ChangeRequestRow = { id: string; status: string; revisionId: string; revisionInitialId: string; revisionMergedAncestorId: string | null };

export async function editChangeRequestContent(ctx: Context, space: SpaceRow, changeRequest: ChangeRequestRow, changes: ContentChange[]) {
  if (changeRequest.status === 'merged' || changeRequest.status === 'archived') {
    throw new ConflictError(`The change request is ${changeRequest.status}; its content cannot change`);
  }
  const viewer = ctx.access.requireViewer();
  // File bytes are fetched/decoded and stored first, outside the transaction.
  for (const [i, change] of changes.entries()) {
    if (change.operation === 'insert_files') {
      const files = (change as unknown as { files?: FileUploadInput[] }).files;
      if (!Array.isArray(files)) throw new InvalidInputError(`changes[${i}].files: required`);
      if (files.length > 20) throw new InvalidInputError(`changes[${i}].files: at most 20 files per change`);
      (change as { files: unknown }).files = await prepareUploads(files, `changes[${i}]`, { storage: ctx.storage, fetch: ctx.config.fetch });
    }
  }
  const result = await ctx.db.$transaction(async (tx) => {
    // Concurrent batches for this change request take turns: each applies to what the one before left.
    const locked = await lockChangeRequest(tx, ctx.provider, changeRequest.id);
    if (locked.status === 'merged' || locked.status === 'archived') {
      throw new ConflictError(`The change request is ${locked.status}; its content cannot change`);
    }
    const current = await loadSnapshot(tx, locked.revisionId, { documents: false });
    const applied = await applyContentChanges(current, changes, {
      now: new Date(),
      loadRevertTarget: async (revisionId) => {
        const id = revisionId ?? locked.revisionMergedAncestorId ?? locked.revisionInitialId;
        const row = await tx.revision.findUnique({ where: { id }, select: { spaceId: true } });
        if (!row || row.spaceId !== space.id) throw new InvalidInputError(`revision: no revision ${id} in this space`);
        return loadSnapshot(tx, id, { documents: false });
      },
      loadDocument: async (hash) => (await loadDocuments(tx, [hash])).get(hash) ?? null,
    });
    const revisionId = await commitChangeRequestRevision(tx, {
      changeRequest: locked,
      spaceId: space.id,
      type: 'edits',
      createdById: viewer.userId,
      snapshot: applied.snapshot,
      data: { updatedAt: new Date() },
      conflict: 'The change request content changed while this batch was applied; try again',
    });
    await tx.changeRequestContributor.upsert({
      where: { changeRequestId_userId: { changeRequestId: changeRequest.id, userId: viewer.userId } },
      create: { changeRequestId: changeRequest.id, userId: viewer.userId },
      update: {},
    });
    const row = await tx.revision.findUniqueOrThrow({ where: { id: revisionId } });
    return { applied, revision: { ...row, organizationId: space.organizationId } };
  });
  return result;
}

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
import { commitChangeRequestRevision } from './change-request.ts';

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
  // The changes are applied before the transaction: their Markdown converts on the worker threads, which may
  // take a while, and nothing is held meanwhile. The content read is the change request's revision (immutable);
  // the commit moves the change request only if it is still there (else a 409 to retry).
  const current = await loadSnapshot(ctx.db, changeRequest.revisionId, { documents: false });
  const applied = await applyContentChanges(current, changes, {
    now: new Date(),
    loadRevertTarget: async (revisionId) => {
      const id = revisionId ?? changeRequest.revisionMergedAncestorId ?? changeRequest.revisionInitialId;
      const row = await ctx.db.revision.findUnique({ where: { id }, select: { spaceId: true } });
      if (!row || row.spaceId !== space.id) throw new InvalidInputError(`revision: no revision ${id} in this space`);
      return loadSnapshot(ctx.db, id, { documents: false });
    },
    loadDocument: async (hash) => (await loadDocuments(ctx.db, [hash])).get(hash) ?? null,
    convertMarkdown: (markdown, hrefs) => ctx.conversions.markdownToDocument(markdown, hrefs),
  });
  const result = await ctx.db.$transaction(async (tx) => {
    const revisionId = await commitChangeRequestRevision(tx, {
      changeRequest,
      spaceId: space.id,
      type: 'edits',
      createdById: viewer.userId,
      snapshot: applied.snapshot,
      copyFrom: { revisionId: changeRequest.revisionId, snapshot: current },
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

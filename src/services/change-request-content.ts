/**
 * Applies a batch of content changes to a change request as one new revision:
 * file bytes first (outside the transaction), then the changes, the revision
 * and the change request's move to it, all or nothing.
 */
import { applyContentChanges, type ContentChange } from '../content/apply-changes.ts';
import type { MarkdownToDocumentResult } from '../content/document/markdown-parse.ts';
import type { JSONDocument } from '../content/document/model.ts';
import { extractReferences } from '../content/document/references.ts';
import { hrefsNamedIn, serializeHrefTable, type HrefTable } from '../content/page-hrefs.ts';
import { loadDocuments, loadSnapshot } from '../content/revision-store.ts';
import type { RevisionSnapshot } from '../content/snapshot.ts';
import { prepareUploads, type FileUploadInput } from '../content/uploads.ts';
import type { Context } from '../context.ts';
import type { Db, Tx } from '../db/client.ts';
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
  // Markdown converts on the worker threads, which may take a while: a first pass applies the batch
  // outside the transaction, holding nothing, and keeps every conversion; the transaction then takes
  // the change request's row (concurrent batches take turns) and applies the batch to its content as
  // it is now, reusing those conversions (a link table that changed meanwhile converts again).
  const conversions = new Map<string, Promise<MarkdownToDocumentResult>>();
  const convertMarkdown = (markdown: string, table: HrefTable, folder: string) => {
    const hrefs = hrefsNamedIn(table, markdown, folder);
    const key = `${markdown}\u0000${folder}\u0000${serializeHrefTable(hrefs)}`;
    let converted = conversions.get(key);
    if (!converted) conversions.set(key, (converted = ctx.conversions.markdownToDocument(markdown, hrefs, { folder })));
    return converted;
  };
  const apply = (db: Db | Tx, content: ChangeRequestRow) => async (current: RevisionSnapshot) =>
    applyContentChanges(current, changes, {
      now: new Date(),
      loadRevertTarget: async (revisionId) => {
        const id = revisionId ?? content.revisionMergedAncestorId ?? content.revisionInitialId;
        const row = await db.revision.findUnique({ where: { id }, select: { spaceId: true } });
        if (!row || row.spaceId !== space.id) throw new InvalidInputError(`revision: no revision ${id} in this space`);
        return loadSnapshot(db, id, { documents: false, chunks: ctx.revisionChunks });
      },
      loadDocument: async (hash) => (await loadDocuments(db, [hash])).get(hash) ?? null,
      convertMarkdown,
    });
  const first = await apply(ctx.db, changeRequest)(await loadSnapshot(ctx.db, changeRequest.revisionId, { documents: false, chunks: ctx.revisionChunks }));
  await checkReusableContentSpaces(ctx, space, first.snapshot.documents.values());
  const result = await ctx.db.$transaction(async (tx) => {
    const locked = await lockChangeRequest(tx, ctx.provider, changeRequest.id);
    if (locked.status === 'merged' || locked.status === 'archived') {
      throw new ConflictError(`The change request is ${locked.status}; its content cannot change`);
    }
    const applied =
      locked.revisionId === changeRequest.revisionId ? first : await apply(tx, locked)(await loadSnapshot(tx, locked.revisionId, { documents: false, chunks: ctx.revisionChunks }));
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
      create: { changeRequestId: changeRequest.id, userId: viewer.userId, count: 1 },
      update: { count: { increment: 1 } },
    });
    const row = await tx.revision.findUniqueOrThrow({ where: { id: revisionId } });
    return { applied, revision: { ...row, organizationId: space.organizationId } };
  });
  return result;
}

/**
 * A reusable content of another space may be included (shared by id within the organization); one
 * of a space of another organization, or of no space, is refused.
 */
async function checkReusableContentSpaces(ctx: Context, space: SpaceRow, documents: Iterable<JSONDocument>): Promise<void> {
  const spaces = new Set<string>();
  for (const document of documents) {
    for (const { ref } of extractReferences(document)) if (ref.kind === 'reusable-content' && typeof ref.space === 'string' && ref.space !== space.id) spaces.add(ref.space);
  }
  if (spaces.size === 0) return;
  const found = await ctx.db.space.findMany({ where: { id: { in: [...spaces] }, organizationId: space.organizationId, deletedAt: null }, select: { id: true } });
  const missing = [...spaces].filter((id) => !found.some((row) => row.id === id));
  if (missing.length) throw new InvalidInputError(`changes: a reusable content of space ${missing[0]} is included, which is not a space of this organization`);
}

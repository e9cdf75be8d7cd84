/**
 * A space's content: the revision a request reads (the space's current one,
 * or one of its change requests'), and moving a space to new content.
 */
import { writeRevision, type WriteRevisionInput } from '../content/revision-store.ts';
import type { RevisionView } from '../content/revision-view.ts';
import type { RevisionSnapshot } from '../content/snapshot.ts';
import type { Context } from '../context.ts';
import type { Tx } from '../db/client.ts';
import { type Provider } from '../db/provider/config.ts';
import { authorize } from '../auth/policies.ts';
import { ConflictError, InvalidInputError, NotFoundError } from '../errors/index.ts';
import { reindexSpace } from '../search/search-index.ts';
import { findChangeRequest } from './change-request.ts';
import { loadSpace, type SpaceRow } from './space.ts';

export interface ContentSource {
  space: SpaceRow;
  revision: RevisionView;
  changeRequest: { id: string; number: number } | null;
}

/**
 * The content a request reads: the space's current revision, the change request's, or the
 * revision `read.revisionId` names (any revision of the space: of its history, an import's, or a
 * change request's draft, which only those who may read change requests read).
 */
export async function loadContentSource(
  ctx: Context,
  spaceId: string,
  changeRequestId: string | null | undefined,
  read: { metadata?: boolean | null; revisionId?: string | null } = {},
): Promise<ContentSource> {
  if (changeRequestId && read.revisionId) throw new InvalidInputError('revisionId: a revision is read by its id or through a change request, not both');
  const space = await loadSpace(ctx, spaceId, changeRequestId ? 'change-request:read' : 'space:read');
  const changeRequest = changeRequestId ? await findChangeRequest(ctx, space.id, changeRequestId) : null;
  const revisionId = read.revisionId ?? (changeRequest ? changeRequest.revisionId : space.revisionId);
  const row = await ctx.loaders.revisionById.load(revisionId);
  // Another space's revision is not found through this one.
  if (!row || row.spaceId !== space.id) throw new NotFoundError('Revision', revisionId);
  // A change request's own content (not the merge it became in the space).
  if (read.revisionId && row.changeRequestId !== null && row.type !== 'merge') authorize(await ctx.access.space(space), 'change-request:read', { type: 'Space', id: space.id });
  return {
    space,
    revision: { ...row, organizationId: space.organizationId, ...(read.metadata === false && { metadata: false }) },
    changeRequest: changeRequest ? { id: changeRequest.id, number: changeRequest.number } : null,
  };
}

/** A revision of a space, read as a RevisionView (batched: one statement for all those of a request). */
export async function revisionView(ctx: Context, revisionId: string, space: { id: string; organizationId: string }): Promise<RevisionView | null> {
  const row = await ctx.loaders.revisionById.load(revisionId);
  return row && row.spaceId === space.id ? { ...row, organizationId: space.organizationId } : null;
}

/**
 * Moving a space to new content: writes the revision, points the space at it
 * only if nobody else moved it meanwhile (compare-and-set on `revisionId`),
 * and brings the search index up to date, all in the caller's transaction.
 */
export interface CommitSpaceRevisionInput extends Omit<WriteRevisionInput, 'spaceId' | 'parentId'> {
  spaceId: string;
  /** The revision the space must still be at; the new one's parent. */
  expectedRevisionId: string;
  /** Its content (pages at least), for the search index to see what changed. */
  previous: RevisionSnapshot;
}

export async function commitSpaceRevision(tx: Tx, provider: Provider, input: CommitSpaceRevisionInput): Promise<string> {
  const revisionId = await writeRevision(tx, { ...input, parentId: input.expectedRevisionId });
  const moved = await tx.space.updateMany({
    where: { id: input.spaceId, revisionId: input.expectedRevisionId },
    data: { revisionId, updatedAt: new Date() },
  });
  if (moved.count !== 1) throw new ConflictError('The space content changed while this change was applied; try again');
  await reindexSpace(tx, provider, { spaceId: input.spaceId, previous: input.previous, current: input.snapshot });
  return revisionId;
}

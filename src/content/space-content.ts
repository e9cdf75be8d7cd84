/**
 * Moving a space to new content: writes the revision, points the space at it
 * only if nobody else moved it meanwhile (compare-and-set on `revisionId`),
 * and brings the search index up to date, all in the caller's transaction.
 */
import { ConflictError } from '../errors/index.ts';
import type { Tx } from '../db/client.ts';
import type { Provider } from '../db/provider.ts';
import { reindexSpace } from '../search/search-index.ts';
import { writeRevision, type WriteRevisionInput } from './revision-store.ts';
import type { RevisionSnapshot } from './snapshot.ts';

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

/**
 * Merging a change request into its space, and bringing it up to date with
 * the space ("update"): both are the three-way merge of src/content/merge.ts
 * between the change request's content (ours), the space's current content
 * (theirs) and their common ancestor (the revision the change request was
 * created from or last updated with). Conflicts write nothing.
 */
import { mergeRevisions } from '../content/merge.ts';
import { loadDocuments, loadSnapshot } from '../content/revision-store.ts';
import type { Context } from '../context.ts';
import type { Db, Prisma, Tx } from '../db/client.ts';
import type { RevisionChunkCache } from '../db/revision-chunks.ts';
import { ConflictError, PreconditionFailedError } from '../errors/index.ts';
import { currentReviewsIn } from './change-request-review.ts';
import { commitChangeRequestRevision, lockChangeRequest, lockSpaceRevision } from './change-request.ts';
import { storedOrganizationMergeRules, storedSpaceMergeRules } from './merge-rules.ts';
import { revalidateRenderer } from './renderer-revalidation.ts';
import { commitSpaceRevision } from './space-content.ts';

type ChangeRequestRow = NonNullable<Awaited<ReturnType<Context['db']['changeRequest']['findUnique']>>>;
type SpaceRow = { id: string; organizationId: string; revisionId: string; mergeRules: Prisma.JsonValue };

export interface MergeOutcome {
  result: 'merge' | 'update' | 'conflicts';
  revision: string;
  conflicts: { kind: string; id: string; reason: string; fields?: string[] }[];
}

function assertOpen(changeRequest: ChangeRequestRow) {
  if (changeRequest.status === 'merged') throw new ConflictError('The change request is already merged');
  if (changeRequest.status === 'archived') throw new ConflictError('The change request is archived; reopen it first');
}

interface Rule {
  rule: string;
  users?: string[];
}

/** The merge rules in force for a space: its own, or its organization's when it inherits. */
async function effectiveRules(db: Db | Tx, space: SpaceRow): Promise<Rule[]> {
  let config = storedSpaceMergeRules(space.mergeRules);
  if (config.type === 'inherit') {
    const org = await db.organization.findUnique({ where: { id: space.organizationId }, select: { mergeRules: true } });
    config = org ? storedOrganizationMergeRules(org.mergeRules) : { type: 'none' };
  }
  return config.type === 'rules' ? (config.rules as Rule[]) : [];
}

/** What stops this merge, as sentences for the error; empty when it may go ahead. */
async function unmetRules(db: Db | Tx, space: SpaceRow, changeRequest: ChangeRequestRow, viewerId: string): Promise<string[]> {
  const rules = await effectiveRules(db, space);
  if (rules.length === 0) return [];
  if (rules.some((r) => r.rule === 'allow_bypass' && r.users?.includes(viewerId))) return [];
  // Only reviews that are not outdated count: each reviewer's latest, of the current content, and not requested again since.
  const current = await currentReviewsIn(db, changeRequest);
  const approvedBy = new Set(current.filter((r) => r.status === 'approved').map((r) => r.reviewerId));
  const unmet: string[] = [];
  for (const rule of rules) {
    switch (rule.rule) {
      case 'require_specific_reviewers': {
        const missing = (rule.users ?? []).filter((u) => !approvedBy.has(u));
        if (missing.length) unmet.push(`approval of ${missing.join(', ')} is required`);
        break;
      }
      case 'require_one_of_specific_reviewers':
        if (!(rule.users ?? []).some((u) => approvedBy.has(u))) unmet.push(`approval of one of ${(rule.users ?? []).join(', ')} is required`);
        break;
      case 'require_at_least_one_review':
        if (approvedBy.size === 0) unmet.push('at least one approving review is required');
        break;
      case 'require_all_reviews_approved':
        if (current.some((r) => r.status !== 'approved')) unmet.push('every review must approve');
        break;
      case 'require_up_to_date_change_request':
        if ((changeRequest.revisionMergedAncestorId ?? changeRequest.revisionInitialId) !== space.revisionId) unmet.push('the change request must be up to date with the space');
        break;
      case 'require_change_request_subject':
        if (!changeRequest.subject.trim()) unmet.push('the change request needs a subject');
        break;
      case 'require_change_request_description':
        if (!changeRequest.description) unmet.push('the change request needs a description');
        break;
      default:
        // agent reviews and custom expressions cannot be evaluated by this service: they block, visibly
        unmet.push(`merge rule ${rule.rule} cannot be satisfied through this API`);
    }
  }
  return unmet;
}

/**
 * The three contents of a merge: pages and files of each, and only the
 * documents the merge reads, those of pages whose document changed on both
 * sides (the rest are already stored and are not needed in memory).
 */
async function loadMergeInputs(tx: Tx, chunks: RevisionChunkCache, baseId: string, oursId: string, theirsId: string) {
  const [ours, theirs] = await Promise.all([loadSnapshot(tx, oursId, { documents: false, chunks }), loadSnapshot(tx, theirsId, { documents: false, chunks })]);
  // A fast-forward's base is the space's revision: read once.
  const base = baseId === theirsId ? theirs : await loadSnapshot(tx, baseId, { documents: false, chunks });
  const hashes = new Set<string>();
  for (const [id, o] of ours.pages) {
    const t = theirs.pages.get(id);
    const b = base.pages.get(id)?.documentHash ?? null;
    if (!t || o.documentHash === t.documentHash || o.documentHash === b || t.documentHash === b) continue;
    for (const hash of [b, o.documentHash, t.documentHash]) if (hash) hashes.add(hash);
  }
  const documents = await loadDocuments(tx, [...hashes]);
  for (const snapshot of new Set([base, ours, theirs])) for (const [hash, document] of documents) snapshot.documents.set(hash, document);
  return { base, ours, theirs };
}

export async function mergeChangeRequest(ctx: Context, space: SpaceRow, changeRequest: ChangeRequestRow): Promise<MergeOutcome> {
  assertOpen(changeRequest);
  const viewer = ctx.access.requireViewer();
  const outcome = await ctx.db.$transaction(async (tx) => {
    // Concurrent merges into the space (and edits of this change request) wait here for their
    // turn, then check the rules and merge with what the ones before them left.
    const spaceRevisionId = await lockSpaceRevision(tx, ctx.provider, space.id);
    const current = await lockChangeRequest(tx, ctx.provider, changeRequest.id);
    assertOpen(current);
    const unmet = await unmetRules(tx, { ...space, revisionId: spaceRevisionId }, current, viewer.userId);
    if (unmet.length) throw new PreconditionFailedError(`The merge rules of the space are not met: ${unmet.join('; ')}`);
    const baseId = current.revisionMergedAncestorId ?? current.revisionInitialId;
    const fastForward = spaceRevisionId === baseId;
    const { base, ours, theirs } = await loadMergeInputs(tx, ctx.revisionChunks, baseId, current.revisionId, spaceRevisionId);
    const merged = fastForward ? { snapshot: ours, conflicts: [] } : mergeRevisions({ base, ours, theirs });
    if (merged.conflicts.length) return { result: 'conflicts' as const, revision: current.revisionId, conflicts: merged.conflicts };
    const revision = await commitSpaceRevision(tx, ctx.provider, {
      spaceId: space.id,
      expectedRevisionId: spaceRevisionId,
      previous: theirs,
      snapshot: merged.snapshot,
      mergedParentId: current.revisionId,
      // A fast-forward writes the change request's content as it is: its chunk lists are the new revision's.
      unchangedFrom: fastForward ? ours.storedLists : undefined,
      type: 'merge',
      changeRequestId: current.id,
      createdById: viewer.userId,
    });
    const done = await tx.changeRequest.updateMany({
      where: { id: current.id, revisionId: current.revisionId, status: current.status },
      data: { status: 'merged', revisionMergedId: revision, mergedAt: new Date() },
    });
    if (done.count !== 1) throw new ConflictError('The change request changed while it was merged; try again');
    return { result: 'merge' as const, revision, conflicts: [] };
  });
  if (outcome.result === 'merge') await revalidateRenderer(ctx, { kind: 'space', space, changeRequest });
  return outcome;
}

export async function updateChangeRequestFromSpace(ctx: Context, space: SpaceRow, changeRequest: ChangeRequestRow): Promise<MergeOutcome> {
  assertOpen(changeRequest);
  const viewer = ctx.access.requireViewer();
  if ((changeRequest.revisionMergedAncestorId ?? changeRequest.revisionInitialId) === space.revisionId) {
    return { result: 'update', revision: changeRequest.revisionId, conflicts: [] };
  }
  return ctx.db.$transaction(async (tx) => {
    const spaceRevisionId = (await tx.space.findUniqueOrThrow({ where: { id: space.id }, select: { revisionId: true } })).revisionId;
    const current = await lockChangeRequest(tx, ctx.provider, changeRequest.id);
    assertOpen(current);
    const baseId = current.revisionMergedAncestorId ?? current.revisionInitialId;
    if (baseId === spaceRevisionId) return { result: 'update' as const, revision: current.revisionId, conflicts: [] };
    const { base, ours, theirs } = await loadMergeInputs(tx, ctx.revisionChunks, baseId, current.revisionId, spaceRevisionId);
    const merged = mergeRevisions({ base, ours, theirs });
    if (merged.conflicts.length) return { result: 'conflicts' as const, revision: current.revisionId, conflicts: merged.conflicts };
    const revision = await commitChangeRequestRevision(tx, {
      changeRequest: current,
      spaceId: space.id,
      mergedParentId: spaceRevisionId,
      type: 'update',
      createdById: viewer.userId,
      snapshot: merged.snapshot,
      data: { revisionMergedAncestorId: spaceRevisionId },
      conflict: 'The change request changed while it was updated; try again',
    });
    return { result: 'update' as const, revision, conflicts: [] };
  });
}

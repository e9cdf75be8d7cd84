/**
 * Reviews of a change request, the reviewers asked for one, and who contributed to it.
 *
 * A review is outdated ("superseded by a newer review request or submission", GitBook's words)
 * when the change request has a newer revision than the one reviewed (a commit, or an update from
 * the space, came after it), when its reviewer submitted a newer review, or when its reviewer was
 * requested again after it. Merge rules count only reviews that are not outdated.
 *
 * A review request stays pending until its reviewer answers: submitting a review removes the
 * reviewer's request (the review keeps who had requested it, `requestedBy`), so the requested
 * reviewers are exactly those who still owe a review, and requesting someone again after their
 * review makes it outdated (docs/decisions.md, "Reviews").
 */
import { memberSubject } from '../auth/access.ts';
import { authorize, can } from '../auth/policies.ts';
import type { Context } from '../context.ts';
import type { Db, Tx } from '../db/client.ts';
import type { ReviewStatus } from '../db/value-sets.ts';
import { ConflictError, InvalidInputError, NotFoundError } from '../errors/index.ts';
import { newId } from '../ids.ts';
import type { Contribution } from '../loaders.ts';
import { announceComment, prepareThread, type CommentBodyInput } from './comment.ts';
import { changeRequestFieldsData, lockChangeRequest, loadChangeRequest, type ChangeRequestFieldsInput } from './change-request.ts';
import { memberRolesOn } from './content-grant.ts';

export type ReviewRow = Awaited<ReturnType<Db['changeRequestReview']['findUniqueOrThrow']>>;
export type ReviewRequestRow = Awaited<ReturnType<Db['changeRequestReviewRequest']['findUniqueOrThrow']>>;
type ChangeRequestRow = Awaited<ReturnType<Db['changeRequest']['findUniqueOrThrow']>>;
type SpaceRow = { id: string; organizationId: string; parentId: string | null; defaultLevel: string | null; editMode: string };

/** At most this many users in one request for reviewers. */
export const MAX_REQUESTED_REVIEWERS = 50;

// ------------------------------------------------------------------ the outdated rule

/** A review as the outdated rule reads it. */
type JudgedReview = Pick<ReviewRow, 'id' | 'reviewerId' | 'revisionId' | 'createdAt'>;

/**
 * The ids of the outdated reviews among `reviews` (all the reviews of a change request whose
 * current revision is `revisionId`, with `pendingReviewerIds` the reviewers it has a pending
 * request for). Submitting a review removes its reviewer's request, so a pending request is
 * always newer than its reviewer's latest review.
 */
export function outdatedReviewIds(revisionId: string, reviews: readonly JudgedReview[], pendingReviewerIds: Iterable<string>): Set<string> {
  const latest = new Map<string, JudgedReview>();
  for (const review of reviews) {
    const seen = latest.get(review.reviewerId);
    if (!seen || review.createdAt > seen.createdAt || (review.createdAt.getTime() === seen.createdAt.getTime() && review.id > seen.id)) {
      latest.set(review.reviewerId, review);
    }
  }
  const pending = new Set(pendingReviewerIds);
  return new Set(
    reviews.filter((r) => latest.get(r.reviewerId) !== r || r.revisionId !== revisionId || pending.has(r.reviewerId)).map((r) => r.id),
  );
}

/** The reviews of a change request that count (not outdated), read in the caller's transaction: what merge rules decide on. */
export async function currentReviewsIn(db: Db | Tx, changeRequest: { id: string; revisionId: string }): Promise<ReviewRow[]> {
  const [reviews, requests] = await Promise.all([
    db.changeRequestReview.findMany({ where: { changeRequestId: changeRequest.id }, orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] }),
    db.changeRequestReviewRequest.findMany({ where: { changeRequestId: changeRequest.id }, select: { reviewerId: true } }),
  ]);
  const outdated = outdatedReviewIds(
    changeRequest.revisionId,
    reviews,
    requests.map((r) => r.reviewerId),
  );
  return reviews.filter((r) => !outdated.has(r.id));
}

/** What the reviews of a change request are judged by, for this request (batched: see Loaders.reviewingOf). */
async function reviewing(ctx: Context, changeRequestId: string) {
  const state = await ctx.loaders.reviewingOf.load(changeRequestId);
  const notes = ctx.loaders.notes<object, Set<string>>('outdated-reviews');
  let outdated = notes.get(state);
  if (!outdated) {
    outdated = state.changeRequest
      ? outdatedReviewIds(
          state.changeRequest.revisionId,
          state.reviews,
          state.requests.map((r) => r.reviewerId),
        )
      : new Set<string>();
    notes.set(state, outdated);
  }
  return { ...state, outdated };
}

/** Whether `review` is outdated (batched for every review of a response). */
export async function isReviewOutdated(ctx: Context, review: Pick<ReviewRow, 'id' | 'changeRequestId'>): Promise<boolean> {
  return (await reviewing(ctx, review.changeRequestId)).outdated.has(review.id);
}

/** The API URL of a review. */
export async function reviewLocation(ctx: Context, review: Pick<ReviewRow, 'id' | 'changeRequestId'>): Promise<string> {
  const { changeRequest } = await reviewing(ctx, review.changeRequestId);
  return ctx.urls.api(`/spaces/${changeRequest!.spaceId}/change-requests/${review.changeRequestId}/reviews/${review.id}`);
}

/** Reviews in list order (oldest first), as a key that sorts the same way. */
export const reviewKey = (review: Pick<ReviewRow, 'id' | 'createdAt'>) => `${review.createdAt.toISOString()}|${review.id}`;

/** The reviews of a change request, oldest first; `outdated` true or false keeps only those (batched for every change request of a response). */
export async function reviewsOf(ctx: Context, changeRequestId: string, filter: { outdated?: boolean | null } = {}): Promise<ReviewRow[]> {
  const { reviews, outdated } = await reviewing(ctx, changeRequestId);
  if (filter.outdated === undefined || filter.outdated === null) return reviews;
  return reviews.filter((r) => outdated.has(r.id) === filter.outdated);
}

/** The pending review requests of a change request, oldest first (batched for every change request of a response). */
export async function requestedReviewersOf(ctx: Context, changeRequestId: string): Promise<ReviewRequestRow[]> {
  return (await reviewing(ctx, changeRequestId)).requests;
}

/** Requested reviewers in list order (oldest request first), as a key that sorts the same way. */
export const reviewRequestKey = (request: Pick<ReviewRequestRow, 'reviewerId' | 'createdAt'>) => `${request.createdAt.toISOString()}|${request.reviewerId}`;

// ------------------------------------------------------------------ contributors

/**
 * The contributors of a change request: one entry per user and kind of contribution (`edit`:
 * content commits; `comment`: comment threads and replies posted in it), the latest first (then
 * edits before comments, then by user id). Batched for every change request of a response.
 */
export async function contributorsOf(ctx: Context, changeRequestId: string): Promise<Contribution[]> {
  const contributions = await ctx.loaders.contributionsTo.load(changeRequestId);
  return [...contributions].sort(
    (a, b) => b.updatedAt.getTime() - a.updatedAt.getTime() || a.actionType.localeCompare(b.actionType) || (a.userId < b.userId ? -1 : a.userId > b.userId ? 1 : 0),
  );
}

/** Contributors in list order (contributorsOf), as a key that sorts the same way. */
export const contributionKey = (c: Contribution) => `${String(8.64e15 - c.updatedAt.getTime()).padStart(16, '0')}|${c.actionType === 'edit' ? 0 : 1}|${c.userId}`;

// ------------------------------------------------------------------ loading and writing

/** A review of a change request the caller may read (with `query`, plugin-prisma's): 404 for a review of another change request, or none. */
export async function loadReview<Q extends object>(ctx: Context, spaceId: string, changeRequestId: string, reviewId: string, query?: Q) {
  const { space, changeRequest } = await loadChangeRequest(ctx, spaceId, changeRequestId, 'change-request:read');
  const review = await ctx.db.changeRequestReview.findUnique({ ...(query ?? {}), where: { id: reviewId } });
  if (!review || review.changeRequestId !== changeRequest.id) throw new NotFoundError('Review', reviewId);
  return { space, changeRequest, review };
}

/** Reviews and review requests change only while the change request is a draft or open. */
function assertReviewable(changeRequest: { status: string }, doing: string) {
  if (changeRequest.status === 'merged' || changeRequest.status === 'archived') {
    throw new ConflictError(`The change request is ${changeRequest.status}: ${doing}`);
  }
}

/** What a review says. */
export interface SubmitReviewInput {
  status: ReviewStatus;
  /** A comment thread submitted with the review (its body): posted in the change request, its target the review. */
  comment?: CommentBodyInput | null;
}

/**
 * Submits the caller's review of the change request at its current revision (the caller's role
 * must allow `change-request:review`, checked when the change request was loaded). The author
 * cannot review their own change request, nor can anyone review a merged or archived one (409).
 * In one transaction, with the change request's row locked: the review (with who had requested it)
 * is written and the reviewer's pending request removed.
 */
export async function submitReview(ctx: Context, changeRequest: ChangeRequestRow, input: SubmitReviewInput): Promise<ReviewRow> {
  const viewer = ctx.access.requireViewer();
  assertReviewable(changeRequest, 'it cannot be reviewed');
  if (viewer.userId === changeRequest.createdById) throw new ConflictError('The author of a change request cannot review it');
  // The thread's checks and Markdown conversion run before the transaction; its row is written in it, with the review.
  const thread = input.comment ? await prepareThread(ctx, { spaceId: changeRequest.spaceId, changeRequestId: changeRequest.id }, { body: input.comment }) : null;
  const { review, comment } = await ctx.db.$transaction(async (tx) => {
    const current = await lockChangeRequest(tx, ctx.provider, changeRequest.id);
    assertReviewable(current, 'it cannot be reviewed');
    const request = await tx.changeRequestReviewRequest.findUnique({
      where: { changeRequestId_reviewerId: { changeRequestId: current.id, reviewerId: viewer.userId } },
    });
    if (request) await tx.changeRequestReviewRequest.delete({ where: { changeRequestId_reviewerId: { changeRequestId: current.id, reviewerId: viewer.userId } } });
    const now = new Date();
    const review = await tx.changeRequestReview.create({
      data: {
        id: newId(),
        changeRequestId: current.id,
        reviewerId: viewer.userId,
        status: input.status,
        revisionId: current.revisionId,
        requestedById: request?.requestedById ?? null,
        createdAt: now,
        updatedAt: now,
      },
    });
    return { review, comment: thread ? await thread.write(tx, { reviewId: review.id }) : null };
  });
  if (thread && comment) announceComment(ctx, thread.place.space.organizationId, comment, 'posted');
  return review;
}

/** Whom to ask for a review, and what else changes with the request. */
export interface RequestReviewersInput extends ChangeRequestFieldsInput {
  users: readonly string[];
}

/**
 * Asks `users` to review the change request, all or nothing: each must be a member of the
 * organization whose role on the space lets them review (`change-request:review`, their
 * effective role as Access would compute it), and not the change request's author; otherwise a
 * 400 names every one refused and nothing is written. Asking someone already asked asks again
 * (requester, revision and time are renewed). `subject` and `description`, when given, update
 * the change request as its PATCH does (the caller must be allowed `change-request:update`).
 * Returns the requests made, in the order of `users`.
 */
export async function requestReviewers(ctx: Context, space: SpaceRow, changeRequest: ChangeRequestRow, input: RequestReviewersInput): Promise<ReviewRequestRow[]> {
  const viewer = ctx.access.requireViewer();
  assertReviewable(changeRequest, 'no review can be requested');
  const userIds = [...new Set(input.users)];
  if (userIds.length === 0) throw new InvalidInputError('users: must hold at least one user id');
  if (userIds.length > MAX_REQUESTED_REVIEWERS) throw new InvalidInputError(`users: at most ${MAX_REQUESTED_REVIEWERS} users at a time`);
  const fields = changeRequestFieldsData(input);
  if (Object.keys(fields).length) authorize(await ctx.access.space(space), 'change-request:update', { type: 'Change request', id: changeRequest.id });
  const problems = await reviewerProblems(ctx, space, changeRequest, userIds);
  if (problems.length) throw new InvalidInputError(`${problems.join('; ')}. Nothing was changed`);
  return ctx.db.$transaction(async (tx) => {
    const current = await lockChangeRequest(tx, ctx.provider, changeRequest.id);
    assertReviewable(current, 'no review can be requested');
    if (Object.keys(fields).length) await tx.changeRequest.update({ where: { id: current.id }, data: fields });
    const now = new Date();
    const requested: ReviewRequestRow[] = [];
    for (const reviewerId of userIds) {
      const data = { requestedById: viewer.userId, revisionId: current.revisionId, createdAt: now };
      requested.push(
        await tx.changeRequestReviewRequest.upsert({
          where: { changeRequestId_reviewerId: { changeRequestId: current.id, reviewerId } },
          create: { changeRequestId: current.id, reviewerId, ...data },
          update: data,
        }),
      );
    }
    return requested;
  });
}

/** Why each of `userIds` cannot be asked to review the change request (empty: all can). Statements: a fixed number for any number of users. */
async function reviewerProblems(ctx: Context, space: SpaceRow, changeRequest: ChangeRequestRow, userIds: readonly string[]): Promise<string[]> {
  const [users, members] = await Promise.all([
    ctx.db.user.findMany({ where: { id: { in: [...userIds] } }, select: { id: true } }),
    ctx.db.member.findMany({
      where: { organizationId: space.organizationId, userId: { in: [...userIds] } },
      select: { organizationId: true, userId: true, role: true, disabled: true },
    }),
  ]);
  const known = new Set(users.map((u) => u.id));
  const mayReview = new Map(
    await Promise.all(
      members.map(async (member) => {
        const [role] = await memberRolesOn(ctx, member, [space]);
        return [member.userId, can({ ...memberSubject(member), role }, 'change-request:review')] as const;
      }),
    ),
  );
  const problems: string[] = [];
  for (const userId of userIds) {
    const named = JSON.stringify(userId);
    if (userId === changeRequest.createdById) problems.push(`users: ${named} is the author of the change request and cannot review it`);
    else if (!known.has(userId)) problems.push(`users: no user with the id ${named}`);
    else if (!mayReview.has(userId)) problems.push(`users: ${named} is not a member of the organization`);
    else if (!mayReview.get(userId)) problems.push(`users: ${named} may not review change requests of this space`);
  }
  return problems;
}

/** Withdraws the request for `userId`'s review: true when there was one, false when they were not requested. */
export async function removeRequestedReviewer(ctx: Context, changeRequest: ChangeRequestRow, userId: string): Promise<boolean> {
  assertReviewable(changeRequest, 'its requested reviewers cannot change');
  const removed = await ctx.db.changeRequestReviewRequest.deleteMany({ where: { changeRequestId: changeRequest.id, reviewerId: userId } });
  return removed.count > 0;
}

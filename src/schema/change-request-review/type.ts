import { builder } from '../../builder.ts';
import type { Context } from '../../context.ts';
import { sliceList } from '../../db/pagination.ts';
import type { Contribution } from '../../loaders.ts';
import {
  contributionKey,
  contributorsOf,
  isReviewOutdated,
  requestedReviewersOf,
  reviewKey,
  reviewLocation,
  reviewRequestKey,
  reviewsOf,
} from '../../services/change-request-review.ts';
import { ChangeRequest } from '../change-request/type.ts';
import { Comment } from '../comment/type.ts';
import { listType, pageArgs } from '../shared/pagination.ts';
import { User } from '../user/type.ts';

/**
 * The lookups of a response's change requests that name users (reviews, review requests,
 * contributions): the users are read once all of them answered, in one statement.
 */
const namingUsers = (ctx: Context) => ctx.loaders.gathering('change request users');

/** A user a review, request or contribution names (batched for a response; users are never missing: their rows cascade). */
async function userOf(ctx: Context, id: string) {
  await namingUsers(ctx).settled();
  const user = await ctx.loaders.userById.load(id);
  if (!user) throw new Error(`User ${id} of a review is missing`);
  return user;
}

const ReviewUrls = builder.objectRef<{ location: string }>('ChangeRequestReviewUrls').implement({
  fields: (t) => ({ location: t.exposeString('location', { description: 'URL of the review in the API' }) }),
});

export const ChangeRequestReview = builder.prismaObject('ChangeRequestReview', {
  description: 'A review of a change request at one of its revisions',
  fields: (t) => ({
    object: t.string({ resolve: () => 'change-request-review' }),
    id: t.exposeID('id'),
    status: t.exposeString('status', { description: 'approved | changes-requested' }),
    reviewer: t.field({ type: User, resolve: (review, _a, ctx) => userOf(ctx, review.reviewerId) }),
    requestedBy: t.field({
      type: User,
      nullable: true,
      description: 'Who had requested this review when it was submitted (null: it was given without a request)',
      resolve: (review, _a, ctx) => (review.requestedById ? userOf(ctx, review.requestedById) : null),
    }),
    revision: t.exposeString('revisionId', { description: 'The change request revision that was reviewed' }),
    outdated: t.boolean({
      description:
        'Superseded by a newer review request or submission: the change request has a newer revision than the one reviewed, ' +
        'the reviewer submitted a newer review, or the reviewer was requested again after it. Merge rules count only reviews that are not outdated',
      resolve: (review, _a, ctx) => isReviewOutdated(ctx, review),
    }),
    comment: t.field({
      type: Comment,
      nullable: true,
      description: 'The comment thread submitted with the review, if any (null too once deleted)',
      resolve: (review, _a, ctx) => ctx.loaders.reviewThreadOf.load(review.id),
    }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
    urls: t.field({ type: ReviewUrls, resolve: async (review, _a, ctx) => ({ location: await reviewLocation(ctx, review) }) }),
  }),
});

export const ChangeRequestRequestedReviewer = builder.prismaObject('ChangeRequestReviewRequest', {
  name: 'ChangeRequestRequestedReviewer',
  description: 'A user asked to review a change request who has not answered yet (submitting a review answers the request)',
  fields: (t) => ({
    object: t.string({ resolve: () => 'change-request-requested-reviewer' }),
    kind: t.string({ description: 'user: reviews are requested of users (GitBook also knows team requests)', resolve: () => 'user' }),
    user: t.field({ type: User, description: 'The user asked to review', resolve: (request, _a, ctx) => userOf(ctx, request.reviewerId) }),
    requestedBy: t.field({ type: User, description: 'The user who made the request', resolve: (request, _a, ctx) => userOf(ctx, request.requestedById) }),
    revision: t.exposeString('revisionId', { description: 'The revision of the change request when the request was made' }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
  }),
});

export const ChangeRequestUserContributor = builder.objectRef<Contribution>('ChangeRequestUserContributor').implement({
  description: 'A user who contributed to a change request, once per kind of contribution',
  fields: (t) => ({
    actionType: t.exposeString('actionType', { description: 'edit: committed content to it; comment: posted comments or replies in it' }),
    count: t.exposeInt('count', { description: 'How many commits (edit), or comments and replies (comment)' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime', description: 'When the latest of them was made' }),
    user: t.field({ type: User, resolve: (c, _a, ctx) => userOf(ctx, c.userId) }),
  }),
});

export const ChangeRequestReviewList = listType('ChangeRequestReview', ChangeRequestReview);
export const ChangeRequestRequestedReviewerList = listType('ChangeRequestRequestedReviewer', ChangeRequestRequestedReviewer);
export const ChangeRequestUserContributorList = listType('ChangeRequestUserContributor', ChangeRequestUserContributor);

// In a list of change requests, each of these lists costs no statement of its own: they are
// loaded for every change request of the response together (Loaders.reviewingOf, contributionsTo),
// and the users they name once both answered (namingUsers).
builder.prismaObjectFields(ChangeRequest, (t) => ({
  reviews: t.field({
    type: ChangeRequestReviewList,
    description: 'Reviews of the change request, oldest first',
    args: { outdated: t.arg.boolean({ description: 'true: only outdated reviews; false: only those that count' }), ...pageArgs },
    resolve: async (cr, args, ctx) => sliceList(await namingUsers(ctx).join(reviewsOf(ctx, cr.id, { outdated: args.outdated })), args.page, args.limit, reviewKey),
  }),
  requestedReviewers: t.field({
    type: ChangeRequestRequestedReviewerList,
    description: 'Users asked to review the change request who have not answered yet, oldest request first',
    args: pageArgs,
    resolve: async (cr, args, ctx) => sliceList(await namingUsers(ctx).join(requestedReviewersOf(ctx, cr.id)), args.page, args.limit, reviewRequestKey),
  }),
  contributors: t.field({
    type: ChangeRequestUserContributorList,
    description: 'Who edited the change request or commented in it, the latest contribution first',
    args: pageArgs,
    resolve: async (cr, args, ctx) => sliceList(await namingUsers(ctx).join(contributorsOf(ctx, cr.id)), args.page, args.limit, contributionKey),
  }),
}));

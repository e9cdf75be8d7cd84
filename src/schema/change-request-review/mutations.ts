import { z } from 'zod';
import { builder } from '../../builder.ts';
import { REVIEW_STATUSES, type ReviewStatus } from '../../db/value-sets.ts';
import { removeRequestedReviewer, requestReviewers, submitReview, type ReviewRequestRow } from '../../services/change-request-review.ts';
import { changeRequestSubject, loadChangeRequest } from '../../services/change-request.ts';
import { CommentBodyInput } from '../comment/type.ts';
import { ChangeRequestRequestedReviewer, ChangeRequestReview } from './type.ts';

const SubmitChangeRequestReviewInput = builder.inputType('SubmitChangeRequestReviewInput', {
  fields: (t) => ({
    // REVIEW_STATUSES are strings in GraphQL: enum values cannot hold '-'.
    status: t.string({ required: true, description: 'approved | changes-requested', validate: z.enum(REVIEW_STATUSES) }),
    comment: t.field({ type: CommentBodyInput, description: 'A comment thread submitted with the review (in the change request; its target is the review)' }),
  }),
});

const RequestReviewersInput = builder.inputType('RequestReviewersInput', {
  fields: (t) => ({
    users: t.stringList({ required: true, description: 'Ids of the users asked to review (members who may review the change request)' }),
    subject: t.string({ description: 'Also sets the subject of the change request', validate: changeRequestSubject }),
    description: t.field({ type: 'JSON', description: 'Also sets the description of the change request (a Document, or null to remove it)' }),
  }),
});

const RequestReviewersResult = builder.objectRef<{ users: ReviewRequestRow[] }>('RequestReviewersResult').implement({
  fields: (t) => ({
    users: t.field({ type: [ChangeRequestRequestedReviewer], description: 'The requests made, in the order of the users asked', resolve: (r) => r.users }),
  }),
});

builder.mutationFields((t) => ({
  submitChangeRequestReview: t.field({
    type: ChangeRequestReview,
    description: 'Reviews the change request at its current revision; answers the reviewer\'s pending request',
    authScopes: { authenticated: true },
    args: {
      spaceId: t.arg.id({ required: true }),
      changeRequestId: t.arg.string({ required: true }),
      input: t.arg({ type: SubmitChangeRequestReviewInput, required: true }),
    },
    resolve: async (_root, args, ctx) => {
      const { changeRequest } = await loadChangeRequest(ctx, String(args.spaceId), args.changeRequestId, 'change-request:review');
      return submitReview(ctx, changeRequest, { status: args.input.status as ReviewStatus, comment: args.input.comment });
    },
  }),
  requestReviewers: t.field({
    type: RequestReviewersResult,
    description: 'Asks members who may review the change request to review it (all or nothing); asking again renews the request',
    authScopes: { authenticated: true },
    args: {
      spaceId: t.arg.id({ required: true }),
      changeRequestId: t.arg.string({ required: true }),
      input: t.arg({ type: RequestReviewersInput, required: true }),
    },
    resolve: async (_root, args, ctx) => {
      const { space, changeRequest } = await loadChangeRequest(ctx, String(args.spaceId), args.changeRequestId, 'change-request:request-review');
      return { users: await requestReviewers(ctx, space, changeRequest, args.input) };
    },
  }),
  removeRequestedReviewer: t.boolean({
    description: 'Withdraws the request for a user\'s review: true when it was withdrawn, false when they were not requested',
    authScopes: { authenticated: true },
    args: { spaceId: t.arg.id({ required: true }), changeRequestId: t.arg.string({ required: true }), userId: t.arg.id({ required: true }) },
    resolve: async (_root, args, ctx) => {
      const { changeRequest } = await loadChangeRequest(ctx, String(args.spaceId), args.changeRequestId, 'change-request:request-review');
      return removeRequestedReviewer(ctx, changeRequest, String(args.userId));
    },
  }),
}));

import { builder } from '../../builder.ts';
import { loadReview } from '../../services/change-request-review.ts';
import { ChangeRequestReview } from './type.ts';

builder.queryField('changeRequestReview', (t) =>
  t.prismaField({
    type: ChangeRequestReview,
    description: 'A review of a change request',
    authScopes: { authenticated: true },
    args: {
      spaceId: t.arg.id({ required: true }),
      changeRequestId: t.arg.string({ required: true, description: 'Id or number' }),
      reviewId: t.arg.id({ required: true }),
    },
    resolve: async (query, _root, args, ctx) => (await loadReview(ctx, String(args.spaceId), args.changeRequestId, String(args.reviewId), query)).review,
  }),
);

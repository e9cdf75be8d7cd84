/**
 * `commentEvents`: a space's discussions live (src/services/comment-feed.ts). Authorized on
 * subscribe (the caller may read the space's comments, or the change request's) and per event (the
 * feed re-reads the caller's standing). Each event is answered with the loaders and access the feed
 * made for it, so what a subscriber reads is as of the event, not as of the subscription's start.
 */
import { builder } from '../../builder.ts';
import { COMMENT_EVENT_TYPES, type CommentDelivery, type CommentEvent } from '../../services/comment-feed.ts';
import { loadChangeRequest } from '../../services/change-request.ts';
import { loadSpace } from '../../services/space.ts';
import { User } from '../user/type.ts';
import { Comment, CommentReply } from './type.ts';

export const CommentEventType = builder.enumType('CommentEventType', {
  description: 'What happened to a discussion',
  values: COMMENT_EVENT_TYPES,
});

export const CommentEventRef = builder.objectRef<CommentEvent>('CommentEvent').implement({
  description: 'Something that happened to a comment or reply of a space or change request',
  fields: (t) => ({
    type: t.field({ type: CommentEventType, resolve: (event) => event.type }),
    space: t.exposeID('spaceId', { description: 'The space of the discussion' }),
    changeRequest: t.exposeID('changeRequestId', { nullable: true, description: 'The change request the discussion is in; null: on the space itself' }),
    commentId: t.exposeID('commentId', { description: 'The thread' }),
    replyId: t.exposeID('replyId', { nullable: true, description: 'The reply the event is about; null: the thread itself' }),
    comment: t.field({
      type: Comment,
      nullable: true,
      description: 'The thread as it is when the event is delivered (null once deleted)',
      resolve: (event, _args, ctx) => ctx.loaders.commentById.load(event.commentId),
    }),
    reply: t.field({
      type: CommentReply,
      nullable: true,
      description: 'The reply the event is about, as it is when the event is delivered (null for a thread event, or once deleted)',
      resolve: (event, _args, ctx) => (event.replyId ? ctx.loaders.commentById.load(event.replyId) : null),
    }),
    actor: t.field({
      type: User,
      nullable: true,
      description: 'Who did it (null once their account is gone)',
      resolve: (event, _args, ctx) => ctx.loaders.userById.load(event.actorId),
    }),
    at: t.field({ type: 'DateTime', resolve: (event) => new Date(event.at) }),
  }),
});

builder.subscriptionField('commentEvents', (t) =>
  t.field({
    type: CommentEventRef,
    description:
      "Every discussion event of a space from now on (its change requests' included), or with `changeRequestId` those of one change request; delivered while the caller may read them",
    authScopes: { authenticated: true },
    args: {
      spaceId: t.arg.id({ required: true }),
      changeRequestId: t.arg.string({ required: false, description: 'Id or number of a change request of the space' }),
    },
    subscribe: async (_root, args, ctx) => {
      const spaceId = String(args.spaceId);
      const { space, changeRequest } = args.changeRequestId
        ? await loadChangeRequest(ctx, spaceId, args.changeRequestId, 'comment:read')
        : { space: await loadSpace(ctx, spaceId, 'comment:read'), changeRequest: null };
      return ctx.commentFeed.follow(ctx.access.requireViewer(), { spaceId: space.id, changeRequestId: changeRequest?.id ?? null });
    },
    resolve: (delivery: CommentDelivery, _args, ctx) => {
      // The event's own reads: fresh, shared with the event's other subscribers, and as the caller stands now.
      ctx.loaders = delivery.loaders;
      ctx.access = delivery.access;
      return delivery.event;
    },
  }),
);

import type { GraphQLResolveInfo } from 'graphql';
import { authorize } from '../../auth/policies.ts';
import { builder } from '../../builder.ts';
import type { Context } from '../../context.ts';
import { DEFAULT_PAGE_SIZE, paginate, pageOfRows, type SortKey } from '../../db/pagination.ts';
import {
  COMMENT_STATUS_FILTERS,
  firstRepliesOf,
  loadReply,
  loadThread,
  placeWhere,
  readablePlace,
  REPLY_ORDER,
  threadsWhere,
  type CommentRow,
  type LoadedPlace,
} from '../../services/comment.ts';
import { ChangeRequest } from '../change-request/type.ts';
import { MemberList } from '../member/queries.ts';
import { itemsQuery, listType, pageArgs } from '../shared/pagination.ts';
import { SortDirection } from '../shared/enums.ts';
import { Space } from '../space/type.ts';
import { Comment, CommentReply } from './type.ts';

export const CommentList = listType('Comment', Comment);
export const CommentReplyList = listType('CommentReply', CommentReply);

const CommentStatusFilter = builder.enumType('CommentStatusFilter', {
  description: 'Which threads a list holds: all, open (not resolved) or resolved',
  values: COMMENT_STATUS_FILTERS,
});

const threadArgs = builder.args((t) => ({
  ...pageArgs,
  order: t.field({ type: SortDirection, description: 'By the time they were posted; default desc (newest first)' }),
  status: t.field({ type: CommentStatusFilter, description: 'Default all' }),
  targetPage: t.string({ description: 'Only the threads on this page' }),
  authors: t.stringList({ description: 'Only the threads these users (ids) started' }),
}));

type ThreadArgs = {
  page?: string | null;
  limit?: number | null;
  order?: 'asc' | 'desc' | null;
  status?: (typeof COMMENT_STATUS_FILTERS)[number] | null;
  targetPage?: string | null;
  authors?: string[] | null;
};

/** A page of a place's threads. */
function threadList(ctx: Context, place: LoadedPlace, args: ThreadArgs) {
  const direction = args.order ?? 'desc';
  const orderBy: readonly SortKey[] = [
    ['postedAt', direction],
    ['id', direction],
  ];
  return paginate<CommentRow>({
    page: args.page,
    limit: args.limit,
    orderBy,
    where: threadsWhere(place, args),
    findMany: (a) => ctx.db.comment.findMany(a),
    count: (a) => ctx.db.comment.count(a),
  });
}

/** Commenters in the order they joined the organization. */
const COMMENTER_ORDER: readonly SortKey[] = [
  ['joinedAt', 'asc'],
  ['id', 'asc'],
];

/** A page of the members who posted a thread or a reply in a place. */
function commenterList(ctx: Context, place: LoadedPlace, args: { page?: string | null; limit?: number | null }, info: GraphQLResolveInfo) {
  const query = itemsQuery(ctx, info, COMMENTER_ORDER);
  return paginate({
    page: args.page,
    limit: args.limit,
    orderBy: COMMENTER_ORDER,
    // Members of the space's organization (guests included); users who left it are not listed.
    where: { organizationId: place.space.organizationId, user: { comments: { some: placeWhere(place) } } },
    findMany: (a) => ctx.db.member.findMany({ ...query, ...a }),
    count: (a) => ctx.db.member.count(a),
  });
}

const commenterArgs = builder.args(() => ({ ...pageArgs }));

builder.prismaObjectFields(Space, (t) => ({
  commentList: t.field({
    type: CommentList,
    description: "Comment threads on the space's own content (not those of its change requests), newest first unless `order` says asc",
    args: threadArgs,
    resolve: async (space, args, ctx) => threadList(ctx, await readablePlace(ctx, space.id, null), args),
  }),
  commenters: t.field({
    type: MemberList,
    description: "Members of the organization who posted a comment or a reply on the space's own content, in the order they joined",
    args: commenterArgs,
    resolve: async (space, args, ctx, info) => commenterList(ctx, await readablePlace(ctx, space.id, null), args, info),
  }),
}));

builder.prismaObjectFields(ChangeRequest, (t) => ({
  commentList: t.field({
    type: CommentList,
    description: 'Comment threads of the change request (they stay with it once merged), newest first unless `order` says asc',
    args: threadArgs,
    resolve: async (changeRequest, args, ctx) => threadList(ctx, await readablePlace(ctx, changeRequest.spaceId, changeRequest), args),
  }),
  commenters: t.field({
    type: MemberList,
    description: 'Members of the organization who posted a comment or a reply in the change request, in the order they joined',
    args: commenterArgs,
    resolve: async (changeRequest, args, ctx, info) => commenterList(ctx, await readablePlace(ctx, changeRequest.spaceId, changeRequest), args, info),
  }),
}));

builder.objectFields(Comment, (t) => ({
  replyList: t.field({
    type: CommentReplyList,
    description: 'The replies, oldest first',
    args: { ...pageArgs },
    resolve: async (thread, args, ctx) => {
      const subject = await ctx.loaders.spaceById.load(thread.spaceId);
      if (subject) authorize(await ctx.access.space(subject), 'comment:read', { type: 'Comment', id: thread.id });
      if (args.page) {
        return paginate<CommentRow>({
          page: args.page,
          limit: args.limit,
          orderBy: REPLY_ORDER,
          where: { parentId: thread.id },
          findMany: (a) => ctx.db.comment.findMany(a),
          count: (a) => ctx.db.comment.count(a),
        });
      }
      // A first page: batched with those of every other thread of the response (two statements for all).
      const limit = args.limit ?? DEFAULT_PAGE_SIZE;
      const rows = await ctx.loaders.batch(`comment:replies ${limit}`, (threadIds: readonly string[]) => firstRepliesOf(ctx, threadIds, limit)).load(thread.id);
      return { ...pageOfRows(rows, limit, REPLY_ORDER), count: async () => (await ctx.loaders.commentReplyStats.load(thread.id)).count };
    },
  }),
}));

const placeArgs = builder.args((t) => ({
  spaceId: t.id({ required: true }),
  changeRequestId: t.string({ description: 'A change request of the space (id or number): its comments; absent: the space’s own' }),
}));

builder.queryFields((t) => ({
  comment: t.field({
    type: Comment,
    description: 'A comment thread of a space (or of one of its change requests)',
    authScopes: { authenticated: true },
    args: { ...placeArgs, commentId: t.arg.id({ required: true }) },
    resolve: (_root, args, ctx) => loadThread(ctx, { spaceId: String(args.spaceId), changeRequestId: args.changeRequestId }, String(args.commentId)),
  }),
  commentReply: t.field({
    type: CommentReply,
    description: 'A reply in a comment thread of a space (or of one of its change requests)',
    authScopes: { authenticated: true },
    args: { ...placeArgs, commentId: t.arg.id({ required: true }), commentReplyId: t.arg.id({ required: true }) },
    resolve: (_root, args, ctx) =>
      loadReply(ctx, { spaceId: String(args.spaceId), changeRequestId: args.changeRequestId }, String(args.commentId), String(args.commentReplyId)),
  }),
}));

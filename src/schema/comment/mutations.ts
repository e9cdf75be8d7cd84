import { z } from 'zod';
import { builder } from '../../builder.ts';
import { deleteComment, MAX_REACTIONS_PER_UPDATE, postReply, postThread, updateComment } from '../../services/comment.ts';
import { Comment, CommentBodyInput, CommentReply } from './type.ts';

const CommentTableCellInput = builder.inputType('CommentTableCellInput', {
  description: 'A cell of a table block: its record (row) id and its definition (column) id',
  fields: (t) => ({
    record: t.string({ required: true, validate: z.string().min(1, 'must not be empty') }),
    definition: t.string({ required: true, validate: z.string().min(1, 'must not be empty') }),
  }),
});

const reactions = z.array(z.string()).max(MAX_REACTIONS_PER_UPDATE, `at most ${MAX_REACTIONS_PER_UPDATE} emojis`);

const PostCommentInput = builder.inputType('PostCommentInput', {
  fields: (t) => ({
    body: t.field({ type: CommentBodyInput, required: true }),
    page: t.string({ description: 'The page the comment is about (in the current content of the space or change request)' }),
    node: t.string({ description: "A node of the page's document, by its key (needs `page`)" }),
    tableCell: t.field({ type: CommentTableCellInput, description: "A cell of a table of the page's document (needs `page`; in the table `node` when given)" }),
  }),
});

const UpdateCommentInput = builder.inputType('UpdateCommentInput', {
  fields: (t) => ({
    resolved: t.boolean({ description: 'true resolves the thread, false reopens it' }),
    body: t.field({ type: CommentBodyInput, description: 'A new body (its author only)' }),
    addedReactions: t.stringList({ description: 'Emojis to react with (one reaction per user and emoji: adding one again changes nothing)', validate: reactions }),
    removedReactions: t.stringList({ description: "Emojis to take the caller's reaction back from", validate: reactions }),
  }),
});

const PostCommentReplyInput = builder.inputType('PostCommentReplyInput', {
  fields: (t) => ({ body: t.field({ type: CommentBodyInput, required: true }) }),
});

const UpdateCommentReplyInput = builder.inputType('UpdateCommentReplyInput', {
  description: 'A reply has no resolution: resolve the comment that starts its thread',
  fields: (t) => ({
    body: t.field({ type: CommentBodyInput, description: 'A new body (its author only)' }),
    addedReactions: t.stringList({ description: 'Emojis to react with (one reaction per user and emoji: adding one again changes nothing)', validate: reactions }),
    removedReactions: t.stringList({ description: "Emojis to take the caller's reaction back from", validate: reactions }),
  }),
});

const placeArgs = builder.args((t) => ({
  spaceId: t.id({ required: true }),
  changeRequestId: t.string({ description: 'A change request of the space (id or number); absent: the space’s own comments' }),
}));

const placeOf = (args: { spaceId: string | number; changeRequestId?: string | null }) => ({ spaceId: String(args.spaceId), changeRequestId: args.changeRequestId });

builder.mutationFields((t) => ({
  postComment: t.field({
    type: Comment,
    description: 'Start a comment thread on a space or in a change request (comment role), optionally on a page, a node of its document or a table cell',
    authScopes: { authenticated: true },
    args: { ...placeArgs, input: t.arg({ type: PostCommentInput, required: true }) },
    resolve: (_root, args, ctx) => postThread(ctx, placeOf(args), args.input),
  }),
  updateComment: t.field({
    type: Comment,
    description: "Change a thread's body (its author), resolve or reopen it, react to it (comment role)",
    authScopes: { authenticated: true },
    args: { ...placeArgs, commentId: t.arg.id({ required: true }), input: t.arg({ type: UpdateCommentInput, required: true }) },
    resolve: async (_root, args, ctx) => (await updateComment(ctx, placeOf(args), { commentId: String(args.commentId) }, args.input)).comment,
  }),
  deleteComment: t.boolean({
    description: 'Delete a thread with its replies and reactions (its author, or an admin). False when there was no such thread.',
    authScopes: { authenticated: true },
    args: { ...placeArgs, commentId: t.arg.id({ required: true }) },
    resolve: async (_root, args, ctx) => (await deleteComment(ctx, placeOf(args), { commentId: String(args.commentId) })) !== null,
  }),
  postCommentReply: t.field({
    type: CommentReply,
    description: 'Reply in a comment thread (comment role)',
    authScopes: { authenticated: true },
    args: { ...placeArgs, commentId: t.arg.id({ required: true }), input: t.arg({ type: PostCommentReplyInput, required: true }) },
    resolve: (_root, args, ctx) => postReply(ctx, placeOf(args), String(args.commentId), args.input),
  }),
  updateCommentReply: t.field({
    type: CommentReply,
    description: "Change a reply's body (its author), or react to it (comment role)",
    authScopes: { authenticated: true },
    args: {
      ...placeArgs,
      commentId: t.arg.id({ required: true }),
      commentReplyId: t.arg.id({ required: true }),
      input: t.arg({ type: UpdateCommentReplyInput, required: true }),
    },
    resolve: async (_root, args, ctx) =>
      (await updateComment(ctx, placeOf(args), { commentId: String(args.commentId), replyId: String(args.commentReplyId) }, args.input)).comment,
  }),
  deleteCommentReply: t.boolean({
    description: 'Delete a reply with its reactions (its author, or an admin). False when there was no such reply.',
    authScopes: { authenticated: true },
    args: { ...placeArgs, commentId: t.arg.id({ required: true }), commentReplyId: t.arg.id({ required: true }) },
    resolve: async (_root, args, ctx) =>
      (await deleteComment(ctx, placeOf(args), { commentId: String(args.commentId), replyId: String(args.commentReplyId) })) !== null,
  }),
}));

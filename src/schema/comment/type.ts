/**
 * Comments in GraphQL: `Comment` (a thread) and `CommentReply`, over the stored row. Every field
 * reads the row or a request loader (authors, reactions, reply counts, the space for
 * permissions, the current content for whether a target is still there), so a comment re-read
 * by id (`Loaders.commentById`) answers the same as one of a list, and a list of any length
 * costs a fixed number of statements.
 */
import { builder } from '../../builder.ts';
import type { CommentReactionGroup, CommentReplier as CommentReplierValue } from '../../loaders.ts';
import { commentPath, commentPermissions, MAX_COMMENT_MARKDOWN_BYTES, targetPresence, type CommentRow } from '../../services/comment.ts';
import { DocumentFormat } from '../revision/type.ts';
import { User } from '../user/type.ts';

export const CommentStatus = builder.enumType('CommentStatus', {
  description: 'open: not resolved; resolved: someone resolved the thread',
  values: ['open', 'resolved'] as const,
});

const CommentBody = builder.objectRef<{ document?: unknown; markdown?: string }>('CommentBody').implement({
  description: 'The content of a comment or reply, as `format` asks: `document` (a JSON document) or `markdown`',
  fields: (t) => ({
    document: t.field({ type: 'JSON', nullable: true, resolve: (b) => b.document ?? null }),
    markdown: t.string({ nullable: true, resolve: (b) => b.markdown ?? null }),
  }),
});

const EmojiReactionUser = builder.objectRef<{ userId: string; reactedAt: Date }>('EmojiReactionUser').implement({
  fields: (t) => ({
    user: t.field({ type: User, resolve: async (r, _a, ctx) => (await ctx.loaders.userById.load(r.userId))! }),
    reactedAt: t.field({ type: 'DateTime', resolve: (r) => r.reactedAt }),
  }),
});

const EmojiReaction = builder.objectRef<CommentReactionGroup>('EmojiReaction').implement({
  description: 'The reactions with one emoji: how many, and who reacted when (oldest first)',
  fields: (t) => ({
    emoji: t.exposeString('emoji'),
    count: t.int({ resolve: (r) => r.users.length }),
    users: t.field({ type: [EmojiReactionUser], resolve: (r) => r.users }),
  }),
});

const CommentReplier = builder.objectRef<CommentReplierValue>('CommentReplier').implement({
  description: 'A user who replied in a thread: how many replies, and when the latest was posted',
  fields: (t) => ({
    updatedAt: t.field({ type: 'DateTime', resolve: (r) => r.updatedAt }),
    count: t.exposeInt('count'),
    user: t.field({ type: User, resolve: async (r, _a, ctx) => (await ctx.loaders.userById.load(r.userId))! }),
  }),
});

const CommentPermissions = builder
  .objectRef<{ view: boolean; edit: boolean; reply: boolean; delete: boolean }>('CommentPermissions')
  .implement({
    description: 'What the caller may do with the comment or reply (the policy table)',
    fields: (t) => ({
      view: t.exposeBoolean('view', { description: 'May read it (comment:read)' }),
      edit: t.exposeBoolean('edit', { description: 'May change its body: its author (comment:edit)' }),
      reply: t.exposeBoolean('reply', { description: 'May reply, react and resolve (comment:post)' }),
      delete: t.exposeBoolean('delete', { description: 'May delete it: its author or an admin (comment:delete)' }),
    }),
  });

const CommentUrls = builder.objectRef<{ location: string }>('CommentUrls').implement({
  fields: (t) => ({ location: t.exposeString('location', { description: 'The comment or reply in the API' }) }),
});

const CommentPageTarget = builder.objectRef<CommentRow>('CommentPageTarget').implement({
  fields: (t) => ({
    id: t.string({ resolve: (row) => row.pageId! }),
    removed: t.boolean({
      description: 'The page is no longer in the current content (of the space, or of the change request)',
      resolve: async (row, _a, ctx) => !(await targetPresence(ctx, row)).page,
    }),
  }),
});

const CommentNodeTarget = builder.objectRef<CommentRow>('CommentNodeTarget').implement({
  fields: (t) => ({
    id: t.string({ description: "The node's key in the page's document", resolve: (row) => row.nodeId! }),
    removed: t.boolean({
      description: "An edit or a merge removed the node from the page's current document: the comment stays on its page",
      resolve: async (row, _a, ctx) => !(await targetPresence(ctx, row)).node,
    }),
  }),
});

const CommentTableCellTarget = builder.objectRef<CommentRow>('CommentTableCellTarget').implement({
  fields: (t) => ({
    record: t.string({ resolve: (row) => row.tableRecord! }),
    definition: t.string({ resolve: (row) => row.tableDefinition! }),
    removed: t.boolean({
      description: "The cell is no longer in a table of the page's current document",
      resolve: async (row, _a, ctx) => !(await targetPresence(ctx, row)).tableCell,
    }),
  }),
});

const CommentTarget = builder.objectRef<CommentRow>('CommentTarget').implement({
  description: 'What a comment is about: its space (and change request, review), the revision it was posted on, a page, a node of its document, a table cell',
  fields: (t) => ({
    space: t.string({ resolve: (row) => row.spaceId }),
    revision: t.string({ description: 'The revision of the space or change request the comment was posted on', resolve: (row) => row.revisionId }),
    changeRequest: t.string({ nullable: true, resolve: (row) => row.changeRequestId }),
    review: t.string({ nullable: true, description: 'The review the comment is the body of', resolve: (row) => row.reviewId }),
    page: t.field({ type: CommentPageTarget, nullable: true, resolve: (row) => (row.pageId ? row : null) }),
    node: t.field({ type: CommentNodeTarget, nullable: true, resolve: (row) => (row.nodeId ? row : null) }),
    tableCell: t.field({ type: CommentTableCellTarget, nullable: true, resolve: (row) => (row.tableRecord && row.tableDefinition ? row : null) }),
  }),
});

export const Comment = builder.objectRef<CommentRow>('Comment');
export const CommentReply = builder.objectRef<CommentRow>('CommentReply');

/** What a thread and a reply both answer: who posted what, when, its reactions, location and permissions. */
function postFields(t: PothosSchemaTypes.ObjectFieldBuilder<typeof builder extends PothosSchemaTypes.SchemaBuilder<infer Types> ? Types : never, CommentRow>) {
  return {
    id: t.exposeID('id'),
    postedBy: t.field({ type: User, resolve: async (row, _a, ctx) => (await ctx.loaders.userById.load(row.authorId))! }),
    postedAt: t.field({ type: 'DateTime', resolve: (row) => row.postedAt }),
    editedAt: t.field({ type: 'DateTime', nullable: true, description: 'When its body was last changed', resolve: (row) => row.editedAt }),
    body: t.field({
      type: CommentBody,
      args: { format: t.arg({ type: DocumentFormat, defaultValue: 'document' }) },
      resolve: (row, { format }) => bodyOf(row, format),
    }),
    reactions: t.field({ type: [EmojiReaction], resolve: (row, _a, ctx) => ctx.loaders.commentReactions.load(row.id) }),
    urls: t.field({ type: CommentUrls, resolve: (row, _a, ctx) => ({ location: ctx.urls.api(commentPath(row)) }) }),
    permissions: t.field({ type: CommentPermissions, resolve: (row, _a, ctx) => commentPermissions(ctx, row) }),
  };
}

Comment.implement({
  description: 'A comment thread on a space or in a change request: its first comment, with its replies, reactions and resolution',
  fields: (t) => ({
    object: t.string({ resolve: () => 'comment' }),
    ...postFields(t),
    replies: t.int({ description: 'How many replies', resolve: async (row, _a, ctx) => (await ctx.loaders.commentReplyStats.load(row.id)).count }),
    repliers: t.field({
      type: [CommentReplier],
      description: 'Who replied, latest first',
      resolve: async (row, _a, ctx) => (await ctx.loaders.commentReplyStats.load(row.id)).repliers,
    }),
    target: t.field({ type: CommentTarget, resolve: (row) => row }),
    status: t.field({ type: CommentStatus, resolve: (row) => (row.resolvedAt ? 'resolved' : 'open') }),
    resolvedAt: t.field({ type: 'DateTime', nullable: true, resolve: (row) => row.resolvedAt }),
    resolvedBy: t.field({
      type: User,
      nullable: true,
      resolve: (row, _a, ctx) => (row.resolvedAt && row.resolvedById ? ctx.loaders.userById.load(row.resolvedById) : null),
    }),
  }),
});

CommentReply.implement({
  description: 'A reply in a comment thread',
  fields: (t) => ({
    object: t.string({ resolve: () => 'comment-reply' }),
    ...postFields(t),
    comment: t.id({ description: 'The comment that starts the thread', resolve: (row) => row.parentId! }),
  }),
});

/** The body as `format` asks: both are stored, nothing is converted on read. */
function bodyOf(row: CommentRow, format: 'document' | 'markdown' | null | undefined) {
  return format === 'markdown' ? { markdown: row.markdown } : { document: row.body };
}

/** A comment's or reply's body as callers send it (posting, editing, and a review's comment). */
export const CommentBodyInput = builder.inputType('CommentBodyInput', {
  description: `The content of a comment or reply: \`markdown\` or \`document\` (a JSON document), at most ${MAX_COMMENT_MARKDOWN_BYTES / 1024} KiB of Markdown. \`@\` and a member's e-mail address or user id mentions them.`,
  fields: (t) => ({
    markdown: t.string(),
    document: t.field({ type: 'JSON', description: 'A JSON document (GitBook\'s `{object: "document", nodes}`); `mention` inlines of users mention them' }),
  }),
});

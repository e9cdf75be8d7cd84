/**
 * Comments: threads and their replies, on a space's own content or in one of its change requests
 * (a `place`). Loading one the caller may act on, the bodies (Markdown or a JSON document, both
 * kept, with their mentions), targets (a page, a node of its document, a table cell), resolution
 * and reactions, and what a comment answers beyond its row (permissions, whether its target is
 * still there). Every write is one exported command returning what it wrote, so a caller can
 * publish an event after it; reviews post their thread through `postThread` (inside their own
 * transaction when they give `tx`).
 *
 * Who may do what is the policy table's (`comment:*`, on the caller's role on the space, with the
 * `author` fact): readers read, commenters post, reply, react and resolve, authors edit their
 * own, authors and admins delete (docs/decisions.md, "Comments").
 */
import { memberSubject } from '../auth/access.ts';
import { authorize, can, type Action, type Subject } from '../auth/policies.ts';
import { type JSONDocument } from '../content/document/model.ts';
import { linkMentions, mentionedUsers, mentionsAsText, mentionTokens, tokenKey, type MentionToken } from '../content/document/mentions.ts';
import { documentTargets, hasTableCell, type DocumentTargets } from '../content/document/node-keys.ts';
import { documentProblem } from '../content/document/validate.ts';
import { isEmoji } from '../content/emoji.ts';
import type { PageSnapshot } from '../content/snapshot.ts';
import type { Context } from '../context.ts';
import { Prisma, type Tx } from '../db/client.ts';
import { jsonInput } from '../db/json.ts';
import { InvalidInputError, LimitExceededError, NotFoundError } from '../errors/index.ts';
import { isUniqueViolation } from '../errors/prisma.ts';
import { newId } from '../ids.ts';
import type { CommentEventType } from './comment-feed.ts';
import { findChangeRequest } from './change-request.ts';
import { memberRolesOn } from './content-grant.ts';
import { loadSpace, type SpaceRow } from './space.ts';

/** The most Markdown a comment or reply holds (as sent, or as its document prints). */
export const MAX_COMMENT_MARKDOWN_BYTES = 64 * 1024;
/** The most emojis one update adds or removes (each list). */
export const MAX_REACTIONS_PER_UPDATE = 50;

/** A comment or reply as stored (threads have `parentId` null). */
export type CommentRow = NonNullable<Awaited<ReturnType<Context['loaders']['commentById']['load']>>>;
type ChangeRequestRow = Awaited<ReturnType<typeof findChangeRequest>>;

/** Where comments are: a space's own content, or one of its change requests (by id or number). */
export interface CommentPlace {
  spaceId: string;
  changeRequestId?: string | null;
}

/** A place as loaded for a caller allowed to act there. */
export interface LoadedPlace {
  space: SpaceRow;
  changeRequest: ChangeRequestRow | null;
}

/** A body as a caller sends it: Markdown, or a JSON document (GitBook's Document union). */
export interface CommentBodyInput {
  markdown?: string | null;
  document?: unknown;
}

export interface TableCellInput {
  record: string;
  definition: string;
}

export interface PostThreadInput {
  body: CommentBodyInput;
  /** The page it is about, in the place's current content. */
  page?: string | null;
  /** A node (by key) of that page's document. */
  node?: string | null;
  /** A cell of a table block of that page's document (of the table `node` when given). */
  tableCell?: TableCellInput | null;
}

export interface PostReplyInput {
  body: CommentBodyInput;
}

export interface UpdateCommentInput {
  body?: CommentBodyInput | null;
  /** Threads only: true resolves, false reopens. */
  resolved?: boolean | null;
  addedReactions?: readonly string[] | null;
  removedReactions?: readonly string[] | null;
}

/** A thread (`replyId` absent) or a reply in it. */
export interface CommentRef {
  commentId: string;
  replyId?: string | null;
}

/** What `updateComment` wrote: the comment as it is now, and what changed. */
export interface CommentUpdate {
  comment: CommentRow;
  /** The body was replaced. */
  edited: boolean;
  /** true: resolved by this update; false: reopened by it; null: its status did not change. */
  resolved: boolean | null;
  /** Emojis the caller reacted with that they had not before. */
  addedReactions: string[];
  /** Emojis the caller no longer reacts with. */
  removedReactions: string[];
}

// ----------------------------------------------------------------------------- loading

/**
 * The place, when the caller may do `action` there: 404 when they may not read the space (or the
 * change request is not one of the space's), 403 when their role is too low.
 */
export async function loadCommentPlace(ctx: Context, place: CommentPlace, action: Action): Promise<LoadedPlace> {
  // Reading the space (or its change requests) first: whoever may not learns nothing (404).
  const space = await loadSpace(ctx, place.spaceId, place.changeRequestId ? 'change-request:read' : 'space:read');
  authorize(await ctx.access.space(space), action, { type: 'Space', id: space.id });
  const changeRequest = place.changeRequestId ? await findChangeRequest(ctx, space.id, place.changeRequestId) : null;
  return { space, changeRequest };
}

/** The `where` of a place's comments (threads and replies). */
export function placeWhere(place: LoadedPlace): Prisma.CommentWhereInput {
  return { spaceId: place.space.id, changeRequestId: place.changeRequest?.id ?? null };
}

const inPlace = (row: CommentRow, place: LoadedPlace) => row.spaceId === place.space.id && row.changeRequestId === (place.changeRequest?.id ?? null);

/** The revision new comments of the place are posted on: the space's current one, or the change request's. */
const currentRevisionOf = (place: LoadedPlace) => place.changeRequest?.revisionId ?? place.space.revisionId;

/** The thread `commentId` of the place, or null. */
async function findThread(ctx: Context, place: LoadedPlace, commentId: string): Promise<CommentRow | null> {
  const row = await ctx.loaders.commentById.load(commentId);
  return row && row.parentId === null && inPlace(row, place) ? row : null;
}

/** The comment or reply `ref` names in the place, or null. */
async function findComment(ctx: Context, place: LoadedPlace, ref: CommentRef): Promise<CommentRow | null> {
  const thread = await findThread(ctx, place, ref.commentId);
  if (!thread || !ref.replyId) return thread;
  const reply = await ctx.loaders.commentById.load(ref.replyId);
  return reply && reply.parentId === thread.id ? reply : null;
}

/** The 404 of a comment id that names no thread of the place (saying so when it names a reply in it). */
async function threadNotFound(ctx: Context, place: LoadedPlace, commentId: string): Promise<NotFoundError> {
  const row = await ctx.loaders.commentById.load(commentId);
  if (row?.parentId && inPlace(row, place)) {
    return new NotFoundError('Comment', commentId, `it is a reply in comment ${JSON.stringify(row.parentId)}, under .../comments/${row.parentId}/replies/${commentId}`);
  }
  return new NotFoundError('Comment', commentId);
}

/** A thread of the place the caller may read, or 404. */
export async function loadThread(ctx: Context, place: CommentPlace, commentId: string): Promise<CommentRow> {
  const loaded = await loadCommentPlace(ctx, place, 'comment:read');
  const thread = await findThread(ctx, loaded, commentId);
  if (!thread) throw await threadNotFound(ctx, loaded, commentId);
  return thread;
}

/** A reply of a thread of the place the caller may read, or 404. */
export async function loadReply(ctx: Context, place: CommentPlace, commentId: string, replyId: string): Promise<CommentRow> {
  const loaded = await loadCommentPlace(ctx, place, 'comment:read');
  if (!(await findThread(ctx, loaded, commentId))) throw await threadNotFound(ctx, loaded, commentId);
  const reply = await findComment(ctx, loaded, { commentId, replyId });
  if (!reply) throw new NotFoundError('Comment reply', replyId);
  return reply;
}

/** The subject of a comment or reply for the caller: their role on its space, and whether they wrote it. */
export async function commentSubject(ctx: Context, row: CommentRow): Promise<Subject> {
  const space = await ctx.loaders.spaceById.load(row.spaceId);
  if (!space) return { organizationId: null, role: undefined };
  return { ...(await ctx.access.space(space)), author: row.authorId === ctx.viewer?.userId };
}

/** What the caller may do with a comment or reply (`permissions`), from the policy table. */
export async function commentPermissions(ctx: Context, row: CommentRow): Promise<{ view: boolean; edit: boolean; reply: boolean; delete: boolean }> {
  const subject = await commentSubject(ctx, row);
  return { view: can(subject, 'comment:read'), edit: can(subject, 'comment:edit'), reply: can(subject, 'comment:post'), delete: can(subject, 'comment:delete') };
}

/** The API location of a comment or reply. */
export function commentPath(row: CommentRow): string {
  const base = row.changeRequestId ? `/spaces/${row.spaceId}/change-requests/${row.changeRequestId}/comments` : `/spaces/${row.spaceId}/comments`;
  return row.parentId ? `${base}/${row.parentId}/replies/${row.id}` : `${base}/${row.id}`;
}

// ----------------------------------------------------------------------------- targets

/** Whether a comment's targets are still in the current content of its place. */
export interface TargetPresence {
  page: boolean;
  node: boolean;
  tableCell: boolean;
}

const PRESENT: TargetPresence = { page: true, node: true, tableCell: true };

/** The pages of a revision by id (made once per request and revision). */
async function pagesById(ctx: Context, revisionId: string): Promise<ReadonlyMap<string, PageSnapshot>> {
  const pages = await ctx.loaders.pagesByRevisionId.load(revisionId);
  const notes = ctx.loaders.notes<PageSnapshot[], Map<string, PageSnapshot>>('comment:pages-by-id');
  let byId = notes.get(pages);
  if (!byId) notes.set(pages, (byId = new Map(pages.map((p) => [p.id, p]))));
  return byId;
}

/** The keys and table cells of a page's document (computed once per request and document). */
async function pageTargets(ctx: Context, page: PageSnapshot): Promise<DocumentTargets> {
  const document = page.documentHash ? await ctx.loaders.documentByHash.load(page.documentHash) : null;
  if (!document) return { keys: new Set(), tables: [] };
  const notes = ctx.loaders.notes<JSONDocument, DocumentTargets>('comment:document-targets');
  let targets = notes.get(document);
  if (!targets) notes.set(document, (targets = documentTargets(document)));
  return targets;
}

/**
 * Whether a comment's page, node and table cell are in the current content of its place: the
 * space's current revision for the space's own comments, the change request's current revision
 * (its last one once merged) for a change request's. Loader-backed: a list of comments costs the
 * revisions' rows, their chunks and their documents, a few statements whatever its length.
 */
export function targetPresence(ctx: Context, row: CommentRow): Promise<TargetPresence> {
  const notes = ctx.loaders.notes<CommentRow, Promise<TargetPresence>>('comment:target-presence');
  let presence = notes.get(row);
  if (!presence) notes.set(row, (presence = computePresence(ctx, row)));
  return presence;
}

async function computePresence(ctx: Context, row: CommentRow): Promise<TargetPresence> {
  if (!row.pageId) return PRESENT;
  const revisionId = row.changeRequestId
    ? (await ctx.loaders.changeRequestById.load(row.changeRequestId))?.revisionId
    : (await ctx.loaders.spaceById.load(row.spaceId))?.revisionId;
  const page = revisionId ? (await pagesById(ctx, revisionId)).get(row.pageId) : undefined;
  if (!page) return { page: false, node: false, tableCell: false };
  if (!row.nodeId && !row.tableRecord) return PRESENT;
  const targets = await pageTargets(ctx, page);
  return {
    page: true,
    node: !row.nodeId || targets.keys.has(row.nodeId),
    tableCell: !row.tableRecord || !row.tableDefinition || hasTableCell(targets, { record: row.tableRecord, definition: row.tableDefinition }, row.nodeId),
  };
}

/** Checks a new thread's target in the place's current content; 400 naming the field otherwise. */
async function checkTarget(ctx: Context, place: LoadedPlace, input: PostThreadInput) {
  const { page, node, tableCell } = input;
  if (!page) {
    if (node) throw new InvalidInputError('node: needs `page`, the page whose document holds the node');
    if (tableCell) throw new InvalidInputError('tableCell: needs `page`, the page whose document holds the table');
    return { pageId: null, nodeId: null, tableRecord: null, tableDefinition: null };
  }
  const where = place.changeRequest ? `change request ${place.changeRequest.number}` : "the space's current content";
  const found = (await pagesById(ctx, currentRevisionOf(place))).get(page);
  if (!found) throw new InvalidInputError(`page: no page ${JSON.stringify(page)} in ${where}`);
  if (node || tableCell) {
    const targets = await pageTargets(ctx, found);
    if (node && !targets.keys.has(node)) throw new InvalidInputError(`node: no node ${JSON.stringify(node)} in the document of page ${JSON.stringify(page)}`);
    if (tableCell && !hasTableCell(targets, tableCell, node)) {
      throw new InvalidInputError(
        `tableCell: no cell of record ${JSON.stringify(tableCell.record)} and definition ${JSON.stringify(tableCell.definition)} in ${node ? `table ${JSON.stringify(node)}` : 'a table'} of page ${JSON.stringify(page)}`,
      );
    }
  }
  return { pageId: page, nodeId: node ?? null, tableRecord: tableCell?.record ?? null, tableDefinition: tableCell?.definition ?? null };
}

// ----------------------------------------------------------------------------- bodies

/** A body ready to store: its document (mentions as mention inlines), its Markdown, the users it mentions. */
interface StoredBody {
  document: JSONDocument;
  markdown: string;
  mentions: string[];
}

const kib = (bytes: number) => `${Math.round((bytes / 1024) * 10) / 10} KiB`;

function checkSize(markdown: string, field: string, what: string): void {
  const bytes = Buffer.byteLength(markdown, 'utf8');
  if (bytes > MAX_COMMENT_MARKDOWN_BYTES) {
    throw new InvalidInputError(`${field}: ${what} must be at most ${MAX_COMMENT_MARKDOWN_BYTES} bytes (${kib(MAX_COMMENT_MARKDOWN_BYTES)}), not ${bytes}`);
  }
}

/** Markdown or a document -> what is stored; 400 naming the field for an empty, oversized or invalid body or a mention refused. */
async function readBody(ctx: Context, place: LoadedPlace, body: CommentBodyInput, field: string): Promise<StoredBody> {
  const hasMarkdown = body.markdown !== undefined && body.markdown !== null;
  const hasDocument = body.document !== undefined && body.document !== null;
  if (hasMarkdown && hasDocument) throw new InvalidInputError(`${field}.document: give either \`markdown\` or \`document\`, not both`);
  if (!hasMarkdown && !hasDocument) throw new InvalidInputError(`${field}: must not be empty (give \`markdown\` or \`document\`)`);
  let document: JSONDocument;
  let markdown: string;
  if (hasMarkdown) {
    markdown = body.markdown!;
    checkSize(markdown, `${field}.markdown`, 'the Markdown');
    if (markdown.trim() === '') throw new InvalidInputError(`${field}.markdown: must not be empty`);
    const parsed = await ctx.conversions.markdownToDocument(markdown, null, { page: false }).catch((error: unknown) => {
      throw error instanceof LimitExceededError ? error.at(`${field}.markdown`) : error;
    });
    const users = await resolveTokens(ctx, mentionTokens(parsed.document), `${field}.markdown`);
    document = linkMentions(parsed.document, (token) => users.get(tokenKey(token)) ?? null);
  } else {
    const problem = documentProblem(body.document);
    if (problem) throw new InvalidInputError(`${field}.document: ${problem}`);
    document = body.document as JSONDocument;
    await resolveTokens(
      ctx,
      mentionedUsers(document).map((value) => ({ kind: 'id', value })),
      `${field}.document`,
    );
    [markdown] = (await ctx.conversions.documentsToMarkdown([mentionsAsText(document)])) as [string];
    checkSize(markdown, `${field}.document`, 'the document, as Markdown,');
    if (markdown.trim() === '') throw new InvalidInputError(`${field}.document: must not be empty (it has no content)`);
  }
  const mentions = mentionedUsers(document);
  await checkMentionsMayRead(ctx, place, mentions, field);
  return { document, markdown, mentions };
}

/**
 * The users mention tokens name, by token key: an e-mail address must be a user's (400 naming
 * every one that is not); a word names a user when it is a user's id (else it is text: `@here`),
 * except in a document, whose mention inlines must name users.
 */
async function resolveTokens(ctx: Context, tokens: readonly MentionToken[], field: string): Promise<Map<string, string>> {
  const resolved = new Map<string, string>();
  if (tokens.length === 0) return resolved;
  const emails = [...new Set(tokens.filter((t) => t.kind === 'email').map((t) => t.value))];
  const ids = [...new Set(tokens.filter((t) => t.kind === 'id').map((t) => t.value))];
  const users = await ctx.db.user.findMany({ where: { OR: [{ id: { in: ids } }, { email: { in: emails } }] }, select: { id: true, email: true } });
  for (const user of users) {
    resolved.set(`id:${user.id}`, user.id);
    if (user.email) resolved.set(`email:${user.email.toLowerCase()}`, user.id);
  }
  const unknown = [
    ...emails.filter((e) => !resolved.has(`email:${e}`)).map((e) => `no user with the e-mail ${JSON.stringify(e)}`),
    ...(field.endsWith('.document') ? ids.filter((id) => !resolved.has(`id:${id}`)).map((id) => `no user with the id ${JSON.stringify(id)}`) : []),
  ];
  if (unknown.length) throw new InvalidInputError(`${field}: mentions ${unknown.join(', ')}`);
  return resolved;
}

/** 400 naming every mentioned user who cannot read the place's comments (their effective role on the space, as Access decides it). */
async function checkMentionsMayRead(ctx: Context, place: LoadedPlace, userIds: readonly string[], field: string): Promise<void> {
  if (userIds.length === 0) return;
  const { space } = place;
  const [members, users] = await Promise.all([
    ctx.db.member.findMany({ where: { organizationId: space.organizationId, userId: { in: [...userIds] } }, select: { organizationId: true, userId: true, role: true, disabled: true } }),
    ctx.loaders.userById.loadMany([...userIds]),
  ]);
  const byUser = new Map(members.map((m) => [m.userId, m]));
  const mayRead = await Promise.all(
    userIds.map(async (userId) => {
      const member = byUser.get(userId);
      if (!member) return false;
      const [role] = await memberRolesOn(ctx, member, [space]);
      return can({ ...memberSubject(member), role }, 'comment:read');
    }),
  );
  const refused: string[] = [];
  for (const [i, userId] of userIds.entries()) {
    if (!mayRead[i]) {
      const user = users[i];
      const name = user && !(user instanceof Error) ? `${user.displayName}${user.email ? ` <${user.email}>` : ''} (${userId})` : userId;
      refused.push(name);
    }
  }
  if (refused.length) throw new InvalidInputError(`${field}: mentions ${refused.join(', ')}, who cannot read this space's comments`);
}

// ----------------------------------------------------------------------------- reactions


function checkEmojis(list: readonly string[] | null | undefined, field: string): string[] {
  if (!list) return [];
  if (list.length > MAX_REACTIONS_PER_UPDATE) throw new InvalidInputError(`${field}: at most ${MAX_REACTIONS_PER_UPDATE} emojis`);
  list.forEach((emoji, i) => {
    if (!isEmoji(emoji)) throw new InvalidInputError(`${field}[${i}]: ${JSON.stringify(emoji)} is not an emoji`);
  });
  return [...new Set(list)];
}

// ----------------------------------------------------------------------------- commands

/** What a write goes through: the caller's transaction, or the client. */
type Writer = Tx | Context['db'];

/**
 * Checks a thread to post in a place (`comment:post`), on the place's current revision, optionally
 * on a page, a node of its document, a table cell: every read and the Markdown conversion happen
 * here, outside any transaction. Returns the write, which a caller may run in its own transaction
 * (`reviewId` attaches the thread to a review of the change request: the review's body); that
 * caller announces it (`announceComment`) once its transaction committed.
 */
export async function prepareThread(ctx: Context, place: CommentPlace, input: PostThreadInput): Promise<{ place: LoadedPlace; write: (db: Writer, options?: { reviewId?: string }) => Promise<CommentRow> }> {
  const loaded = await loadCommentPlace(ctx, place, 'comment:post');
  const target = await checkTarget(ctx, loaded, input);
  const body = await readBody(ctx, loaded, input.body, 'body');
  const authorId = ctx.access.requireViewer().userId;
  const write = (db: Writer, options: { reviewId?: string } = {}) => {
    if (options.reviewId && !loaded.changeRequest) throw new Error('prepareThread: a review thread belongs to a change request');
    return db.comment.create({
      data: {
        id: newId(),
        spaceId: loaded.space.id,
        changeRequestId: loaded.changeRequest?.id ?? null,
        authorId,
        body: jsonInput(body.document),
        markdown: body.markdown,
        revisionId: currentRevisionOf(loaded),
        ...target,
        reviewId: options.reviewId ?? null,
        mentions: { create: body.mentions.map((userId) => ({ userId })) },
      },
    });
  };
  return { place: loaded, write };
}

/** Posts a thread in a place (`comment:post`; see prepareThread) and announces it. Returns the row written. */
export async function postThread(ctx: Context, place: CommentPlace, input: PostThreadInput): Promise<CommentRow> {
  const prepared = await prepareThread(ctx, place, input);
  const row = await prepared.write(ctx.db);
  announceComment(ctx, prepared.place.space.organizationId, row, 'posted');
  return row;
}

/**
 * Tells the subscribers of the comment's space (`commentEvents`, src/services/comment-feed.ts) what
 * a committed write did to it: only after the commit, never from inside a transaction.
 */
export function announceComment(ctx: Context, organizationId: string, row: CommentRow, type: CommentEventType): void {
  ctx.commentFeed.publish({
    type,
    organizationId,
    spaceId: row.spaceId,
    changeRequestId: row.changeRequestId,
    commentId: row.parentId ?? row.id,
    replyId: row.parentId ? row.id : null,
    actorId: ctx.access.requireViewer().userId,
    at: new Date().toISOString(),
  });
}

/**
 * Posts a reply in a thread of the place (`comment:post`): 404 when the thread does not exist (or
 * was deleted), 400 when `commentId` is itself a reply. Returns the reply written.
 */
export async function postReply(ctx: Context, place: CommentPlace, commentId: string, input: PostReplyInput): Promise<CommentRow> {
  const loaded = await loadCommentPlace(ctx, place, 'comment:post');
  const thread = await findThread(ctx, loaded, commentId);
  if (!thread) {
    const row = await ctx.loaders.commentById.load(commentId);
    if (row?.parentId && inPlace(row, loaded)) {
      throw new InvalidInputError(`commentId: ${JSON.stringify(commentId)} is a reply; a reply goes to the comment that starts the thread (${JSON.stringify(row.parentId)})`);
    }
    throw new NotFoundError('Comment', commentId);
  }
  const body = await readBody(ctx, loaded, input.body, 'body');
  const reply = await ctx.db.comment.create({
    data: {
      id: newId(),
      spaceId: loaded.space.id,
      changeRequestId: loaded.changeRequest?.id ?? null,
      parentId: thread.id,
      authorId: ctx.access.requireViewer().userId,
      body: jsonInput(body.document),
      markdown: body.markdown,
      revisionId: currentRevisionOf(loaded),
      mentions: { create: body.mentions.map((userId) => ({ userId })) },
    },
  });
  announceComment(ctx, loaded.space.organizationId, reply, 'posted');
  return reply;
}

/**
 * Updates a thread or a reply: its body (its author: `comment:edit`; sets `editedAt`), its
 * resolution (threads; `comment:post`: true resolves, false reopens, the same again changes
 * nothing) and the caller's reactions (`comment:post`; one per user and emoji, adding one held or
 * removing one not held changes nothing). All checked before anything is written, then written in
 * one transaction. 404 when the comment or reply is not in the place.
 */
export async function updateComment(ctx: Context, place: CommentPlace, ref: CommentRef, input: UpdateCommentInput): Promise<CommentUpdate> {
  const loaded = await loadCommentPlace(ctx, place, 'comment:read');
  const row = await findComment(ctx, loaded, ref);
  if (!row) throw ref.replyId ? new NotFoundError('Comment reply', ref.replyId) : await threadNotFound(ctx, loaded, ref.commentId);
  const subject = await commentSubject(ctx, row);
  const resource = { type: row.parentId ? 'Comment reply' : 'Comment', id: row.id };
  const added = checkEmojis(input.addedReactions, 'addedReactions');
  const removed = checkEmojis(input.removedReactions, 'removedReactions');
  const both = added.filter((emoji) => removed.includes(emoji));
  if (both.length) throw new InvalidInputError(`removedReactions: ${both.map((e) => JSON.stringify(e)).join(', ')} also in addedReactions`);
  if (row.parentId && input.resolved !== undefined && input.resolved !== null) {
    throw new InvalidInputError('resolved: a reply has no resolution; resolve the comment that starts the thread');
  }
  if (input.body) authorize(subject, 'comment:edit', resource);
  if ((input.resolved !== undefined && input.resolved !== null) || added.length || removed.length) authorize(subject, 'comment:post', resource);
  const body = input.body ? await readBody(ctx, loaded, input.body, 'body') : null;
  const userId = ctx.access.requireViewer().userId;

  const write = () =>
    ctx.db.$transaction(async (tx) => {
      const now = new Date();
      const data: Prisma.CommentUncheckedUpdateInput = {};
      if (body) Object.assign(data, { body: jsonInput(body.document), markdown: body.markdown, editedAt: now });
      let resolved: boolean | null = null;
      if (input.resolved === true && !row.resolvedAt) {
        Object.assign(data, { resolvedAt: now, resolvedById: userId });
        resolved = true;
      } else if (input.resolved === false && row.resolvedAt) {
        Object.assign(data, { resolvedAt: null, resolvedById: null });
        resolved = false;
      }
      if (Object.keys(data).length) await tx.comment.update({ where: { id: row.id }, data });
      if (body) {
        await tx.commentMention.deleteMany({ where: { commentId: row.id } });
        if (body.mentions.length) await tx.commentMention.createMany({ data: body.mentions.map((mentioned) => ({ commentId: row.id, userId: mentioned })) });
      }
      const held = new Set(
        added.length || removed.length
          ? (await tx.commentReaction.findMany({ where: { commentId: row.id, userId, emoji: { in: [...added, ...removed] } }, select: { emoji: true } })).map((r) => r.emoji)
          : [],
      );
      const toRemove = removed.filter((emoji) => held.has(emoji));
      const toAdd = added.filter((emoji) => !held.has(emoji));
      if (toRemove.length) await tx.commentReaction.deleteMany({ where: { commentId: row.id, userId, emoji: { in: toRemove } } });
      if (toAdd.length) await tx.commentReaction.createMany({ data: toAdd.map((emoji) => ({ commentId: row.id, userId, emoji, reactedAt: now })) });
      const comment = await tx.comment.findUniqueOrThrow({ where: { id: row.id } });
      return { comment, edited: body !== null, resolved, addedReactions: toAdd, removedReactions: toRemove };
    });
  let update: CommentUpdate;
  try {
    update = await write();
  } catch (error) {
    // The same reaction added by a concurrent request of the same user: it is there now; once more sees it held.
    if (!isUniqueViolation(error)) throw error;
    update = await write();
  }
  const organizationId = loaded.space.organizationId;
  if (update.edited) announceComment(ctx, organizationId, update.comment, 'edited');
  if (update.resolved !== null) announceComment(ctx, organizationId, update.comment, update.resolved ? 'resolved' : 'reopened');
  if (update.addedReactions.length || update.removedReactions.length) announceComment(ctx, organizationId, update.comment, 'reacted');
  return update;
}

/**
 * Deletes a thread (with its replies, their reactions and mentions: the rows cascade) or a reply
 * (`comment:delete`: its author, or an admin). Returns the row deleted, or null when there was
 * nothing to delete (DELETE's 204); 404 only for a place the caller cannot read.
 */
export async function deleteComment(ctx: Context, place: CommentPlace, ref: CommentRef): Promise<CommentRow | null> {
  const loaded = await loadCommentPlace(ctx, place, 'comment:read');
  const row = await findComment(ctx, loaded, ref);
  if (!row) return null;
  authorize(await commentSubject(ctx, row), 'comment:delete', { type: row.parentId ? 'Comment reply' : 'Comment', id: row.id });
  const { count } = await ctx.db.comment.deleteMany({ where: { id: row.id } });
  if (!count) return null;
  announceComment(ctx, loaded.space.organizationId, row, 'deleted');
  return row;
}

// ----------------------------------------------------------------------------- lists

export const COMMENT_STATUS_FILTERS = ['all', 'open', 'resolved'] as const;
export type CommentStatusFilter = (typeof COMMENT_STATUS_FILTERS)[number];

/** The `where` of a place's threads, filtered by status, target page and authors. */
export function threadsWhere(place: LoadedPlace, filters: { status?: CommentStatusFilter | null; targetPage?: string | null; authors?: readonly string[] | null }): Prisma.CommentWhereInput {
  return {
    ...placeWhere(place),
    parentId: null,
    ...(filters.status === 'open' ? { resolvedAt: null } : filters.status === 'resolved' ? { resolvedAt: { not: null } } : {}),
    ...(filters.targetPage ? { pageId: filters.targetPage } : {}),
    ...(filters.authors?.length ? { authorId: { in: [...filters.authors] } } : {}),
  };
}

/**
 * The place of a space (and one of its change requests) met in a graph (Space.commentList,
 * ChangeRequest.commentList), once the caller may read its comments: the space's row from the
 * request's loader (one statement for every space of a response).
 */
export async function readablePlace(ctx: Context, spaceId: string, changeRequest: ChangeRequestRow | null): Promise<LoadedPlace> {
  const space = await ctx.loaders.spaceById.load(spaceId);
  if (!space) throw new NotFoundError('Space', spaceId);
  authorize(await ctx.access.space(space), 'comment:read', { type: 'Space', id: space.id });
  return { space, changeRequest };
}

/** Replies in the order they were posted. */
export const REPLY_ORDER = [
  ['postedAt', 'asc'],
  ['id', 'asc'],
] as const;

/**
 * The first `limit + 1` replies of each thread (REPLY_ORDER), in two statements for any number
 * of threads: their ids (a window over the threads), then their rows.
 */
export async function firstRepliesOf(ctx: Context, threadIds: readonly string[], limit: number): Promise<CommentRow[][]> {
  const keys = await ctx.db.$queryRaw<Array<{ id: string; parentId: string }>>`
    SELECT x."id", x."parentId" FROM (
      SELECT c."id", c."parentId", ROW_NUMBER() OVER (PARTITION BY c."parentId" ORDER BY c."postedAt", c."id") AS "n"
      FROM "Comment" c
      WHERE c."parentId" IN (${Prisma.join([...new Set(threadIds)])})
    ) x
    WHERE x."n" <= ${limit + 1}`;
  const rows = keys.length ? await ctx.db.comment.findMany({ where: { id: { in: keys.map((k) => k.id) } }, orderBy: [{ postedAt: 'asc' }, { id: 'asc' }] }) : [];
  const byThread = new Map<string, CommentRow[]>();
  for (const row of rows) {
    const list = byThread.get(row.parentId!) ?? [];
    list.push(row);
    byThread.set(row.parentId!, list);
  }
  return threadIds.map((id) => byThread.get(id) ?? []);
}

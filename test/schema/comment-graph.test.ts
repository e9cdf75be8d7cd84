/**
 * Comments in GraphQL: a space's threads with their replies, reactions, authors, permissions and
 * targets (whether the node is still there) in a fixed number of SQL statements, whether the
 * space has 10 threads or 20; the open-thread counts of spaces and change requests in lists
 * likewise; and the mutations REST runs, called directly.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../src/ids.ts';
import { useTestServer, type TestUser } from '../helpers/server.ts';

// The revision chunk cache is off: two requests compared must both read their chunks.
const { server, ada, cora, eve } = useTestServer({ users: ['Ada', 'Cora', 'Eve'], env: { REVISION_CACHE_ENTRIES: '0' } });
let org: string;

const document = (text: string) => ({
  object: 'document',
  data: {},
  nodes: [{ object: 'block', type: 'paragraph', key: 'p-1', data: {}, nodes: [{ object: 'text', leaves: [{ object: 'leaf', text, marks: [] }] }] }],
});

async function rest(method: string, path: string, body?: unknown, user: TestUser = ada) {
  const res = await server.request(method, path, { token: user.token, body });
  expect(res.status, JSON.stringify(res.body)).toBeLessThan(300);
  return res.body;
}

/** A space with a page (a keyed paragraph) and `threads` threads on it, each with 3 replies, reactions on all, mentions on some. */
async function seed(threads: number): Promise<{ space: string; changeRequest: string }> {
  const space = (await server.createSpace(ada, org, { title: `Talk ${threads}` })).id as string;
  const first = await rest('POST', `/v1/spaces/${space}/change-requests`, { subject: 'Content' });
  const content = await rest('POST', `/v1/spaces/${space}/change-requests/${first.id}/content?compat=false`, {
    changes: [{ operation: 'insert_page', title: 'Page', document: { document: document('Hello') } }],
  });
  await rest('POST', `/v1/spaces/${space}/change-requests/${first.id}/merge`);
  const page = content.changes[0].page.id as string;
  const changeRequest = (await rest('POST', `/v1/spaces/${space}/change-requests`, { subject: 'Open' })).id as string;
  const { revisionId } = await server.app.db.space.findUniqueOrThrow({ where: { id: space } });
  const db = server.app.db;
  const rows = [];
  const reactions = [];
  for (let i = 0; i < threads; i++) {
    const id = newId();
    const at = Date.UTC(2026, 0, 1, 0, i);
    rows.push({ id, spaceId: space, authorId: i % 2 ? cora.id : ada.id, body: document(`Thread ${i}`), markdown: `Thread ${i}`, revisionId, pageId: page, nodeId: i % 3 ? 'p-1' : 'gone', postedAt: new Date(at), resolvedAt: i % 4 ? null : new Date(at), resolvedById: i % 4 ? null : eve.id });
    for (let r = 0; r < 3; r++) {
      const reply = newId();
      rows.push({ id: reply, spaceId: space, parentId: id, authorId: [ada, cora, eve][r]!.id, body: document(`Reply ${r}`), markdown: `Reply ${r}`, revisionId, postedAt: new Date(at + r + 1) });
      reactions.push({ commentId: reply, userId: eve.id, emoji: '👍', reactedAt: new Date(at + 10) });
    }
    reactions.push(
      { commentId: id, userId: cora.id, emoji: '🎉', reactedAt: new Date(at + 10) },
      { commentId: id, userId: eve.id, emoji: '🎉', reactedAt: new Date(at + 20) },
      { commentId: id, userId: eve.id, emoji: '👀', reactedAt: new Date(at + 30) },
    );
    // Threads of the change request too: counted on it, not on the space.
    rows.push({ id: newId(), spaceId: space, changeRequestId: changeRequest, authorId: ada.id, body: document('In the change request'), markdown: 'x', revisionId, postedAt: new Date(at) });
  }
  await db.comment.createMany({ data: rows });
  await db.commentReaction.createMany({ data: reactions });
  await db.commentMention.createMany({ data: rows.filter((r) => !('parentId' in r)).slice(0, 3).map((r) => ({ commentId: r.id, userId: eve.id })) });
  return { space, changeRequest };
}

const threadsQuery = `query($id: ID!) {
  space(id: $id) {
    comments
    commentList(limit: 100, order: asc) {
      count
      items {
        object id status postedAt editedAt resolvedAt
        postedBy { id displayName }
        resolvedBy { id }
        body { document }
        replies
        repliers { count updatedAt user { id email } }
        reactions { emoji count users { reactedAt user { id } } }
        target { space revision changeRequest review page { id removed } node { id removed } tableCell { record removed } }
        urls { location }
        permissions { view edit reply delete }
        replyList(limit: 10) {
          count
          items {
            object id postedAt
            postedBy { id }
            body(format: markdown) { markdown }
            reactions { emoji count users { user { id } } }
            urls { location }
            permissions { view edit reply delete }
          }
        }
      }
    }
  }
}`;

beforeAll(async () => {
  org = await server.createOrg(ada, 'Talks');
  await server.addMember(org, cora, 'comment');
  await server.addMember(org, eve, 'edit');
});

describe('the comment graph', () => {
  it('answers threads with replies, reactions, permissions and targets in the same statements for 10 threads as for 20', async () => {
    const small = await seed(10);
    const large = await seed(20);
    // A commenter whose token and membership are first used by the warm-up below (written then, at most once a
    // minute): never during the measured requests, whenever the minute turns.
    const counter = await server.createUser('Counter');
    await server.addMember(org, counter, 'comment');
    const run = async (space: string, token = counter.token) => {
      const res = await server.graphql(threadsQuery, { token, variables: { id: space } });
      expect(res.body.errors).toBeUndefined();
      return res.body.data.space;
    };
    // A first request records the caller's activity in the organization (lastSeenAt): not part of the comparison.
    await run(small.space);
    await run(large.space);
    const a = await server.countStatements(() => run(small.space));
    const b = await server.countStatements(() => run(large.space));
    expect(a.result.commentList.items).toHaveLength(10);
    expect(b.result.commentList.items).toHaveLength(20);
    expect(b.statements).toBe(a.statements);
    expect(a.statements).toBeLessThanOrEqual(16);

    // The answer as Cora (a commenter who wrote some of them) sees it.
    const asCora = await run(large.space, cora.token);
    const [first, second] = asCora.commentList.items;
    expect(asCora.comments).toBe(15);
    expect(first).toMatchObject({
      object: 'comment',
      status: 'resolved',
      resolvedBy: { id: eve.id },
      replies: 3,
      reactions: [
        { emoji: '🎉', count: 2, users: [{ user: { id: cora.id } }, { user: { id: eve.id } }] },
        { emoji: '👀', count: 1 },
      ],
      target: { space: large.space, changeRequest: null, page: { removed: false }, node: { id: 'gone', removed: true }, tableCell: null },
      permissions: { view: true, edit: false, reply: true, delete: false },
    });
    expect(first.repliers.map((r: { user: { id: string } }) => r.user.id)).toEqual([eve.id, cora.id, ada.id]);
    expect(first.replyList.count).toBe(3);
    expect(first.replyList.items.map((r: { body: { markdown: string } }) => r.body.markdown)).toEqual(['Reply 0', 'Reply 1', 'Reply 2']);
    expect(first.replyList.items[1].permissions).toEqual({ view: true, edit: true, reply: true, delete: true });
    expect(second).toMatchObject({ status: 'open', resolvedBy: null, target: { node: { id: 'p-1', removed: false } }, permissions: { edit: true, delete: true } });
  });

  it('counts open threads of every space and change request of a list in a fixed number of statements', async () => {
    const few = await server.createOrg(ada, 'Few');
    const many = await server.createOrg(ada, 'Many');
    const spacesOf = async (organizationId: string, n: number) => {
      const ids: string[] = [];
      for (let i = 0; i < n; i++) ids.push((await server.createSpace(ada, organizationId, { title: `S${i}` })).id);
      const { revisionId } = await server.app.db.space.findUniqueOrThrow({ where: { id: ids[0]! } });
      await server.app.db.comment.createMany({
        data: ids.flatMap((spaceId, i) =>
          Array.from({ length: i + 1 }, () => ({ id: newId(), spaceId, authorId: ada.id, body: document('x'), markdown: 'x', revisionId })),
        ),
      });
      return ids;
    };
    await spacesOf(few, 3);
    await spacesOf(many, 6);
    const query = `query($id: ID!) { organization(id: $id) { spaces(limit: 100) { items { id comments } } } }`;
    const counter = await server.createUser('Space counter');
    await server.addMember(few, counter, 'admin');
    await server.addMember(many, counter, 'admin');
    const run = async (id: string) => (await server.graphql(query, { token: counter.token, variables: { id } })).body.data.organization.spaces.items;
    await run(few);
    await run(many);
    const a = await server.countStatements(() => run(few));
    const b = await server.countStatements(() => run(many));
    expect(b.statements).toBe(a.statements);
    expect(b.result.map((s: { comments: number }) => s.comments).sort()).toEqual([1, 2, 3, 4, 5, 6]);

    const { space, changeRequest } = await seed(2);
    const crQuery = `query($id: ID!) { spaceChangeRequests(spaceId: $id, status: draft) { items { id comments commentList { count } } } }`;
    const crs = (await server.graphql(crQuery, { token: ada.token, variables: { id: space } })).body.data.spaceChangeRequests.items;
    expect(crs).toEqual([{ id: changeRequest, comments: 2, commentList: { count: 2 } }]);
  });

  it('runs the comment mutations', async () => {
    const { space } = await seed(1);
    const posted = await server.graphql(
      `mutation($space: ID!) { postComment(spaceId: $space, input: { body: { markdown: "From GraphQL" } }) { id status body(format: markdown) { markdown } } }`,
      { token: cora.token, variables: { space } },
    );
    expect(posted.body.errors).toBeUndefined();
    const id = posted.body.data.postComment.id;
    expect(posted.body.data.postComment).toMatchObject({ status: 'open', body: { markdown: 'From GraphQL' } });
    const reply = await server.graphql(
      `mutation($space: ID!, $id: ID!) { postCommentReply(spaceId: $space, commentId: $id, input: { body: { markdown: "Re" } }) { id comment } }`,
      { token: eve.token, variables: { space, id } },
    );
    expect(reply.body.data.postCommentReply.comment).toBe(id);
    const updated = await server.graphql(
      `mutation($space: ID!, $id: ID!, $reply: ID!) {
        updateComment(spaceId: $space, commentId: $id, input: { resolved: true, addedReactions: ["👍"] }) { status replies reactions { emoji count } }
        updateCommentReply(spaceId: $space, commentId: $id, commentReplyId: $reply, input: { body: { markdown: "Re!" } }) { editedAt }
      }`,
      { token: eve.token, variables: { space, id, reply: reply.body.data.postCommentReply.id } },
    );
    expect(updated.body.errors).toBeUndefined();
    expect(updated.body.data.updateComment).toEqual({ status: 'resolved', replies: 1, reactions: [{ emoji: '👍', count: 1 }] });
    const removed = await server.graphql(
      `mutation($space: ID!, $id: ID!, $reply: ID!) {
        deleteCommentReply(spaceId: $space, commentId: $id, commentReplyId: $reply)
        deleteComment(spaceId: $space, commentId: $id)
      }`,
      { token: ada.token, variables: { space, id, reply: reply.body.data.postCommentReply.id } },
    );
    expect(removed.body.data).toEqual({ deleteCommentReply: true, deleteComment: true });
    const again = await server.graphql(`mutation($space: ID!, $id: ID!) { deleteComment(spaceId: $space, commentId: $id) }`, { token: ada.token, variables: { space, id } });
    expect(again.body.data).toEqual({ deleteComment: false });
  });
});

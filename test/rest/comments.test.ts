/**
 * Comments over real HTTP: threads and replies on a space's own content and in a change request
 * (every one of the 22 endpoints, each answer validated against GitBook's OpenAPI document),
 * targets (page, node, table cell) and what becomes of a node an edit or a merge removes, bodies
 * (Markdown and documents, the round trip, the 64 KiB limit), mentions, reactions, resolution,
 * who may do what, the open-thread counts of spaces and change requests, and the bad inputs that
 * must change nothing.
 */
import { GitBookAPI } from '@gitbook/api';
import { beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../src/ids.ts';
import { MAX_COMMENT_MARKDOWN_BYTES } from '../../src/services/comment.ts';
import { assertMatchesSpec } from '../helpers/openapi.ts';
import { databaseFingerprint } from '../helpers/rest-fixture.ts';
import { expectError, useTestServer, type TestUser } from '../helpers/server.ts';

// Ada: admin; Cora: comment; Eve: edit; Rex: read; Gus: guest (no grant); Bob: admin of another organization.
const { server, ada, cora, eve, rex, gus, bob } = useTestServer({ users: ['Ada', 'Cora', 'Eve', 'Rex', 'Gus', 'Bob'] });

let org: string;
let otherOrg: string;

const leaf = (text: string) => ({ object: 'text', leaves: [{ object: 'leaf', text, marks: [] }] });
const paragraph = (key: string, text: string) => ({ object: 'block', type: 'paragraph', key, data: {}, nodes: [leaf(text)] });
const table = {
  object: 'block',
  type: 'table',
  key: 't-plans',
  isVoid: true,
  data: {
    view: { type: 'grid', columns: ['d-plan'] },
    records: { 'r-basic': { orderIndex: 'a0', values: { 'd-plan': 'Basic' } } },
    definition: { 'd-plan': { id: 'd-plan', title: 'Plan', type: 'text' } },
  },
  fragments: [],
};
/** The Guide page's document: keyed paragraphs and a table. */
const guideDocument = (...keys: string[]) => ({
  object: 'document',
  data: {},
  nodes: [
    paragraph('p-intro', 'Introduction'),
    ...(keys.includes('p-doomed') ? [paragraph('p-doomed', 'This paragraph goes away')] : []),
    ...(keys.includes('t-plans') ? [table] : []),
  ],
});

async function ok(method: string, path: string, operationId: string, options: { user?: TestUser; body?: unknown; status?: number } = {}) {
  const res = await server.request(method, path, { token: (options.user ?? ada).token, body: options.body });
  expect(res.status, `${method} ${path}: ${JSON.stringify(res.body)}`).toBe(options.status ?? 200);
  if (res.status !== 204 && res.status !== 205) assertMatchesSpec(operationId, res.status, res.body);
  return res.body;
}

const crPath = (space: string, id: string | number = '') => `/v1/spaces/${space}/change-requests${id === '' ? '' : `/${id}`}`;

async function changeRequest(space: string, subject = 'Edits') {
  return ok('POST', crPath(space), 'createChangeRequest', { body: { subject }, status: 201 });
}

/** Applies content changes to a change request (compat=false: the ids of created pages). */
async function edit(space: string, id: string, changes: unknown[]) {
  const res = await server.request('POST', `${crPath(space, id)}/content?compat=false`, { token: ada.token, body: { changes } });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body as { changes: Array<{ page: { id: string } }> };
}

async function merge(space: string, id: string) {
  await ok('PATCH', crPath(space, id), 'updateChangeRequestById', { body: { status: 'open' } });
  const merged = await ok('POST', `${crPath(space, id)}/merge`, 'mergeChangeRequest');
  expect(merged.result).toBe('merge');
}

/** A space whose content (merged) has the Guide page (keyed nodes and a table) and a Notes page (Markdown); their ids. */
async function spaceWithGuide(title = 'Docs') {
  const space = (await server.createSpace(ada, org, { title })).id as string;
  const first = await changeRequest(space, 'First content');
  const content = await edit(space, first.id, [
    { operation: 'insert_page', title: 'Guide', document: { document: guideDocument('p-doomed', 't-plans') } },
    { operation: 'insert_page', title: 'Notes', document: { markdown: 'Plain notes.\n' } },
  ]);
  await merge(space, first.id);
  return { space, guide: content.changes[0]!.page.id, notes: content.changes[1]!.page.id };
}

const comments = (space: string) => `/v1/spaces/${space}/comments`;
const crComments = (space: string, cr: string | number) => `${crPath(space, cr)}/comments`;

async function post(base: string, body: Record<string, unknown>, user: TestUser = ada, operationId = 'postCommentInSpace') {
  return ok('POST', base, operationId, { user, body });
}

beforeAll(async () => {
  org = await server.createOrg(ada, 'Acme');
  await server.addMember(org, cora, 'comment');
  await server.addMember(org, eve, 'edit');
  await server.addMember(org, rex, 'read');
  await server.addMember(org, gus, null);
  otherOrg = await server.createOrg(bob, 'Elsewhere');
});

describe('space comments', () => {
  let space: string;
  let guide: string;
  let notes: string;

  beforeAll(async () => {
    ({ space, guide, notes } = await spaceWithGuide());
  });

  it('posts a thread on a node of a page, answering the Comment with its target, permissions and location', async () => {
    const spaceBody = await ok('GET', `/v1/spaces/${space}`, 'getSpaceById');
    const comment = await post(comments(space), { body: { markdown: 'Is this **right**?' }, page: guide, node: 'p-intro' }, cora);
    expect(comment).toMatchObject({
      object: 'comment',
      status: 'open',
      replies: 0,
      repliers: [],
      reactions: [],
      postedBy: { object: 'user', id: cora.id },
      target: { space, revision: spaceBody.revision, page: { id: guide, removed: false }, node: { id: 'p-intro', removed: false } },
      urls: { location: `${server.baseUrl}/v1/spaces/${space}/comments/${comment.id}` },
      permissions: { view: true, edit: true, reply: true, delete: true },
    });
    expect(comment.target).not.toHaveProperty('changeRequest');
    expect(comment).not.toHaveProperty('editedAt');
    expect(comment).not.toHaveProperty('resolvedAt');
    expect(comment.body.document.nodes[0].type).toBe('paragraph');
    expect(Date.parse(comment.postedAt)).toBeGreaterThan(Date.now() - 60_000);

    // Read back by id, as a document (default) and as Markdown; each role sees its own permissions.
    const read = await ok('GET', `${comments(space)}/${comment.id}`, 'getCommentInSpace', { user: rex });
    expect(read.body).toEqual(comment.body);
    expect(read.permissions).toEqual({ view: true, edit: false, reply: false, delete: false });
    const asMarkdown = await ok('GET', `${comments(space)}/${comment.id}?format=markdown`, 'getCommentInSpace', { user: eve });
    expect(asMarkdown.body).toEqual({ markdown: 'Is this **right**?' });
    expect(asMarkdown.permissions).toEqual({ view: true, edit: false, reply: true, delete: false });
    const asAdmin = await ok('GET', `${comments(space)}/${comment.id}`, 'getCommentInSpace');
    expect(asAdmin.permissions).toEqual({ view: true, edit: false, reply: true, delete: true });
  });

  it('posts on a table cell, on a page, or on the space alone', async () => {
    const cell = await post(comments(space), { body: { markdown: 'Price?' }, page: guide, node: 't-plans', tableCell: { record: 'r-basic', definition: 'd-plan' } });
    expect(cell.target).toMatchObject({ page: { id: guide }, node: { id: 't-plans', removed: false }, tableCell: { record: 'r-basic', definition: 'd-plan', removed: false } });
    const anyTable = await post(comments(space), { body: { markdown: 'Same cell' }, page: guide, tableCell: { record: 'r-basic', definition: 'd-plan' } });
    expect(anyTable.target).not.toHaveProperty('node');
    const onPage = await post(comments(space), { body: { markdown: 'On notes' }, page: notes });
    expect(onPage.target).toEqual({ space, revision: expect.any(String), page: { id: notes, removed: false } });
    const onSpace = await post(comments(space), { body: { markdown: 'In general' } });
    expect(onSpace.target).toEqual({ space, revision: expect.any(String) });
  });

  it('keeps text, links, code and lists through Markdown and back', async () => {
    const markdown = 'Read [the guide](https://example.com/guide) first:\n\n* one\n* two\n\n1. first\n2. second\n\n```js\nconst x = 1;\n```\n\nThen run `npm test`.\n';
    const posted = await post(comments(space), { body: { markdown } });
    const read = await ok('GET', `${comments(space)}/${posted.id}?format=markdown`, 'getCommentInSpace');
    expect(read.body.markdown).toBe(markdown);
    const types = posted.body.document.nodes.map((n: { type: string }) => n.type);
    expect(types).toEqual(['paragraph', 'list-unordered', 'list-ordered', 'code', 'paragraph']);
    // The document sent back is printed to the same Markdown (Markdown is stored with it).
    const again = await post(comments(space), { body: { document: posted.body.document } });
    expect(again.body.document).toEqual(posted.body.document);
    const printed = (await ok('GET', `${comments(space)}/${again.id}?format=markdown`, 'getCommentInSpace')).body.markdown as string;
    for (const part of ['[the guide](https://example.com/guide)', '* one', '* two', '1. first', '2. second', '```js\nconst x = 1;\n```', '`npm test`']) {
      expect(printed).toContain(part);
    }
    // A comment's first line is content: a heading stays, a leading `---` is a rule.
    const heading = await post(comments(space), { body: { markdown: '# Heads up\n\n---\n\nbelow' } });
    expect(heading.body.document.nodes.map((n: { type: string }) => n.type)).toEqual(['heading-1', 'divider', 'paragraph']);
  });

  it('lists threads newest first, a page at a time, filtered by status, page and authors', async () => {
    const { space: listed, guide: page } = await spaceWithGuide('Listed');
    const ids: string[] = [];
    for (const [i, user] of [ada, cora, ada, eve].entries()) {
      ids.push((await post(comments(listed), { body: { markdown: `Thread ${i}` }, ...(i % 2 ? { page } : {}) }, user)).id);
    }
    // A reply is not a thread.
    await ok('POST', `${comments(listed)}/${ids[0]}/replies`, 'postCommentReplyInSpace', { body: { body: { markdown: 'reply' } } });
    await ok('PUT', `${comments(listed)}/${ids[1]}`, 'updateCommentInSpace', { body: { resolved: true } });

    const paged = await server.pageThrough(ada, comments(listed), 'listCommentsInSpace', 3);
    expect(paged).toEqual({ ids: [...ids].reverse(), pages: 2, count: 4 });
    const asc = await server.pageThrough(ada, `${comments(listed)}?order=asc`, 'listCommentsInSpace', 3);
    expect(asc.ids).toEqual(ids);
    expect(await server.listIds(rex, `${comments(listed)}?status=open`, 'listCommentsInSpace')).toEqual([ids[3], ids[2], ids[0]]);
    expect(await server.listIds(rex, `${comments(listed)}?status=resolved`, 'listCommentsInSpace')).toEqual([ids[1]]);
    expect(await server.listIds(rex, `${comments(listed)}?targetPage=${page}`, 'listCommentsInSpace')).toEqual([ids[3], ids[1]]);
    expect(await server.listIds(rex, `${comments(listed)}?authors=${ada.id}&authors=${eve.id}`, 'listCommentsInSpace')).toEqual([ids[3], ids[2], ids[0]]);
    expect(await server.listIds(rex, `${comments(listed)}?authors=${cora.id}&status=open`, 'listCommentsInSpace')).toEqual([]);
    const markdown = await ok('GET', `${comments(listed)}?format=markdown&limit=1`, 'listCommentsInSpace');
    expect(markdown.items[0].body).toEqual({ markdown: 'Thread 3' });
    expectError(await server.request('GET', `${comments(listed)}?status=closed`, { token: ada.token }), 400, /^status: /);
    expectError(await server.request('GET', `${comments(listed)}?order=up`, { token: ada.token }), 400, /^order: /);
  });

  it('replies: oldest first, a page at a time, counted with their repliers; read, edited and reacted to', async () => {
    const thread = await post(comments(space), { body: { markdown: 'Thread with replies' } });
    const replies = `${comments(space)}/${thread.id}/replies`;
    const ids: string[] = [];
    for (const [i, user] of [cora, eve, cora].entries()) {
      const reply = await ok('POST', replies, 'postCommentReplyInSpace', { user, body: { body: { markdown: `Reply ${i}` } } });
      expect(reply).toMatchObject({ object: 'comment-reply', postedBy: { id: user.id }, reactions: [], permissions: { view: true, edit: true, reply: true, delete: true } });
      expect(reply.urls.location).toBe(`${server.baseUrl}/v1/spaces/${space}/comments/${thread.id}/replies/${reply.id}`);
      ids.push(reply.id);
    }
    const paged = await server.pageThrough(rex, replies, 'listCommentRepliesInSpace', 2);
    expect(paged).toEqual({ ids, pages: 2, count: 3 });
    const after = await ok('GET', `${comments(space)}/${thread.id}`, 'getCommentInSpace');
    expect(after.replies).toBe(3);
    expect(after.repliers.map((r: { user: { id: string }; count: number }) => [r.user.id, r.count])).toEqual([
      [cora.id, 2],
      [eve.id, 1],
    ]);

    const one = await ok('GET', `${replies}/${ids[1]}?format=markdown`, 'getCommentReplyInSpace', { user: rex });
    expect(one).toMatchObject({ id: ids[1], body: { markdown: 'Reply 1' }, permissions: { view: true, edit: false, reply: false, delete: false } });
    const edited = await ok('PUT', `${replies}/${ids[1]}`, 'updateCommentReplyInSpace', { user: eve, body: { body: { markdown: 'Reply 1, edited' }, addedReactions: ['🎉'] } });
    expect(Date.parse(edited.editedAt)).toBeGreaterThan(Date.now() - 60_000);
    expect(edited.reactions).toEqual([{ emoji: '🎉', count: 1, users: [{ user: expect.objectContaining({ id: eve.id }), reactedAt: expect.any(String) }] }]);
    // Someone else may react, not edit; a reader may do neither.
    expectError(await server.request('PUT', `${replies}/${ids[1]}`, { token: cora.token, body: { body: { markdown: 'mine now' } } }), 403, /comment:edit/);
    await ok('PUT', `${replies}/${ids[1]}`, 'updateCommentReplyInSpace', { user: cora, body: { addedReactions: ['🎉'] } });
    expectError(await server.request('PUT', `${replies}/${ids[1]}`, { token: rex.token, body: { addedReactions: ['🎉'] } }), 403, /comment:post/);
    expectError(await server.request('POST', replies, { token: rex.token, body: { body: { markdown: 'hi' } } }), 403, /comment:post/);
    expectError(await server.request('GET', `${replies}/nope`, { token: ada.token }), 404, /Comment reply "nope" not found/);
    // A reply is no thread: its id under /comments is 404, saying where it is.
    expectError(await server.request('GET', `${comments(space)}/${ids[0]}`, { token: ada.token }), 404, /is a reply in comment/);
  });

  it('reacts once per user and emoji, whatever the repeats, and takes reactions back', async () => {
    const thread = await post(comments(space), { body: { markdown: 'React to me' } });
    const path = `${comments(space)}/${thread.id}`;
    await ok('PUT', path, 'updateCommentInSpace', { user: cora, body: { addedReactions: ['👍', '👍'] } });
    const first = await ok('PUT', path, 'updateCommentInSpace', { user: cora, body: { addedReactions: ['❤️'] } });
    const again = await ok('PUT', path, 'updateCommentInSpace', { user: cora, body: { addedReactions: ['👍', '❤️'] } });
    expect(again.reactions).toEqual(first.reactions);
    const both = await ok('PUT', path, 'updateCommentInSpace', { user: eve, body: { addedReactions: ['👍', '👍🏽'] } });
    expect(both.reactions.map((r: { emoji: string; count: number; users: Array<{ user: { id: string } }> }) => [r.emoji, r.count, r.users.map((u) => u.user.id)])).toEqual([
      ['👍', 2, [cora.id, eve.id]],
      ['❤️', 1, [cora.id]],
      ['👍🏽', 1, [eve.id]],
    ]);
    const removed = await ok('PUT', path, 'updateCommentInSpace', { user: cora, body: { removedReactions: ['👍', '🎉'] } });
    // In the order each emoji was first used by the reactions left (Eve's 👍 and 👍🏽 came together).
    expect(removed.reactions.map((r: { emoji: string; count: number }) => [r.emoji, r.count])).toEqual([
      ['❤️', 1],
      ['👍', 1],
      ['👍🏽', 1],
    ]);
    expect(await server.app.db.commentReaction.count({ where: { commentId: thread.id } })).toBe(3);

    const before = await databaseFingerprint(server);
    for (const [body, message] of [
      [{ addedReactions: ['👍', 'thumbsup'] }, /^addedReactions\[1\]: "thumbsup" is not an emoji$/],
      [{ addedReactions: ['👍👍'] }, /^addedReactions\[0\]: /],
      [{ removedReactions: [':)'] }, /^removedReactions\[0\]: /],
      [{ addedReactions: ['👍'], removedReactions: ['👍'] }, /also in addedReactions/],
      [{ addedReactions: Array.from({ length: 51 }, () => '👍') }, /^addedReactions: at most 50/],
      [{ resolved: true, addedReactions: ['x'] }, /is not an emoji/],
    ] as const) {
      expectError(await server.request('PUT', path, { token: cora.token, body }), 400, message);
    }
    expect(await databaseFingerprint(server)).toEqual(before);
  });

  it('resolves and reopens threads; the space counts its open threads', async () => {
    const { space: counted } = await spaceWithGuide('Counted');
    const spaceComments = async () => (await ok('GET', `/v1/spaces/${counted}`, 'getSpaceById')).comments as number;
    expect(await spaceComments()).toBe(0);
    const a = await post(comments(counted), { body: { markdown: 'A' } });
    const b = await post(comments(counted), { body: { markdown: 'B' } }, cora);
    await ok('POST', `${comments(counted)}/${a.id}/replies`, 'postCommentReplyInSpace', { body: { body: { markdown: 'not a thread' } } });
    expect(await spaceComments()).toBe(2);

    const resolved = await ok('PUT', `${comments(counted)}/${b.id}`, 'updateCommentInSpace', { user: cora, body: { resolved: true } });
    expect(resolved).toMatchObject({ status: 'resolved', resolvedBy: { id: cora.id } });
    expect(Date.parse(resolved.resolvedAt)).toBeGreaterThan(Date.now() - 60_000);
    // Resolving again changes nothing (the first resolution stays); a reader may not.
    const twice = await ok('PUT', `${comments(counted)}/${b.id}`, 'updateCommentInSpace', { user: eve, body: { resolved: true } });
    expect(twice).toMatchObject({ resolvedAt: resolved.resolvedAt, resolvedBy: { id: cora.id } });
    expectError(await server.request('PUT', `${comments(counted)}/${a.id}`, { token: rex.token, body: { resolved: true } }), 403, /comment:post/);
    expect(await spaceComments()).toBe(1);
    // Counted in lists too, each space its own.
    const listed = await ok('GET', `/v1/orgs/${org}/spaces?limit=1000`, 'listSpacesInOrganizationById');
    expect(listed.items.find((s: { id: string }) => s.id === counted).comments).toBe(1);

    const reopened = await ok('PUT', `${comments(counted)}/${b.id}`, 'updateCommentInSpace', { body: { resolved: false } });
    expect(reopened.status).toBe('open');
    expect(reopened).not.toHaveProperty('resolvedAt');
    expect(reopened).not.toHaveProperty('resolvedBy');
    expect(await spaceComments()).toBe(2);
  });

  it('lets authors edit their own body, admins and authors delete', async () => {
    const thread = await post(comments(space), { body: { markdown: 'Mine' } }, cora);
    const path = `${comments(space)}/${thread.id}`;
    expectError(await server.request('PUT', path, { token: ada.token, body: { body: { markdown: 'Not yours' } } }), 403, /comment:edit/);
    expectError(await server.request('PUT', path, { token: eve.token, body: { body: { markdown: 'Not yours' } } }), 403, /comment:edit/);
    const edited = await ok('PUT', path, 'updateCommentInSpace', { user: cora, body: { body: { markdown: 'Mine, edited' } } });
    expect(edited.body.document.nodes[0].nodes[0].leaves[0].text).toBe('Mine, edited');
    expect(edited.editedAt).toEqual(expect.any(String));
    expectError(await server.request('DELETE', path, { token: eve.token }), 403, /comment:delete/);
    expectError(await server.request('DELETE', path, { token: rex.token }), 403, /comment:delete/);
    const own = await post(comments(space), { body: { markdown: 'Gone soon' } }, cora);
    expect((await server.request('DELETE', `${comments(space)}/${own.id}`, { token: cora.token })).status).toBe(205);
    // An admin deletes anyone's; deleting again finds nothing.
    expect((await server.request('DELETE', path, { token: ada.token })).status).toBe(205);
    expect((await server.request('DELETE', path, { token: ada.token })).status).toBe(204);
    expectError(await server.request('GET', path, { token: ada.token }), 404);
  });

  it("deleting a thread deletes its replies, their reactions and mentions, and nothing else; a reply alone likewise", async () => {
    const thread = await post(comments(space), { body: { markdown: `Ping @${eve.email}` } });
    const replies = `${comments(space)}/${thread.id}/replies`;
    const reply = await ok('POST', replies, 'postCommentReplyInSpace', { user: cora, body: { body: { markdown: `and @${rex.id}` } } });
    await ok('PUT', `${replies}/${reply.id}`, 'updateCommentReplyInSpace', { user: eve, body: { addedReactions: ['👀'] } });
    const other = await ok('POST', replies, 'postCommentReplyInSpace', { user: eve, body: { body: { markdown: 'other' } } });
    await ok('PUT', `${comments(space)}/${thread.id}`, 'updateCommentInSpace', { user: eve, body: { addedReactions: ['👀'] } });

    let before = await databaseFingerprint(server);
    expect((await server.request('DELETE', `${replies}/${reply.id}`, { token: cora.token })).status).toBe(205);
    let after = await databaseFingerprint(server);
    expect(changedTables(before, after)).toEqual({ 'Comment.count': -1, 'CommentMention.count': -1, 'CommentReaction.count': -1 });
    expect((await server.request('DELETE', `${replies}/${reply.id}`, { token: cora.token })).status).toBe(204);

    before = after;
    expect((await server.request('DELETE', `${comments(space)}/${thread.id}`, { token: ada.token })).status).toBe(205);
    after = await databaseFingerprint(server);
    expect(changedTables(before, after)).toEqual({ 'Comment.count': -2, 'CommentMention.count': -1, 'CommentReaction.count': -1 });
    expect(await server.app.db.comment.findUnique({ where: { id: other.id } })).toBeNull();
    expect((await server.request('DELETE', `${replies}/${other.id}`, { token: ada.token })).status).toBe(204);
  });

  it('records mentions of members who may read the space, and refuses the others naming them', async () => {
    const posted = await post(comments(space), { body: { markdown: `Hi @${eve.email.toUpperCase()}, @${rex.id} and @here (not mail@${cora.id}); \`@${ada.id}\`` } });
    const mentioned = await server.app.db.commentMention.findMany({ where: { commentId: posted.id } });
    expect(mentioned.map((m) => m.userId).sort()).toEqual([eve.id, rex.id].sort());
    const inlines = posted.body.document.nodes[0].nodes.filter((n: { object: string }) => n.object === 'inline');
    expect(inlines).toEqual([
      { object: 'inline', type: 'mention', isVoid: true, data: { ref: { kind: 'user', user: eve.id } } },
      { object: 'inline', type: 'mention', isVoid: true, data: { ref: { kind: 'user', user: rex.id } } },
    ]);
    // The Markdown is kept as sent.
    expect((await ok('GET', `${comments(space)}/${posted.id}?format=markdown`, 'getCommentInSpace')).body.markdown).toContain(`@${eve.email.toUpperCase()}`);

    const outsider = await server.createUser('Outsider');
    const before = await databaseFingerprint(server);
    for (const [markdown, message] of [
      [`cc @${gus.email}`, new RegExp(`^body: mentions Gus <${gus.email}> \\(${gus.id}\\), who cannot read`)],
      [`cc @${bob.id} @${outsider.email}`, /^body: mentions Bob <.*>.*, Outsider <.*>.*, who cannot read/],
      ['cc @nobody@example.com', /^body\.markdown: mentions no user with the e-mail "nobody@example.com"$/],
    ] as const) {
      expectError(await server.request('POST', comments(space), { token: ada.token, body: { body: { markdown } } }), 400, message);
    }
    expectError(
      await server.request('POST', comments(space), { token: ada.token, body: { body: { document: { object: 'document', data: {}, nodes: [{ object: 'block', type: 'paragraph', nodes: [{ object: 'inline', type: 'mention', isVoid: true, data: { ref: { kind: 'user', user: 'ghost' } } }] }] } } } }),
      400,
      /^body\.document: mentions no user with the id "ghost"$/,
    );
    expect(await databaseFingerprint(server)).toEqual(before);

    // A grant on the space lets Gus read it: now he may be mentioned, by e-mail or as a document's mention inline.
    await server.app.db.contentGrant.create({ data: { id: newId(), organizationId: org, resourceKind: 'space', resourceId: space, granteeKind: 'user', granteeId: gus.id, role: 'read' } });
    const withGus = await post(comments(space), { body: { markdown: `cc @${gus.email}` } });
    expect((await server.app.db.commentMention.findMany({ where: { commentId: withGus.id } })).map((m) => m.userId)).toEqual([gus.id]);
    const byDocument = await post(comments(space), { body: { document: withGus.body.document } });
    expect((await server.app.db.commentMention.findMany({ where: { commentId: byDocument.id } })).map((m) => m.userId)).toEqual([gus.id]);
    expect((await ok('GET', `${comments(space)}/${byDocument.id}?format=markdown`, 'getCommentInSpace')).body.markdown).toBe(`cc @${gus.id}\n`);
    // Editing the body records its mentions anew.
    await ok('PUT', `${comments(space)}/${withGus.id}`, 'updateCommentInSpace', { body: { body: { markdown: `now @${eve.email}` } } });
    expect((await server.app.db.commentMention.findMany({ where: { commentId: withGus.id } })).map((m) => m.userId)).toEqual([eve.id]);
  });

  it('refuses bad input with a clear 4xx and writes nothing', async () => {
    const thread = await post(comments(space), { body: { markdown: 'Base' } });
    const reply = await ok('POST', `${comments(space)}/${thread.id}/replies`, 'postCommentReplyInSpace', { body: { body: { markdown: 'r' } } });
    const deleted = await post(comments(space), { body: { markdown: 'Deleted' } });
    expect((await server.request('DELETE', `${comments(space)}/${deleted.id}`, { token: ada.token })).status).toBe(205);
    const { changeRequest: otherSpaceCr } = await (async () => {
      const other = (await server.createSpace(ada, org, { title: 'Other' })).id as string;
      return { changeRequest: await changeRequest(other) };
    })();

    const tooBig = 'a'.repeat(MAX_COMMENT_MARKDOWN_BYTES + 1);
    const cases: Array<[string, string, unknown, number, RegExp]> = [
      ['POST', comments(space), {}, 400, /^body: is required$/],
      ['POST', comments(space), { body: {} }, 400, /^body: must not be empty/],
      ['POST', comments(space), { body: { markdown: ' \n\t ' } }, 400, /^body\.markdown: must not be empty$/],
      ['POST', comments(space), { body: { markdown: tooBig } }, 400, /^body\.markdown: the Markdown must be at most 65536 bytes \(64 KiB\), not 65537$/],
      ['POST', comments(space), { body: { markdown: 'x', document: { object: 'document', nodes: [] } } }, 400, /not both/],
      ['POST', comments(space), { body: { document: { nodes: 'no' } } }, 400, /^body\.document: must be a JSON document/],
      ['POST', comments(space), { body: { document: { object: 'document', data: {}, nodes: [] } } }, 400, /^body\.document: must not be empty/],
      ['POST', comments(space), { body: { markdown: 'x' }, node: 'p-intro' }, 400, /^node: needs `page`/],
      ['POST', comments(space), { body: { markdown: 'x' }, tableCell: { record: 'r-basic', definition: 'd-plan' } }, 400, /^tableCell: needs `page`/],
      ['POST', comments(space), { body: { markdown: 'x' }, page: 'nope' }, 400, /^page: no page "nope" in the space's current content$/],
      ['POST', comments(space), { body: { markdown: 'x' }, page: guide, node: 'nope' }, 400, /^node: no node "nope" in the document of page/],
      ['POST', comments(space), { body: { markdown: 'x' }, page: notes, node: 'p-intro' }, 400, /^node: no node "p-intro"/],
      ['POST', comments(space), { body: { markdown: 'x' }, page: guide, tableCell: { record: 'r-basic', definition: 'nope' } }, 400, /^tableCell: no cell of record "r-basic" and definition "nope" in a table/],
      ['POST', comments(space), { body: { markdown: 'x' }, page: guide, node: 'p-intro', tableCell: { record: 'r-basic', definition: 'd-plan' } }, 400, /in table "p-intro"/],
      ['POST', comments(space), { body: { markdown: 'x' }, tableCell: { record: '', definition: 'd' }, page: guide }, 400, /^tableCell\.record: must not be empty$/],
      ['POST', `${comments(space)}/${reply.id}/replies`, { body: { markdown: 'x' } }, 400, /^commentId: ".*" is a reply; a reply goes to the comment that starts the thread/],
      ['POST', `${comments(space)}/${deleted.id}/replies`, { body: { markdown: 'x' } }, 404, /^Comment ".*" not found$/],
      ['POST', `${comments(space)}/nope/replies`, { body: { markdown: 'x' } }, 404, /^Comment "nope" not found$/],
      ['PUT', `${comments(space)}/${deleted.id}`, { resolved: true }, 404, /not found/],
      ['PUT', `${comments(space)}/${thread.id}`, { body: { markdown: '' } }, 400, /^body\.markdown: must not be empty$/],
      ['GET', `${crComments(space, otherSpaceCr.id)}`, undefined, 404, /Change request/],
      ['POST', `${crComments(space, otherSpaceCr.id)}`, { body: { markdown: 'x' } }, 404, /Change request/],
      ['POST', comments('nope'), { body: { markdown: 'x' } }, 404, /Space "nope" not found/],
    ];
    const before = await databaseFingerprint(server);
    for (const [method, path, body, status, message] of cases) {
      expectError(await server.request(method, path, { token: ada.token, body }), status, message);
    }
    // A Markdown over the service's own limits is refused by the converter, naming the field too.
    expectError(await server.request('POST', comments(space), { token: ada.token, body: { body: { markdown: `${'>'.repeat(200)} deep` } } }), 400, /^body\.markdown: /);
    expect(await databaseFingerprint(server)).toEqual(before);
  });

  it('tells when an edit or a merge removed the node a comment is on (the comment stays on its page)', async () => {
    const { space: edited, guide: page } = await spaceWithGuide('Edited');
    const doomed = await post(comments(edited), { body: { markdown: 'On the doomed paragraph' }, page, node: 'p-doomed' });
    const kept = await post(comments(edited), { body: { markdown: 'On the intro' }, page, node: 'p-intro' });
    const cell = await post(comments(edited), { body: { markdown: 'On a cell' }, page, tableCell: { record: 'r-basic', definition: 'd-plan' } });
    const change = await changeRequest(edited, 'Drop a paragraph and the table');
    await edit(edited, change.id, [{ operation: 'update_page', page, document: { document: guideDocument() } }]);
    // Not merged yet: the space's content still has them.
    expect((await ok('GET', `${comments(edited)}/${doomed.id}`, 'getCommentInSpace')).target.node).toEqual({ id: 'p-doomed', removed: false });
    await merge(edited, change.id);

    const list = await ok('GET', `${comments(edited)}?order=asc`, 'listCommentsInSpace');
    expect(list.items.map((c: { target: unknown }) => c.target)).toEqual([
      { space: edited, revision: doomed.target.revision, page: { id: page, removed: false }, node: { id: 'p-doomed', removed: true } },
      { space: edited, revision: kept.target.revision, page: { id: page, removed: false }, node: { id: 'p-intro', removed: false } },
      { space: edited, revision: cell.target.revision, page: { id: page, removed: false }, tableCell: { record: 'r-basic', definition: 'd-plan', removed: true } },
    ]);
    // New comments go on the current content: the node is gone for them.
    expectError(await server.request('POST', comments(edited), { token: ada.token, body: { body: { markdown: 'x' }, page, node: 'p-doomed' } }), 400, /no node "p-doomed"/);
    // A page deleted by a merge: the comment stays, its page is marked removed.
    const drop = await changeRequest(edited, 'Drop the page');
    await edit(edited, drop.id, [{ operation: 'delete_page', page }]);
    await merge(edited, drop.id);
    const gone = await ok('GET', `${comments(edited)}/${kept.id}`, 'getCommentInSpace');
    expect(gone.target).toMatchObject({ page: { id: page, removed: true }, node: { id: 'p-intro', removed: true } });
  });
});

describe('change request comments', () => {
  let space: string;
  let guide: string;
  let cr: { id: string; number: number };
  let draftPage: string;

  beforeAll(async () => {
    ({ space, guide } = await spaceWithGuide('Reviewed'));
    cr = await changeRequest(space, 'Rework the guide');
    draftPage = (await edit(space, cr.id, [{ operation: 'insert_page', title: 'Draft', document: { markdown: 'New page.\n' } }])).changes[0]!.page.id;
  });

  it('serves every endpoint for comments made in a change request, by its id or its number', async () => {
    const base = crComments(space, cr.id);
    const thread = await post(base, { body: { markdown: 'On the new page' }, page: draftPage }, cora, 'postCommentInChangeRequest');
    const crBody = await ok('GET', crPath(space, cr.id), 'getChangeRequestById');
    expect(thread.target).toEqual({ space, changeRequest: cr.id, revision: crBody.revision, page: { id: draftPage, removed: false } });
    expect(thread.urls.location).toBe(`${server.baseUrl}/v1/spaces/${space}/change-requests/${cr.id}/comments/${thread.id}`);
    // The page exists only in the change request: not a target on the space.
    expectError(await server.request('POST', comments(space), { token: cora.token, body: { body: { markdown: 'x' }, page: draftPage } }), 400, /no page/);

    const byNumber = crComments(space, cr.number);
    expect((await ok('GET', `${byNumber}/${thread.id}?format=markdown`, 'getCommentInChangeRequest')).body).toEqual({ markdown: 'On the new page' });
    expect(await server.listIds(rex, base, 'listCommentsInChangeRequest')).toEqual([thread.id]);
    // The space's own list does not hold it, nor does another change request's.
    expect(await server.listIds(rex, comments(space), 'listCommentsInSpace')).not.toContain(thread.id);
    const other = await changeRequest(space, 'Other');
    expectError(await server.request('GET', `${crComments(space, other.id)}/${thread.id}`, { token: ada.token }), 404);
    expectError(await server.request('GET', `${comments(space)}/${thread.id}`, { token: ada.token }), 404);

    const updated = await ok('PUT', `${base}/${thread.id}`, 'updateCommentInChangeRequest', { user: cora, body: { resolved: true, addedReactions: ['✅'], body: { markdown: 'On the new page!' } } });
    expect(updated).toMatchObject({ status: 'resolved', reactions: [{ emoji: '✅', count: 1 }], resolvedBy: { id: cora.id } });

    const replies = `${base}/${thread.id}/replies`;
    const reply = await ok('POST', `${replies}?format=markdown`, 'postCommentReplyInChangeRequest', { user: eve, body: { body: { markdown: 'Agreed' } } });
    expect(reply.body).toEqual({ markdown: 'Agreed' });
    expect(reply.urls.location).toBe(`${server.baseUrl}/v1/spaces/${space}/change-requests/${cr.id}/comments/${thread.id}/replies/${reply.id}`);
    expect((await ok('GET', replies, 'listCommentRepliesInChangeRequest')).items.map((r: { id: string }) => r.id)).toEqual([reply.id]);
    expect((await ok('GET', `${replies}/${reply.id}`, 'getCommentReplyInChangeRequest')).id).toBe(reply.id);
    // `resolved` on a reply (the contract's body allows it there) is not a field of replies: ignored like any unknown field.
    const reacted = await ok('PUT', `${replies}/${reply.id}`, 'updateCommentReplyInChangeRequest', { user: eve, body: { addedReactions: ['🚀'], resolved: true } });
    expect(reacted.reactions.map((r: { emoji: string }) => r.emoji)).toEqual(['🚀']);

    const commenters = await ok('GET', `${crPath(space, cr.id)}/commenters`, 'listCommentersInChangeRequest', { user: rex });
    expect(commenters.items.map((m: { id: string }) => m.id).sort()).toEqual([cora.id, eve.id].sort());
    expect(commenters.items.find((m: { id: string }) => m.id === cora.id)).toMatchObject({ object: 'member', role: 'comment', user: { id: cora.id } });

    expect((await server.request('DELETE', `${replies}/${reply.id}`, { token: eve.token })).status).toBe(205);
    expect((await server.request('DELETE', `${replies}/${reply.id}`, { token: eve.token })).status).toBe(204);
    expect((await server.request('DELETE', `${base}/${thread.id}`, { token: cora.token })).status).toBe(205);
    expect((await server.request('DELETE', `${base}/${thread.id}`, { token: cora.token })).status).toBe(204);
  });

  it('counts open threads per change request, in lists too, and keeps comments readable after the merge', async () => {
    const { space: merged, guide: page } = await spaceWithGuide('Merged');
    const change = await changeRequest(merged, 'To merge');
    const base = crComments(merged, change.id);
    const open = await post(base, { body: { markdown: 'Still open' }, page, node: 'p-doomed' }, cora, 'postCommentInChangeRequest');
    const done = await post(base, { body: { markdown: 'Done' }, page, node: 'p-intro' }, cora, 'postCommentInChangeRequest');
    await ok('PUT', `${base}/${done.id}`, 'updateCommentInChangeRequest', { body: { resolved: true } });
    await post(comments(merged), { body: { markdown: 'On the space' } });
    const list = await ok('GET', `${crPath(merged)}?status=draft`, 'listChangeRequestsForSpace');
    expect(list.items.find((c: { id: string }) => c.id === change.id).comments).toBe(1);
    expect((await ok('GET', `/v1/spaces/${merged}`, 'getSpaceById')).comments).toBe(1);

    // An edit of the change request removes the node: its comment says so, against the change request's content.
    await edit(merged, change.id, [{ operation: 'update_page', page, document: { document: guideDocument('t-plans') } }]);
    expect((await ok('GET', `${base}/${open.id}`, 'getCommentInChangeRequest')).target.node).toEqual({ id: 'p-doomed', removed: true });
    // The space's content still has the node until the merge.
    const onSpace = await post(comments(merged), { body: { markdown: 'x' }, page, node: 'p-doomed' });
    expect(onSpace.target.node.removed).toBe(false);

    await merge(merged, change.id);
    const after = await ok('GET', `${base}?order=asc`, 'listCommentsInChangeRequest', { user: rex });
    expect(after.items.map((c: { id: string; target: { node: unknown } }) => [c.id, c.target.node])).toEqual([
      [open.id, { id: 'p-doomed', removed: true }],
      [done.id, { id: 'p-intro', removed: false }],
    ]);
    expect((await ok('GET', `${base}/${open.id}/replies`, 'listCommentRepliesInChangeRequest')).count).toBe(0);
    // Still a place to discuss: a reply after the merge.
    await ok('POST', `${base}/${open.id}/replies`, 'postCommentReplyInChangeRequest', { user: cora, body: { body: { markdown: 'Merged anyway' } } });
    expect((await ok('GET', crPath(merged, change.id), 'getChangeRequestById')).comments).toBe(1);
    // The merge removed the node from the space too.
    expect((await ok('GET', `${comments(merged)}/${onSpace.id}`, 'getCommentInSpace')).target.node).toEqual({ id: 'p-doomed', removed: true });
  });

  it('is read by readers, posted by commenters; another space’s change request or another organization is 404', async () => {
    const base = crComments(space, cr.id);
    const thread = await post(base, { body: { markdown: 'Question' }, page: guide }, cora, 'postCommentInChangeRequest');
    expect(await server.listIds(rex, base, 'listCommentsInChangeRequest')).toContain(thread.id);
    expectError(await server.request('POST', base, { token: rex.token, body: { body: { markdown: 'x' } } }), 403, /comment:post/);
    for (const user of [gus, bob]) {
      expectError(await server.request('GET', base, { token: user.token }), 404);
      expectError(await server.request('GET', `${base}/${thread.id}`, { token: user.token }), 404);
      expectError(await server.request('DELETE', `${base}/${thread.id}`, { token: user.token }), 404);
      expectError(await server.request('GET', `${comments(space)}`, { token: user.token }), 404);
      expectError(await server.request('GET', `/v1/spaces/${space}/commenters`, { token: user.token }), 404);
    }
    const elsewhere = (await server.createSpace(bob, otherOrg, { title: 'Theirs' })).id as string;
    expectError(await server.request('GET', crComments(elsewhere, cr.id), { token: ada.token }), 404);
  });
});

describe('commenters', () => {
  it('lists the members who posted a thread or a reply, once each, as OrganizationMember', async () => {
    const { space } = await spaceWithGuide('Talked about');
    const thread = await post(comments(space), { body: { markdown: 'One' } }, cora);
    await post(comments(space), { body: { markdown: 'Two' } }, cora);
    await ok('POST', `${comments(space)}/${thread.id}/replies`, 'postCommentReplyInSpace', { user: eve, body: { body: { markdown: 'Three' } } });
    // A comment in a change request is not one of the space's own.
    const change = await changeRequest(space);
    await post(crComments(space, change.id), { body: { markdown: 'Elsewhere' } }, ada, 'postCommentInChangeRequest');
    const paged = await server.pageThrough(rex, `/v1/spaces/${space}/commenters`, 'listCommentersInSpace', 1);
    expect(paged.ids.sort()).toEqual([cora.id, eve.id].sort());
    expect(paged.count).toBe(2);
  });
});

describe("GitBook's client", () => {
  it('drives space and change request comments', async () => {
    const { space, guide } = await spaceWithGuide('Client');
    const api = new GitBookAPI({ authToken: cora.token, endpoint: server.baseUrl });
    const posted = await api.spaces.postCommentInSpace(space, { body: { markdown: 'From the client' }, page: guide, node: 'p-intro' });
    expect(posted.status).toBe(200);
    assertMatchesSpec('postCommentInSpace', 200, posted.data);
    const list = await api.spaces.listCommentsInSpace(space, { authors: [cora.id], status: 'open', format: 'markdown' });
    assertMatchesSpec('listCommentsInSpace', 200, list.data);
    expect(list.data.items.map((c) => [c.id, c.body])).toEqual([[posted.data.id, { markdown: 'From the client' }]]);
    const reply = await api.spaces.postCommentReplyInSpace(space, posted.data.id, { body: { markdown: 'A reply' } });
    assertMatchesSpec('postCommentReplyInSpace', 200, reply.data);
    const updated = await api.spaces.updateCommentInSpace(space, posted.data.id, { resolved: true, addedReactions: ['👍'] });
    assertMatchesSpec('updateCommentInSpace', 200, updated.data);
    expect(updated.data).toMatchObject({ status: 'resolved', replies: 1, reactions: [{ emoji: '👍', count: 1 }] });

    const change = await changeRequest(space);
    const inCr = await api.spaces.postCommentInChangeRequest(space, change.id, { body: { markdown: 'In the change request' } });
    assertMatchesSpec('postCommentInChangeRequest', 200, inCr.data);
    const read = await api.spaces.getCommentInChangeRequest(space, change.id, inCr.data.id, {});
    expect(read.data.target).toMatchObject({ changeRequest: change.id });
    const commenters = await api.spaces.listCommentersInChangeRequest(space, change.id);
    assertMatchesSpec('listCommentersInChangeRequest', 200, commenters.data);
    expect(commenters.data.items.map((m) => m.id)).toEqual([cora.id]);
    const deleted = await api.spaces.deleteCommentInSpace(space, posted.data.id);
    expect(deleted.status).toBe(205);
  });
});

/** The fingerprint entries that changed, as differences of counts (`Comment.count: -2`). */
function changedTables(before: Record<string, string>, after: Record<string, string>): Record<string, number> {
  return Object.fromEntries(Object.keys(after).filter((k) => after[k] !== before[k]).map((k) => [k, Number(after[k]) - Number(before[k])]));
}

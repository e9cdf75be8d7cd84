/**
 * A whole review, driven through GitBook's TypeScript client (`@gitbook/api` 0.146.0) as a review
 * bot or an integration would: the author asks for a reviewer, the reviewer comments on a paragraph
 * of a page in the change request, the author replies, the reviewer reacts and requests changes
 * (with a comment), the author edits, the reviewer approves and resolves the thread, and the change
 * request merges under `require_specific_reviewers`; then everything is read back, the discussion
 * from the merged change request and the content from the space. Every answer is validated against
 * the OpenAPI document. Content edits go through `POST .../content`, which the 0.146.0 client lacks.
 */
import { ChangeRequestReviewStatus, GitBookAPI, GitBookAPIError } from '@gitbook/api';
import { describe, expect, it } from 'vitest';
import { assertMatchesSpec } from '../helpers/openapi.ts';
import { useTestServer, type TestUser } from '../helpers/server.ts';

// Ada: admin (merges); Eve: edit (the author); Rita: review (the reviewer).
const { server, ada, eve, rita } = useTestServer({ users: ['Ada', 'Eve', 'Rita'] });

const api = (user: TestUser) => new GitBookAPI({ authToken: user.token, endpoint: server.baseUrl });

const leaf = (text: string) => ({ object: 'text', leaves: [{ object: 'leaf', text, marks: [] }] });
const paragraph = (key: string, text: string) => ({ object: 'block', type: 'paragraph', key, data: {}, nodes: [leaf(text)] });
const guide = (intro: string) => ({ object: 'document', data: {}, nodes: [paragraph('p-intro', intro), paragraph('p-usage', 'Run it with `npm start`.')] });

async function editContent(user: TestUser, space: string, changeRequest: string, changes: unknown[]) {
  const res = await server.request('POST', `/v1/spaces/${space}/change-requests/${changeRequest}/content?compat=false`, { token: user.token, body: { changes } });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body as { changes: Array<{ page: { id: string } }> };
}

async function failure(call: Promise<unknown>): Promise<GitBookAPIError> {
  const error = await call.then(
    () => new Error('expected the call to fail'),
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(GitBookAPIError);
  return error as GitBookAPIError;
}

describe('a review through GitBook’s client', () => {
  it('requests a reviewer, discusses a paragraph, requests changes, approves the edit, resolves and merges under require_specific_reviewers', async () => {
    const org = await server.createOrg(ada, 'Reviewed docs');
    await server.addMember(org, eve, 'edit');
    await server.addMember(org, rita, 'review');
    const space = (await server.createSpace(ada, org, { title: 'Handbook' })).id as string;
    const rules = await api(ada).spaces.updateSpaceById(space, { mergeRules: { type: 'rules', rules: [{ rule: 'require_specific_reviewers', users: [rita.id] }] } } as never);
    assertMatchesSpec('updateSpaceById', 200, rules.data);

    // The author proposes a page.
    const created = await api(eve).spaces.createChangeRequest(space, { subject: 'A guide' });
    assertMatchesSpec('createChangeRequest', 201, created.data);
    const cr = created.data.id;
    const page = (await editContent(eve, space, cr, [{ operation: 'insert_page', title: 'Guide', document: { document: guide('Start here.') } }])).changes[0]!.page.id;

    // ... and asks Rita to review it.
    const requested = await api(eve).spaces.requestReviewersForChangeRequest(space, cr, { users: [rita.id] });
    assertMatchesSpec('requestReviewersForChangeRequest', 200, requested.data);
    const owed = await api(rita).spaces.getRequestedReviewersByChangeRequestId(space, cr);
    expect(owed.data.items.map((r) => ('user' in r ? r.user.id : null))).toEqual([rita.id]);

    // Rita comments on the introduction paragraph; Eve replies; Rita reacts.
    const thread = await api(rita).spaces.postCommentInChangeRequest(space, cr, { body: { markdown: 'Say what the guide is **for**.' }, page, node: 'p-intro' });
    assertMatchesSpec('postCommentInChangeRequest', 200, thread.data);
    expect(thread.data.target).toMatchObject({ space, changeRequest: cr, page: { id: page }, node: { id: 'p-intro' } });
    const reply = await api(eve).spaces.postCommentReplyInChangeRequest(space, cr, thread.data.id, { body: { markdown: 'Fixing it.' } });
    assertMatchesSpec('postCommentReplyInChangeRequest', 200, reply.data);
    const reacted = await api(rita).spaces.updateCommentInChangeRequest(space, cr, thread.data.id, { addedReactions: ['👀'] });
    assertMatchesSpec('updateCommentInChangeRequest', 200, reacted.data);
    expect(reacted.data.reactions).toMatchObject([{ emoji: '👀', count: 1, users: [{ user: { id: rita.id } }] }]);

    // Rita requests changes, with a comment: the merge is refused.
    const changes = await api(rita).spaces.submitChangeRequestReview(space, cr, { status: ChangeRequestReviewStatus.ChangesRequested, comment: { markdown: 'See my comment on the introduction.' } });
    assertMatchesSpec('submitChangeRequestReview', 201, changes.data);
    expect(changes.data.comment).toMatchObject({ postedBy: { id: rita.id }, target: { review: changes.data.id, changeRequest: cr } });
    expect((await failure(api(ada).spaces.mergeChangeRequest(space, cr))).code).toBe(412);

    // Eve edits the paragraph: the request for changes is outdated, the comment still points at its node.
    await editContent(eve, space, cr, [{ operation: 'update_page', page, document: { document: guide('Start here: this guide is for new maintainers.') } }]);
    const outdated = await api(eve).spaces.getChangeRequestReviewById(space, cr, changes.data.id);
    assertMatchesSpec('getChangeRequestReviewById', 200, outdated.data);
    expect(outdated.data.outdated).toBe(true);

    // Rita approves and resolves the thread; Ada merges.
    const approved = await api(rita).spaces.submitChangeRequestReview(space, cr, { status: ChangeRequestReviewStatus.Approved });
    assertMatchesSpec('submitChangeRequestReview', 201, approved.data);
    const resolved = await api(rita).spaces.updateCommentInChangeRequest(space, cr, thread.data.id, { resolved: true });
    assertMatchesSpec('updateCommentInChangeRequest', 200, resolved.data);
    expect(resolved.data).toMatchObject({ status: 'resolved', resolvedBy: { id: rita.id } });
    const openBefore = await api(eve).spaces.getChangeRequestById(space, cr);
    expect(openBefore.data.comments).toBe(1); // the review's thread is still open
    await server.request('PATCH', `/v1/spaces/${space}/change-requests/${cr}`, { token: eve.token, body: { status: 'open' } });
    const merged = await api(ada).spaces.mergeChangeRequest(space, cr);
    assertMatchesSpec('mergeChangeRequest', 200, merged.data);
    expect(merged.data.result).toBe('merge');

    // Read back: the discussion stays with the merged change request, the edit is in the space.
    const discussion = await api(ada).spaces.listCommentsInChangeRequest(space, cr, { order: 'asc', format: 'markdown' } as never);
    assertMatchesSpec('listCommentsInChangeRequest', 200, discussion.data);
    expect(discussion.data.items.map((c) => [c.id, c.status, c.replies, (c.body as { markdown: string }).markdown.trim()])).toEqual([
      [thread.data.id, 'resolved', 1, 'Say what the guide is **for**.'],
      [changes.data.comment!.id, 'open', 0, 'See my comment on the introduction.'],
    ]);
    expect(discussion.data.items[0]!.target).toMatchObject({ page: { id: page }, node: { id: 'p-intro' } });
    expect((discussion.data.items[0]!.target.node as { removed?: boolean }).removed).toBe(false);
    const replies = await api(ada).spaces.listCommentRepliesInChangeRequest(space, cr, thread.data.id);
    assertMatchesSpec('listCommentRepliesInChangeRequest', 200, replies.data);
    expect(replies.data.items.map((r) => r.postedBy.id)).toEqual([eve.id]);
    const reviews = await api(ada).spaces.getReviewsByChangeRequestId(space, cr);
    expect(reviews.data.items.map((r) => [r.status, r.outdated, r.reviewer.id])).toEqual([
      ['changes-requested', true, rita.id],
      ['approved', false, rita.id],
    ]);
    const commenters = await api(ada).spaces.listCommentersInChangeRequest(space, cr);
    assertMatchesSpec('listCommentersInChangeRequest', 200, commenters.data);
    expect(commenters.data.items.map((m) => m.user.id).sort()).toEqual([eve.id, rita.id].sort());
    const read = await api(ada).spaces.getPageById(space, page, { format: 'markdown' } as never);
    assertMatchesSpec('getPageById', 200, read.data);
    expect(JSON.stringify(read.data)).toContain('this guide is for new maintainers');
  });
});

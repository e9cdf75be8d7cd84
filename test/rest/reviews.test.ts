/**
 * Change request reviews, requested reviewers and contributors over real HTTP: submit, list and
 * read reviews, request and withdraw reviewers, the contributors list, the `requestedReviewer`
 * filter of change request lists, the outdated rule and the merge rules that read it, who may do
 * what, and the bad inputs that must change nothing. Every 2xx body is validated against
 * @gitbook/api's OpenAPI document; a short review runs through GitBook's TypeScript client.
 */
import { ChangeRequestReviewStatus, GitBookAPI, GitBookAPIError } from '@gitbook/api';
import { beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../src/ids.ts';
import { assertMatchesSpec } from '../helpers/openapi.ts';
import { databaseFingerprint } from '../helpers/rest-fixture.ts';
import { expectError, useTestServer, type TestUser } from '../helpers/server.ts';

// Ada: admin; Eve: edit; Rita and Rob: review; Rex: read; Gus: a guest; Mallory: another organization's admin.
const { server, ada, eve, rita, rob, rex, gus, mallory } = useTestServer({ users: ['Ada', 'Eve', 'Rita', 'Rob', 'Rex', 'Gus', 'Mallory'] });
let org: string;
let otherOrg: string;

beforeAll(async () => {
  org = await server.createOrg(ada);
  await server.addMember(org, eve, 'edit');
  await server.addMember(org, rita, 'review');
  await server.addMember(org, rob, 'review');
  await server.addMember(org, rex, 'read');
  await server.addMember(org, gus, null);
  otherOrg = await server.createOrg(mallory);
});

async function ok(method: string, path: string, operationId: string, options: { token?: string; body?: unknown; status?: number } = {}) {
  const res = await server.request(method, path, { token: options.token ?? ada.token, body: options.body });
  expect(res.status, `${method} ${path}: ${JSON.stringify(res.body)}`).toBe(options.status ?? 200);
  if (res.status !== 204 && res.status !== 205) assertMatchesSpec(operationId, res.status, res.body);
  return res;
}

const crPath = (space: string, id: string) => `/v1/spaces/${space}/change-requests/${id}`;

async function newSpace(title = 'Docs', owner: TestUser = ada, organizationId = org): Promise<string> {
  return (await server.createSpace(owner, organizationId, { title })).id;
}

/** A change request of `author`'s on `space`, with one page committed. */
async function newChangeRequest(space: string, author: TestUser = eve, subject = 'Edits'): Promise<{ id: string; revision: string }> {
  const created = await ok('POST', `/v1/spaces/${space}/change-requests`, 'createChangeRequest', { token: author.token, body: { subject }, status: 201 });
  await commit(space, created.body.id, author, 'First page');
  return { id: created.body.id, revision: await revisionOf(space, created.body.id) };
}

/** Commits a new page to the change request as `user` (a new revision). */
async function commit(space: string, id: string, user: TestUser, title: string) {
  const res = await server.request('POST', `${crPath(space, id)}/content`, {
    token: user.token,
    body: { changes: [{ operation: 'insert_page', title, document: { markdown: `About ${title}.` } }] },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
}

async function revisionOf(space: string, id: string): Promise<string> {
  return (await ok('GET', crPath(space, id), 'getChangeRequestById')).body.revision;
}

const review = (space: string, id: string, user: TestUser, status: 'approved' | 'changes-requested') =>
  ok('POST', `${crPath(space, id)}/reviews`, 'submitChangeRequestReview', { token: user.token, body: { status }, status: 201 });

const requestReviewers = (space: string, id: string, users: string[], by: TestUser = ada, extra: Record<string, unknown> = {}) =>
  ok('POST', `${crPath(space, id)}/requested-reviewers`, 'requestReviewersForChangeRequest', { token: by.token, body: { users, ...extra } });

async function reviewsOf(space: string, id: string, query = ''): Promise<any[]> {
  return (await ok('GET', `${crPath(space, id)}/reviews${query}`, 'getReviewsByChangeRequestId')).body.items;
}

async function requestedOf(space: string, id: string): Promise<any[]> {
  return (await ok('GET', `${crPath(space, id)}/requested-reviewers`, 'getRequestedReviewersByChangeRequestId')).body.items;
}

describe('reviews and requested reviewers', () => {
  it('requests a reviewer, who reviews: the review carries the request, the request is answered, Location names the review', async () => {
    const space = await newSpace();
    const cr = await newChangeRequest(space);
    const requested = await requestReviewers(space, cr.id, [rita.id]);
    expect(requested.body.users).toMatchObject([
      { object: 'change-request-requested-reviewer', kind: 'user', user: { id: rita.id }, requestedBy: { id: ada.id }, revision: cr.revision },
    ]);
    const pending = await requestedOf(space, cr.id);
    expect(pending.map((r) => r.user.id)).toEqual([rita.id]);

    const submitted = await review(space, cr.id, rita, 'approved');
    const location = `${server.baseUrl}/v1/spaces/${space}/change-requests/${cr.id}/reviews/${submitted.body.id}`;
    expect(submitted.headers.get('location')).toBe(location);
    expect(submitted.body).toMatchObject({
      object: 'change-request-review',
      status: 'approved',
      revision: cr.revision,
      reviewer: { id: rita.id },
      requestedBy: { id: ada.id },
      outdated: false,
      urls: { location },
    });
    expect(await requestedOf(space, cr.id)).toEqual([]);

    const listed = await reviewsOf(space, cr.id);
    expect(listed).toEqual([submitted.body]);
    const got = await ok('GET', `${crPath(space, cr.id)}/reviews/${submitted.body.id}`, 'getChangeRequestReviewById', { token: rex.token });
    expect(got.body).toEqual(submitted.body);
    // By number too, as every change request path.
    const number = (await ok('GET', crPath(space, cr.id), 'getChangeRequestById')).body.number;
    expect((await ok('GET', `${crPath(space, String(number))}/reviews/${submitted.body.id}`, 'getChangeRequestReviewById')).body.id).toBe(submitted.body.id);

    // A review without a request has no requester.
    const unrequested = await review(space, cr.id, rob, 'changes-requested');
    expect(unrequested.body.requestedBy).toBeUndefined();
  });

  it('requesting again renews the request (requester, revision, time); DELETE withdraws it (205), then finds none (204)', async () => {
    const space = await newSpace();
    const cr = await newChangeRequest(space);
    const first = (await requestReviewers(space, cr.id, [rita.id, rob.id, rita.id])).body.users;
    expect(first.map((r: any) => r.user.id)).toEqual([rita.id, rob.id]);
    await commit(space, cr.id, eve, 'Second page');
    const again = (await requestReviewers(space, cr.id, [rita.id], eve)).body.users;
    expect(again).toHaveLength(1);
    expect(again[0]).toMatchObject({ user: { id: rita.id }, requestedBy: { id: eve.id }, revision: await revisionOf(space, cr.id) });
    expect(Date.parse(again[0].createdAt)).toBeGreaterThanOrEqual(Date.parse(first[0].createdAt));
    const pending = await requestedOf(space, cr.id);
    expect(pending.map((r) => [r.user.id, r.requestedBy.id])).toEqual([
      [rob.id, ada.id],
      [rita.id, eve.id],
    ]);

    const removed = await server.request('DELETE', `${crPath(space, cr.id)}/requested-reviewers/${rob.id}`, { token: eve.token });
    expect(removed.status).toBe(205);
    expect(removed.body).toBeNull();
    const again204 = await server.request('DELETE', `${crPath(space, cr.id)}/requested-reviewers/${rob.id}`, { token: eve.token });
    expect(again204.status).toBe(204);
    expect((await requestedOf(space, cr.id)).map((r) => r.user.id)).toEqual([rita.id]);
  });

  it('updates the subject and description with the request, checked as PATCH checks them', async () => {
    const space = await newSpace();
    const cr = await newChangeRequest(space);
    const description = { object: 'document', data: {}, nodes: [{ object: 'block', type: 'paragraph', data: {}, nodes: [{ object: 'text', leaves: [{ object: 'leaf', text: 'Please look', marks: [] }] }] }] };
    await requestReviewers(space, cr.id, [rita.id], eve, { subject: 'Ready', description });
    const after = (await ok('GET', crPath(space, cr.id), 'getChangeRequestById')).body;
    expect(after).toMatchObject({ subject: 'Ready', description: { object: 'document' } });

    const before = await databaseFingerprint(server);
    const path = `${crPath(space, cr.id)}/requested-reviewers`;
    expectError(await server.request('POST', path, { token: ada.token, body: { users: [rob.id], subject: 's'.repeat(101) } }), 400, /^subject: /);
    expectError(await server.request('POST', path, { token: ada.token, body: { users: [rob.id], description: { nodes: 'none' } } }), 400, /^description: /);
    expect(await databaseFingerprint(server)).toEqual(before);
  });

  it('paginates reviews and requested reviewers', async () => {
    const space = await newSpace();
    const cr = await newChangeRequest(space);
    await requestReviewers(space, cr.id, [rita.id, rob.id, ada.id]);
    for (const [user, status] of [[rita, 'approved'], [rob, 'changes-requested'], [rob, 'approved']] as const) await review(space, cr.id, user, status);
    const reviews = await server.pageThrough(ada, `${crPath(space, cr.id)}/reviews`, 'getReviewsByChangeRequestId', 2);
    expect(reviews).toMatchObject({ pages: 2, count: 3 });
    expect(reviews.ids).toEqual((await reviewsOf(space, cr.id)).map((r) => r.id));
    await requestReviewers(space, cr.id, [rita.id, rob.id]);
    const requested = await server.pageThrough(ada, `${crPath(space, cr.id)}/requested-reviewers`, 'getRequestedReviewersByChangeRequestId', 2);
    expect(requested).toMatchObject({ pages: 2, count: 3 });
  });
});

describe('who may review and request', () => {
  let space: string;
  let cr: { id: string; revision: string };

  beforeAll(async () => {
    space = await newSpace('Permissions');
    cr = await newChangeRequest(space);
  });

  it('a reader reads reviews but cannot review nor request; an editor requests but cannot review; the author cannot review', async () => {
    await ok('GET', `${crPath(space, cr.id)}/reviews`, 'getReviewsByChangeRequestId', { token: rex.token });
    await ok('GET', `${crPath(space, cr.id)}/requested-reviewers`, 'getRequestedReviewersByChangeRequestId', { token: rex.token });
    await ok('GET', `${crPath(space, cr.id)}/contributors`, 'getContributorsByChangeRequestId', { token: rex.token });
    const otherCr = await newChangeRequest(space, rita, 'By Rita');
    const before = await databaseFingerprint(server);
    expectError(await server.request('POST', `${crPath(space, cr.id)}/reviews`, { token: rex.token, body: { status: 'approved' } }), 403, /change-request:review/);
    expectError(await server.request('POST', `${crPath(space, cr.id)}/requested-reviewers`, { token: rex.token, body: { users: [rita.id] } }), 403, /change-request:request-review/);
    expectError(await server.request('DELETE', `${crPath(space, cr.id)}/requested-reviewers/${rita.id}`, { token: rex.token }), 403, /change-request:request-review/);
    expectError(await server.request('POST', `${crPath(space, otherCr.id)}/reviews`, { token: eve.token, body: { status: 'approved' } }), 403, /change-request:review/);
    // Rita may review, but not the change request she wrote.
    expectError(await server.request('POST', `${crPath(space, otherCr.id)}/reviews`, { token: rita.token, body: { status: 'approved' } }), 409, /author/);
    expect(await databaseFingerprint(server)).toEqual(before);
    // An editor asks for reviews.
    await requestReviewers(space, otherCr.id, [rob.id], eve);
  });

  it('another organization sees nothing: 404 on every route', async () => {
    const routes: Array<[string, string, unknown]> = [
      ['GET', `${crPath(space, cr.id)}/reviews`, undefined],
      ['POST', `${crPath(space, cr.id)}/reviews`, { status: 'approved' }],
      ['GET', `${crPath(space, cr.id)}/requested-reviewers`, undefined],
      ['POST', `${crPath(space, cr.id)}/requested-reviewers`, { users: [rita.id] }],
      ['DELETE', `${crPath(space, cr.id)}/requested-reviewers/${rita.id}`, undefined],
      ['GET', `${crPath(space, cr.id)}/contributors`, undefined],
    ];
    await server.expectErrors(routes, mallory.token, 404);
  });
});

describe('bad input', () => {
  let space: string;
  let cr: { id: string; revision: string };
  let submitted: string;

  beforeAll(async () => {
    space = await newSpace('Bad input');
    cr = await newChangeRequest(space);
    submitted = (await review(space, cr.id, rita, 'approved')).body.id;
  });

  it('refuses reviewers who cannot review, naming every one, and writes nothing', async () => {
    const path = `${crPath(space, cr.id)}/requested-reviewers`;
    const before = await databaseFingerprint(server);
    const unknown = newId();
    const refused = await server.request('POST', path, { token: ada.token, body: { users: [rob.id, unknown, mallory.id, rex.id, gus.id, eve.id] } });
    expectError(refused, 400);
    const message: string = refused.body.error.message;
    expect(message).toContain(`no user with the id "${unknown}"`);
    expect(message).toContain(`"${mallory.id}" is not a member of the organization`);
    expect(message).toContain(`"${rex.id}" may not review change requests of this space`);
    expect(message).toContain(`"${gus.id}" may not review change requests of this space`);
    expect(message).toContain(`"${eve.id}" is the author of the change request`);
    expect(message).not.toContain(rob.id);
    expectError(await server.request('POST', path, { token: ada.token, body: { users: [] } }), 400, /^users: /);
    expectError(await server.request('POST', path, { token: ada.token, body: {} }), 400, /users/);
    expectError(await server.request('POST', path, { token: ada.token, body: { users: 'rita' } }), 400, /users/);
    expect(await databaseFingerprint(server)).toEqual(before);
    expect(await requestedOf(space, cr.id)).toEqual([]);
  });

  it('a grant of the review role on the space makes a member a reviewer of it', async () => {
    const granted = await newSpace('Granted');
    const grantedCr = await newChangeRequest(granted);
    const path = `${crPath(granted, grantedCr.id)}/requested-reviewers`;
    expectError(await server.request('POST', path, { token: ada.token, body: { users: [rex.id] } }), 400, /may not review/);
    await server.app.db.contentGrant.create({
      data: { id: newId(), organizationId: org, resourceKind: 'space', resourceId: granted, granteeKind: 'user', granteeId: rex.id, role: 'review' },
    });
    await requestReviewers(granted, grantedCr.id, [rex.id]);
    // The grant is on that space only.
    expectError(await server.request('POST', `${crPath(space, cr.id)}/requested-reviewers`, { token: ada.token, body: { users: [rex.id] } }), 400, /may not review/);
  });

  it('a change request or review that is not there, or of another space or change request, is not found', async () => {
    const otherSpace = await newSpace('Elsewhere');
    const otherCr = await newChangeRequest(otherSpace);
    const before = await databaseFingerprint(server);
    expectError(await server.request('GET', `${crPath(space, otherCr.id)}/reviews`, { token: ada.token }), 404);
    expectError(await server.request('POST', `${crPath(space, otherCr.id)}/reviews`, { token: rita.token, body: { status: 'approved' } }), 404);
    expectError(await server.request('POST', `${crPath(space, otherCr.id)}/requested-reviewers`, { token: ada.token, body: { users: [rita.id] } }), 404);
    expectError(await server.request('GET', `${crPath(space, otherCr.id)}/contributors`, { token: ada.token }), 404);
    expectError(await server.request('GET', `${crPath(space, cr.id)}/reviews/${newId()}`, { token: ada.token }), 404, /Review/);
    expectError(await server.request('GET', `${crPath(otherSpace, otherCr.id)}/reviews/${submitted}`, { token: ada.token }), 404, /Review/);
    expectError(await server.request('POST', `${crPath(space, cr.id)}/reviews`, { token: rita.token, body: { status: 'lgtm' } }), 400, /^status: /);
    expectError(await server.request('GET', `${crPath(space, cr.id)}/reviews?outdated=maybe`, { token: ada.token }), 400, /^outdated: /);
    expect(await databaseFingerprint(server)).toEqual(before);
  });

  it('a merged or archived change request takes no review and no request (409)', async () => {
    const archived = await newChangeRequest(space, eve, 'Shelved');
    await ok('PATCH', crPath(space, archived.id), 'updateChangeRequestById', { body: { status: 'archived' } });
    const merged = await newChangeRequest(space, eve, 'Shipped');
    await requestReviewers(space, merged.id, [rita.id]);
    await ok('POST', `${crPath(space, merged.id)}/merge`, 'mergeChangeRequest');
    const before = await databaseFingerprint(server);
    for (const id of [archived.id, merged.id]) {
      expectError(await server.request('POST', `${crPath(space, id)}/reviews`, { token: rita.token, body: { status: 'approved' } }), 409);
      expectError(await server.request('POST', `${crPath(space, id)}/requested-reviewers`, { token: ada.token, body: { users: [rob.id] } }), 409);
    }
    expectError(await server.request('DELETE', `${crPath(space, merged.id)}/requested-reviewers/${rita.id}`, { token: ada.token }), 409);
    expect(await databaseFingerprint(server)).toEqual(before);
    // What was there stays readable.
    expect((await requestedOf(space, merged.id)).map((r) => r.user.id)).toEqual([rita.id]);
  });
});

describe('the outdated rule and the merge rules', () => {
  async function spaceRequiring(users: string[]) {
    const space = await newSpace('Rules');
    await ok('PATCH', `/v1/spaces/${space}`, 'updateSpaceById', { body: { mergeRules: { type: 'rules', rules: [{ rule: 'require_specific_reviewers', users }] } } });
    return space;
  }
  const merge = (space: string, id: string) => server.request('POST', `${crPath(space, id)}/merge`, { token: ada.token });

  it('a commit after an approval outdates it: the merge waits for a new approval of the new revision', async () => {
    const space = await spaceRequiring([rita.id]);
    const cr = await newChangeRequest(space);
    const approval = (await review(space, cr.id, rita, 'approved')).body;
    await commit(space, cr.id, eve, 'Late change');
    const [stale] = await reviewsOf(space, cr.id);
    expect(stale).toMatchObject({ id: approval.id, outdated: true, revision: cr.revision });
    expect((await reviewsOf(space, cr.id, '?outdated=true')).map((r) => r.id)).toEqual([approval.id]);
    expect(await reviewsOf(space, cr.id, '?outdated=false')).toEqual([]);
    expectError(await merge(space, cr.id), 412, new RegExp(`approval of ${rita.id}`));

    const again = (await review(space, cr.id, rita, 'approved')).body;
    expect(again).toMatchObject({ outdated: false, revision: await revisionOf(space, cr.id) });
    const merged = await merge(space, cr.id);
    expect(merged.status, JSON.stringify(merged.body)).toBe(200);
    expect(merged.body.result).toBe('merge');
  });

  it('requesting a reviewer again outdates their review; their newer review supersedes the older one', async () => {
    const space = await spaceRequiring([rita.id]);
    const cr = await newChangeRequest(space);
    const first = (await review(space, cr.id, rita, 'approved')).body;
    await requestReviewers(space, cr.id, [rita.id], eve);
    expect((await reviewsOf(space, cr.id)).map((r) => [r.id, r.outdated])).toEqual([[first.id, true]]);
    expectError(await merge(space, cr.id), 412, new RegExp(rita.id));
    // The requested reviewer filter finds it while Rita owes a review.
    const waiting = await ok('GET', `/v1/spaces/${space}/change-requests?status=draft&requestedReviewer=${rita.id}`, 'listChangeRequestsForSpace');
    expect(waiting.body.items.map((c: any) => c.id)).toEqual([cr.id]);

    const second = (await review(space, cr.id, rita, 'changes-requested')).body;
    expect(second.requestedBy.id).toBe(eve.id);
    const third = (await review(space, cr.id, rita, 'approved')).body;
    expect((await reviewsOf(space, cr.id)).map((r) => [r.id, r.outdated])).toEqual([
      [first.id, true],
      [second.id, true],
      [third.id, false],
    ]);
    expect(third.requestedBy).toBeUndefined();
    const none = await ok('GET', `/v1/spaces/${space}/change-requests?status=draft&requestedReviewer=${rita.id}`, 'listChangeRequestsForSpace');
    expect(none.body.items).toEqual([]);
    expect((await merge(space, cr.id)).status).toBe(200);
  });

  it('require_all_reviews_approved reads only reviews that count', async () => {
    const space = await newSpace('All approved');
    await ok('PATCH', `/v1/spaces/${space}`, 'updateSpaceById', { body: { mergeRules: { type: 'rules', rules: [{ rule: 'require_all_reviews_approved' }] } } });
    const cr = await newChangeRequest(space);
    await review(space, cr.id, rob, 'changes-requested');
    expectError(await merge(space, cr.id), 412, /every review must approve/);
    await review(space, cr.id, rob, 'approved');
    expect((await merge(space, cr.id)).status).toBe(200);
  });
});

describe('the requestedReviewer filter', () => {
  it('lists the change requests awaiting a user\'s review, in a space and across the organization', async () => {
    const space = await newSpace('Filter');
    const [a, b, c] = [await newChangeRequest(space, eve, 'A'), await newChangeRequest(space, eve, 'B'), await newChangeRequest(space, eve, 'C')];
    await requestReviewers(space, a.id, [rita.id]);
    await requestReviewers(space, b.id, [rita.id, rob.id]);
    await requestReviewers(space, c.id, [rob.id]);
    const ids = async (path: string, operationId: string) => (await ok('GET', path, operationId)).body.items.map((x: any) => x.id).sort();
    expect(await ids(`/v1/spaces/${space}/change-requests?status=draft&requestedReviewer=${rita.id}`, 'listChangeRequestsForSpace')).toEqual([a.id, b.id].sort());
    expect(await ids(`/v1/spaces/${space}/change-requests?status=draft&requestedReviewer=${rob.id}`, 'listChangeRequestsForSpace')).toEqual([b.id, c.id].sort());
    const acrossOrg = await ids(`/v1/orgs/${org}/change-requests?status=draft&requestedReviewer=${rob.id}&limit=1000`, 'listChangeRequestsForOrganization');
    expect(acrossOrg).toEqual(expect.arrayContaining([b.id, c.id]));
    expect(acrossOrg).not.toContain(a.id);
    await server.request('DELETE', `${crPath(space, b.id)}/requested-reviewers/${rob.id}`, { token: ada.token });
    await review(space, c.id, rob, 'approved');
    expect(await ids(`/v1/spaces/${space}/change-requests?status=draft&requestedReviewer=${rob.id}`, 'listChangeRequestsForSpace')).toEqual([]);
    expect(await ids(`/v1/spaces/${space}/change-requests?status=draft&requestedReviewer=${rita.id}&creator=${eve.id}`, 'listChangeRequestsForSpace')).toEqual(
      [a.id, b.id].sort(),
    );
  });
});

describe('contributors', () => {
  it('lists each user once per kind: edits with their commit count, comments with their count, the latest first', async () => {
    const space = await newSpace('Contributors');
    const cr = await newChangeRequest(space, eve);
    await commit(space, cr.id, eve, 'Two');
    await commit(space, cr.id, eve, 'Three');
    await commit(space, cr.id, ada, 'Four');
    // Comment threads and replies posted in the change request (rows as the comment service writes them).
    const revision = await revisionOf(space, cr.id);
    const comment = (authorId: string, parentId: string | null, postedAt: Date) => ({
      id: newId(),
      spaceId: space,
      changeRequestId: cr.id,
      parentId,
      authorId,
      body: { object: 'document', data: {}, nodes: [] },
      markdown: 'Looks good',
      revisionId: revision,
      postedAt,
    });
    const later = new Date(Date.now() + 60_000);
    const thread = comment(rita.id, null, new Date(Date.now() - 60_000));
    await server.app.db.comment.create({ data: thread });
    await server.app.db.comment.create({ data: comment(rita.id, thread.id, later) });
    await server.app.db.comment.create({ data: comment(eve.id, thread.id, new Date(Date.now() - 30_000)) });
    // A comment on the space's own content is no contribution to the change request.
    await server.app.db.comment.create({ data: { ...comment(rob.id, null, later), changeRequestId: null } });

    const list = (await ok('GET', `${crPath(space, cr.id)}/contributors`, 'getContributorsByChangeRequestId')).body;
    expect(list.count).toBe(4);
    expect(list.items.map((c: any) => [c.actionType, c.user.id, c.count])).toEqual([
      ['comment', rita.id, 2],
      ['edit', ada.id, 1],
      ['edit', eve.id, 3],
      ['comment', eve.id, 1],
    ]);
    expect(list.items[0].updatedAt).toBe(later.toISOString());
    const pages = await server.pageThrough(ada, `${crPath(space, cr.id)}/contributors`, 'getContributorsByChangeRequestId', 3);
    expect(pages).toMatchObject({ pages: 2, count: 4 });
  });
});

describe("GitBook's TypeScript client", () => {
  it('requests a reviewer, who asks for changes, then approves the new revision; the change request merges under require_specific_reviewers', async () => {
    const api = (user: TestUser) => new GitBookAPI({ authToken: user.token, endpoint: server.baseUrl });
    const space = await newSpace('Client review');
    await ok('PATCH', `/v1/spaces/${space}`, 'updateSpaceById', { body: { mergeRules: { type: 'rules', rules: [{ rule: 'require_specific_reviewers', users: [rita.id] }] } } });
    const cr = await newChangeRequest(space, eve, 'Client');

    const requested = await api(eve).spaces.requestReviewersForChangeRequest(space, cr.id, { users: [rita.id], subject: 'Please review' });
    expect(requested.status).toBe(200);
    assertMatchesSpec('requestReviewersForChangeRequest', 200, requested.data);
    const waiting = await api(rita).spaces.getRequestedReviewersByChangeRequestId(space, cr.id);
    assertMatchesSpec('getRequestedReviewersByChangeRequestId', 200, waiting.data);
    expect(waiting.data.items.map((r) => ('user' in r ? r.user.id : null))).toEqual([rita.id]);

    const changes = await api(rita).spaces.submitChangeRequestReview(space, cr.id, { status: ChangeRequestReviewStatus.ChangesRequested });
    expect(changes.status).toBe(201);
    assertMatchesSpec('submitChangeRequestReview', 201, changes.data);
    const refused = await api(ada).spaces.mergeChangeRequest(space, cr.id).then(
      () => null,
      (e: unknown) => e,
    );
    expect(refused).toBeInstanceOf(GitBookAPIError);
    expect((refused as GitBookAPIError).code).toBe(412);

    await commit(space, cr.id, eve, 'Fixed');
    const approved = await api(rita).spaces.submitChangeRequestReview(space, cr.id, { status: ChangeRequestReviewStatus.Approved });
    const reviews = await api(eve).spaces.getReviewsByChangeRequestId(space, cr.id);
    assertMatchesSpec('getReviewsByChangeRequestId', 200, reviews.data);
    expect(reviews.data.items.map((r) => [r.status, r.outdated])).toEqual([
      ['changes-requested', true],
      ['approved', false],
    ]);
    const one = await api(eve).spaces.getChangeRequestReviewById(space, cr.id, approved.data.id);
    assertMatchesSpec('getChangeRequestReviewById', 200, one.data);
    expect(one.data.reviewer.id).toBe(rita.id);
    const contributors = await api(eve).spaces.getContributorsByChangeRequestId(space, cr.id);
    assertMatchesSpec('getContributorsByChangeRequestId', 200, contributors.data);
    expect(contributors.data.items).toMatchObject([{ actionType: 'edit', count: 2, user: { id: eve.id } }]);

    const merged = await api(ada).spaces.mergeChangeRequest(space, cr.id);
    expect(merged.data.result).toBe('merge');
    const removed = await api(ada).spaces.removeRequestedReviewerFromChangeRequest(space, cr.id, rob.id).then(
      () => null,
      (e: unknown) => e,
    );
    expect((removed as GitBookAPIError).code).toBe(409);
  });
});

describe('reviewers of another organization', () => {
  it('are not members of this one', async () => {
    const theirSpace = await newSpace('Theirs', mallory, otherOrg);
    const theirCr = await ok('POST', `/v1/spaces/${theirSpace}/change-requests`, 'createChangeRequest', { token: mallory.token, body: { subject: 'x' }, status: 201 });
    expectError(await server.request('POST', `${crPath(theirSpace, theirCr.body.id)}/requested-reviewers`, { token: mallory.token, body: { users: [rita.id] } }), 400, /not a member/);
  });
});

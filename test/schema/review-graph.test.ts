/**
 * Reviews in GraphQL: a list of change requests with their reviews (outdated computed),
 * requested reviewers and contributors costs the same number of SQL statements for 3 change
 * requests as for 12, and the review mutations answer GraphQL callers as REST's.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../src/ids.ts';
import { useTestServer, type TestUser } from '../helpers/server.ts';

const { server, ada, eve, rita, rob } = useTestServer({ users: ['Ada', 'Eve', 'Rita', 'Rob'] }); // admin, edit, review, review
let org: string;

beforeAll(async () => {
  org = await server.createOrg(ada);
  await server.addMember(org, eve, 'edit');
  await server.addMember(org, rita, 'review');
  await server.addMember(org, rob, 'review');
});

async function gql<T = any>(query: string, user: TestUser, variables: Record<string, unknown> = {}) {
  return (await server.graphql<T>(query, { token: user.token, variables })).body;
}

/**
 * A space with `count` open change requests of Eve's, each with two reviews of Rita's (the first
 * outdated by the second), one of Rob's on an older revision, a pending request for Rob, an edit
 * contribution and a comment of Rita's.
 */
async function seed(count: number): Promise<string> {
  const space = await server.createSpace(ada, org, { title: `Reviews ${count}` });
  const db = server.app.db;
  const old = space.revision as string;
  for (let i = 0; i < count; i++) {
    const id = newId();
    await db.changeRequest.create({
      data: { id, spaceId: space.id, number: i + 1, status: 'open', subject: `CR ${i}`, createdById: eve.id, revisionId: old, revisionInitialId: old },
    });
    const at = (s: number) => new Date(Date.UTC(2025, 0, 1, 0, i, s));
    await db.changeRequestReview.createMany({
      data: [
        { id: newId(), changeRequestId: id, reviewerId: rita.id, status: 'changes-requested', revisionId: old, createdAt: at(1), updatedAt: at(1) },
        { id: newId(), changeRequestId: id, reviewerId: rita.id, status: 'approved', revisionId: old, requestedById: eve.id, createdAt: at(2), updatedAt: at(2) },
        { id: newId(), changeRequestId: id, reviewerId: rob.id, status: 'approved', revisionId: 'an-older-revision', createdAt: at(3), updatedAt: at(3) },
      ],
    });
    await db.changeRequestReviewRequest.create({ data: { changeRequestId: id, reviewerId: rob.id, requestedById: ada.id, revisionId: old, createdAt: at(4) } });
    await db.changeRequestContributor.create({ data: { changeRequestId: id, userId: eve.id, count: 2 } });
    await db.comment.create({
      data: { id: newId(), spaceId: space.id, changeRequestId: id, authorId: rita.id, body: {}, markdown: 'Nice', revisionId: old, postedAt: at(5) },
    });
  }
  return space.id;
}

const listQuery = `query($space: ID!) {
  spaceChangeRequests(spaceId: $space, limit: 100) {
    items {
      id
      reviews { count items { object id status outdated revision createdAt updatedAt reviewer { id displayName } requestedBy { id } urls { location } } }
      current: reviews(outdated: false) { items { id } }
      requestedReviewers { count items { object kind revision createdAt user { id } requestedBy { id } } }
      contributors { count items { actionType count updatedAt user { id } } }
    }
  }
}`;

describe('a list of change requests with their reviews', () => {
  it('answers reviews with `outdated`, requested reviewers and contributors', async () => {
    const space = await seed(2);
    const body = await gql(listQuery, ada, { space });
    expect(body.errors).toBeUndefined();
    const [first] = body.data.spaceChangeRequests.items;
    expect(first.reviews.count).toBe(3);
    expect(first.reviews.items.map((r: any) => [r.reviewer.id, r.status, r.outdated])).toEqual([
      [rita.id, 'changes-requested', true],
      [rita.id, 'approved', false],
      [rob.id, 'approved', true],
    ]);
    expect(first.reviews.items[1].requestedBy).toEqual({ id: eve.id });
    expect(first.reviews.items[0].requestedBy).toBeNull();
    expect(first.reviews.items[0].urls.location).toBe(`${server.baseUrl}/v1/spaces/${space}/change-requests/${first.id}/reviews/${first.reviews.items[0].id}`);
    expect(first.current.items.map((r: any) => r.id)).toEqual([first.reviews.items[1].id]);
    expect(first.requestedReviewers).toMatchObject({ count: 1, items: [{ object: 'change-request-requested-reviewer', kind: 'user', user: { id: rob.id }, requestedBy: { id: ada.id } }] });
    expect(first.contributors.items.map((c: any) => [c.actionType, c.user.id, c.count])).toEqual([
      ['edit', eve.id, 2],
      ['comment', rita.id, 1],
    ]);
  });

  it('costs the same statements for 3 change requests as for 12', async () => {
    const small = await seed(3);
    const large = await seed(12);
    // A caller whose token and membership are first used by the warm-up below: those uses are written then
    // (at most once a minute), never during the measured requests, whenever the minute turns.
    const counter = await server.createUser('Counter');
    await server.addMember(org, counter, 'admin');
    const run = (space: string) => async () => {
      const body = await gql(listQuery, counter, { space });
      expect(body.errors).toBeUndefined();
      return body.data.spaceChangeRequests.items.length;
    };
    // Each once unmeasured: what a first request writes (token use, last seen) or caches stays out of the counts.
    await run(small)();
    await run(large)();
    const forSmall = await server.countStatements(run(small));
    const forLarge = await server.countStatements(run(large));
    expect([forSmall.result, forLarge.result]).toEqual([3, 12]);
    expect(forLarge.statements, `${forSmall.statements} statements for 3, ${forLarge.statements} for 12`).toBe(forSmall.statements);
    // The caller, the space, the page of change requests; reviews, requests and change requests; edits and comments; the users.
    expect(forLarge.statements).toBeLessThanOrEqual(10);
  });
});

describe('review mutations', () => {
  it('request, review and withdraw through GraphQL; unauthenticated, forbidden and not found as REST', async () => {
    const space = (await server.createSpace(ada, org, { title: 'Mutations' })).id;
    const created = await gql(`mutation($space: ID!) { createChangeRequest(spaceId: $space, input: { subject: "GraphQL" }) { id } }`, eve, { space });
    const cr = created.data.createChangeRequest.id;
    const request = `mutation($space: ID!, $cr: String!, $users: [String!]!) {
      requestReviewers(spaceId: $space, changeRequestId: $cr, input: { users: $users }) { users { user { id } requestedBy { id } } }
    }`;
    const requested = await gql(request, eve, { space, cr, users: [rita.id, rob.id] });
    expect(requested.errors).toBeUndefined();
    expect(requested.data.requestReviewers.users).toEqual([
      { user: { id: rita.id }, requestedBy: { id: eve.id } },
      { user: { id: rob.id }, requestedBy: { id: eve.id } },
    ]);
    const submit = `mutation($space: ID!, $cr: String!, $status: String!) {
      submitChangeRequestReview(spaceId: $space, changeRequestId: $cr, input: { status: $status }) { id status outdated requestedBy { id } }
    }`;
    const reviewed = await gql(submit, rita, { space, cr, status: 'approved' });
    expect(reviewed.errors).toBeUndefined();
    expect(reviewed.data.submitChangeRequestReview).toMatchObject({ status: 'approved', outdated: false, requestedBy: { id: eve.id } });
    const read = await gql(
      `query($space: ID!, $cr: String!, $id: ID!) { changeRequestReview(spaceId: $space, changeRequestId: $cr, reviewId: $id) { id reviewer { id } } }`,
      ada,
      { space, cr, id: reviewed.data.submitChangeRequestReview.id },
    );
    expect(read.data.changeRequestReview).toEqual({ id: reviewed.data.submitChangeRequestReview.id, reviewer: { id: rita.id } });
    const remove = `mutation($space: ID!, $cr: String!, $user: ID!) { removeRequestedReviewer(spaceId: $space, changeRequestId: $cr, userId: $user) }`;
    expect((await gql(remove, ada, { space, cr, user: rob.id })).data.removeRequestedReviewer).toBe(true);
    expect((await gql(remove, ada, { space, cr, user: rob.id })).data.removeRequestedReviewer).toBe(false);

    expect((await gql(submit, eve, { space, cr, status: 'approved' })).errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
    expect((await gql(submit, rita, { space, cr, status: 'fine' })).errors?.[0]?.message).toMatch(/status/);
    expect((await gql(submit, rita, { space, cr: newId(), status: 'approved' })).errors?.[0]?.extensions?.code).toBe('NOT_FOUND');
    const anonymous = await server.graphql(submit, { variables: { space, cr, status: 'approved' } });
    expect(anonymous.body.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
  });
});

/**
 * `commentEvents`: a space's discussion events, live over graphql-ws and SSE, authorized on
 * subscribe and per event (src/services/comment-feed.ts).
 */
import { describe, expect, it } from 'vitest';
import type { CommentEvent } from '../../src/services/comment-feed.ts';
import { useWsClients } from '../helpers/graphql-ws.ts';
import { followSse } from '../helpers/sse.ts';
import { useServersSharingRedis, useTestServer, type TestServer } from '../helpers/server.ts';
import { servicesConfigured } from '../helpers/services.ts';

const SUBSCRIPTION = `subscription($space: ID!, $cr: String) {
  commentEvents(spaceId: $space, changeRequestId: $cr) {
    type space changeRequest commentId replyId actor { id } at
    comment { id status body(format: markdown) { markdown } reactions { emoji count } permissions { edit delete } }
    reply { id body(format: markdown) { markdown } }
  }
}`;

interface EventBody {
  type: string;
  space: string;
  changeRequest: string | null;
  commentId: string;
  replyId: string | null;
  actor: { id: string } | null;
  at: string;
  comment: { id: string; status: string; body: { markdown: string }; reactions: Array<{ emoji: string; count: number }>; permissions: { edit: boolean; delete: boolean } } | null;
  reply: { id: string; body: { markdown: string } } | null;
}

/** Collects `commentEvents` payloads and errors of one graphql-ws subscription. */
function collect(client: ReturnType<ReturnType<typeof useWsClients>>, variables: Record<string, unknown>) {
  const events: EventBody[] = [];
  const errors: unknown[] = [];
  const unsubscribe = client.subscribe(
    { query: SUBSCRIPTION, variables },
    {
      next: (value) => {
        if (value.errors) errors.push(value.errors);
        const event = (value.data as { commentEvents?: EventBody } | null | undefined)?.commentEvents;
        if (event) events.push(event);
      },
      error: (error) => errors.push(error),
      complete: () => undefined,
    },
  );
  return { events, errors, unsubscribe };
}

async function until(what: string, condition: () => boolean, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

function event(_server: TestServer, fields: Partial<CommentEvent> & Pick<CommentEvent, 'organizationId' | 'spaceId' | 'actorId'>): CommentEvent {
  return { type: 'posted', changeRequestId: null, commentId: `c-${Math.random()}`, replyId: null, at: new Date().toISOString(), ...fields };
}

describe('commentEvents', () => {
  const { server, ada, bob, carol } = useTestServer({ users: ['Ada', 'Bob', 'Carol'] });
  const wsClient = useWsClients(() => server.baseUrl);

  it('delivers a space’s events to its readers, stops when a reader loses access, and never to another organization', async () => {
    const org = await server.createOrg(ada);
    await server.addMember(org, bob, 'read');
    const space = (await server.createSpace(ada, org, { title: 'Discussed' })).id;
    const other = await server.createOrg(carol);

    const before = server.app.commentFeed.subscriberCount;
    const adaSees = collect(wsClient(ada.token), { space });
    const bobSees = collect(wsClient(bob.token), { space });
    const carolSees = collect(wsClient(carol.token), { space });
    await until('ada and bob subscribed, carol refused', () => server.app.commentFeed.subscriberCount === before + 2 && carolSees.errors.length > 0);
    expect(JSON.stringify(carolSees.errors)).toContain('NOT_FOUND');

    const first = event(server, { organizationId: org, spaceId: space, actorId: ada.id });
    server.app.commentFeed.publish(first);
    await until('both received the first event', () => adaSees.events.length === 1 && bobSees.events.length === 1);
    // An event of a comment that does not exist (published here directly) answers it as null.
    expect(bobSees.events[0]).toEqual({ type: 'posted', space, changeRequest: null, commentId: first.commentId, replyId: null, actor: { id: ada.id }, at: first.at, comment: null, reply: null });

    // Bob leaves the organization: the next events reach Ada only.
    const removed = await server.request('DELETE', `/v1/orgs/${org}/members/${bob.id}`, { token: ada.token });
    expect(removed.status).toBeLessThan(300);
    server.app.commentFeed.publish(event(server, { organizationId: org, spaceId: space, actorId: ada.id, type: 'edited' }));
    server.app.commentFeed.publish(event(server, { organizationId: org, spaceId: space, actorId: ada.id, type: 'deleted' }));
    await until('ada received three events', () => adaSees.events.length === 3);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(adaSees.events.map((e) => e.type)).toEqual(['posted', 'edited', 'deleted']);
    expect(bobSees.events).toHaveLength(1);
    expect(bobSees.errors).toEqual([]);

    // An event of another organization's space never reaches these subscribers.
    const elsewhere = (await server.createSpace(carol, other, { title: 'Elsewhere' })).id;
    server.app.commentFeed.publish(event(server, { organizationId: other, spaceId: elsewhere, actorId: carol.id }));
    server.app.commentFeed.publish(event(server, { organizationId: org, spaceId: space, actorId: ada.id, type: 'reacted' }));
    await until('ada received the fourth event', () => adaSees.events.length === 4);
    expect(adaSees.events.map((e) => e.space)).toEqual([space, space, space, space]);
    for (const s of [adaSees, bobSees, carolSees]) s.unsubscribe();
  });

  it('follows one change request with `changeRequestId`, over SSE too', async () => {
    const org = await server.createOrg(ada);
    const space = (await server.createSpace(ada, org, { title: 'Reviewed' })).id;
    const cr = await server.request('POST', `/v1/spaces/${space}/change-requests`, { token: ada.token, body: { subject: 'Proposal' } });
    expect(cr.status).toBe(201);
    const crId = (cr.body as { id: string }).id;

    const before = server.app.commentFeed.subscriberCount;
    const sse = followSse(server.baseUrl, SUBSCRIPTION, { space, cr: String((cr.body as { number: number }).number) }, 'commentEvents', { token: ada.token });
    await until('the SSE subscription is registered', () => server.app.commentFeed.subscriberCount === before + 1);
    server.app.commentFeed.publish(event(server, { organizationId: org, spaceId: space, actorId: ada.id, commentId: 'on-the-space' }));
    server.app.commentFeed.publish(event(server, { organizationId: org, spaceId: space, actorId: ada.id, changeRequestId: crId, commentId: 'in-the-cr', replyId: 'r1' }));
    await until('the change request’s event arrived', () => sse.events.length === 1);
    sse.close();
    expect(sse.errors).toEqual([]);
    expect(sse.events[0]).toMatchObject({ commentId: 'in-the-cr', replyId: 'r1', changeRequest: crId });
  });

  it('delivers every kind of write made through the API, with the comment as it is then, each to the subscribers who may read it', async () => {
    const org = await server.createOrg(ada);
    await server.addMember(org, bob, 'comment');
    const space = (await server.createSpace(ada, org, { title: 'Talked about' })).id;
    const base = `/v1/spaces/${space}/comments`;

    const before = server.app.commentFeed.subscriberCount;
    const bobSees = collect(wsClient(bob.token), { space });
    await until('bob subscribed', () => server.app.commentFeed.subscriberCount === before + 1);

    const thread = await server.request('POST', base, { token: ada.token, body: { body: { markdown: 'Is this **right**?' } } });
    expect(thread.status).toBe(200);
    const threadId = (thread.body as { id: string }).id;
    await until('posted', () => bobSees.events.length === 1);
    const reply = await server.request('POST', `${base}/${threadId}/replies`, { token: bob.token, body: { body: { markdown: 'It is.' } } });
    expect(reply.status).toBe(200);
    const replyId = (reply.body as { id: string }).id;
    await until('replied', () => bobSees.events.length === 2);
    expect((await server.request('PUT', `${base}/${threadId}`, { token: ada.token, body: { body: { markdown: 'Is this *right*?' } } })).status).toBe(200);
    await until('edited', () => bobSees.events.length === 3);
    expect((await server.request('PUT', `${base}/${threadId}`, { token: bob.token, body: { addedReactions: ['👍'] } })).status).toBe(200);
    await until('reacted', () => bobSees.events.length === 4);
    expect((await server.request('PUT', `${base}/${threadId}`, { token: bob.token, body: { resolved: true } })).status).toBe(200);
    await until('resolved', () => bobSees.events.length === 5);
    expect((await server.request('PUT', `${base}/${threadId}`, { token: ada.token, body: { resolved: false } })).status).toBe(200);
    await until('reopened', () => bobSees.events.length === 6);
    expect((await server.request('DELETE', `${base}/${threadId}/replies/${replyId}`, { token: bob.token })).status).toBe(205);
    await until('reply deleted', () => bobSees.events.length === 7);
    expect((await server.request('DELETE', `${base}/${threadId}`, { token: ada.token })).status).toBe(205);
    await until('thread deleted', () => bobSees.events.length === 8);

    expect(bobSees.errors).toEqual([]);
    const [posted, replied, edited, reacted, resolved, reopened, replyDeleted, deleted] = bobSees.events;
    expect(bobSees.events.map((e) => [e.type, e.commentId, e.replyId, e.actor?.id])).toEqual([
      ['posted', threadId, null, ada.id],
      ['posted', threadId, replyId, bob.id],
      ['edited', threadId, null, ada.id],
      ['reacted', threadId, null, bob.id],
      ['resolved', threadId, null, bob.id],
      ['reopened', threadId, null, ada.id],
      ['deleted', threadId, replyId, bob.id],
      ['deleted', threadId, null, ada.id],
    ]);
    // Each answered as it was when delivered, with Bob's permissions (a commenter: not Ada's author rights).
    expect(posted!.comment).toMatchObject({ id: threadId, status: 'open', body: { markdown: expect.stringContaining('**right**') }, permissions: { edit: false, delete: false } });
    expect(replied!.reply).toEqual({ id: replyId, body: { markdown: expect.stringContaining('It is.') } });
    expect(edited!.comment!.body.markdown).toContain('*right*');
    expect(reacted!.comment!.reactions).toEqual([{ emoji: '👍', count: 1 }]);
    expect(resolved!.comment!.status).toBe('resolved');
    expect(reopened!.comment!.status).toBe('open');
    expect(replyDeleted!.reply).toBeNull();
    expect(deleted!.comment).toBeNull();
    bobSees.unsubscribe();
  });

  it('a review submitted with a comment is announced as a thread of the change request', async () => {
    const org = await server.createOrg(ada);
    await server.addMember(org, bob, 'review');
    const space = (await server.createSpace(ada, org, { title: 'Reviewed live' })).id;
    const cr = await server.request('POST', `/v1/spaces/${space}/change-requests`, { token: ada.token, body: { subject: 'Please review' } });
    const crId = (cr.body as { id: string }).id;
    const before = server.app.commentFeed.subscriberCount;
    const adaSees = collect(wsClient(ada.token), { space, cr: crId });
    await until('ada subscribed', () => server.app.commentFeed.subscriberCount === before + 1);
    const review = await server.request('POST', `/v1/spaces/${space}/change-requests/${crId}/reviews`, { token: bob.token, body: { status: 'changes-requested', comment: { markdown: 'Please fix the *intro*.' } } });
    expect(review.status).toBe(201);
    const reviewBody = review.body as { id: string; comment: { id: string; target: { review: string; changeRequest: string } } };
    expect(reviewBody.comment.target).toMatchObject({ review: reviewBody.id, changeRequest: crId });
    await until('the review comment arrived', () => adaSees.events.length === 1);
    expect(adaSees.events[0]).toMatchObject({ type: 'posted', changeRequest: crId, commentId: reviewBody.comment.id, actor: { id: bob.id } });
    adaSees.unsubscribe();
  });
});

describe.skipIf(!servicesConfigured('redis'))('commentEvents across two processes sharing a database and Redis', () => {
  const { a, b } = useServersSharingRedis();
  const wsClient = useWsClients(() => a.baseUrl);

  it('a subscriber on one process sees a comment posted through the other; another organization sees nothing', async () => {
    const ada = await a.createUser('Ada');
    const carol = await a.createUser('Carol');
    const org = await a.createOrg(ada);
    const space = (await a.createSpace(ada, org, { title: 'Shared' })).id;
    const carolOrg = await a.createOrg(carol);
    const carolSpace = (await a.createSpace(carol, carolOrg, { title: 'Hers' })).id;

    const before = a.app.commentFeed.subscriberCount;
    const adaSees = collect(wsClient(ada.token), { space });
    const carolSeesHers = collect(wsClient(carol.token), { space: carolSpace });
    const carolTries = collect(wsClient(carol.token), { space });
    await until('two subscribed on process a, one refused', () => a.app.commentFeed.subscriberCount === before + 2 && carolTries.errors.length > 0);
    expect(JSON.stringify(carolTries.errors)).toContain('NOT_FOUND');

    const posted = await b.request('POST', `/v1/spaces/${space}/comments`, { token: ada.token, body: { body: { markdown: 'Posted through process b.' } } });
    expect(posted.status).toBe(200);
    await until('the event crossed processes', () => adaSees.events.length === 1);
    expect(adaSees.events[0]).toMatchObject({ type: 'posted', space, commentId: (posted.body as { id: string }).id, comment: { body: { markdown: expect.stringContaining('process b') } } });
    // A later event of Carol's own space reaches her: anything of Ada's would have arrived before it.
    const hers = await b.request('POST', `/v1/spaces/${carolSpace}/comments`, { token: carol.token, body: { body: { markdown: 'Mine.' } } });
    expect(hers.status).toBe(200);
    await until('carol received her own', () => carolSeesHers.events.length === 1);
    expect(carolSeesHers.events.map((e) => e.space)).toEqual([carolSpace]);
    expect(adaSees.events).toHaveLength(1);
    for (const s of [adaSees, carolSeesHers, carolTries]) s.unsubscribe();
  });
});

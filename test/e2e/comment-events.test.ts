/**
 * `commentEvents`: a space's discussion events, live over graphql-ws and SSE, authorized on
 * subscribe and per event (src/services/comment-feed.ts).
 */
import { describe, expect, it } from 'vitest';
import type { CommentEvent } from '../../src/services/comment-feed.ts';
import { useWsClients } from '../helpers/graphql-ws.ts';
import { followSse } from '../helpers/sse.ts';
import { useTestServer, type TestServer } from '../helpers/server.ts';

const SUBSCRIPTION = `subscription($space: ID!, $cr: String) {
  commentEvents(spaceId: $space, changeRequestId: $cr) { type space changeRequest commentId replyId actor { id } at }
}`;

interface EventBody {
  type: string;
  space: string;
  changeRequest: string | null;
  commentId: string;
  replyId: string | null;
  actor: { id: string } | null;
  at: string;
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

function event(server: TestServer, fields: Partial<CommentEvent> & Pick<CommentEvent, 'organizationId' | 'spaceId' | 'actorId'>): CommentEvent {
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
    expect(bobSees.events[0]).toEqual({ type: 'posted', space, changeRequest: null, commentId: first.commentId, replyId: null, actor: { id: ada.id }, at: first.at });

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
});

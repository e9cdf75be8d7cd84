/**
 * The fan-out of job events (src/services/job.ts, src/services/event-authorization.ts,
 * src/plugins/use-shared-subscription-results.ts): every subscriber receives every event it may
 * see, authorized per event with one set of loaders for all of them; subscribers of the same
 * document and variables share one execution; those of other selections or variables get their
 * own. The events are published on the app's job bus directly (a job of this test's own, new
 * to every subscriber: sequence 1, 2, ...).
 */
import { describe, expect, it } from 'vitest';
import type { JobEvent } from '../../src/jobs/events.ts';
import { useWsClients } from '../helpers/graphql-ws.ts';
import { useTestServer, type TestServer } from '../helpers/server.ts';

const STATE = 'subscription($spaceId: ID!) { spaceJobs(spaceId: $spaceId) { id state step percent sequence } }';
const OTHER_SELECTION = 'subscription Other($spaceId: ID!) { spaceJobs(spaceId: $spaceId) { sequence message kind } }';

type Body = Record<string, unknown>;

async function until(what: string, condition: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

let jobs = 0;

/** A job of `space` that exists only on the bus: its events, numbered from 1. */
function busJob(server: TestServer, organizationId: string, spaceId: string) {
  const id = `bus-job-${++jobs}-${Date.now()}`;
  let sequence = 0;
  return {
    id,
    publish(step: string): JobEvent {
      const event: JobEvent = {
        id,
        organizationId,
        spaceId,
        translationId: null,
        kind: 'git-import',
        state: 'running',
        step,
        percent: 10 * (sequence + 1),
        message: `at ${step}`,
        result: null,
        error: null,
        at: new Date().toISOString(),
        sequence: ++sequence,
      };
      server.app.jobs.bus.publish(event);
      return event;
    },
  };
}

describe('job subscriptions fan out', () => {
  const { server, ada, bob, carol } = useTestServer({ users: ['Ada', 'Bob', 'Carol'] });
  const wsClient = useWsClients(() => server.baseUrl);

  function subscribe(token: string, query: string, variables: Record<string, unknown>) {
    const events: Body[] = [];
    const errors: unknown[] = [];
    wsClient(token).subscribe(
      { query, variables },
      {
        next: (value) => {
          if (value.errors) errors.push(value.errors);
          const event = (value.data as { spaceJobs?: Body } | null | undefined)?.spaceJobs;
          if (event) events.push(event);
        },
        error: (error) => errors.push(error),
        complete: () => undefined,
      },
    );
    return { events, errors };
  }

  /**
   * Waits until every subscriber listens: a job's first event, published again until each of
   * `subscribers` received it (a subscriber drops what it already handled).
   */
  async function listening(organizationId: string, spaceId: string, subscribers: Array<{ events: Body[] }>): Promise<void> {
    const probe = busJob(server, organizationId, spaceId);
    const event = probe.publish('probe');
    const received = () => subscribers.every((s) => s.events.length > 0);
    const deadline = Date.now() + 10_000;
    while (!received()) {
      if (Date.now() > deadline) throw new Error('the subscribers did not start listening');
      server.app.jobs.bus.publish(event);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    // Forget the probe: what the tests compare starts after it.
    for (const s of subscribers) s.events.splice(0);
  }

  it('delivers every event to every subscriber, each selection and variables with its own result', async () => {
    const org = await server.createOrg(ada);
    await server.addMember(org, bob, 'read');
    const space = (await server.createSpace(ada, org, { title: 'Fanned out' })).id;
    const other = (await server.createSpace(ada, org, { title: 'Elsewhere' })).id;

    const same = [subscribe(ada.token, STATE, { spaceId: space }), subscribe(ada.token, STATE, { spaceId: space }), subscribe(bob.token, STATE, { spaceId: space })];
    const otherSelection = subscribe(bob.token, OTHER_SELECTION, { spaceId: space });
    const otherSpace = subscribe(ada.token, STATE, { spaceId: other });
    await listening(org, space, [...same, otherSelection]);
    await listening(org, other, [otherSpace]);

    const job = busJob(server, org, space);
    const elsewhere = busJob(server, org, other);
    for (const step of ['one', 'two', 'three']) {
      job.publish(step);
      elsewhere.publish(`${step} elsewhere`);
    }
    await until('every subscriber received its three events', () => [...same, otherSelection, otherSpace].every((s) => s.events.length === 3));
    for (const s of same) {
      expect(s.errors).toEqual([]);
      expect(s.events).toEqual(['one', 'two', 'three'].map((step, i) => ({ id: job.id, state: 'running', step, percent: 10 * (i + 1), sequence: i + 1 })));
    }
    expect(otherSelection.events).toEqual(['one', 'two', 'three'].map((step, i) => ({ sequence: i + 1, message: `at ${step}`, kind: 'GIT_IMPORT' })));
    expect(otherSpace.events.map((e) => [e.id, e.step])).toEqual([
      [elsewhere.id, 'one elsewhere'],
      [elsewhere.id, 'two elsewhere'],
      [elsewhere.id, 'three elsewhere'],
    ]);
  });

  it('checks access per event: a subscriber who lost it receives nothing more, the others of its group go on', async () => {
    const org = await server.createOrg(ada);
    await server.addMember(org, bob, 'read');
    await server.addMember(org, carol, 'read');
    const space = (await server.createSpace(ada, org, { title: 'Revoked' })).id;
    const subscribers = { ada: subscribe(ada.token, STATE, { spaceId: space }), bob: subscribe(bob.token, STATE, { spaceId: space }), carol: subscribe(carol.token, STATE, { spaceId: space }) };
    await listening(org, space, Object.values(subscribers));

    const job = busJob(server, org, space);
    job.publish('before');
    await until('all three received the first event', () => Object.values(subscribers).every((s) => s.events.length === 1));

    // Bob leaves the organization between two events of the same job.
    const removed = await server.request('DELETE', `/v1/orgs/${org}/members/${bob.id}`, { token: ada.token });
    expect(removed.status).toBeLessThan(300);
    job.publish('after');
    job.publish('later');
    await until('ada and carol received three events', () => subscribers.ada.events.length === 3 && subscribers.carol.events.length === 3);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(subscribers.bob.events.map((e) => e.step)).toEqual(['before']);
    expect(subscribers.carol.events.map((e) => e.step)).toEqual(['before', 'after', 'later']);
    expect(subscribers.ada.events.map((e) => e.step)).toEqual(['before', 'after', 'later']);
    expect(subscribers.bob.errors).toEqual([]);
  });

  it('an event costs the same statements for 20 subscribers as for 1', async () => {
    const org = await server.createOrg(ada);
    const space = (await server.createSpace(ada, org, { title: 'Counted' })).id;
    const readers = await Promise.all(Array.from({ length: 20 }, (_, i) => server.createUser(`Reader ${i}`)));
    for (const reader of readers) await server.addMember(org, reader, 'read');

    /** The statements of one event delivered to every subscriber of `users`. */
    async function statementsPerEvent(users: Array<{ token: string }>): Promise<number> {
      const subscribers = users.map((user) => subscribe(user.token, STATE, { spaceId: space }));
      await listening(org, space, subscribers);
      const job = busJob(server, org, space);
      job.publish('warm');
      await until('the first event arrived', () => subscribers.every((s) => s.events.length === 1));
      const { statements } = await server.countStatements(async () => {
        job.publish('counted');
        await until('the counted event arrived', () => subscribers.every((s) => s.events.length === 2));
      });
      expect(subscribers.flatMap((s) => s.errors)).toEqual([]);
      return statements;
    }

    const one = await statementsPerEvent(readers.slice(0, 1));
    const twenty = await statementsPerEvent(readers);
    expect(twenty).toBe(one);
    expect(one).toBeLessThanOrEqual(8);
  });
});

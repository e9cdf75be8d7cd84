/**
 * No lost job events: a server with REDIS_URL (through a TCP proxy the test can hold)
 * runs a job of 11 events (queued, starting, 8 steps the test releases one at a time,
 * succeeded) while subscribers follow it over graphql-ws and SSE: some from before it
 * exists, some from its start, some late, some after it finished. Mid-job the server's
 * Redis connections are killed twice: its event subscription alone (CLIENT KILL), held
 * down while three steps are published, so that those events never reach the server
 * from Redis; then every connection (publisher, subscription, BullMQ) at once, held down
 * while two more steps are written. Every subscriber sees every event from where it
 * started, once, in order, with the sequence numbers of the stored history.
 *
 * Runs when TEST_REDIS_URL is set (test/helpers/services.ts).
 */
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JobHandler } from '../../src/jobs/runner.ts';
import { follow, useWsClients, type JobEventBody } from '../helpers/graphql-ws.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { expectRedisAnswers, servicesConfigured, TEST_REDIS_URL } from '../helpers/services.ts';
import { followSse } from '../helpers/sse.ts';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy.ts';

const STEPS = ['one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight'];
const FIELDS = '{ id state step percent sequence }';
const JOB_UPDATED = `subscription($id: ID!, $after: Int) { jobUpdated(id: $id, after: $after) ${FIELDS} }`;
const SPACE_JOBS = `subscription($spaceId: ID!) { spaceJobs(spaceId: $spaceId) ${FIELDS} }`;

/** Polls `predicate` every 10 ms, for up to 20 s. */
async function until(what: string, predicate: () => boolean | Promise<boolean>): Promise<void> {
  const started = Date.now();
  while (!(await predicate())) {
    if (Date.now() - started > 20_000) throw new Error(`timed out waiting until ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

const shape = (event: JobEventBody) => ({ sequence: event.sequence, state: event.state, step: event.step, percent: event.percent });

describe.skipIf(!servicesConfigured('redis'))('job events through Redis reconnections', () => {
  let proxy: TcpProxy;
  let server: TestServer;
  /** Straight to Redis: CLIENT LIST and CLIENT KILL, and a subscriber of the server's event channel. */
  let admin: Redis;
  let watcher: Redis;
  /** The sequence numbers of the job's events published on Redis, as an outside subscriber received them. */
  const published: number[] = [];

  // The job: each step waits until the test has released it.
  let released = 0;
  let waiting: Array<() => void> = [];
  const release = (steps: number) => {
    released = steps;
    const wake = waiting;
    waiting = [];
    for (const resume of wake) resume();
  };
  const stepped: JobHandler = async (ctx) => {
    for (const [i, step] of STEPS.entries()) {
      while (released <= i) await new Promise<void>((resume) => waiting.push(resume));
      await ctx.progress(step, Math.round((100 * (i + 1)) / (STEPS.length + 1)));
    }
    return { steps: STEPS.length };
  };

  beforeAll(async () => {
    await expectRedisAnswers();
    const redis = new URL(TEST_REDIS_URL!);
    proxy = await startTcpProxy({ host: redis.hostname, port: Number(redis.port || 6379) });
    const throughProxy = new URL(TEST_REDIS_URL!);
    throughProxy.hostname = proxy.host;
    throughProxy.port = String(proxy.port);
    server = await startTestServer({ REDIS_URL: throughProxy.toString() }, undefined, { jobHandlers: { 'git-import': stepped } });
    admin = new Redis(TEST_REDIS_URL!);
    watcher = new Redis(TEST_REDIS_URL!);
    watcher.on('message', (_channel: string, message: string) => published.push((JSON.parse(message) as { sequence: number }).sequence));
    await watcher.subscribe(`docs-api:${server.app.jobs.namespace}:job`);
  });
  afterAll(async () => {
    release(STEPS.length);
    watcher?.disconnect();
    admin?.disconnect();
    await server?.close();
    await proxy?.close();
  });
  // Registered after the server's afterAll, so its clients are disposed first.
  const wsClient = useWsClients(() => server.baseUrl);

  /** Kills the server's event connections, named `docs-api:<namespace>:events:<role>` (CLIENT KILL ID); how many. */
  async function killConnections(role: 'subscribe' | 'publish'): Promise<number> {
    const name = `docs-api:${server.app.jobs.namespace}:events:${role}`;
    const list = (await admin.client('LIST')) as string;
    const ids = list
      .split('\n')
      .filter((line) => line.split(' ').includes(`name=${name}`))
      .map((line) => /(?:^| )id=(\d+)/.exec(line)![1]!);
    for (const id of ids) await admin.client('KILL', 'ID', id);
    return ids.length;
  }

  it('every subscriber sees every event once, in order, however late it subscribed and whatever Redis lost', async () => {
    const ada = await server.createUser('Ada');
    const org = await server.createOrg(ada);
    const space = (await server.createSpace(ada, org, { title: 'Followed' })).id as string;
    const token = ada.token;

    // Subscribed before the job exists (no wait for them to be registered: they replay what they missed).
    const ofSpace = [
      follow(wsClient(token), SPACE_JOBS, { spaceId: space }, 'spaceJobs'),
      follow(wsClient(token), SPACE_JOBS, { spaceId: space }, 'spaceJobs'),
      followSse(server.baseUrl, SPACE_JOBS, { spaceId: space }, 'spaceJobs', { token }),
    ];
    const job = await server.app.jobs.start({ organizationId: org, spaceId: space, kind: 'git-import', input: {}, createdById: ada.id });
    // What reaches the server's bus from Redis, before any reading of the store.
    const fromBus: number[] = [];
    const unlisten = server.app.jobs.bus.listen({ event: (event) => event.id === job.id && fromBus.push(event.sequence), resync: () => undefined });
    const fromStart = [
      follow(wsClient(token), JOB_UPDATED, { id: job.id, after: 0 }, 'jobUpdated'),
      follow(wsClient(token), JOB_UPDATED, { id: job.id, after: 0 }, 'jobUpdated'),
      followSse(server.baseUrl, JOB_UPDATED, { id: job.id, after: 0 }, 'jobUpdated', { token }),
    ];
    // The current state first, then what follows.
    const fromNow = [follow(wsClient(token), JOB_UPDATED, { id: job.id }, 'jobUpdated'), followSse(server.baseUrl, JOB_UPDATED, { id: job.id }, 'jobUpdated', { token })];
    const early = [...ofSpace, ...fromStart, ...fromNow];
    release(2);
    await until('every subscriber saw step two', () => early.every((f) => f.events.some((e) => e.step === 'two')));

    // 1. The server's event subscription killed and kept down while steps three to five are published.
    proxy.pause();
    expect(await killConnections('subscribe')).toBeGreaterThan(0);
    release(5);
    await until('steps three to five were published on Redis', () => published.includes(7));
    proxy.resume();
    // Late: after everything from the start, and after event 3 (what an EventSource sends when it reconnects).
    const late = [
      follow(wsClient(token), JOB_UPDATED, { id: job.id, after: 0 }, 'jobUpdated'),
      followSse(server.baseUrl, JOB_UPDATED, { id: job.id }, 'jobUpdated', { token, headers: { 'Last-Event-ID': '3' } }),
    ];
    await until('every subscriber saw step five', () => [...early, ...late].every((f) => f.events.some((e) => e.step === 'five')));

    // 2. Every connection of the server cut (publisher, subscription, BullMQ) and kept down while steps six and seven are written.
    proxy.pause();
    proxy.cutAll();
    release(7);
    await until('steps six and seven were stored', async () => (await server.app.jobs.store.get(job.id))!.eventSequence >= 9);
    proxy.resume();
    release(STEPS.length);
    await Promise.all([...early, ...late].map((f) => f.done));

    // After the end: the final state alone (as before), the whole history, what follows event 5; each then ends.
    const after = [
      follow(wsClient(token), JOB_UPDATED, { id: job.id }, 'jobUpdated'),
      follow(wsClient(token), JOB_UPDATED, { id: job.id, after: 0 }, 'jobUpdated'),
      followSse(server.baseUrl, JOB_UPDATED, { id: job.id, after: 5 }, 'jobUpdated', { token }),
    ];
    await Promise.all([...fromStart, ...fromNow, ...late, ...after].map((f) => f.ended));
    unlisten();

    const history = (await server.app.jobs.store.eventsAfter(job.id, 0))!.events.map((e) => shape(e as JobEventBody));
    expect(history.map((e) => [e.sequence, e.state, e.step])).toEqual([
      [1, 'queued', null],
      [2, 'running', 'starting'],
      ...STEPS.map((step, i) => [i + 3, 'running', step]),
      [11, 'succeeded', 'done'],
    ]);
    const from = (sequence: number) => history.slice(sequence - 1);
    for (const f of [...early, ...late, ...after]) expect(f.errors).toEqual([]);
    for (const f of [...ofSpace, ...fromStart]) expect(f.events.map(shape)).toEqual(history);
    for (const f of fromNow) {
      const first = f.events[0]!.sequence!;
      expect(first).toBeLessThanOrEqual(4);
      expect(f.events.map(shape)).toEqual(from(first));
    }
    expect(late[0]!.events.map(shape)).toEqual(history);
    expect(late[1]!.events.map(shape)).toEqual(from(4));
    expect(after[0]!.events.map(shape)).toEqual(from(11));
    expect(after[1]!.events.map(shape)).toEqual(history);
    expect(after[2]!.events.map(shape)).toEqual(from(6));
    // Over SSE, jobUpdated's messages carry the sequence as their id (spaceJobs' cannot: several jobs).
    for (const f of [fromStart[2]!, fromNow[1]!, late[1]!, after[2]!]) expect((f as ReturnType<typeof followSse>).ids).toEqual(f.events.map((e) => String(e.sequence)));
    expect((ofSpace[2] as ReturnType<typeof followSse>).ids.every((id) => id === null)).toBe(true);
    // Redis lost events 5 to 7 on their way to the server: the stored history made up for them.
    expect(fromBus.filter((sequence) => sequence >= 5 && sequence <= 7)).toEqual([]);
    for (const f of ofSpace) (f as { close?: () => void }).close?.();
  });

  it('jobUpdated refuses to resume after an event the job does not have yet', async () => {
    const ada = await server.createUser('Bea');
    const org = await server.createOrg(ada);
    release(STEPS.length); // every step of this job goes through at once
    const done = await server.app.jobs.start({ organizationId: org, kind: 'git-import', input: {} });
    await until('the job finished', async () => (await server.app.jobs.store.get(done.id))!.state === 'succeeded');
    const beyond = follow(wsClient(ada.token), JOB_UPDATED, { id: done.id, after: 12 }, 'jobUpdated');
    await beyond.ended;
    expect(JSON.stringify(beyond.errors)).toMatch(/after must be a sequence number of this job's events, from 0 to 11/);
    const sse = followSse(server.baseUrl, JOB_UPDATED, { id: done.id }, 'jobUpdated', { token: ada.token, headers: { 'Last-Event-ID': 'x' } });
    await sse.ended;
    expect(JSON.stringify(sse.errors)).toMatch(/Last-Event-ID must be the sequence number of a job event/);
  });
});

/**
 * The scale path: two server processes on one database (the test's SQLite file, or its
 * PostgreSQL schema) with REDIS_URL. Jobs are dispatched on BullMQ and events travel on
 * Redis, so a subscription on one process receives every event of a job started through the
 * other. Runs when TEST_REDIS_URL is set (test/helpers/services.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGitServer, type GitServer } from '../helpers/git-server.ts';
import { follow, useWsClients } from '../helpers/graphql-ws.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { expectRedisAnswers, servicesConfigured, TEST_REDIS_URL } from '../helpers/services.ts';

describe.skipIf(!servicesConfigured('redis'))('two processes sharing a database and Redis', () => {
  let git: GitServer;
  let a: TestServer;
  let b: TestServer;

  beforeAll(async () => {
    await expectRedisAnswers();
    git = await startGitServer();
    const env = { REDIS_URL: TEST_REDIS_URL!, FETCH_ALLOW_PRIVATE_ADDRESSES: 'true', JOB_POLL_MS: '200' };
    a = await startTestServer(env);
    b = await startTestServer(env, { database: a.database, storageDir: a.storageDir });
  });
  afterAll(async () => {
    await b?.close();
    await a?.close();
    await git?.close();
  });
  // Registered after the servers' afterAll, so its clients are disposed first.
  const wsClient = useWsClients(() => a.baseUrl);

  it('a subscriber on one process sees every event of a job started through the other', async () => {
    const ada = await a.createUser('Ada');
    const org = await a.createOrg(ada);
    const space = (await a.createSpace(ada, org, { title: 'Shared' })).id;
    await git.createBareRepository('shared', { 'README.md': '# Shared\n\nImported through another process.\n', 'SUMMARY.md': '* [Shared](README.md)\n' });

    const { events, errors, first, done } = follow(wsClient(ada.token), `subscription($id: ID!) { gitSync(spaceId: $id) { state step sequence } }`, { id: space }, 'gitSync');
    // The job's Git requests wait until the subscriber has its first event: the import cannot end before the subscription started (what it missed then, it replays).
    git.hold = first;
    const started = await b.request('POST', `/v1/spaces/${space}/git/import`, { token: ada.token, body: { url: git.url('shared'), ref: 'refs/heads/main' } });
    expect(started.status).toBe(204);
    await done;
    git.hold = null;
    expect(errors).toEqual([]);
    expect(events.map((e) => e.sequence)).toEqual(events.map((_e, i) => i + 1));
    expect(events[0]!.state).toBe('queued');
    expect(events.at(-1)!.state).toBe('succeeded');
    expect(events.some((e) => e.step === 'cloning')).toBe(true);
    const pages = await a.request('GET', `/v1/spaces/${space}/content/pages`, { token: ada.token });
    expect(pages.body.pages.map((p: any) => p.title)).toEqual(['Shared']);
  });
});

/**
 * The scale path: two server processes on one PostgreSQL with REDIS_URL. Jobs
 * are dispatched on BullMQ and events travel on Redis, so a subscription on
 * one process receives every event of a job started through the other.
 * Runs when the suite runs on PostgreSQL and Redis answers (both are on the
 * project's machines; REDIS_TEST_URL overrides redis://127.0.0.1:6379).
 */
import net from 'node:net';
import { createClient, type Client } from 'graphql-ws';
import WebSocket from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { usingPostgres } from '../helpers/database.ts';
import { startGitServer, type GitServer } from '../helpers/git-server.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

const REDIS_URL = process.env.REDIS_TEST_URL ?? 'redis://127.0.0.1:6379';

async function redisAnswers(): Promise<boolean> {
  const { hostname, port } = new URL(REDIS_URL);
  return new Promise((resolve) => {
    const socket = net.connect(Number(port || 6379), hostname);
    socket.once('connect', () => (socket.end(), resolve(true)));
    socket.once('error', () => resolve(false));
  });
}

const available = usingPostgres && (await redisAnswers());

describe.skipIf(!available)('two processes sharing PostgreSQL and Redis', () => {
  let git: GitServer;
  let a: TestServer;
  let b: TestServer;
  let client: Client;

  beforeAll(async () => {
    git = await startGitServer();
    const env = { REDIS_URL, FETCH_ALLOW_PRIVATE_ADDRESSES: 'true', JOB_POLL_MS: '200' };
    a = await startTestServer(env);
    b = await startTestServer(env, { database: a.database, storageDir: a.storageDir });
  });
  afterAll(async () => {
    await client?.dispose();
    await b?.close();
    await a?.close();
    await git?.close();
  });

  it('a subscriber on one process sees every event of a job started through the other', async () => {
    const ada = await a.createUser('Ada');
    const org = await a.createOrg(ada);
    const space = (await a.createSpace(ada, org, { title: 'Shared' })).id;
    await git.createBareRepository('shared', { 'README.md': '# Shared\n\nImported through another process.\n', 'SUMMARY.md': '* [Shared](README.md)\n' });

    client = createClient({ url: `${a.baseUrl.replace(/^http/, 'ws')}/graphql`, webSocketImpl: WebSocket, connectionParams: { authorization: `Bearer ${ada.token}` }, retryAttempts: 0, lazy: true });
    const events: { state: string; step: string | null }[] = [];
    let finish!: () => void;
    const done = new Promise<void>((resolve) => (finish = resolve));
    client.subscribe(
      { query: `subscription($id: ID!) { gitSync(spaceId: $id) { state step } }`, variables: { id: space } },
      {
        next: (value) => {
          const event = (value.data as any)?.gitSync;
          if (event) events.push(event);
          if (event && ['succeeded', 'failed'].includes(event.state)) finish();
        },
        error: () => finish(),
        complete: () => finish(),
      },
    );
    await new Promise((r) => setTimeout(r, 300));
    const started = await b.request('POST', `/v1/spaces/${space}/git/import`, { token: ada.token, body: { url: git.url('shared'), ref: 'refs/heads/main' } });
    expect(started.status).toBe(204);
    await done;
    expect(events[0]!.state).toBe('queued');
    expect(events.at(-1)!.state).toBe('succeeded');
    expect(events.some((e) => e.step === 'cloning')).toBe(true);
    const pages = await a.request('GET', `/v1/spaces/${space}/content/pages`, { token: ada.token });
    expect(pages.body.pages.map((p: any) => p.title)).toEqual(['Shared']);
  });
});

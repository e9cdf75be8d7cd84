/**
 * What an operator and a client following a job see: the Location of a job
 * start (GET it, follow it with `jobUpdated`), job failures logged as warnings,
 * /metrics (jobs queued, running, succeeded, failed and their durations; open
 * subscriptions by transport; GraphQL operations by name and outcome; the
 * database pool), /healthz (liveness) and /readyz (database, and Redis when
 * configured), and CORS_ORIGINS.
 */
import net from 'node:net';
import { Writable } from 'node:stream';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JobHandler } from '../../src/jobs/runner.ts';
import { follow, useWsClients } from '../helpers/graphql-ws.ts';
import { startTestServer, type TestServer, type TestUser } from '../helpers/server.ts';
import { followSse } from '../helpers/sse.ts';

/** Polls `predicate` every 20 ms, for up to 15 s. */
async function until(what: string, predicate: () => boolean | Promise<boolean>): Promise<void> {
  const started = Date.now();
  while (!(await predicate())) {
    if (Date.now() - started > 15_000) throw new Error(`timed out waiting until ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** The value of the sample `name{labels}` in a Prometheus text answer (labels in any order), or undefined. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const line of text.split('\n')) {
    const match = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match || match[1] !== name) continue;
    const got = Object.fromEntries([...(match[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((m) => [m[1], m[2]]));
    if (Object.entries(labels).every(([k, v]) => got[k] === v)) return Number(match[3]);
  }
  return undefined;
}

/** A port nothing listens on (bound, then closed). */
async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('jobs a client can follow, metrics, readiness', () => {
  let server: TestServer;
  let ada: TestUser;
  let space: string;
  const logLines: Array<{ level: number; msg: string; kind?: string }> = [];
  // git-import jobs wait for the test to let them finish; git-export jobs fail.
  let releaseImports!: () => void;
  let importsReleased = new Promise<void>((resolve) => (releaseImports = resolve));
  const importJob: JobHandler = async () => {
    await importsReleased;
    return { imported: true };
  };
  const exportJob: JobHandler = async () => {
    throw new Error('the Git server refused the push');
  };
  const wsClient = useWsClients(() => server.baseUrl);
  const metrics = async () => (await fetch(`${server.baseUrl}/metrics`)).text();
  const startImport = () => server.request('POST', `/v1/spaces/${space}/git/import`, { token: ada.token, body: { url: 'https://git.example.com/docs.git', ref: 'refs/heads/main' } });

  beforeAll(async () => {
    const log = pino(
      { level: 'info' },
      new Writable({
        write(chunk: Buffer, _encoding, done) {
          for (const line of chunk.toString().split('\n').filter(Boolean)) logLines.push(JSON.parse(line));
          done();
        },
      }),
    );
    server = await startTestServer({ JOB_CONCURRENCY: '1' }, undefined, { log, jobHandlers: { 'git-import': importJob, 'git-export': exportJob } });
    ada = await server.createUser('Ada');
    const org = await server.createOrg(ada);
    space = (await server.createSpace(ada, org, { title: 'Handbook' })).id;
  });
  afterAll(async () => {
    releaseImports();
    await server?.close();
  });

  it('answers a job start with a Location the client GETs, and follows with jobUpdated', async () => {
    const started = await startImport();
    expect(started.status, JSON.stringify(started.body)).toBe(204);
    const location = started.headers.get('location');
    expect(location).toMatch(new RegExp(`^${server.baseUrl}/graphql\\?`));
    const job = await server.app.db.job.findFirstOrThrow({ where: { spaceId: space }, orderBy: { createdAt: 'desc' } });

    const read = await fetch(location!, { headers: { authorization: `Bearer ${ada.token}` } });
    expect(read.status).toBe(200);
    expect(((await read.json()) as { data: { job: unknown } }).data.job).toMatchObject({ id: job.id, kind: 'GIT_IMPORT', state: expect.stringMatching(/QUEUED|RUNNING|queued|running/) });
    // Another caller reads nothing of it.
    const mallory = await server.createUser('Mallory');
    const foreign = (await (await fetch(location!, { headers: { authorization: `Bearer ${mallory.token}` } })).json()) as { data: { job: unknown } | null; errors?: unknown[] };
    expect(foreign.data?.job ?? null).toBeNull();

    // The id in the Location is the one jobUpdated follows.
    const id = JSON.parse(new URL(location!).searchParams.get('variables')!).id as string;
    expect(id).toBe(job.id);
    const followed = follow(wsClient(ada.token), 'subscription($id: ID!) { jobUpdated(id: $id) { id state sequence } }', { id }, 'jobUpdated');
    await until('the subscription has its first event', () => followed.events.length > 0);
    releaseImports();
    await followed.ended;
    expect(followed.errors).toEqual([]);
    expect(followed.events.at(-1)).toMatchObject({ id: job.id, state: expect.stringMatching(/succeeded/i) });
    importsReleased = new Promise<void>((resolve) => (releaseImports = resolve));
  });

  it('logs a failed job at warn, and counts jobs by kind and outcome with their durations', async () => {
    const before = await metrics();
    const exported = await server.request('POST', `/v1/spaces/${space}/git/export`, {
      token: ada.token,
      body: { url: 'https://git.example.com/docs.git', ref: 'refs/heads/main', commitMessage: 'Export' },
    });
    expect(exported.status, JSON.stringify(exported.body)).toBe(204);
    expect(exported.headers.get('location')).toMatch(/\/graphql\?/);
    // Counted once the job's end is recorded (the log line comes just before).
    await until('the export failed', async () => sample(await metrics(), 'jobs_failed_total', { kind: 'git-export' }) !== sample(before, 'jobs_failed_total', { kind: 'git-export' }));
    const failed = logLines.find((l) => l.msg === 'job failed')!;
    expect(failed.level).toBe(40); // pino's warn
    expect(failed.kind).toBe('git-export');

    const after = await metrics();
    expect(sample(after, 'jobs_failed_total', { kind: 'git-export' })).toBe((sample(before, 'jobs_failed_total', { kind: 'git-export' }) ?? 0) + 1);
    expect(sample(after, 'jobs_succeeded_total', { kind: 'git-import' })).toBe(1);
    expect(sample(after, 'job_duration_seconds_count', { kind: 'git-export', state: 'failed' })).toBe(1);
    expect(sample(after, 'job_duration_seconds_count', { kind: 'git-import', state: 'succeeded' })).toBe(1);
  });

  it('shows jobs queued (the whole deployment) and running (this process)', async () => {
    // One job at a time (JOB_CONCURRENCY=1): the first runs, waiting; the second waits for it.
    expect((await startImport()).status).toBe(204);
    await until('the first import runs', async () => sample(await metrics(), 'jobs_running', { kind: 'git-import' }) === 1);
    expect((await startImport()).status).toBe(204);
    const text = await metrics();
    expect(sample(text, 'jobs_queued', { kind: 'git-import' })).toBe(1);
    expect(sample(text, 'jobs_running', { kind: 'git-import' })).toBe(1);
    releaseImports();
    await until('both imports finished', async () => {
      const now = await metrics();
      return sample(now, 'jobs_succeeded_total', { kind: 'git-import' }) === 3 && sample(now, 'jobs_running', { kind: 'git-import' }) === 0;
    });
    expect(sample(await metrics(), 'jobs_queued', { kind: 'git-import' }) ?? 0).toBe(0);
  });

  it('counts open subscriptions by transport, and GraphQL operations by name and outcome', async () => {
    importsReleased = new Promise<void>((resolve) => (releaseImports = resolve));
    expect((await startImport()).status).toBe(204);
    const job = await server.app.db.job.findFirstOrThrow({ where: { spaceId: space, kind: 'git-import' }, orderBy: { createdAt: 'desc' } });
    const query = 'subscription Follow($id: ID!) { jobUpdated(id: $id) { id state sequence } }';
    const ws = follow(wsClient(ada.token), query, { id: job.id }, 'jobUpdated');
    const sse = followSse(server.baseUrl, query, { id: job.id }, 'jobUpdated', { token: ada.token });
    await until('both subscriptions have an event', () => ws.events.length > 0 && sse.events.length > 0);
    let text = await metrics();
    expect(sample(text, 'graphql_subscriptions_open', { transport: 'graphql-ws' })).toBe(1);
    expect(sample(text, 'graphql_subscriptions_open', { transport: 'sse' })).toBe(1);
    // The client leaving closes the SSE one; the job's end completes the other.
    sse.close();
    await until('the SSE subscription is closed', async () => sample(await metrics(), 'graphql_subscriptions_open', { transport: 'sse' }) === 0);
    releaseImports();
    await ws.ended;
    await until('the graphql-ws subscription is closed', async () => sample(await metrics(), 'graphql_subscriptions_open', { transport: 'graphql-ws' }) === 0);

    const me = await server.graphql('query WhoAmI { viewer { id } }', { token: ada.token });
    expect(me.body.errors).toBeUndefined();
    await server.graphql('query Broken { space(id: "nope") { id } }', { token: ada.token });
    await server.graphql('query Invalid { noSuchField }', { token: ada.token });
    expect((await server.request('GET', `/v1/spaces/${space}`, { token: ada.token })).status).toBe(200);
    text = await metrics();
    expect(sample(text, 'graphql_operations_total', { operation: 'WhoAmI', type: 'query', outcome: 'ok' })).toBe(1);
    expect(sample(text, 'graphql_operations_total', { operation: 'Broken', type: 'query', outcome: 'error' })).toBe(1);
    expect(sample(text, 'graphql_operations_total', { operation: 'Invalid', outcome: 'error' })).toBe(1);
    expect(sample(text, 'graphql_operations_total', { operation: 'GetSpaceById', type: 'query', outcome: 'ok' })).toBeGreaterThanOrEqual(1);
    expect(sample(text, 'graphql_operations_total', { operation: 'Follow', type: 'subscription', outcome: 'ok' })).toBe(2);
  });

  it('reports the database pool on PostgreSQL, and no pool on SQLite', async () => {
    const text = await metrics();
    if (server.app.provider === 'postgresql') {
      for (const state of ['in_use', 'idle', 'waiting']) expect(sample(text, 'db_pool_connections', { state }), state).toBeGreaterThanOrEqual(0);
      expect(sample(text, 'db_pool_connections', { state: 'in_use' })! + sample(text, 'db_pool_connections', { state: 'idle' })!).toBeGreaterThan(0);
    } else {
      expect(sample(text, 'db_pool_connections')).toBeUndefined();
    }
  });

  it('/healthz is liveness; /readyz checks the database', async () => {
    expect((await server.request('GET', '/healthz')).body).toEqual({ status: 'ok' });
    const ready = await server.request('GET', '/readyz');
    expect(ready.status).toBe(200);
    expect(ready.body).toEqual({ status: 'ok', checks: { database: { status: 'ok' } } });
  });
});

describe('/readyz with Redis down', { timeout: 20_000 }, () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ REDIS_URL: `redis://127.0.0.1:${await closedPort()}`, HEALTH_TIMEOUT_MS: '500' });
  });
  afterAll(async () => {
    await server?.close();
  });

  it('answers 503 naming Redis, within the health timeout; /healthz still answers 200', async () => {
    const started = Date.now();
    const ready = await server.request('GET', '/readyz');
    expect(Date.now() - started).toBeLessThan(1_500);
    expect(ready.status).toBe(503);
    expect(ready.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(ready.body).toEqual({
      status: 'unavailable',
      error: expect.stringMatching(/^Redis /),
      checks: { database: { status: 'ok' }, redis: { status: 'unavailable', error: expect.stringMatching(/^Redis /) } },
    });
    expect((await server.request('GET', '/healthz')).status).toBe(200);
  });
});

describe('CORS_ORIGINS', () => {
  const servers: TestServer[] = [];
  afterAll(async () => {
    await Promise.all(servers.map((s) => s.close()));
  });
  const start = async (env: Record<string, string>) => {
    const server = await startTestServer(env);
    servers.push(server);
    return server;
  };
  /** A preflight and a GET from `origin`: the CORS headers of each. */
  const fromOrigin = async (server: TestServer, origin: string) => {
    const preflight = await fetch(`${server.baseUrl}/graphql`, {
      method: 'OPTIONS',
      headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization, content-type' },
    });
    const get = await fetch(`${server.baseUrl}/v1/user`, { headers: { origin } });
    return [preflight, get].map((res) => ({
      origin: res.headers.get('access-control-allow-origin'),
      credentials: res.headers.get('access-control-allow-credentials'),
      expose: res.headers.get('access-control-expose-headers'),
    }));
  };

  it('refuses every other origin by default (no Access-Control-Allow-Origin)', async () => {
    const server = await start({});
    for (const answer of await fromOrigin(server, 'https://evil.example')) expect(answer).toEqual({ origin: null, credentials: null, expose: null });
  });

  it('reflects a listed origin, with credentials, and refuses the others', async () => {
    const server = await start({ CORS_ORIGINS: 'https://docs.example.com, https://admin.example.com' });
    for (const answer of await fromOrigin(server, 'https://admin.example.com')) {
      expect(answer).toMatchObject({ origin: 'https://admin.example.com', credentials: 'true', expose: expect.stringContaining('Location') });
    }
    for (const answer of await fromOrigin(server, 'https://evil.example')) expect(answer).toEqual({ origin: null, credentials: null, expose: null });
  });

  it('allows any origin with *, without credentials', async () => {
    const server = await start({ CORS_ORIGINS: '*' });
    for (const answer of await fromOrigin(server, 'https://anywhere.example')) {
      expect(answer).toMatchObject({ origin: 'https://anywhere.example', credentials: null });
    }
  });

  it('refuses a setting that is not a list of origins', async () => {
    await expect(start({ CORS_ORIGINS: 'https://docs.example.com/' })).rejects.toThrow(/CORS_ORIGINS: "https:\/\/docs.example.com\/" is not an origin/);
    await expect(start({ CORS_ORIGINS: '*,https://docs.example.com' })).rejects.toThrow(/CORS_ORIGINS: \* stands alone/);
  });
});

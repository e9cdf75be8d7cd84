/**
 * Database outages, answered honestly. PostgreSQL behind a TCP proxy
 * (test/helpers/fault-proxy.ts) that refuses connections, then silently drops
 * every packet, then forwards again: REST and GraphQL answer 503 with
 * Retry-After and a message saying what happened, no request and no /readyz
 * call takes longer than the configured timeouts allow, the service recovers
 * by itself, and a write whose connection breaks after COMMIT still answers
 * its success. SQLite: a write blocked by another connection's lock answers
 * 503 after the busy timeout.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PG_CLIENT_GRACE_MS } from '../../src/db/provider/adapters.ts';
import { requireSqliteFile } from '../../src/db/provider/config.ts';
import { DATABASE_RETRY_AFTER_SECONDS } from '../../src/errors/external.ts';
import { toAppError } from '../../src/errors/to-app-error.ts';
import { TEST_DATABASE_URL, createTestDatabase, type TestDatabase } from '../helpers/database.ts';
import { useWsClients } from '../helpers/graphql-ws.ts';
import { startFaultProxy, type FaultMode, type FaultProxy } from '../helpers/fault-proxy.ts';
import { expectError, startTestServer, type ApiResponse, type TestServer, type TestUser } from '../helpers/server.ts';
import { servicesConfigured } from '../helpers/services.ts';

/** Small timeouts, so that the outages take little time (not too small for a busy machine's connections). */
const TIMEOUTS = { connectMs: 1_000, statementMs: 1_000, poolMs: 1_500, healthMs: 800 };
/**
 * The longest a request may take while the database is out: a pooled
 * connection (waiting for one, or opening one), then one statement until the
 * client gives up; a second for the machine.
 */
const REQUEST_BOUND_MS = TIMEOUTS.poolMs + TIMEOUTS.statementMs + PG_CLIENT_GRACE_MS + 1_000;
const HEALTH_BOUND_MS = TIMEOUTS.healthMs + 1_000;

const UNREACHABLE = /^The database cannot be reached; try again in \d+ seconds$/;
const TIMED_OUT = /^The database did not answer in time; try again in \d+ seconds$/;

/** `call`'s answer and how long it took. */
async function timed<T>(call: () => Promise<T>): Promise<{ res: T; ms: number }> {
  const start = performance.now();
  const res = await call();
  return { res, ms: performance.now() - start };
}

function expectUnavailable(res: ApiResponse, message: RegExp) {
  expectError(res, 503, message);
  expect(res.headers.get('retry-after')).toBe(String(DATABASE_RETRY_AFTER_SECONDS));
}

describe.skipIf(!servicesConfigured('postgres'))('PostgreSQL behind a failing network', () => {
  let database: TestDatabase;
  let proxy: FaultProxy;
  let server: TestServer;
  let storageDir: string;
  let ada: TestUser;
  let org: string;
  const wsClient = useWsClients(() => server.baseUrl);

  beforeAll(async () => {
    database = await createTestDatabase();
    const target = new URL(TEST_DATABASE_URL!);
    proxy = await startFaultProxy({ host: target.hostname, port: Number(target.port || 5432) });
    const viaProxy = new URL(database.url);
    viaProxy.hostname = '127.0.0.1';
    viaProxy.port = String(proxy.port);
    storageDir = fs.mkdtempSync(path.join(os.tmpdir(), 'docs-api-files-'));
    server = await startTestServer(
      {
        DATABASE_URL: viaProxy.toString(),
        DATABASE_CONNECT_TIMEOUT_MS: String(TIMEOUTS.connectMs),
        DATABASE_STATEMENT_TIMEOUT_MS: String(TIMEOUTS.statementMs),
        DATABASE_POOL_TIMEOUT_MS: String(TIMEOUTS.poolMs),
        HEALTH_TIMEOUT_MS: String(TIMEOUTS.healthMs),
      },
      { database, storageDir },
    );
    ada = await server.createUser('Ada');
    org = await server.createOrg(ada);
  });

  afterAll(async () => {
    await server?.close();
    await proxy?.close();
    await database?.drop();
    if (storageDir) await fs.promises.rm(storageDir, { recursive: true, force: true });
  });

  /** A REST read, a REST write, a GraphQL query and a GraphQL mutation, several at once (more than the pool holds), /readyz and /healthz. */
  async function expectOutageAnswers(mode: FaultMode, message: RegExp) {
    await proxy.setMode(mode);
    const calls = [
      () => server.request('GET', `/v1/orgs/${org}/spaces`, { token: ada.token }),
      () => server.request('POST', `/v1/orgs/${org}/spaces`, { token: ada.token, body: { title: 'Lost' } }),
      () => server.graphql('query($id: ID!) { organization(id: $id) { id title } }', { token: ada.token, variables: { id: org } }),
      () => server.graphql('mutation { createOrganization(input: { title: "Lost" }) { id } }', { token: ada.token }),
    ];
    const answers = await Promise.all(Array.from({ length: 4 }, () => calls.map((call) => timed(call))).flat());
    for (const [i, { res, ms }] of answers.entries()) {
      expect(ms, `call ${i} took ${ms} ms`).toBeLessThan(REQUEST_BOUND_MS);
      if (i % 4 < 2) {
        expectUnavailable(res, message);
      } else {
        expect(res.status, JSON.stringify(res.body)).toBe(503);
        expect(res.headers.get('retry-after')).toBe(String(DATABASE_RETRY_AFTER_SECONDS));
        // Where the database first failed: authenticating (no path), or a field's read once the caller is kept (its path).
        expect(res.body.errors).toEqual([expect.objectContaining({ message: expect.stringMatching(message), extensions: { code: 'DATABASE_UNAVAILABLE' } })]);
      }
    }
    const ready = await timed(() => server.request('GET', '/readyz'));
    expect(ready.ms).toBeLessThan(HEALTH_BOUND_MS);
    expect(ready.res.status).toBe(503);
    expect(ready.res.body).toEqual({ status: 'unavailable', error: expect.any(String), checks: { database: { status: 'unavailable', error: ready.res.body.error } } });
    // Liveness does not ask the database: the process is alive, a restart would not help.
    const live = await timed(() => server.request('GET', '/healthz'));
    expect(live.ms).toBeLessThan(HEALTH_BOUND_MS);
    expect(live.res).toMatchObject({ status: 200, body: { status: 'ok' } });
  }

  async function expectRecovered() {
    await proxy.setMode('forward');
    expect((await server.request('GET', '/readyz')).body).toEqual({ status: 'ok', checks: { database: { status: 'ok' } } });
    const space = await server.request('POST', `/v1/orgs/${org}/spaces`, { token: ada.token, body: { title: 'Back' } });
    expect(space.status, JSON.stringify(space.body)).toBe(201);
    const read = await server.graphql('query($id: ID!) { space(id: $id) { title } }', { token: ada.token, variables: { id: space.body.id } });
    expect(read.body).toEqual({ data: { space: { title: 'Back' } } });
  }

  it('refused connections: 503 with Retry-After at once, /readyz says the database cannot be reached; then recovers', async () => {
    await expectOutageAnswers('refuse', UNREACHABLE);
    const health = await server.request('GET', '/readyz');
    expect(health.body.error).toMatch(UNREACHABLE);
    // A graphql-ws connection whose token cannot be checked is closed with 1013, "try again later".
    const closed = new Promise<{ code: number; reason: string }>((resolve) => {
      wsClient(ada.token, { lazy: false, onNonLazyError: () => undefined, on: { closed: (event) => resolve(event as { code: number; reason: string }) } });
    });
    expect(await closed).toMatchObject({ code: 1013, reason: expect.stringMatching(UNREACHABLE) });
    await expectRecovered();
  });

  it('dropped packets: 503 with Retry-After within the timeouts, /readyz within its own; then recovers', async () => {
    await expectOutageAnswers('drop', TIMED_OUT);
    const health = await server.request('GET', '/readyz');
    // Its own deadline, or the database's timeouts when one of them comes first.
    expect(health.body.error).toMatch(new RegExp(`^the database did not answer within ${TIMEOUTS.healthMs} ms$|${TIMED_OUT.source}`));
    await expectRecovered();
  });

  it('cancels a statement at the statement timeout (statement_timeout on the server): a 503 of the timeout kind', async () => {
    const { res: error, ms } = await timed(() => server.app.db.$queryRawUnsafe('SELECT pg_sleep(5)').then(() => null, (e: unknown) => e));
    expect(ms).toBeGreaterThanOrEqual(TIMEOUTS.statementMs - 50);
    expect(ms).toBeLessThan(TIMEOUTS.statementMs + PG_CLIENT_GRACE_MS);
    expect(toAppError(error)).toMatchObject({ status: 503, reason: 'timeout' });
    // The connection is still good: the server cancelled the statement, not the session.
    expect(await server.app.db.$queryRawUnsafe('SELECT 1 AS one')).toEqual([{ one: 1 }]);
  });

  it('answers a committed write when the connections break between COMMIT and the reads that build the answer', async () => {
    const spaces = await server.listSpaceIds(ada, org);
    const broken = proxy.broken;
    proxy.breakOpenConnectionsAfterCommit();
    const created = await server.request('POST', `/v1/orgs/${org}/spaces`, { token: ada.token, body: { title: 'Committed' } });
    expect(proxy.broken - broken, 'connections the reads after COMMIT found dead').toBeGreaterThan(0);
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body).toMatchObject({ object: 'space', title: 'Committed' });
    expect(await server.listSpaceIds(ada, org)).toEqual([...spaces, created.body.id]);
  });
});

describe('SQLite locked by another connection', () => {
  let database: TestDatabase;
  let storageDir: string;
  let server: TestServer;
  let ada: TestUser;
  const BUSY_MS = 300;

  beforeAll(async () => {
    // SQLite in either run of the suite: this is SQLite's own behaviour.
    database = await createTestDatabase({ sqlite: true });
    storageDir = fs.mkdtempSync(path.join(os.tmpdir(), 'docs-api-files-'));
    server = await startTestServer({ DATABASE_URL: database.url, DATABASE_BUSY_TIMEOUT_MS: String(BUSY_MS) }, { database, storageDir });
    ada = await server.createUser('Ada');
  });
  afterAll(async () => {
    await server?.close();
    await database?.drop();
    if (storageDir) await fs.promises.rm(storageDir, { recursive: true, force: true });
  });

  it('answers a write 503 with Retry-After after the busy timeout, and writes again once the lock is gone', async () => {
    const other = new Database(requireSqliteFile(server.database.config));
    try {
      other.exec('BEGIN IMMEDIATE');
      const { res, ms } = await timed(() => server.request('POST', '/v1/orgs', { token: ada.token, body: { title: 'Locked out' } }));
      expectUnavailable(res, TIMED_OUT);
      expect(ms).toBeGreaterThanOrEqual(BUSY_MS - 50);
      // Reads go on: WAL lets them past a writer.
      expect((await server.request('GET', '/v1/orgs', { token: ada.token })).status).toBe(200);
      other.exec('ROLLBACK');
    } finally {
      other.close();
    }
    expect((await server.request('POST', '/v1/orgs', { token: ada.token, body: { title: 'Written' } })).status).toBe(201);
  });
});

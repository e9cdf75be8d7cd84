/**
 * Starts the real server (HTTP and WebSocket on a free port) on a fresh
 * database for one test file, with helpers to make users and call the API.
 * A test file calls useTestServer(); startTestServer() is for a second server
 * of its own (other settings, or sharing the first one's database).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect } from 'vitest';
import { createUserWithToken } from '../../src/auth/users.ts';
import { newId } from '../../src/ids.ts';
import { assertMatchesSpec } from './openapi.ts';
import { loadConfig } from '../../src/config.ts';
import { createApp, type App, type AppOptions } from '../../src/server.ts';
import { createTestDatabase, type TestDatabase } from './database.ts';
import { expectRedisAnswers, TEST_REDIS_URL } from './services.ts';

/** Asserts a REST error answer: `status`, the API's error shape (`{ error: { code, message } }`), and a message matching `message`. */
export function expectError(res: { status: number; body: any }, status: number, message?: RegExp) {
  expect(res.status, JSON.stringify(res.body)).toBe(status);
  expect(res.body).toEqual({ error: { code: status, message: expect.any(String) } });
  if (message) expect(res.body.error.message).toMatch(message);
}

/** A user made by `createUser`, with an API token. */
/**
 * The share key a published URL of a share-link site carries: the first path segment after the
 * site's address (`<SITES_URL>/<organization>/<basename>/<key>/...`).
 */
export function shareKeyIn(published: string, sitesUrl: string): string {
  const prefix = new URL(sitesUrl).pathname.split('/').filter(Boolean).length;
  const key = new URL(published).pathname.split('/').filter(Boolean)[prefix + 2];
  if (!key) throw new Error(`${published} carries no share key`);
  return decodeURIComponent(key);
}

export interface TestUser {
  id: string;
  email: string;
  token: string;
}

export interface ApiResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
}

export interface TestServer {
  app: App;
  baseUrl: string;
  database: TestDatabase;
  /** The folder of stored files. */
  storageDir: string;
  /** Creates a user with a token, like `npm run cli -- user:create`. */
  createUser(name?: string): Promise<TestUser>;
  /** POST /v1/orgs as `user`; returns the new organization's id. */
  createOrg(user: { token: string }, title?: string): Promise<string>;
  /** Makes `user` a member with `role` (null: guest), straight in the database. */
  addMember(organizationId: string, user: { id: string }, role: string | null, dates?: { joinedAt?: Date; lastSeenAt?: Date }): Promise<void>;
  /** POST /v1/orgs/{id}/spaces; the 201 body, validated against the OpenAPI document. */
  createSpace(user: { token: string }, organizationId: string, body?: Record<string, unknown>): Promise<any>;
  /** POST /v1/orgs/{id}/collections; the 201 body, validated against the OpenAPI document. */
  createCollection(user: { token: string }, organizationId: string, body?: Record<string, unknown>): Promise<any>;
  /** POST /v1/orgs/{id}/sites; the 201 body, validated against the OpenAPI document. */
  createSite(user: { token: string }, organizationId: string, body?: Record<string, unknown>): Promise<any>;
  /** A new organization of `user`'s with a space per title (the 201 bodies), and a site without sections. */
  siteWithSpaces(user: { token: string }, titles?: string[]): Promise<{ org: string; site: string; spaces: any[] }>;
  /** POST /v1/orgs/{id}/sites/{siteId}/publish; expects 200. */
  publishSite(user: { token: string }, organizationId: string, siteId: string): Promise<void>;
  /** GETs a list endpoint, expects 200 with a body matching `operationId`'s schema; the item ids. */
  listIds(user: { token: string }, path: string, operationId: string): Promise<string[]>;
  /** The ids of an organization's spaces (GET /v1/orgs/{id}/spaces), as `user` sees them. */
  listSpaceIds(user: { token: string }, organizationId: string): Promise<string[]>;
  /** The ids of a collection's spaces (GET /v1/collections/{id}/spaces), as `user` sees them. */
  listCollectionSpaceIds(user: { token: string }, collectionId: string): Promise<string[]>;
  /** The ids of the collections and spaces (not in the bin) under `parentId` (null: the top level), in position order, from the database. */
  childrenInOrder(organizationId: string, parentId: string | null): Promise<string[]>;
  /**
   * GETs a list endpoint `limit` items at a time (2 by default), following `next.page` to the end:
   * every page 200, matching `operationId`'s schema, with at most `limit` items and the same
   * `count`. The item ids in order, the number of pages, and that count.
   */
  pageThrough(user: { token: string }, path: string, operationId: string, limit?: number): Promise<{ ids: string[]; pages: number; count: number }>;
  /** Calls each endpoint `[method, path, body]` with `token` (undefined: none) and expects the error answer `status` from every one. */
  expectErrors(endpoints: Iterable<readonly [string, string, unknown]>, token: string | undefined, status: number): Promise<void>;
  /** Calls the API; `body` is sent as JSON (a string is sent as is). */
  request<T = any>(method: string, path: string, options?: { token?: string; body?: unknown; headers?: Record<string, string> }): Promise<ApiResponse<T>>;
  /** POST /graphql with `query` and `variables`, as `token`'s user. */
  graphql<T = any>(query: string, options?: { token?: string; variables?: Record<string, unknown>; headers?: Record<string, string> }): Promise<ApiResponse<GraphQLBody<T>>>;
  /** Runs `fn`; the SQL statements it sent (the `db_queries_total` metric), and its result. */
  countStatements<T>(fn: () => Promise<T>): Promise<{ statements: number; result: T }>;
  close(): Promise<void>;
}

/** The body of a GraphQL response. */
export interface GraphQLBody<T = any> {
  data?: T;
  errors?: Array<{ message: string; path?: string[]; extensions?: { code?: string; [key: string]: unknown } }>;
}

let counter = 0;

/**
 * `shared`: another server's database and file folder, for tests of several
 * processes (or a restart) on one database; the first server removes them.
 * `appOptions`: more of createApp's options (job handlers a test controls; `onQuery`, told every SQL
 *   statement the app sends, before it is sent: a throw fails the statement).
 */
export async function startTestServer(
  env: Record<string, string> = {},
  shared?: { database: TestDatabase; storageDir: string },
  appOptions: Omit<AppOptions, 'config'> = {},
): Promise<TestServer> {
  const database = shared?.database ?? (await createTestDatabase());
  // Stored files go to a temporary folder of this server, removed on close.
  const storageDir = shared?.storageDir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'docs-api-files-'));
  const config = loadConfig({
    PORT: '0',
    HOST: '127.0.0.1',
    DATABASE_URL: database.url,
    LOG_LEVEL: 'silent',
    RATE_LIMIT_POINTS: '1000000',
    STORAGE_DIR: storageDir,
    // Workers look for jobs rarely (a job created here starts at once anyway), so the
    // statement-count tests do not see a poll land in the middle of their request.
    JOB_POLL_MS: '60000',
    // Callers are kept for the life of a test (what changes them is heard through the write hook): a
    // statement count never depends on how long a loaded machine took between two requests. The bound
    // itself is tested in test/auth/viewer-cache.test.ts.
    VIEWER_CACHE_MAX_AGE_MS: '600000',
    // Ingested conversations are read almost at once: a test waits for their processing.
    INSIGHTS_BATCH_MS: '50',
    ...env,
  });
  const app = createApp({ ...appOptions, config });
  const baseUrl = await app.listen();
  // The tests' fetch keeps a connection for ~4 s of idleness and Node's server drops it at 5 s; when
  // a test has held the event loop (synchronous SQLite seeding), both timers are late and the next
  // request can go out on a socket the server is closing (ECONNRESET). Idle sockets live longer here.
  app.server.keepAliveTimeout = 60_000;
  app.config.publicUrl = baseUrl;
  app.config.appUrl = baseUrl;
  /** POSTs `body` and expects 201 with a body matching `operationId`'s schema. */
  async function create(token: string, path: string, operationId: string, body: Record<string, unknown>) {
    const res = await server.request('POST', path, { token, body });
    if (res.status !== 201) throw new Error(`POST ${path} answered ${res.status}: ${JSON.stringify(res.body)}`);
    assertMatchesSpec(operationId, 201, res.body, operationId === 'createOrganization' ? 'next' : 'current');
    return res.body;
  }

  const server: TestServer = {
    app,
    baseUrl,
    database,
    storageDir,
    async createOrg(user, title = 'Org') {
      return (await create(user.token, '/v1/orgs', 'createOrganization', { title })).id;
    },
    async listIds(user, path, operationId) {
      const res = await server.request('GET', path, { token: user.token });
      if (res.status !== 200) throw new Error(`GET ${path} answered ${res.status}: ${JSON.stringify(res.body)}`);
      assertMatchesSpec(operationId, 200, res.body);
      return res.body.items.map((item: { id: string }) => item.id);
    },
    listSpaceIds: (user, organizationId) => server.listIds(user, `/v1/orgs/${organizationId}/spaces?limit=1000`, 'listSpacesInOrganizationById'),
    listCollectionSpaceIds: (user, collectionId) => server.listIds(user, `/v1/collections/${collectionId}/spaces`, 'listSpacesInCollectionById'),
    async childrenInOrder(organizationId, parentId) {
      const [collections, spaces] = await Promise.all([
        app.db.collection.findMany({ where: { organizationId, parentId }, select: { id: true, position: true } }),
        app.db.space.findMany({ where: { organizationId, parentId, deletedAt: null }, select: { id: true, position: true } }),
      ]);
      return [...collections, ...spaces].sort((a, b) => a.position - b.position || a.id.localeCompare(b.id)).map((x) => x.id);
    },
    async expectErrors(endpoints, token, status) {
      for (const [method, path, body] of endpoints) {
        const res = await server.request(method, path, { token, body });
        expect(res.status, `${method} ${path}: ${JSON.stringify(res.body)}`).toBe(status);
        expectError(res, status);
      }
    },
    async pageThrough(user, path, operationId, limit = 2) {
      const ids: string[] = [];
      const counts = new Set<number>();
      let page: string | undefined;
      let pages = 0;
      do {
        const query = `limit=${limit}${page ? `&page=${encodeURIComponent(page)}` : ''}`;
        const res = await server.request('GET', `${path}${path.includes('?') ? '&' : '?'}${query}`, { token: user.token });
        if (res.status !== 200) throw new Error(`GET ${path} (${query}) answered ${res.status}: ${JSON.stringify(res.body)}`);
        assertMatchesSpec(operationId, 200, res.body);
        expect(res.body.items.length).toBeLessThanOrEqual(limit);
        ids.push(...res.body.items.map((item: { id: string }) => item.id));
        counts.add(res.body.count);
        page = res.body.next?.page;
        pages += 1;
      } while (page && pages < 100);
      expect([...counts], 'every page has the same count').toHaveLength(1);
      return { ids, pages, count: [...counts][0]! };
    },
    async addMember(organizationId, user, role, dates = {}) {
      await app.db.member.create({ data: { id: newId(), organizationId, userId: user.id, role, ...dates } });
    },
    createSpace: (user, organizationId, body = {}) =>
      create(user.token, `/v1/orgs/${organizationId}/spaces`, 'createSpace', { title: 'Space', ...body }),
    createCollection: (user, organizationId, body = {}) =>
      create(user.token, `/v1/orgs/${organizationId}/collections`, 'createCollection', { title: 'Collection', ...body }),
    createSite: (user, organizationId, body = {}) =>
      create(user.token, `/v1/orgs/${organizationId}/sites`, 'createSite', { title: 'Docs', ...body }),
    async siteWithSpaces(user, titles = ['Guide', 'API', 'Changelog']) {
      const org = await server.createOrg(user);
      const spaces = [];
      for (const title of titles) spaces.push(await server.createSpace(user, org, { title }));
      const site = (await server.createSite(user, org)).id as string;
      return { org, site, spaces };
    },
    async publishSite(user, organizationId, siteId) {
      const res = await server.request('POST', `/v1/orgs/${organizationId}/sites/${siteId}/publish`, { token: user.token });
      if (res.status !== 200) throw new Error(`publish answered ${res.status}: ${JSON.stringify(res.body)}`);
    },
    async createUser(name = 'User') {
      counter += 1;
      const email = `${name.toLowerCase().replace(/\W+/g, '-')}-${process.pid}-${counter}@example.com`;
      const { user, token } = await createUserWithToken(app.db, { email, displayName: name });
      return { id: user.id, email, token };
    },
    async request(method, path, options = {}) {
      const headers: Record<string, string> = { ...options.headers };
      if (options.token) headers.authorization = `Bearer ${options.token}`;
      let body: string | undefined;
      if (options.body !== undefined) {
        body = typeof options.body === 'string' ? options.body : JSON.stringify(options.body);
        headers['content-type'] ??= 'application/json';
      }
      const response = await fetch(`${baseUrl}${path}`, { method, headers, body });
      const text = await response.text();
      let parsed: unknown = text;
      try {
        parsed = text ? JSON.parse(text) : null;
      } catch {
        // not JSON: keep the text
      }
      return { status: response.status, headers: response.headers, body: parsed as never };
    },
    graphql: (query, options = {}) =>
      server.request('POST', '/graphql', { token: options.token, headers: options.headers, body: { query, variables: options.variables } }),
    async countStatements(fn) {
      const read = async () => (await app.metrics.dbQueries.get()).values[0]?.value ?? 0;
      const before = await read();
      const result = await fn();
      return { statements: (await read()) - before, result };
    },
    async close() {
      await app.close();
      if (shared) return;
      await database.drop();
      await fs.promises.rm(storageDir, { recursive: true, force: true });
    },
  };
  return server;
}

/** The users `useTestServer` makes: `Ada` is `ada`. */
type UsersNamed<Name extends string> = { [N in Name as Uncapitalize<N>]: TestUser };

/**
 * Starts a test server in `beforeAll` of the file (or describe) that calls it, makes one user
 * per name of `users`, and closes the server in `afterAll`. The objects returned are filled in
 * by that `beforeAll`: use them inside tests and hooks, never at the top level of a file.
 */
export function useTestServer<const Name extends string = never>(options: { users?: readonly Name[]; env?: Record<string, string>; app?: Omit<AppOptions, 'config'> } = {}): { server: TestServer } & UsersNamed<Name> {
  const server = {} as TestServer;
  const users: Record<string, TestUser> = {};
  for (const name of options.users ?? []) users[name.charAt(0).toLowerCase() + name.slice(1)] = {} as TestUser;
  let started: TestServer | undefined;
  beforeAll(async () => {
    started = await startTestServer(options.env, undefined, options.app);
    Object.assign(server, started);
    for (const name of options.users ?? []) Object.assign(users[name.charAt(0).toLowerCase() + name.slice(1)]!, await started.createUser(name));
  });
  afterAll(() => started?.close());
  return { server, ...users } as { server: TestServer } & UsersNamed<Name>;
}

/**
 * Two servers on one database and one Redis, as two replicas are: started in `beforeAll` of the
 * describe that calls it (which should skip without Redis: `servicesConfigured('redis')`), closed
 * in `afterAll`. `sharing`: another server whose database and files they use (else the first's).
 * The objects are filled in by that `beforeAll`, as useTestServer's are.
 */
export function useServersSharingRedis(sharing?: () => TestServer): { a: TestServer; b: TestServer } {
  const servers = { a: {} as TestServer, b: {} as TestServer };
  const started: TestServer[] = [];
  beforeAll(async () => {
    await expectRedisAnswers();
    const env = { REDIS_URL: TEST_REDIS_URL! };
    const first = await startTestServer(env, sharing && { database: sharing().database, storageDir: sharing().storageDir });
    started.push(first);
    const second = await startTestServer(env, { database: first.database, storageDir: first.storageDir });
    started.push(second);
    Object.assign(servers.a, first);
    Object.assign(servers.b, second);
  });
  afterAll(async () => {
    for (const server of started.reverse()) await server.close();
  });
  return servers;
}

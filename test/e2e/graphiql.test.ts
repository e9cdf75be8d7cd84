/**
 * GraphiQL without internet, at the HTTP and protocol level (the browser test is
 * graphiql-browser.test.ts): the page at /graphql and every asset it loads come from this server,
 * under a policy of its own origin; and a graphql-ws operation may bring its token in the
 * subscribe message's `extensions.headers`, as GraphiQL sends its Headers tab after an empty
 * `connection_init`, checked like `connectionParams`.
 */
import type { Client, ExecutionResult } from 'graphql-ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JobHandler } from '../../src/jobs/runner.ts';
import { useWsClients } from '../helpers/graphql-ws.ts';
import { startTestServer, type TestServer, type TestUser } from '../helpers/server.ts';

/** A job whose one step waits for the test. */
let releaseStep!: () => void;
const released = new Promise<void>((resume) => (releaseStep = resume));
const stepped: JobHandler = async (ctx) => {
  await released;
  await ctx.progress('copying', 50);
  return {};
};

let server: TestServer;
let ada: TestUser;
let bob: TestUser;
beforeAll(async () => {
  server = await startTestServer({}, undefined, { jobHandlers: { 'git-import': stepped } });
  ada = await server.createUser('Ada');
  bob = await server.createUser('Bob');
});
afterAll(() => server?.close());
// Registered after the server's afterAll, so its clients are disposed first.
const wsClient = useWsClients(() => server.baseUrl);

/** GETs `path` as a browser would; the status, headers and text. */
async function browserGet(path: string) {
  const response = await fetch(`${server.baseUrl}${path}`, { headers: { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' } });
  return { status: response.status, headers: response.headers, text: await response.text() };
}

describe('the GraphiQL page', () => {
  it('says what this service is and loads nothing from another origin', async () => {
    const page = await browserGet('/graphql');
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect(page.text).toContain('<title>Docs publishing API · GraphiQL</title>');
    expect(page.text).toMatch(/<meta name="description" content="GraphiQL for the documentation publishing API[^"]+">/);
    // Every src and href is a path of this server; no absolute URL at all.
    const references = [...page.text.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);
    expect(references.length).toBe(4);
    for (const reference of references) expect(reference).toMatch(/^\/graphiql\/\d+\.\d+\.\d+\/[\w.]+$/);
    expect(page.text).not.toMatch(/https?:\/\//);
    const policy = page.headers.get('content-security-policy') ?? '';
    expect(policy).toContain("default-src 'self'");
    expect(policy).toContain("script-src 'self';");
    expect(policy).toContain("connect-src 'self';");

    // The options yoga gives the page: subscriptions over graphql-ws, and a first tab saying how to sign in.
    const options = JSON.parse(/<script type="application\/json" id="graphiql-options">(.*?)<\/script>/s.exec(page.text)![1]!);
    expect(options).toMatchObject({ title: 'Docs publishing API · GraphiQL', subscriptionsProtocol: 'WS' });
    expect(options.defaultQuery).toContain('"Authorization": "Bearer <your token>"');
  });

  it('serves every asset the page loads, from its own dependency, cacheable for good', async () => {
    const page = await browserGet('/graphql');
    const base = /href="(\/graphiql\/[^/]+)\/graphiql\.css"/.exec(page.text)![1]!;
    const expected: Record<string, RegExp> = {
      'graphiql.js': /^text\/javascript/,
      'graphiql.css': /^text\/css/,
      'start.js': /^text\/javascript/,
      'editor.worker.js': /^text\/javascript/,
      'json.worker.js': /^text\/javascript/,
      'graphql.worker.js': /^text\/javascript/,
      'favicon.ico': /^image\/x-icon/,
    };
    for (const [name, type] of Object.entries(expected)) {
      const response = await fetch(`${server.baseUrl}${base}/${name}`, { headers: { 'accept-encoding': 'identity' } });
      expect(response.status, name).toBe(200);
      expect(response.headers.get('content-type'), name).toMatch(type);
      expect(response.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
      expect(response.headers.get('content-encoding')).toBeNull();
      const body = new Uint8Array(await response.arrayBuffer());
      expect(body.length, name).toBeGreaterThan(100);
      expect(response.headers.get('content-length')).toBe(String(body.length));
    }
    // Gzipped for a browser that takes it: the same script, in a fraction of the bytes.
    const plain = await fetch(`${server.baseUrl}${base}/graphiql.js`, { headers: { 'accept-encoding': 'identity' } });
    const gzipped = await fetch(`${server.baseUrl}${base}/graphiql.js`, { headers: { 'accept-encoding': 'gzip, deflate, br' } });
    expect(gzipped.headers.get('content-encoding')).toBe('gzip');
    expect(Number(gzipped.headers.get('content-length'))).toBeLessThan(Number(plain.headers.get('content-length')) / 2);
    expect(await gzipped.text()).toBe(await plain.text());
    // The script defines what start.js calls; the workers start.js names are the ones served.
    const start = await (await fetch(`${server.baseUrl}${base}/start.js`)).text();
    expect(start).toContain('YogaGraphiQL.renderYogaGraphiQL');
    expect(start).toContain(`"${base}/"`);
    // One route in the metrics, whatever the asset.
    const metrics = await (await fetch(`${server.baseUrl}/metrics`)).text();
    expect(metrics).toMatch(/http_request_duration_seconds_count\{method="GET",route="\/graphiql\/\{version\}\/\{asset\}",status="200"\} ([89]|\d\d)/);
  });

  it('answers 404 for a name or version it does not serve', async () => {
    const page = await browserGet('/graphql');
    const base = /href="(\/graphiql\/[^/]+)\/graphiql\.css"/.exec(page.text)![1]!;
    for (const path of [`${base}/other.js`, `${base}/../package.json`, '/graphiql/0.0.1/graphiql.js', `${base}/constructor`]) {
      expect((await fetch(`${server.baseUrl}${path}`)).status, path).toBe(404);
    }
  });
});

describe('a graphql-ws operation with its own Authorization (extensions.headers)', () => {
  /** A client that sends an empty connection_init, as GraphiQL does. */
  const anonymous = () => wsClient(undefined, { connectionParams: undefined });

  /** Runs one operation with `headers` in its extensions; its results, and the error the server sent. */
  function run(client: Client, query: string, headers: Record<string, string>, variables?: Record<string, unknown>, untilResults = Infinity) {
    return new Promise<{ results: ExecutionResult<any>[]; error?: unknown }>((resolve) => {
      const results: ExecutionResult<any>[] = [];
      const unsubscribe = client.subscribe(
        { query, variables, extensions: { headers } },
        {
          next: (value) => {
            results.push(value as ExecutionResult<any>);
            if (results.length >= untilResults) {
              unsubscribe();
              resolve({ results });
            }
          },
          error: (error) => resolve({ results, error }),
          complete: () => resolve({ results }),
        },
      );
    });
  }

  it('runs queries and mutations as the token of the Headers tab, whatever its case', async () => {
    const client = anonymous();
    const viewer = await run(client, '{ viewer { id } }', { Authorization: `Bearer ${ada.token}` });
    expect(viewer.error).toBeUndefined();
    expect(viewer.results).toEqual([{ data: { viewer: { id: ada.id } } }]);
    const created = await run(client, 'mutation { createOrganization(input: { title: "From GraphiQL" }) { title permissions { admin } } }', { authorization: `Bearer ${ada.token}` });
    expect(created.results).toEqual([{ data: { createOrganization: { title: 'From GraphiQL', permissions: { admin: true } } } }]);

    // Each operation is its own caller, on the same connection; without a header, the connection's (none here).
    const asBob = await run(client, '{ viewer { id } }', { Authorization: `Bearer ${bob.token}` });
    expect(asBob.results[0]?.data).toEqual({ viewer: { id: bob.id } });
    const none = await run(client, '{ viewer { id } }', {});
    expect(none.results[0]?.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
  });

  it("takes the operation's header over the connection's connectionParams", async () => {
    const client = wsClient(bob.token);
    expect((await run(client, '{ viewer { id } }', {})).results[0]?.data).toEqual({ viewer: { id: bob.id } });
    expect((await run(client, '{ viewer { id } }', { Authorization: `Bearer ${ada.token}` })).results[0]?.data).toEqual({ viewer: { id: ada.id } });
  });

  it('runs a subscription to a job of the caller’s space, and refuses one to another organization’s', async () => {
    const org = await server.createOrg(ada);
    const space = (await server.createSpace(ada, org)).id as string;
    const job = await server.app.jobs.start({ organizationId: org, spaceId: space, kind: 'git-import', input: {}, createdById: ada.id });
    const query = 'subscription($id: ID!) { jobUpdated(id: $id, after: 0) { id state step percent } }';
    const following = run(anonymous(), query, { Authorization: `Bearer ${ada.token}` }, { id: job.id });
    const bobs = await run(anonymous(), query, { Authorization: `Bearer ${bob.token}` }, { id: job.id });
    expect(JSON.stringify(bobs)).toMatch(/NOT_FOUND|FORBIDDEN/);
    releaseStep();
    const { results, error } = await following;
    expect(error).toBeUndefined();
    const events = results.map((r) => r.data?.jobUpdated);
    expect(events.at(-1)).toMatchObject({ id: job.id, state: 'succeeded', percent: 100 });
    expect(events.some((e) => e?.step === 'copying')).toBe(true);
  });

  it('refuses a token that is not valid as connectionParams does: an error for the operation, then 4403 with the reason', async () => {
    for (const authorization of ['Bearer gb_api_not-a-real-token', 'Basic YWRhOnNlY3JldA==']) {
      const client = anonymous();
      const closed = new Promise<{ code: number; reason: string }>((resolve) => client.on('closed', (event) => resolve(event as { code: number; reason: string })));
      const { results, error } = await run(client, '{ viewer { id } }', { Authorization: authorization });
      expect(results).toEqual([]);
      const errors = error as Array<{ message: string; extensions?: { code?: string } }>;
      expect(errors[0]?.extensions?.code).toBe('UNAUTHENTICATED');
      expect(errors[0]?.message).toMatch(/invalid|revoked|Bearer/i);
      const close = await closed;
      expect(close.code).toBe(4403);
      expect(close.reason).toBe(errors[0]?.message);
    }
  });

  it('never authenticates an HTTP request by the extensions of its body', async () => {
    const res = await server.request('POST', '/graphql', { body: { query: '{ viewer { id } }', extensions: { headers: { Authorization: `Bearer ${ada.token}` } } } });
    expect(res.body.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
  });
});

/**
 * Telling the site renderer what changed (src/services/renderer-revalidation.ts), against a fake
 * renderer that checks requests as GitBook's does (`withVerifySignature` of
 * packages/gitbook/src/lib/routes.ts, the route packages/gitbook/src/app/~gitbook/revalidate/route.ts):
 * the body is `{"tags": [...]}`, `x-gitbook-signature` the hex HMAC-SHA256 of the raw body with the
 * secret. Each kind of write sends the tags that drop what the renderer cached of it; writes answer
 * while the renderer holds its answer; a renderer that fails is tried again; what is written while
 * a revalidation waits goes out with the next one; nothing is queued without RENDERER_URL, and
 * users never see these jobs.
 */
import { createHmac } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rendererRevalidationJob } from '../../src/services/renderer-revalidation.ts';
import { startTestServer, type TestServer, type TestUser } from '../helpers/server.ts';

const SECRET = 'the-renderer-secret';

interface Call {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  /** The raw body, as sent. */
  body: string;
  tags: string[];
}

/** A renderer's revalidation endpoint: records every request, answers as GitBook's does unless told to fail. */
async function fakeRenderer() {
  const calls: Call[] = [];
  /** Statuses to answer the next requests with, before answering normally again. */
  const failures: number[] = [];
  let held: { release: () => void; promise: Promise<void> } | null = null;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', async () => {
      const body = Buffer.concat(chunks).toString('utf8');
      let tags: string[] = [];
      try {
        tags = JSON.parse(body).tags;
      } catch {
        // answered 400 below
      }
      calls.push({ method: req.method!, path: req.url!, headers: req.headers, body, tags });
      if (held) await held.promise;
      const answer = (status: number, json: unknown) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(json));
      const failure = failures.shift();
      if (failure !== undefined) return answer(failure, { error: 'failing as told' });
      if (req.method !== 'POST' || req.url !== '/~gitbook/revalidate') return answer(404, { error: 'not found' });
      const signature = req.headers['x-gitbook-signature'];
      if (!signature) return answer(400, { error: 'Missing signature header' });
      if (signature !== createHmac('sha256', SECRET).update(body).digest('hex')) return answer(401, { error: 'Invalid signature' });
      if (!Array.isArray(tags)) return answer(400, { error: 'tags must be an array' });
      return answer(200, { success: true });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    calls,
    failures,
    /** Holds every answer until `release()`. */
    hold() {
      let release!: () => void;
      const promise = new Promise<void>((resolve) => (release = resolve));
      held = { release: () => ((held = null), release()), promise };
      return held.release;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

async function until<T>(what: string, check: () => T | Promise<T>, timeoutMs = 10_000): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value as NonNullable<T>;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const sorted = (tags: readonly string[]) => [...tags].sort();

let renderer: Awaited<ReturnType<typeof fakeRenderer>>;
let server: TestServer;
let ada: TestUser;
let org: string;
let site: string;
let sites: string;
/** Spaces on the site (guide), not yet on it (extra), and on an unpublished site only (other). */
let guide: string;
let extra: string;
let other: string;

beforeAll(async () => {
  renderer = await fakeRenderer();
  server = await startTestServer(
    // One worker, looking often: a revalidation waiting for the renderer keeps the next one queued.
    { RENDERER_URL: `${renderer.url}/`, RENDERER_SECRET: SECRET, JOB_POLL_MS: '100', JOB_CONCURRENCY: '1' },
    undefined,
    { jobHandlers: { 'renderer-revalidation': rendererRevalidationJob({ delaysMs: [100, 100, 100] }) } },
  );
  ada = await server.createUser('Ada');
  org = await server.createOrg(ada);
  guide = (await server.createSpace(ada, org, { title: 'Guide' })).id;
  extra = (await server.createSpace(ada, org, { title: 'Extra' })).id;
  other = (await server.createSpace(ada, org, { title: 'Other' })).id;
  site = (await server.createSite(ada, org, { title: 'Docs', spaces: [guide] })).id;
  sites = `/v1/orgs/${org}/sites/${site}`;
  // An unpublished site showing the guide too: nothing is sent for it.
  await server.createSite(ada, org, { title: 'Draft', spaces: [guide, other] });
});
afterAll(async () => {
  await server?.close();
  await renderer?.close();
});

async function ok(method: string, path: string, body?: unknown) {
  const res = await server.request(method, path, { token: ada.token, body });
  expect(res.status, `${method} ${path}: ${JSON.stringify(res.body)}`).toBeLessThan(300);
  return res.body;
}

/** Runs a write; the renderer's next request, once it came. */
async function sentAfter(write: () => Promise<unknown>): Promise<Call> {
  const before = renderer.calls.length;
  await write();
  await until('the renderer to be called', () => renderer.calls.length > before);
  // A call still being answered: let its job finish before the next write.
  await until('the revalidation jobs to settle', async () => (await server.app.db.job.count({ where: { kind: 'renderer-revalidation', state: { in: ['queued', 'running'] } } })) === 0);
  expect(renderer.calls.length, 'one request per write').toBe(before + 1);
  return renderer.calls[before]!;
}

const revalidationJobs = () => server.app.db.job.count({ where: { kind: 'renderer-revalidation' } });

/** A change request inserting a page into `space`, opened and merged; its id. */
async function mergePage(space: string, title: string): Promise<{ changeRequest: string; number: number; merge: () => Promise<unknown> }> {
  const created = await ok('POST', `/v1/spaces/${space}/change-requests`, { subject: title });
  const changeRequest = created.id as string;
  await ok('POST', `/v1/spaces/${space}/change-requests/${changeRequest}/content`, {
    changes: [{ operation: 'insert_page', title, document: { markdown: `${title}.\n` } }],
  });
  await ok('PATCH', `/v1/spaces/${space}/change-requests/${changeRequest}`, { status: 'open' });
  return { changeRequest, number: created.number, merge: () => ok('POST', `/v1/spaces/${space}/change-requests/${changeRequest}/merge`) };
}

describe('renderer revalidation', () => {
  it('sends nothing for sites not published', async () => {
    const { merge } = await mergePage(guide, 'Before publishing');
    await merge();
    await ok('POST', `${sites}/redirects`, { source: '/early', destination: { kind: 'site-space', siteSpaceId: (await ok('GET', `${sites}/site-spaces`)).items[0].id } });
    expect(await revalidationJobs()).toBe(0);
    expect(renderer.calls).toEqual([]);
  });

  it('publishing sends the site and its spaces, signed as the renderer checks: hex HMAC-SHA256 of the raw body with its secret', async () => {
    const call = await sentAfter(() => server.publishSite(ada, org, site));
    expect(call.method).toBe('POST');
    expect(call.path).toBe('/~gitbook/revalidate');
    expect(call.headers['content-type']).toBe('application/json');
    expect(call.headers['x-gitbook-signature']).toBe(createHmac('sha256', SECRET).update(call.body).digest('hex'));
    expect(call.headers['x-gitbook-signature']).toMatch(/^[0-9a-f]{64}$/);
    expect(JSON.parse(call.body)).toEqual({ tags: expect.any(Array) });
    expect(sorted(call.tags)).toEqual(sorted([`site:${site}`, `space:${guide}`]));
    // The job took the renderer's 200.
    const job = await server.app.db.job.findFirstOrThrow({ where: { kind: 'renderer-revalidation' }, orderBy: { createdAt: 'desc' } });
    expect(job).toMatchObject({ state: 'succeeded', organizationId: org, spaceId: null, retries: 0 });
  });

  it('a merge sends the space, the change request and the published sites showing the space', async () => {
    const { changeRequest, number, merge } = await mergePage(guide, 'Merged');
    expect(number).toEqual(expect.any(Number));
    const call = await sentAfter(merge);
    expect(sorted(call.tags)).toEqual(
      sorted([`space:${guide}`, `space:${guide}:change-request:${changeRequest}`, `space:${guide}:change-request:${number}`, `site:${site}`]),
    );
    // A space no published site shows: nothing.
    const before = await revalidationJobs();
    await (await mergePage(other, 'Elsewhere')).merge();
    expect(await revalidationJobs()).toBe(before);
  });

  it("a space's title sends the space and its sites", async () => {
    const renamed = await sentAfter(() => ok('PATCH', `/v1/spaces/${guide}`, { title: 'The guide' }));
    expect(sorted(renamed.tags)).toEqual(sorted([`space:${guide}`, `site:${site}`]));
  });

  it('customizations send the site', async () => {
    const update = `mutation($org: ID!, $id: ID!, $c: JSON!) { updateSiteCustomizations(organizationId: $org, siteId: $id, customizations: $c) { id } }`;
    const call = await sentAfter(async () => {
      const res = await server.graphql(update, { token: ada.token, variables: { org, id: site, c: { styling: { theme: 'bold' } } } });
      expect(res.body.errors).toBeUndefined();
    });
    expect(call.tags).toEqual([`site:${site}`]);
    const patched = await sentAfter(() => ok('PATCH', sites, { title: 'Docs and more' }));
    expect(patched.tags).toEqual([`site:${site}`]);
  });

  it('structure: a space added sends the site and that space; moving and removing it, the site', async () => {
    let siteSpace = '';
    const added = await sentAfter(async () => {
      siteSpace = (await ok('POST', `${sites}/site-spaces`, { spaceId: extra })).id;
    });
    expect(sorted(added.tags)).toEqual(sorted([`site:${site}`, `space:${extra}`]));
    const first = (await ok('GET', `${sites}/site-spaces`)).items[0].id;
    const moved = await sentAfter(() => ok('POST', `${sites}/site-spaces/${siteSpace}/move`, { position: { before: { type: 'site-space', siteSpace: first } } }));
    expect(moved.tags).toEqual([`site:${site}`]);
    const removed = await sentAfter(() => server.request('DELETE', `${sites}/site-spaces/${siteSpace}`, { token: ada.token }));
    expect(removed.tags).toEqual([`site:${site}`]);
    const section = await sentAfter(() => ok('POST', `${sites}/sections`, { spaceId: extra, title: 'Extra' }));
    expect(sorted(section.tags)).toEqual(sorted([`site:${site}`, `space:${extra}`]));
  });

  it('a space moved to the bin and back sends the space and its sites', async () => {
    const binned = await sentAfter(() => server.request('DELETE', `/v1/spaces/${extra}`, { token: ada.token }));
    expect(sorted(binned.tags)).toEqual(sorted([`space:${extra}`, `site:${site}`]));
    const restored = await sentAfter(() => ok('POST', `/v1/spaces/${extra}/restore`));
    expect(sorted(restored.tags)).toEqual(sorted([`space:${extra}`, `site:${site}`]));
  });

  it('redirects and share links send the site', async () => {
    const siteSpaceId = (await ok('GET', `${sites}/site-spaces`)).items[0].id;
    let redirect = '';
    const created = await sentAfter(async () => {
      redirect = (await ok('POST', `${sites}/redirects`, { source: '/old', destination: { kind: 'site-space', siteSpaceId } })).id;
    });
    expect(created.tags).toEqual([`site:${site}`]);
    expect((await sentAfter(() => ok('PATCH', `${sites}/redirects/${redirect}`, { source: '/older' }))).tags).toEqual([`site:${site}`]);
    expect((await sentAfter(() => server.request('DELETE', `${sites}/redirects/${redirect}`, { token: ada.token }))).tags).toEqual([`site:${site}`]);

    const before = await revalidationJobs();
    const link = (await ok('POST', `${sites}/share-links`, { name: 'Partners' })).id;
    // Nothing was cached under a key that did not exist; renaming it changes nothing shown.
    await ok('PATCH', `${sites}/share-links/${link}`, { name: 'Partners (old)' });
    expect(await revalidationJobs()).toBe(before);
    expect((await sentAfter(() => ok('PATCH', `${sites}/share-links/${link}`, { active: false }))).tags).toEqual([`site:${site}`]);
    expect((await sentAfter(() => server.request('DELETE', `${sites}/share-links/${link}`, { token: ada.token }))).tags).toEqual([`site:${site}`]);
  });

  it('answers writes while the renderer holds its answer, and sends what they changed meanwhile in one request, each tag once', async () => {
    const release = renderer.hold();
    const before = renderer.calls.length;
    await ok('PATCH', sites, { title: 'Docs (held)' });
    await until('the held request', () => renderer.calls.length > before);
    // The worker waits on the renderer: these writes answer at once, and their revalidations gather in one queued job.
    const siteSpaceId = (await ok('GET', `${sites}/site-spaces`)).items[0].id;
    const writes = [
      () => ok('PATCH', sites, { title: 'Docs (1)' }),
      () => ok('POST', `${sites}/redirects`, { source: '/a', destination: { kind: 'site-space', siteSpaceId } }),
      () => ok('POST', `${sites}/redirects`, { source: '/b', destination: { kind: 'site-space', siteSpaceId } }),
      async () => (await mergePage(guide, 'While held')).merge(),
      () => ok('PATCH', sites, { title: 'Docs (2)' }),
    ];
    for (const write of writes) await write();
    expect(await server.app.db.job.count({ where: { kind: 'renderer-revalidation', state: 'queued' } })).toBe(1);
    release();
    await until('the gathered request', () => renderer.calls.length >= before + 2);
    await until('the revalidation jobs to settle', async () => (await server.app.db.job.count({ where: { kind: 'renderer-revalidation', state: { in: ['queued', 'running'] } } })) === 0);
    expect(renderer.calls.length).toBe(before + 2);
    const gathered = renderer.calls[before + 1]!;
    expect(new Set(gathered.tags).size).toBe(gathered.tags.length);
    expect(gathered.tags).toContain(`site:${site}`);
    expect(gathered.tags).toContain(`space:${guide}`);
    expect(gathered.tags.filter((t) => t.includes(':change-request:'))).toHaveLength(2);
  });

  it('tries a failing renderer again, with the same signed body, until it takes it', async () => {
    renderer.failures.push(503, 502);
    const before = renderer.calls.length;
    await ok('PATCH', sites, { title: 'Docs (retried)' });
    await until('the third try', () => renderer.calls.length >= before + 3);
    const job = await until('the job to succeed', () => server.app.db.job.findFirst({ where: { kind: 'renderer-revalidation', state: 'succeeded', retries: 2 } }));
    expect(job).toMatchObject({ attempts: 3, error: null });
    const tries = renderer.calls.slice(before);
    expect(tries).toHaveLength(3);
    expect(new Set(tries.map((c) => c.body)).size).toBe(1);
    expect(new Set(tries.map((c) => c.headers['x-gitbook-signature'])).size).toBe(1);
    expect(tries[0]!.tags).toEqual([`site:${site}`]);
  });

  it('gives up once its tries ran out, and at once on an answer that another try would not change', async () => {
    renderer.failures.push(503, 503, 503, 503);
    await ok('PATCH', sites, { title: 'Docs (given up)' });
    const failed = await until('the job to fail', () => server.app.db.job.findFirst({ where: { kind: 'renderer-revalidation', state: 'failed' } }));
    expect(failed).toMatchObject({ retries: 3, attempts: 4 });
    expect(failed.error).toMatch(/answered 503.*gave up after 4 tries/);

    renderer.failures.push(401);
    await ok('PATCH', sites, { title: 'Docs (refused)' });
    const refused = await until('the job to be refused', () => server.app.db.job.findFirst({ where: { kind: 'renderer-revalidation', state: 'failed', error: { contains: '401' } } }));
    expect(refused).toMatchObject({ retries: 0, attempts: 1 });
  });

  it('never shows its jobs to users', async () => {
    const job = await server.app.db.job.findFirstOrThrow({ where: { kind: 'renderer-revalidation' } });
    const res = await server.graphql(`query($id: ID!) { job(id: $id) { id kind } }`, { token: ada.token, variables: { id: job.id } });
    expect(res.body.errors?.[0]?.extensions?.code).toBe('NOT_FOUND');
    const cancel = await server.graphql(`mutation($id: ID!) { cancelJob(id: $id) { id } }`, { token: ada.token, variables: { id: job.id } });
    expect(cancel.body.errors?.[0]?.extensions?.code).toBe('NOT_FOUND');
  });

  it('unpublishing sends the site; then nothing is sent for it, deleted or not', async () => {
    expect((await sentAfter(() => ok('POST', `${sites}/unpublish`))).tags).toEqual([`site:${site}`]);
    const before = await revalidationJobs();
    await ok('PATCH', sites, { title: 'Docs (offline)' });
    await (await mergePage(guide, 'Offline')).merge();
    expect(await revalidationJobs()).toBe(before);
    // Published again, then deleted: the site as it was.
    await sentAfter(() => server.publishSite(ada, org, site));
    expect((await sentAfter(() => server.request('DELETE', sites, { token: ada.token }))).tags).toEqual([`site:${site}`]);
  });
});

describe('without RENDERER_URL', () => {
  let plain: TestServer;
  beforeAll(async () => {
    plain = await startTestServer({ JOB_POLL_MS: '100' });
  });
  afterAll(() => plain?.close());

  it('queues nothing', async () => {
    const user = await plain.createUser('Bea');
    const { org: plainOrg, spaces } = await plain.siteWithSpaces(user, ['Only']);
    const plainSite = (await plain.createSite(user, plainOrg, { title: 'Shown', spaces: [spaces[0].id] })).id;
    await plain.publishSite(user, plainOrg, plainSite);
    const cr = (await plain.request('POST', `/v1/spaces/${spaces[0].id}/change-requests`, { token: user.token, body: { subject: 'x' } })).body.id;
    await plain.request('POST', `/v1/spaces/${spaces[0].id}/change-requests/${cr}/content`, {
      token: user.token,
      body: { changes: [{ operation: 'insert_page', title: 'Page', document: { markdown: 'Text.\n' } }] },
    });
    await plain.request('PATCH', `/v1/spaces/${spaces[0].id}/change-requests/${cr}`, { token: user.token, body: { status: 'open' } });
    expect((await plain.request('POST', `/v1/spaces/${spaces[0].id}/change-requests/${cr}/merge`, { token: user.token })).body.result).toBe('merge');
    expect((await plain.request('PATCH', `/v1/orgs/${plainOrg}/sites/${plainSite}`, { token: user.token, body: { title: 'Shown again' } })).status).toBe(200);
    expect(await plain.app.db.job.count({ where: { kind: 'renderer-revalidation' } })).toBe(0);
  });
});

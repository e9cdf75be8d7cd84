/**
 * OpenAPI specs over real HTTP, as GitBook's CI integration (`gitbook openapi publish`) and the
 * site renderer use them: created from text and from a URL (a multi-file spec served here, its
 * relative $refs followed), processed as a job followed over graphql-ws from `pending` to
 * `complete`, versioned only on change, read back (versions, latest, content), made public,
 * refused when bad (400/409/413, nothing written), failed with reasons when the document is
 * broken (the previous version stays the latest), deleted with their stored files. Every body
 * is validated against @gitbook/api (0.146.0, and 0.202.0 where it differs), and the same calls
 * go through GitBook's TypeScript client.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { GitBookAPI } from '@gitbook/api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { refreshOpenAPISpecs } from '../../src/services/openapi-refresh.ts';
import { follow, useWsClients } from '../helpers/graphql-ws.ts';
import { assertMatchesSpec } from '../helpers/openapi.ts';
import { FIXTURE_OPENAPI, waitForOpenAPISpec } from '../helpers/openapi-specs.ts';
import { databaseFingerprint } from '../helpers/rest-fixture.ts';
import { expectError, startTestServer, type TestServer, type TestUser } from '../helpers/server.ts';

let server: TestServer;
let ada: TestUser;
let reader: TestUser;
let stranger: TestUser;
let org: string;
/** Files a local HTTP server serves (path -> text); a spec's URL points at it. */
const served = new Map<string, string>();
let files: http.Server;
let filesUrl: string;

beforeAll(async () => {
  files = http.createServer((request, response) => {
    const text = served.get(new URL(request.url!, 'http://x').pathname);
    if (text === undefined) response.writeHead(404).end('not found');
    else response.writeHead(200, { 'content-type': 'application/yaml' }).end(text);
  });
  await new Promise<void>((resolve) => files.listen(0, '127.0.0.1', resolve));
  filesUrl = `http://127.0.0.1:${(files.address() as AddressInfo).port}`;
  server = await startTestServer({ FETCH_ALLOW_PRIVATE_ADDRESSES: 'true', JOB_POLL_MS: '50' });
  [ada, reader, stranger] = await Promise.all([server.createUser('Ada'), server.createUser('Reader'), server.createUser('Stranger')]);
  org = await server.createOrg(ada);
  await server.addMember(org, reader, 'read');
  await server.createOrg(stranger);
});
afterAll(async () => {
  await server?.close();
  await new Promise((resolve) => files?.close(resolve));
});
const wsClient = useWsClients(() => server.baseUrl);

const base = () => `/v1/orgs/${org}/openapi`;

async function ok(method: string, path: string, body?: unknown, token = ada.token) {
  const res = await server.request(method, path, { token, body });
  expect(res.status, `${method} ${path}: ${JSON.stringify(res.body)}`).toBeLessThan(300);
  return res;
}

/** Validates a body against both contracts (0.146.0 and 0.202.0). */
function matchesBoth(operationId: string, status: number, body: unknown) {
  assertMatchesSpec(operationId, status, body, 'current');
  assertMatchesSpec(operationId, status, body, 'next');
}

const PETS_SPLIT = {
  '/specs/api/openapi.yaml': `openapi: 3.0.3
info: { title: Pets, version: '1' }
paths:
  /pets:
    get:
      responses:
        '200':
          description: The pets
          content:
            application/json:
              schema: { type: array, items: { $ref: 'schemas/pet.yaml#/Pet' } }
        default:
          $ref: '../shared/errors.yaml#/ErrorResponse'
`,
  '/specs/api/schemas/pet.yaml': `Pet:
  type: object
  properties:
    id: { type: string }
    owner: { $ref: 'owner.yaml#/Owner' }
`,
  '/specs/api/schemas/owner.yaml': `Owner:
  type: object
  properties:
    name: { type: string }
`,
  '/specs/shared/errors.yaml': `ErrorResponse:
  description: An error
  content:
    application/json:
      schema: { type: object, properties: { message: { type: string } } }
`,
};

describe('OpenAPI specs', () => {
  it('creates one from text, processes it (followed over graphql-ws from pending to complete) and serves its version and content', async () => {
    const created = await ok('POST', base(), { slug: 'fixture-api', source: { text: FIXTURE_OPENAPI } });
    expect(created.status).toBe(201);
    matchesBoth('createOpenAPISpec', 201, created.body);
    expect(created.body).toMatchObject({ object: 'openapi-spec', slug: 'fixture-api', processingState: 'pending', visibility: 'private', lastProcessedErrorCount: 0 });
    expect(created.headers.get('location')).toBe(created.body.urls.location);

    // The job that processes it, named by the spec in GraphQL: followed from its first event.
    const { data } = (await server.graphql(`query($org: ID!) { openAPISpec(organizationId: $org, specSlug: "fixture-api") { processingJob } }`, { token: ada.token, variables: { org } })).body;
    const followed = follow(wsClient(ada.token), 'subscription($id: ID!) { jobUpdated(id: $id, after: 0) { id kind state step percent result error sequence } }', { id: data.openAPISpec.processingJob }, 'jobUpdated');
    await followed.ended;
    expect(followed.errors).toEqual([]);
    expect(followed.events.map((e) => e.state)).toEqual(expect.arrayContaining(['queued', 'running', 'succeeded']));
    expect(followed.events.at(-1)).toMatchObject({ kind: 'OPENAPI_PROCESSING', state: 'succeeded', result: { changed: true, files: 1, openapi: '3.1' } });

    const spec = (await ok('GET', `${base()}/fixture-api`)).body;
    matchesBoth('getOpenAPISpecBySlug', 200, spec);
    expect(spec).toMatchObject({ processingState: 'complete', lastVersion: followed.events.at(-1)!.result!.version, permissions: { view: true, edit: true } });
    expect(spec.lastProcessedAt).toBeTruthy();
    expect(spec.lastProcessErrorCode).toBeUndefined();

    const versions = (await ok('GET', `${base()}/fixture-api/versions`)).body;
    matchesBoth('listOpenAPISpecVersions', 200, versions);
    expect(versions.items.map((v: any) => v.id)).toEqual([spec.lastVersion]);
    const latest = (await ok('GET', `${base()}/fixture-api/versions/latest`)).body;
    matchesBoth('getLatestOpenAPISpecVersion', 200, latest);
    expect(latest).toMatchObject({ object: 'openapi-spec-version', id: spec.lastVersion });
    expect((await ok('GET', `${base()}/fixture-api/versions/${spec.lastVersion}`)).body).toEqual(latest);

    const content = (await ok('GET', `${base()}/fixture-api/versions/latest/content`)).body;
    matchesBoth('getLatestOpenAPISpecVersionContent', 200, content);
    expect(Object.keys(content.filesystem)).toEqual(['openapi.yaml']);
    expect(content.filesystem['openapi.yaml']).toMatchObject({ isEntrypoint: true, filename: 'openapi.yaml', references: [], specification: { openapi: '3.1.0', info: { title: 'Fixture API' } } });
    expect(content.urls).toEqual({ source: content.url, public: null });
    expect((await ok('GET', `${base()}/fixture-api/versions/${spec.lastVersion}/content`)).body).toEqual(content);
  });

  it('makes a version only when the document changed; older versions stay readable; PUT creates (201) or updates (200)', async () => {
    const put = async (slug: string, text: string) => {
      const res = await ok('PUT', `${base()}/${slug}`, { source: { text } });
      matchesBoth('createOrUpdateOpenAPISpecBySlug', res.status, res.body);
      return { status: res.status, spec: await waitForOpenAPISpec(server, ada.token, org, slug) };
    };
    const first = await put('versioned', FIXTURE_OPENAPI);
    expect(first.status).toBe(201);
    const again = await put('versioned', FIXTURE_OPENAPI);
    expect(again.status).toBe(200);
    expect(again.spec.lastVersion).toBe(first.spec.lastVersion);
    const changed = await put('versioned', FIXTURE_OPENAPI.replace('Fixture API', 'Fixture API v2'));
    expect(changed.spec.lastVersion).not.toBe(first.spec.lastVersion);
    const versions = (await ok('GET', `${base()}/versioned/versions`)).body;
    expect(versions.items.map((v: any) => v.id)).toEqual([changed.spec.lastVersion, first.spec.lastVersion]);
    const old = (await ok('GET', `${base()}/versioned/versions/${first.spec.lastVersion}/content`)).body;
    expect(old.filesystem['openapi.yaml'].specification.info.title).toBe('Fixture API');
  });

  it('fetches a multi-file spec from its URL with the files its relative $refs name, and fetches it again on PUT', async () => {
    for (const [path, text] of Object.entries(PETS_SPLIT)) served.set(path, text);
    const url = `${filesUrl}/specs/api/openapi.yaml`;
    await ok('POST', base(), { slug: 'pets', source: { url } });
    const spec = await waitForOpenAPISpec(server, ada.token, org, 'pets');
    expect(spec).toMatchObject({ sourceURL: url, processingState: 'complete' });
    expect(spec.lastProcessErrorCode, JSON.stringify(spec.lastProcessedErrors)).toBeUndefined();
    const content = (await ok('GET', `${base()}/pets/versions/latest/content`)).body;
    matchesBoth('getLatestOpenAPISpecVersionContent', 200, content);
    expect(Object.keys(content.filesystem).sort()).toEqual(['../shared/errors.yaml', 'openapi.yaml', 'schemas/owner.yaml', 'schemas/pet.yaml']);
    expect(Object.keys(content.filesystem)[0]).toBe('openapi.yaml');
    expect(content.filesystem['schemas/pet.yaml'].specification.Pet.properties.owner.$ref).toBe('owner.yaml#/Owner');
    expect(content.url).toBe(url);
    expect((await ok('GET', `${base()}/pets/versions/latest`)).body.url).toBe(url);

    // The same URL again: fetched again, no new version while it serves the same; one when it changed.
    await ok('PUT', `${base()}/pets`, { source: { url } });
    expect((await waitForOpenAPISpec(server, ada.token, org, 'pets')).lastVersion).toBe(spec.lastVersion);
    served.set('/specs/api/schemas/owner.yaml', PETS_SPLIT['/specs/api/schemas/owner.yaml'].replace('name:', 'fullName:'));
    await ok('PUT', `${base()}/pets`, { source: { url } });
    const refreshed = await waitForOpenAPISpec(server, ada.token, org, 'pets');
    expect(refreshed.lastVersion).not.toBe(spec.lastVersion);
    expect((await ok('GET', `${base()}/pets/versions`)).body.count).toBe(2);

    // The refresh (OPENAPI_REFRESH_SECONDS) queues every URL-sourced spec again: a version only on change.
    expect(await refreshOpenAPISpecs(server.app.db, server.app.jobs)).toBeGreaterThanOrEqual(1);
    expect((await waitForOpenAPISpec(server, ada.token, org, 'pets')).lastVersion).toBe(refreshed.lastVersion);
    served.set('/specs/api/schemas/owner.yaml', PETS_SPLIT['/specs/api/schemas/owner.yaml']);
    await refreshOpenAPISpecs(server.app.db, server.app.jobs);
    expect((await waitForOpenAPISpec(server, ada.token, org, 'pets')).lastVersion).not.toBe(refreshed.lastVersion);
    expect((await ok('GET', `${base()}/pets/versions`)).body.count).toBe(3);
  });

  it('keeps a broken spec with the reasons its processing failed; the previous version stays the latest', async () => {
    await ok('PUT', `${base()}/breaking`, { source: { text: FIXTURE_OPENAPI } });
    const good = await waitForOpenAPISpec(server, ada.token, org, 'breaking');
    const broken = async (text: string) => {
      await ok('PUT', `${base()}/breaking`, { source: { text } });
      const spec = await waitForOpenAPISpec(server, ada.token, org, 'breaking');
      matchesBoth('getOpenAPISpecBySlug', 200, spec);
      expect(spec.lastVersion).toBe(good.lastVersion);
      return spec;
    };
    const yaml = await broken('openapi: 3.1.0\ninfo: { title: Broken\npaths: {}\n');
    expect(yaml).toMatchObject({ processingState: 'complete', lastProcessErrorCode: 'PARSE_ERROR' });
    expect(yaml.lastProcessedErrors[0].message).toMatch(/line \d+/);
    const dangling = await broken(FIXTURE_OPENAPI.replace("'#/components/schemas/Pet'", "'#/components/schemas/Nope'"));
    expect(dangling.lastProcessErrorCode).toBe('PARSE_ERROR');
    expect(dangling.lastProcessedErrors.map((e: any) => e.message).join('\n')).toMatch(/#\/components\/schemas\/Nope/);
    const notOpenAPI = await broken('{"hello": "world"}');
    expect(notOpenAPI.lastProcessErrorCode).toBe('PARSE_ERROR');
    const unreachable = await broken(FIXTURE_OPENAPI); // back to good: no error, same version
    expect(unreachable.lastProcessErrorCode).toBeUndefined();
    await ok('PUT', `${base()}/breaking`, { source: { url: `${filesUrl}/nothing-here.yaml` } });
    const missing = await waitForOpenAPISpec(server, ada.token, org, 'breaking');
    expect(missing).toMatchObject({ lastProcessErrorCode: 'FETCH_ERROR', lastVersion: good.lastVersion });
    expect(missing.lastProcessedErrors[0].message).toMatch(/404/);
  });

  it('refuses bad input with a 400, 409 or 413 and writes nothing', async () => {
    await ok('POST', base(), { slug: 'taken', source: { text: FIXTURE_OPENAPI } });
    await waitForOpenAPISpec(server, ada.token, org, 'taken');
    const before = await databaseFingerprint(server);
    const refused = async (method: string, path: string, body: unknown, status: number, message: RegExp) =>
      expectError(await server.request(method, path, { token: ada.token, body }), status, message);
    await refused('POST', base(), { slug: 'taken', source: { text: FIXTURE_OPENAPI } }, 409, /already has an OpenAPI spec "taken"/);
    await refused('POST', base(), { slug: 'bad slug', source: { text: FIXTURE_OPENAPI } }, 400, /slug/);
    await refused('POST', base(), { slug: 'trailing-', source: { text: FIXTURE_OPENAPI } }, 400, /slug/);
    await refused('POST', base(), { slug: 'x'.repeat(101), source: { text: FIXTURE_OPENAPI } }, 400, /slug/);
    await refused('POST', base(), { slug: 'fine', source: { url: 'ftp://example.com/openapi.yaml' } }, 400, /source\.url/);
    await refused('POST', base(), { slug: 'fine', source: { url: `https://example.com/${'a'.repeat(2048)}` } }, 400, /source\.url/);
    await refused('POST', base(), { slug: 'fine', source: { url: 'not a url' } }, 400, /source\.url/);
    await refused('POST', base(), { slug: 'fine', source: { url: 'https://example.com/a.yaml', text: FIXTURE_OPENAPI } }, 400, /source/);
    await refused('POST', base(), { slug: 'fine', source: {} }, 400, /source/);
    await refused('POST', base(), { slug: 'fine', source: { text: '   ' } }, 400, /source\.text/);
    await refused('POST', base(), { slug: 'fine' }, 400, /source/);
    await refused('PUT', `${base()}/bad%20slug`, { source: { text: FIXTURE_OPENAPI } }, 400, /specSlug/);
    await refused('PATCH', `${base()}/taken`, { visibility: 'everyone' }, 400, /visibility/);
    await refused('PATCH', `${base()}/missing`, { visibility: 'public' }, 404, /missing/);
    // A text over OPENAPI_MAX_BYTES (10 MiB by default), under the endpoint's larger body limit: 413, and the body limit of others holds.
    const huge = `openapi: 3.1.0\n# ${'x'.repeat(10 * 1024 * 1024)}\n`;
    await refused('POST', base(), { slug: 'huge', source: { text: huge } }, 413, /OPENAPI_MAX_BYTES/);
    expect((await server.request('POST', `/v1/orgs/${org}/spaces`, { token: ada.token, body: { title: 'x'.repeat(2 * 1024 * 1024) } })).status).toBe(413);
    expect(await databaseFingerprint(server)).toEqual(before);
  });

  it('publishes a public spec, and lets members read, creators keep, and others see nothing', async () => {
    await ok('PUT', `${base()}/shared`, { source: { text: FIXTURE_OPENAPI } });
    await waitForOpenAPISpec(server, ada.token, org, 'shared');
    const made = (await ok('PATCH', `${base()}/shared`, { visibility: 'public' })).body;
    matchesBoth('updateOpenAPISpecBySlug', 200, made);
    expect(made.visibility).toBe('public');
    expect(made.urls.published).toMatch(new RegExp(`/openapi/${org}/shared/$`));
    expect((await ok('GET', `${base()}/shared/versions/latest/content`)).body.urls.public).toBe(made.urls.published);
    // Anyone reads it there, without a token: the entry at the folder's address.
    const published = await fetch(made.urls.published);
    expect(published.status).toBe(200);
    expect(published.headers.get('content-type')).toMatch(/^application\/yaml/);
    expect(await published.text()).toBe(FIXTURE_OPENAPI);
    expect((await fetch(made.urls.published.replace(/\/$/, ''), { redirect: 'manual' })).headers.get('location')).toMatch(/\/shared\/$/);
    expect((await fetch(`${made.urls.published}nothing.yaml`)).status).toBe(404);
    expect((await ok('PATCH', `${base()}/shared`, { visibility: 'private' })).body.urls.published).toBeUndefined();
    expect((await fetch(made.urls.published)).status).toBe(404);
    // A multi-file spec: the files its relative $refs name resolve beneath the entry's address.
    await ok('PATCH', `${base()}/pets`, { visibility: 'public' });
    const pets = (await ok('GET', `${base()}/pets`)).body.urls.published;
    const pet = await fetch(new URL('schemas/pet.yaml', pets));
    expect(pet.status).toBe(200);
    expect(await pet.text()).toBe(served.get('/specs/api/schemas/pet.yaml'));

    // A reader reads, private specs too; keeping them needs create.
    const read = (await ok('GET', `${base()}/shared`, undefined, reader.token)).body;
    expect(read.permissions).toEqual({ view: true, edit: false });
    expect((await ok('GET', base(), undefined, reader.token)).body.items.length).toBeGreaterThan(0);
    expectError(await server.request('PUT', `${base()}/shared`, { token: reader.token, body: { source: { text: FIXTURE_OPENAPI } } }), 403);
    expectError(await server.request('POST', base(), { token: reader.token, body: { slug: 'readers', source: { text: FIXTURE_OPENAPI } } }), 403);
    expectError(await server.request('DELETE', `${base()}/shared`, { token: reader.token }), 403);
    // Another organization's user: nothing exists.
    for (const path of [base(), `${base()}/shared`, `${base()}/shared/versions`, `${base()}/shared/versions/latest/content`]) {
      expectError(await server.request('GET', path, { token: stranger.token }), 404);
    }
  });

  it('deletes a spec with its versions and the stored files no other spec uses (205, then 204)', async () => {
    await ok('PUT', `${base()}/doomed`, { source: { text: FIXTURE_OPENAPI.replace('Fixture API', 'Doomed API') } });
    const spec = await waitForOpenAPISpec(server, ada.token, org, 'doomed');
    const version = await server.app.db.openAPISpecVersion.findUniqueOrThrow({ where: { id: spec.lastVersion } });
    const keys = (version.files as { key: string }[]).map((file) => file.key);
    const textKey = (await server.app.db.openAPISpec.findFirstOrThrow({ where: { slug: 'doomed' } })).sourceTextKey!;
    // The fixture document is also stored for other specs: it stays.
    const sharedKey = (await server.app.db.openAPISpec.findFirstOrThrow({ where: { slug: 'fixture-api' } })).sourceTextKey!;
    expect((await server.request('DELETE', `${base()}/doomed`, { token: ada.token })).status).toBe(205);
    expect((await server.request('DELETE', `${base()}/doomed`, { token: ada.token })).status).toBe(204);
    expectError(await server.request('GET', `${base()}/doomed`, { token: ada.token }), 404);
    expect(await server.app.db.openAPISpecVersion.count({ where: { specId: version.specId } })).toBe(0);
    for (const key of [...keys, textKey]) expect(await server.app.storage.has(key)).toBe(false);
    expect(await server.app.storage.has(sharedKey)).toBe(true);
  });

  it("reports a page's reference to a spec as a link, ok while the spec exists and broken once it is deleted; backlinks find the page", async () => {
    await ok('PUT', `${base()}/referenced`, { source: { text: FIXTURE_OPENAPI.replace('Fixture API', 'Referenced API') } });
    await waitForOpenAPISpec(server, ada.token, org, 'referenced');
    const space = (await server.createSpace(ada, org, { title: 'API reference' })).id;
    const operation = (key: string, spec: string) => ({ object: 'block', type: 'openapi-operation', key, isVoid: true, data: { ref: { kind: 'openapi', spec }, path: '/pets', method: 'get' } });
    const document = {
      object: 'document',
      data: {},
      nodes: [
        { object: 'block', type: 'paragraph', key: 'intro', nodes: [{ object: 'text', leaves: [{ object: 'leaf', text: 'The pets endpoint:', marks: [] }] }] },
        operation('op-list', 'referenced'),
        operation('op-missing', 'never-made'),
      ],
    };
    const cr = (await ok('POST', `/v1/spaces/${space}/change-requests`, { subject: 'Reference' })).body;
    await ok('POST', `/v1/spaces/${space}/change-requests/${cr.id}/content`, { changes: [{ operation: 'insert_page', title: 'Pets', document: { document } }] });
    await ok('PATCH', `/v1/spaces/${space}/change-requests/${cr.id}`, { status: 'open' });
    await ok('POST', `/v1/spaces/${space}/change-requests/${cr.id}/merge`);
    const pageId = (await ok('GET', `/v1/spaces/${space}/content/pages`)).body.pages[0].id;

    const links = async (token = ada.token) => {
      const res = await ok('GET', `/v1/spaces/${space}/links`, undefined, token);
      assertMatchesSpec('listSpaceLinks', 200, res.body);
      return res.body;
    };
    const before = await links();
    expect(before.items.map((l: any) => [l.status, l.targetReference?.kind ?? null, l.targetReference?.openAPISpec?.slug ?? null])).toEqual([
      ['broken', null, null],
      ['ok', 'openapi', 'referenced'],
    ]);
    expect(before.items[1].targetReference.organization.id).toBe(org);
    expect(before.items[1].locationReferences.map((l: any) => l.page.id)).toEqual([pageId]);
    expect(before.stats).toEqual({ total: 2, broken: { total: 1, changeRequest: 0 } });
    // The page's own links say the same.
    const pageLinks = (await ok('GET', `/v1/spaces/${space}/content/page/${pageId}/links`)).body;
    assertMatchesSpec('listPageLinksInSpace', 200, pageLinks);
    expect(pageLinks.items.map((l: any) => l.status)).toEqual(['broken', 'ok']);

    const backlinks = async (spec: string) =>
      (
        await server.graphql(`query($space: ID!, $spec: String!) { openAPISpecBacklinks(spaceId: $space, specSlug: $spec) { items { kind page { id } } count } }`, {
          token: ada.token,
          variables: { space, spec },
        })
      ).body.data.openAPISpecBacklinks;
    expect(await backlinks('referenced')).toEqual({ items: [{ kind: 'page', page: { id: pageId } }], count: 1 });
    expect(await backlinks('fixture-api')).toEqual({ items: [], count: 0 });

    expect((await server.request('DELETE', `${base()}/referenced`, { token: ada.token })).status).toBe(205);
    const after = await links();
    expect(after.items.map((l: any) => [l.status, l.targetReference ?? null])).toEqual([
      ['broken', null],
      ['broken', null],
    ]);
    expect(after.stats.broken.total).toBe(2);
    // Deleted, its pages are still found: the ones to mend.
    expect(await backlinks('referenced')).toEqual({ items: [{ kind: 'page', page: { id: pageId } }], count: 1 });
    // Made again under its slug, the reference is whole again.
    await ok('PUT', `${base()}/referenced`, { source: { text: FIXTURE_OPENAPI } });
    expect((await links()).items.map((l: any) => l.status)).toEqual(['broken', 'ok']);
  });

  it("works through GitBook's TypeScript client", async () => {
    const client = new GitBookAPI({ authToken: ada.token, endpoint: server.baseUrl });
    const created = await client.orgs.createOrUpdateOpenApiSpecBySlug(org, 'client-api', { source: { text: FIXTURE_OPENAPI } });
    expect(created.status).toBe(201);
    await waitForOpenAPISpec(server, ada.token, org, 'client-api');
    expect((await client.orgs.getOpenApiSpecBySlug(org, 'client-api')).data).toMatchObject({ slug: 'client-api', processingState: 'complete' });
    const listed = await client.orgs.listOpenApiSpecs(org, { limit: 100 });
    expect(listed.data.items.map((s) => s.slug)).toContain('client-api');
    const content = await client.orgs.getLatestOpenApiSpecVersionContent(org, 'client-api');
    expect(content.data.filesystem).toHaveProperty(['openapi.yaml', 'isEntrypoint'], true);
    expect((await client.orgs.listOpenApiSpecVersions(org, 'client-api')).data.items).toHaveLength(1);
    expect((await client.orgs.deleteOpenApiSpecBySlug(org, 'client-api')).status).toBe(205);
  });
});

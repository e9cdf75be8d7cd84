/**
 * The API calls GitBook's site renderer (GitbookIO/gitbook 49c993f18, docs/renderer.md) made to
 * render a site's home page, a nested page, a page under its site space's path, a missing page,
 * a search, `llms.txt`, and a visitor-auth site refused then read with a visitor token: recorded
 * by a proxy between the two on 2026-11-28 (fixtures/renderer-calls.json, made from the recording
 * by scripts/renderer-replay-fixture.ts), replayed in order against content seeded the same way.
 * Each call gets the status it got then, with the site token of the URL resolution before it, and
 * each body validates against the contract of its operation (0.146.0; 0.202.0 for the members the
 * renderer reads from there).
 */
import { readFileSync } from 'node:fs';
import { dereference } from '@scalar/openapi-parser';
import { describe, expect, it } from 'vitest';
import { restRoutes } from '../../src/rest/generated/routes.ts';
import { assertMatchesComponent, assertMatchesSpec } from '../helpers/openapi.ts';
import { FIXTURE_OPENAPI, waitForOpenAPISpec } from '../helpers/openapi-specs.ts';
import { useTestServer, type ApiResponse } from '../helpers/server.ts';

interface Call {
  method: string;
  path: string;
  body?: unknown;
  auth: 'none' | 'site-token' | 'api-token';
  status: number;
}

const calls = JSON.parse(readFileSync(new URL('./fixtures/renderer-calls.json', import.meta.url), 'utf8')) as Call[];
const { server, ada } = useTestServer({ users: ['Ada'], env: { SITES_URL: 'https://docs.example.test', JOB_POLL_MS: '50' } });

async function ok(method: string, path: string, body?: unknown) {
  const res = await server.request(method, path, { token: ada.token, body });
  expect(res.status, `${method} ${path}: ${JSON.stringify(res.body)}`).toBeLessThan(300);
  return res.body;
}

/** The content of the recording: what scripts/renderer-replay-fixture.ts names, seeded as it was then. */
async function seed(): Promise<Map<string, string>> {
  const org = (await ok('POST', '/v1/orgs', { title: 'Example Org' })).id as string;
  const space = (await ok('POST', `/v1/orgs/${org}/spaces`, { title: 'User Guide' })).id as string;
  const cr = (await ok('POST', `/v1/spaces/${space}/change-requests`, { subject: 'Pages' })).id as string;
  await ok('POST', `/v1/spaces/${space}/change-requests/${cr}/content`, {
    changes: [
      {
        operation: 'insert_page',
        ref: 'intro',
        title: 'Introduction',
        document: { markdown: '# Introduction\n\nWelcome to the **Example** docs. See [Install](getting-started/install.md).\n\n- one\n- two\n' },
      },
      { operation: 'insert_page', ref: 'gs', title: 'Getting Started', document: { markdown: "Start here.\n\n```js\nconsole.log('hi')\n```\n" } },
      { operation: 'insert_page', title: 'Install', into: 'gs', document: { markdown: 'Run `npm install example`.\n\n> [!NOTE]\n> Requires Node.\n' } },
      { operation: 'insert_page', title: 'Configure', into: 'gs', document: { markdown: '| key | value |\n|---|---|\n| a | 1 |\n' } },
      { operation: 'insert_page', title: 'FAQ', document: { markdown: '## Why?\n\nBecause installing is easy.\n' } },
    ],
  });
  await ok('PATCH', `/v1/spaces/${space}/change-requests/${cr}`, { status: 'open' });
  await ok('POST', `/v1/spaces/${space}/change-requests/${cr}/merge`);
  const names = new Map<string, string>([['{org}', org], [`{space:user-guide}`, space]]);
  for (const [title, visibility] of [['Example Docs', 'public'], ['Members', 'visitor-auth']] as const) {
    const site = await ok('POST', `/v1/orgs/${org}/sites`, { title, visibility, spaces: [space] });
    await ok('POST', `/v1/orgs/${org}/sites/${site.id}/publish`);
    names.set(`{site:${site.basename}}`, site.id);
  }
  names.set('{revision:user-guide}', (await ok('GET', `/v1/spaces/${space}`)).revision);
  const walk = (pages: { id: string; path: string; pages?: unknown[] }[]) => {
    for (const page of pages) {
      names.set(`{page:${page.path}}`, page.id);
      walk((page.pages ?? []) as typeof pages);
    }
  };
  walk((await ok('GET', `/v1/spaces/${space}/content/pages`)).pages);
  names.set('{visitorToken}', (await ok('POST', `/v1/orgs/${org}/ping`)).gitbookVisitorClaims);
  return names;
}

const fill = (text: string, names: Map<string, string>) =>
  text.replace(/\{[a-zA-Z]+(?::[^}]*)?\}/g, (placeholder) => {
    const value = names.get(placeholder);
    if (value === undefined) throw new Error(`the seeded content has nothing for ${placeholder}`);
    return value;
  });

/** The operation of the route table a call is for, and the contract version its shape is from. */
function operationOf(method: string, path: string): string {
  const pathname = path.split('?')[0]!;
  const route = restRoutes.find((r) => r.method === method && new RegExp(`^${r.path.replace(/\{[^}]+\}/g, '[^/]+')}$`).test(pathname));
  if (!route) throw new Error(`no route serves ${method} ${pathname}`);
  return route.operationName[0]!.toLowerCase() + route.operationName.slice(1);
}

describe("GitBook's site renderer, replayed", () => {
  it('gets every answer it got when it rendered the site, in the shapes it reads', async () => {
    const names = await seed();
    let siteToken: string | null = null;
    const answered: string[] = [];
    let documentPages = 0;
    for (const call of calls) {
      const path = fill(call.path, names);
      const body = call.body === undefined ? undefined : JSON.parse(fill(JSON.stringify(call.body), names));
      expect(call.auth === 'site-token' ? siteToken : 'none', `${call.method} ${call.path} needs a site token resolved before it`).not.toBeNull();
      const res: ApiResponse = await server.request(call.method, path, { token: call.auth === 'site-token' ? siteToken! : undefined, body });
      expect(res.status, `${call.method} ${call.path}: ${JSON.stringify(res.body).slice(0, 300)}`).toBe(call.status);
      const operation = operationOf(call.method, path);
      if (res.status < 300) {
        // Every answer in 0.202.0's shapes, the renderer's own contract (its client is later still), and
        // in 0.146.0's, the service's contract, for the endpoints 0.146.0 has (all but the meta links).
        assertMatchesSpec(operation, res.status, res.body, 'next');
        if (operation !== 'listRevisionPageMetaLinks') assertMatchesSpec(operation, res.status, res.body, 'current');
      } else {
        expect(res.body).toEqual({ error: { code: res.status, message: expect.any(String) } });
      }
      if (operation === 'getRevisionById' && res.status === 200) {
        // The renderer reads each page's `tags` and layout as 0.202.0 shapes them (both required there).
        const walk = (pages: any[]): void =>
          pages.forEach((page) => {
            if (page.type !== 'document') return walk(page.pages ?? []);
            assertMatchesComponent('RevisionPageDocument', page, 'next');
            documentPages++;
            walk(page.pages ?? []);
          });
        walk(res.body.pages);
      }
      if (operation === 'resolvePublishedContentByUrl' && res.status === 200) siteToken = res.body.apiToken;
      if (operation === 'getPublishedContentSite') {
        // What the renderer reads of customizations without a guard is 0.202.0's.
        assertMatchesComponent('SiteCustomizationSettings', res.body.customizations.site, 'next');
        for (const settings of Object.values(res.body.customizations.siteSpaces)) assertMatchesComponent('SiteSpaceCustomizationSettings', settings, 'next');
      }
      answered.push(`${call.method} ${operation} ${res.status}`);
    }
    // The page views it made: the home page, three pages, a missing one, a search, the visitor-auth page.
    expect(answered.filter((a) => a.startsWith('GET getPageDocumentInRevisionById 200'))).toHaveLength(4);
    expect(answered).toContain('GET getPageInRevisionByPath 404');
    expect(answered).toContain('POST searchSiteContent 200');
    expect(answered).toContain('POST resolvePublishedContentByUrl 401');
    expect(documentPages).toBe(5);
  });

  it("reads the OpenAPI spec an OpenAPI block of a published page references with the site token, as the renderer's resolveContentRef does, and no other", async () => {
    // packages/gitbook/src/lib/references.tsx (49c993f18): a ref `{kind: 'openapi', spec}` is read with
    // `getLatestOpenApiSpecVersionContent(organizationId, spec)`; lib/openapi/fetch.ts hands its
    // `filesystem` to react-openapi's dereferenceFilesystem (`filesystem.find(...)`, then scalar's
    // `dereference`), `urls.source` and `urls.public` to the block. A 404 leaves the block empty.
    const org = (await ok('POST', '/v1/orgs', { title: 'API Org' })).id as string;
    for (const slug of ['petstore', 'drafted']) {
      await ok('PUT', `/v1/orgs/${org}/openapi/${slug}`, { source: { text: FIXTURE_OPENAPI } });
      await waitForOpenAPISpec(server, ada.token, org, slug);
    }
    const operation = (spec: string) => ({ object: 'block', type: 'openapi-operation', isVoid: true, data: { ref: { kind: 'openapi', spec }, path: '/pets/{petId}', method: 'get' } });
    const page = (spec: string) => ({ object: 'document', data: {}, nodes: [operation(spec)] });
    const edit = async (space: string, changes: unknown[], merge = true) => {
      const cr = (await ok('POST', `/v1/spaces/${space}/change-requests`, { subject: 'Edit' })).id as string;
      await ok('POST', `/v1/spaces/${space}/change-requests/${cr}/content`, { changes });
      if (!merge) return;
      await ok('PATCH', `/v1/spaces/${space}/change-requests/${cr}`, { status: 'open' });
      await ok('POST', `/v1/spaces/${space}/change-requests/${cr}/merge`);
    };
    const space = (await ok('POST', `/v1/orgs/${org}/spaces`, { title: 'API' })).id as string;
    await edit(space, [{ operation: 'insert_page', title: 'Get a pet', document: { document: page('petstore') } }]);
    // `drafted` is referenced only where the site does not publish: an open change request, another space.
    await edit(space, [{ operation: 'insert_page', title: 'Draft', document: { document: page('drafted') } }], false);
    const unpublished = (await ok('POST', `/v1/orgs/${org}/spaces`, { title: 'Internal' })).id as string;
    await edit(unpublished, [{ operation: 'insert_page', title: 'Internal', document: { document: page('drafted') } }]);
    const site = await ok('POST', `/v1/orgs/${org}/sites`, { title: 'API Docs', visibility: 'public', spaces: [space] });
    await ok('POST', `/v1/orgs/${org}/sites/${site.id}/publish`);
    const resolved = await server.request('POST', '/v1/urls/published', { body: { url: `https://docs.example.test/${org}/${site.basename}/get-a-pet`, visitor: { unsignedClaims: {}, type: 'human' } } });
    expect(resolved.status, JSON.stringify(resolved.body)).toBe(200);
    const siteToken = resolved.body.apiToken as string;

    const content = (slug: string, token = siteToken) => server.request('GET', `/v1/orgs/${org}/openapi/${slug}/versions/latest/content`, { token });
    const read = await content('petstore');
    expect(read.status, JSON.stringify(read.body)).toBe(200);
    const asMember = await content('petstore', ada.token);
    assertMatchesSpec('getLatestOpenAPISpecVersionContent', 200, asMember.body, 'current');
    assertMatchesSpec('getLatestOpenAPISpecVersionContent', 200, asMember.body, 'next');
    // The renderer's answer is the contract's but for `filesystem`: scalar's Filesystem, the same entries as a list.
    expect(read.body.filesystem).toEqual(Object.values(asMember.body.filesystem));
    const { filesystem, ...rest } = read.body;
    expect(rest).toEqual({ url: asMember.body.url, urls: asMember.body.urls });
    for (const version of ['current', 'next'] as const) assertMatchesSpec('getLatestOpenAPISpecVersionContent', 200, { ...rest, filesystem: {} }, version);
    expect(rest.urls).toEqual({ source: expect.any(String), public: null });
    // What react-openapi does with it: the entry file found, then every $ref resolved by scalar.
    expect(filesystem.find((file: any) => file.isEntrypoint)).toMatchObject({ dir: './', filename: 'openapi.yaml', references: [] });
    const dereferenced = await dereference(filesystem);
    expect(dereferenced.errors).toEqual([]);
    expect(dereferenced.schema?.paths?.['/pets/{petId}']?.get?.responses?.['200']?.content?.['application/json']?.schema).toMatchObject({ type: 'object', required: ['id', 'name'] });

    // Nothing else: a spec the published content does not reference, the spec's other reads, the list.
    for (const [path, status] of [
      [`/v1/orgs/${org}/openapi/drafted/versions/latest/content`, 404],
      [`/v1/orgs/${org}/openapi/never-made/versions/latest/content`, 404],
      [`/v1/orgs/${org}/openapi/petstore`, 401],
      [`/v1/orgs/${org}/openapi/petstore/versions/latest`, 401],
      [`/v1/orgs/${org}/openapi`, 401],
    ] as const) {
      const res = await server.request('GET', path, { token: siteToken });
      expect(res.status, `${path}: ${JSON.stringify(res.body)}`).toBe(status);
      expect(res.body).toEqual({ error: { code: status, message: expect.any(String) } });
    }
    // Read live: once the published page no longer references the spec, the token reads it no more.
    const pageId = (await ok('GET', `/v1/spaces/${space}/content/pages`)).pages[0].id as string;
    await edit(space, [{ operation: 'update_page', page: pageId, document: { markdown: 'Moved elsewhere.\n' } }]);
    expect((await content('petstore')).status).toBe(404);
    expect((await content('petstore', ada.token)).status).toBe(200);
  });

  it('resolves sites under SITES_URL by their path, so no site may take its host as a custom hostname', async () => {
    const org = (await ok('POST', '/v1/orgs', { title: 'Hosts' })).id as string;
    const site = await ok('POST', `/v1/orgs/${org}/sites`, { title: 'Hosted' });
    const res = await server.request('PATCH', `/v1/orgs/${org}/sites/${site.id}`, { token: ada.token, body: { hostname: 'docs.example.test' } });
    expect(res.status, JSON.stringify(res.body)).toBe(400);
    expect(res.body.error.message).toMatch(/SITES_URL/);
  });
});

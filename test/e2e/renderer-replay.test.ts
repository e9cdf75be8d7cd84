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
import { describe, expect, it } from 'vitest';
import { restRoutes } from '../../src/rest/generated/routes.ts';
import { assertMatchesComponent, assertMatchesSpec } from '../helpers/openapi.ts';
import { useTestServer, type ApiResponse } from '../helpers/server.ts';

interface Call {
  method: string;
  path: string;
  body?: unknown;
  auth: 'none' | 'site-token' | 'api-token';
  status: number;
}

const calls = JSON.parse(readFileSync(new URL('./fixtures/renderer-calls.json', import.meta.url), 'utf8')) as Call[];
const { server, ada } = useTestServer({ users: ['Ada'], env: { SITES_URL: 'https://docs.example.test' } });

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

  it('resolves sites under SITES_URL by their path, so no site may take its host as a custom hostname', async () => {
    const org = (await ok('POST', '/v1/orgs', { title: 'Hosts' })).id as string;
    const site = await ok('POST', `/v1/orgs/${org}/sites`, { title: 'Hosted' });
    const res = await server.request('PATCH', `/v1/orgs/${org}/sites/${site.id}`, { token: ada.token, body: { hostname: 'docs.example.test' } });
    expect(res.status, JSON.stringify(res.body)).toBe(400);
    expect(res.body.error.message).toMatch(/SITES_URL/);
  });
});

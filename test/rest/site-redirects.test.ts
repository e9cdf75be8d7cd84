/**
 * Site redirects over HTTP: created, listed (searched, paged), changed and
 * deleted by those who may update the site; looked up by source (the
 * renderer's question for a path it cannot find) with the published URL of the
 * section, site space or page they lead to, by members and by share-link
 * visitors; bad sources and destinations refused with a 400, a second
 * redirect from one source a 409, nothing written either way. Bodies are
 * validated against @gitbook/api 0.146.0.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { assertMatchesSpec } from '../helpers/openapi.ts';
import { expectError, shareKeyIn, useTestServer } from '../helpers/server.ts';

const { server, ada, bob } = useTestServer({ users: ['Ada', 'Bob'] });
let org: string;
let site: { id: string };
let sites: string;
let section: { id: string; siteSpaces: { id: string }[] };
let pageId: string;

async function ok(method: string, path: string, body?: unknown, token = ada.token) {
  const res = await server.request(method, path, { token, body });
  expect(res.status, `${method} ${path}: ${JSON.stringify(res.body)}`).toBeLessThan(300);
  return res.body;
}

beforeAll(async () => {
  org = await server.createOrg(ada);
  const space = (await server.createSpace(ada, org, { title: 'Guides' })).id;
  const cr = (await ok('POST', `/v1/spaces/${space}/change-requests`, { subject: 'Pages' })).id;
  await ok('POST', `/v1/spaces/${space}/change-requests/${cr}/content`, {
    changes: [
      { operation: 'insert_page', ref: 'start', title: 'Start', document: { markdown: 'Start here.\n' } },
      { operation: 'insert_page', title: 'Install', into: 'start', document: { markdown: 'Install it.\n' } },
    ],
  });
  await ok('PATCH', `/v1/spaces/${space}/change-requests/${cr}`, { status: 'open' });
  await ok('POST', `/v1/spaces/${space}/change-requests/${cr}/merge`);
  pageId = (await ok('GET', `/v1/spaces/${space}/content/pages`)).pages[0].pages[0].id;
  site = await server.createSite(ada, org, { title: 'Docs' });
  sites = `/v1/orgs/${org}/sites/${site.id}`;
  section = await ok('POST', `${sites}/sections`, { spaceId: space, title: 'Guides' });
  await ok('POST', `${sites}/publish`);
});

describe('site redirects', () => {
  it('creates, lists, searches, changes and deletes them', async () => {
    const created = await server.request('POST', `${sites}/redirects`, { token: ada.token, body: { source: '/old/install', destination: { kind: 'site-page', siteSpaceId: section.siteSpaces[0].id, pageId } } });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    assertMatchesSpec('createSiteRedirect', 201, created.body);
    expect(created.body).toMatchObject({ object: 'site-redirect', source: '/old/install', destination: { kind: 'site-page', pageId } });
    const second = await ok('POST', `${sites}/redirects`, { source: '/handbook', destination: { kind: 'site-section', siteSectionId: section.id } });

    const list = await ok('GET', `${sites}/redirects?limit=1`);
    assertMatchesSpec('listSiteRedirects', 200, list);
    expect(list.items.map((r: any) => r.source)).toEqual(['/old/install']);
    expect(list.next.page).toBeTruthy();
    expect((await ok('GET', `${sites}/redirects?search=hand`)).items.map((r: any) => r.id)).toEqual([second.id]);

    const updated = await ok('PATCH', `${sites}/redirects/${second.id}`, { source: '/manual', destination: { kind: 'site-space', siteSpaceId: section.siteSpaces[0].id } });
    assertMatchesSpec('updateSiteRedirectById', 200, updated);
    expect(updated).toMatchObject({ source: '/manual', destination: { kind: 'site-space', siteSpaceId: section.siteSpaces[0].id } });

    expect((await server.request('DELETE', `${sites}/redirects/${second.id}`, { token: ada.token })).status).toBe(205);
    expect((await server.request('DELETE', `${sites}/redirects/${second.id}`, { token: ada.token })).status).toBe(204);
    expect((await ok('GET', `${sites}/redirects`)).items.map((r: any) => r.source)).toEqual(['/old/install']);
  });

  it('looks one up by its source, with the published URL it leads to', async () => {
    const found = await ok('GET', `${sites}/redirect?source=${encodeURIComponent('/old/install')}`);
    assertMatchesSpec('getSiteRedirectBySource', 200, found);
    expect(found.redirect.source).toBe('/old/install');
    expect(found.target).toMatch(/^https?:\/\/.*\/guides\/start\/install$/);
    expectError(await server.request('GET', `${sites}/redirect?source=/nowhere`, { token: ada.token }), 404, /nowhere/);
    expectError(await server.request('GET', `${sites}/redirect?source=nowhere`, { token: ada.token }), 400, /source: must be a path/);
  });

  it('is looked up by share-link visitors with the key, and hidden from everyone else', async () => {
    const shared = await server.createSite(ada, org, { title: 'Partners', visibility: 'share-link' });
    const sharedPath = `/v1/orgs/${org}/sites/${shared.id}`;
    const otherSpace = (await server.createSpace(ada, org, { title: 'Partner docs' })).id;
    const sharedSection = await ok('POST', `${sharedPath}/sections`, { spaceId: otherSpace, title: 'Partners' });
    await ok('POST', `${sharedPath}/publish`);
    await ok('POST', `${sharedPath}/redirects`, { source: '/welcome', destination: { kind: 'site-section', siteSectionId: sharedSection.id } });
    const link = await ok('POST', `${sharedPath}/share-links`, { name: 'Bob' });
    const key = shareKeyIn(link.urls.published, server.app.config.sitesUrl);
    const visitor = await ok('GET', `${sharedPath}/redirect?source=/welcome&shareKey=${key}`, undefined, bob.token);
    expect(visitor.target).toContain(`/${key}/`);
    expect((await server.request('GET', `${sharedPath}/redirect?source=/welcome`, { token: bob.token })).status).toBe(404);
    expect((await server.request('GET', `${sharedPath}/redirects`, { token: bob.token })).status).toBe(404);
  });

  it('refuses a bad source or destination, and a second redirect from one source, writing nothing', async () => {
    const before = (await ok('GET', `${sites}/redirects`)).count;
    const bad = async (body: unknown, status: number, message: RegExp) => expectError(await server.request('POST', `${sites}/redirects`, { token: ada.token, body }), status, message);
    const siteSpaceId = section.siteSpaces[0].id;
    await bad({ source: 'no-slash', destination: { kind: 'site-space', siteSpaceId } }, 400, /source: must be a path/);
    await bad({ source: `/${'x'.repeat(512)}`, destination: { kind: 'site-space', siteSpaceId } }, 400, /source: must be at most 512 characters/);
    await bad({ source: '/a', destination: { kind: 'external', url: 'https://example.com' } }, 400, /destination: kind: must be site-section, site-space or site-page/);
    await bad({ source: '/a', destination: { kind: 'site-space', siteSpaceId: 'nope' } }, 400, /destination: siteSpaceId: no site space nope on this site/);
    await bad({ source: '/a', destination: { kind: 'site-page', siteSpaceId, pageId: 'nope' } }, 400, /destination: pageId: no document page or group nope/);
    await bad({ source: '/a', destination: { kind: 'site-section' } }, 400, /destination: siteSectionId: required/);
    await bad({ source: '/old/install', destination: { kind: 'site-space', siteSpaceId } }, 409, /source: the site already redirects "\/old\/install"/);
    expect((await ok('GET', `${sites}/redirects`)).count).toBe(before);
    // Someone who may not update the site: not found.
    expect((await server.request('POST', `${sites}/redirects`, { token: bob.token, body: { source: '/b', destination: { kind: 'site-space', siteSpaceId } } })).status).toBe(404);
  });
});

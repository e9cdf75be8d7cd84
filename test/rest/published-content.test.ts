/**
 * POST and GET /v1/urls/published over real HTTP, and the site token they hand out: a URL of a
 * published site resolves to its section, site space and space (longest match, defaults where a
 * segment matches nothing, `complete` only when more segments could not change the answer), with
 * the share key as a path segment and visitor-auth sites asking for a visitor token. The token
 * reads exactly that site and the spaces it publishes, the day long, and nothing else: another
 * site, a private space, a change request, a write are refused; a tampered or expired token is a
 * 401. Bodies are validated against @gitbook/api 0.146.0; GitBook's client drives it too.
 */
import { GitBookAPI } from '@gitbook/api';
import { decodeJwt, decodeProtectedHeader } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import { signSiteToken } from '../../src/auth/site-tokens.ts';
import { deleteSigningKey, rotateSigningKey } from '../../src/auth/visitor-claims.ts';
import { signingKeySealer } from '../../src/services/member.ts';
import { assertMatchesSpec } from '../helpers/openapi.ts';
import { expectError, shareKeyIn, useTestServer } from '../helpers/server.ts';

const { server, ada, bob } = useTestServer({ users: ['Ada', 'Bob'] });

async function ok(method: string, path: string, body?: unknown, token: string | undefined = ada.token) {
  const res = await server.request(method, path, { token, body });
  expect(res.status, `${method} ${path}: ${JSON.stringify(res.body)}`).toBeLessThan(300);
  return res.body;
}

/** A space with a page `Start` (an expression reading a visitor claim) and its child `Install`. */
async function spaceWithPages(org: string, title: string) {
  const space = (await server.createSpace(ada, org, { title })).id as string;
  const cr = (await ok('POST', `/v1/spaces/${space}/change-requests`, { subject: 'Pages' })).id;
  await ok('POST', `/v1/spaces/${space}/change-requests/${cr}/content`, {
    changes: [
      { operation: 'insert_page', ref: 'start', title: 'Start', document: { markdown: 'Hello <code class="expression">visitor.claims.name</code>!\n' } },
      { operation: 'insert_page', title: 'Install', into: 'start', document: { markdown: 'Install it.\n' } },
    ],
  });
  await ok('PATCH', `/v1/spaces/${space}/change-requests/${cr}`, { status: 'open' });
  await ok('POST', `/v1/spaces/${space}/change-requests/${cr}/merge`);
  return space;
}

async function resolve(url: string, extra: Record<string, unknown> = {}, token?: string) {
  const res = await server.request('POST', '/v1/urls/published', { token, body: { url, ...extra } });
  return res;
}

async function resolved(url: string, extra: Record<string, unknown> = {}) {
  const res = await resolve(url, extra);
  expect(res.status, `${url}: ${JSON.stringify(res.body)}`).toBe(200);
  assertMatchesSpec('resolvePublishedContentByUrl', 200, res.body);
  return res.body;
}

let org: string;
let guides: string;
let reference: string;
let privateSpace: string;
let site: { id: string; basename: string };
let siteUrl: string;
let referencePath: string;

beforeAll(async () => {
  org = await server.createOrg(ada);
  guides = await spaceWithPages(org, 'Guides');
  reference = await spaceWithPages(org, 'Reference');
  privateSpace = await spaceWithPages(org, 'Private');
  site = await server.createSite(ada, org, { title: 'Docs', spaces: [guides, reference] });
  await server.publishSite(ada, org, site.id);
  siteUrl = `${server.app.config.sitesUrl}/${org}/${site.basename}`;
  const siteSpaces = await ok('GET', `/v1/orgs/${org}/sites/${site.id}/site-spaces`);
  referencePath = siteSpaces.items.find((s: { space: { id: string } }) => s.space.id === reference).path;
});

describe('POST /v1/urls/published', () => {
  it('resolves the site root to its default site space, and a site space path to that one, the rest as the page path', async () => {
    const root = await resolved(`${siteUrl}/`);
    expect(root).toMatchObject({ site: site.id, space: guides, organization: org, pathname: '', complete: false });
    expect(root.basePath).toBe(`/${new URL(siteUrl).pathname.split('/').filter(Boolean).join('/')}/`);
    expect(root.siteBasePath).toBe(root.basePath);
    expect(root.canonicalUrl).toBe(`${siteUrl}/`);

    const page = await resolved(`${siteUrl}/${referencePath}/start/install`);
    expect(page).toMatchObject({ space: reference, pathname: 'start/install', complete: true });
    expect(page.basePath).toBe(`${root.basePath}${referencePath}/`);
    expect(page.canonicalUrl).toBe(`${siteUrl}/${referencePath}/start/install`);

    // A first segment that is no site space's path is the default site space's page path.
    const other = await resolved(`${siteUrl}/start/install`);
    expect(other).toMatchObject({ space: guides, pathname: 'start/install', complete: true, basePath: root.basePath });
  });

  it('answers the same token for the same visitor on the same day, a JWT of the SiteAPIToken shape', async () => {
    const a = await resolved(`${siteUrl}/${referencePath}`);
    const b = await resolved(`${siteUrl}/${referencePath}/start`);
    expect(a.apiToken).toBe(b.apiToken);
    const claims = decodeJwt(a.apiToken);
    expect(claims).toMatchObject({ kind: 'site', organization: org, site: site.id, siteSpace: a.siteSpace, space: reference, spaces: [reference], claims: {} });
    expect(decodeProtectedHeader(a.apiToken)).toMatchObject({ alg: 'HS256', kid: expect.any(String) });
    // Valid until 00:05 UTC the next day, issued at midnight.
    const midnight = Math.floor(Date.now() / 86_400_000) * 86_400;
    expect(claims.iat).toBe(midnight);
    expect(claims.exp).toBe(midnight + 86_400 + 300);
  });

  it('answers 404 for a URL of no published site, and 400 for what is not a URL; GET does the same with query parameters', async () => {
    for (const url of ['https://nowhere.example.com/docs', `${server.app.config.sitesUrl}/${org}/no-such-site/`, `${server.app.config.sitesUrl}/${org}`]) {
      expectError(await resolve(url), 404);
    }
    const draft = await server.createSite(ada, org, { title: 'Draft', spaces: [guides] });
    expectError(await resolve(`${server.app.config.sitesUrl}/${org}/${draft.basename}/`), 404);
    expectError(await resolve('not a url'), 400);
    expectError(await resolve('ftp://example.com/x'), 400);
    expectError(await server.request('POST', '/v1/urls/published', { body: {} }), 400);

    const got = await server.request('GET', `/v1/urls/published?url=${encodeURIComponent(`${siteUrl}/${referencePath}/start`)}`);
    expect(got.status).toBe(200);
    assertMatchesSpec('getPublishedContentByUrl', 200, got.body);
    expect(got.body).toMatchObject({ space: reference, pathname: 'start' });
    expectError(await server.request('GET', `/v1/urls/published?url=${encodeURIComponent('https://nowhere.example.com/')}`), 404);
  });

  it("resolves a site's custom hostname", async () => {
    const hosted = await server.createSite(ada, org, { title: 'Hosted', spaces: [reference] });
    await server.publishSite(ada, org, hosted.id);
    await server.app.db.site.update({ where: { id: hosted.id }, data: { hostname: 'docs.example.com' } });
    const body = await resolved('https://docs.example.com/start/install');
    expect(body).toMatchObject({ site: hosted.id, space: reference, pathname: 'start/install', basePath: '/', siteBasePath: '/', complete: true });
    expect(body.canonicalUrl).toBe('https://docs.example.com/start/install');
    // Its one site space's own path, as published URLs spell it, is the site space's: the root is not complete.
    expect(await resolved('https://docs.example.com/')).toMatchObject({ space: reference, pathname: '', complete: false });
    expect(await resolved(`https://docs.example.com/${referencePath}/start`)).toMatchObject({ pathname: 'start', basePath: `/${referencePath}/`, complete: true });
  });

  it('answers a site redirect when redirectOnError asks for it', async () => {
    const siteSpaces = await ok('GET', `/v1/orgs/${org}/sites/${site.id}/site-spaces`);
    const target = siteSpaces.items.find((s: { space: { id: string } }) => s.space.id === reference);
    await ok('POST', `/v1/orgs/${org}/sites/${site.id}/redirects`, { source: '/old/api', destination: { kind: 'site-space', siteSpaceId: target.id } });
    const redirect = await resolved(`${siteUrl}/old/api`, { redirectOnError: true });
    expect(redirect).toEqual({ target: 'content', redirect: `${siteUrl}/${referencePath}` });
    // Without it, the path is a page path of the default site space (the renderer looks redirects up when it finds no page).
    expect(await resolved(`${siteUrl}/old/api`)).toMatchObject({ space: guides, pathname: 'old/api' });
  });
});

describe('the site token', () => {
  async function tokenOf(url = `${siteUrl}/${referencePath}`) {
    return (await resolved(url)).apiToken as string;
  }

  it("reads the site's published profile and the spaces it publishes, their content and pages", async () => {
    const token = await tokenOf();
    const space = await server.request('GET', `/v1/spaces/${reference}`, { token });
    expect(space.status, JSON.stringify(space.body)).toBe(200);
    assertMatchesSpec('getSpaceById', 200, space.body);
    expect(space.body.permissions).toMatchObject({ view: true, edit: false, admin: false });
    expect((await server.request('GET', `/v1/spaces/${guides}`, { token })).status).toBe(200);
    const published = await server.request('GET', `/v1/orgs/${org}/sites/${site.id}/published`, { token });
    expect(published.status, JSON.stringify(published.body)).toBe(200);
    assertMatchesSpec('getPublishedContentSite', 200, published.body);

    const revision = space.body.revision as string;
    const pages = await server.request('GET', `/v1/spaces/${reference}/revisions/${revision}/pages`, { token });
    expect(pages.status, JSON.stringify(pages.body)).toBe(200);
    const start = pages.body.pages[0];
    const page = await server.request('GET', `/v1/spaces/${reference}/revisions/${revision}/page/${start.id}?format=markdown`, { token });
    expect(page.status).toBe(200);
    const byPath = await server.request('GET', `/v1/spaces/${reference}/revisions/${revision}/path/start%2Finstall`, { token });
    expect(byPath.status, JSON.stringify(byPath.body)).toBe(200);
    expect(byPath.body.title).toBe('Install');
    const search = await server.request('POST', `/v1/orgs/${org}/sites/${site.id}/search`, { token, body: { query: 'install' } });
    expect(search.status, JSON.stringify(search.body)).toBe(200);
  });

  it('is refused for another site, a private space, change requests, writes and account reads', async () => {
    const token = await tokenOf();
    const other = await server.createSite(ada, org, { title: 'Other', spaces: [privateSpace] });
    await server.publishSite(ada, org, other.id);
    expectError(await server.request('GET', `/v1/orgs/${org}/sites/${other.id}/published`, { token }), 404);
    expectError(await server.request('GET', `/v1/spaces/${privateSpace}`, { token }), 404);
    const cr = (await ok('POST', `/v1/spaces/${reference}/change-requests`, { subject: 'Draft' })).id;
    await ok('POST', `/v1/spaces/${reference}/change-requests/${cr}/content`, {
      changes: [{ operation: 'insert_page', title: 'Unreleased', document: { markdown: 'Not yet.\n' } }],
    });
    expectError(await server.request('GET', `/v1/spaces/${reference}/change-requests/${cr}`, { token }), 401);
    expectError(await server.request('GET', `/v1/spaces/${reference}/change-requests/${cr}/content`, { token }), 404);
    const draftRevision = (await ok('GET', `/v1/spaces/${reference}/change-requests/${cr}`)).revision;
    expectError(await server.request('GET', `/v1/spaces/${reference}/revisions/${draftRevision}`, { token }), 404);
    expectError(await server.request('PATCH', `/v1/spaces/${reference}`, { token, body: { title: 'Mine' } }), 401);
    expectError(await server.request('POST', `/v1/spaces/${reference}/change-requests`, { token, body: { subject: 'x' } }), 401);
    expectError(await server.request('GET', `/v1/orgs/${org}`, { token }), 401);
    expectError(await server.request('GET', '/v1/user', { token }), 401);
    expectError(await server.request('GET', `/v1/orgs/${org}/sites/${site.id}`, { token }), 401);
    // The other organization's admin reads nothing more with it either: the token is the caller.
    expect((await server.request('GET', `/v1/spaces/${reference}`, { token: bob.token })).status).toBe(404);
  });

  it('is a 401 when tampered with or expired, and stops opening the site once it is unpublished', async () => {
    const token = await tokenOf();
    const [header, payload, signature] = token.split('.');
    const forged = Buffer.from(JSON.stringify({ ...decodeJwt(token), site: 'another', space: privateSpace, spaces: [privateSpace] })).toString('base64url');
    expectError(await server.request('GET', `/v1/spaces/${reference}`, { token: `${header}.${forged}.${signature}` }), 401);
    expectError(await server.request('GET', `/v1/spaces/${reference}`, { token: `${header}.${payload}.${signature!.slice(0, -2)}AA` }), 401);
    const claims = decodeJwt(token) as Record<string, string>;
    const yesterday = await signSiteToken(server.app.db, signingKeySealer(server.app.config), {
      issuer: 'x',
      organizationId: org,
      siteId: site.id,
      siteSectionId: null,
      siteSpaceId: claims.siteSpace!,
      spaceId: reference,
      shareKey: null,
      authenticated: false,
      claims: {},
      visitorType: 'human',
      now: new Date(Date.now() - 2 * 86_400_000),
    });
    expectError(await server.request('GET', `/v1/spaces/${reference}`, { token: yesterday }), 401, /expired/);

    // Rotating the organization's keys keeps the token (the retired key still verifies); deleting its key ends it.
    const kid = decodeProtectedHeader(token).kid!;
    await rotateSigningKey(server.app.db, signingKeySealer(server.app.config), org);
    expect((await server.request('GET', `/v1/spaces/${reference}`, { token })).status).toBe(200);
    expect((await resolved(`${siteUrl}/${referencePath}`)).apiToken).not.toBe(token);
    await deleteSigningKey(server.app.db, org, kid);
    expectError(await server.request('GET', `/v1/spaces/${reference}`, { token }), 401, /invalid/);

    const temporary = await server.createSite(ada, org, { title: 'Temporary', spaces: [privateSpace] });
    await server.publishSite(ada, org, temporary.id);
    const temporaryToken = await tokenOf(`${server.app.config.sitesUrl}/${org}/${temporary.basename}/`);
    expect((await server.request('GET', `/v1/spaces/${privateSpace}`, { token: temporaryToken })).status).toBe(200);
    // A site made visitor-auth closes the tokens given to anonymous visitors before.
    await ok('PATCH', `/v1/orgs/${org}/sites/${temporary.id}`, { visibility: 'visitor-auth' });
    expectError(await server.request('GET', `/v1/spaces/${privateSpace}`, { token: temporaryToken }), 401, /visibility/);
    await ok('PATCH', `/v1/orgs/${org}/sites/${temporary.id}`, { visibility: 'public' });
    expect((await server.request('GET', `/v1/spaces/${privateSpace}`, { token: temporaryToken })).status).toBe(200);
    await ok('POST', `/v1/orgs/${org}/sites/${temporary.id}/unpublish`);
    expectError(await server.request('GET', `/v1/spaces/${privateSpace}`, { token: temporaryToken }), 404);
    expectError(await server.request('GET', `/v1/orgs/${org}/sites/${temporary.id}/published`, { token: temporaryToken }), 404);
    // A deleted site's tokens are refused.
    expect((await server.request('DELETE', `/v1/orgs/${org}/sites/${temporary.id}`, { token: ada.token })).status).toBeLessThan(300);
    expectError(await server.request('GET', `/v1/spaces/${privateSpace}`, { token: temporaryToken }), 401);
  });
});

describe('share-link and visitor-auth sites', () => {
  it('resolves a share-link site through the key as a path segment (or the share parameter), and nothing without it', async () => {
    const shared = await server.createSite(ada, org, { title: 'Partners', visibility: 'share-link', spaces: [privateSpace] });
    await server.publishSite(ada, org, shared.id);
    const link = await ok('POST', `/v1/orgs/${org}/sites/${shared.id}/share-links`, { name: 'Bob' });
    const key = shareKeyIn(link.urls.published, server.app.config.sitesUrl);
    const base = `${server.app.config.sitesUrl}/${org}/${shared.basename}`;
    expectError(await resolve(`${base}/`), 404);
    expectError(await resolve(`${base}/not-the-key/start`), 404);
    const body = await resolved(`${link.urls.published}start`);
    expect(body).toMatchObject({ site: shared.id, space: privateSpace, shareKey: key, pathname: 'start', complete: true });
    expect(body.siteBasePath).toBe(`${new URL(base).pathname}/${key}/`);
    expect((await resolved(`${base}/start?share=${key}`)).shareKey).toBe(key);
    // Its token reads the space, whose published URL is on the site, with the key.
    const space = await server.request('GET', `/v1/spaces/${privateSpace}`, { token: body.apiToken });
    expect(space.status).toBe(200);
    expect(space.body.urls.published).toBe(`${link.urls.published}private`);
    // A deactivated link opens nothing: neither its URLs nor the tokens made with it.
    await ok('PATCH', `/v1/orgs/${org}/sites/${shared.id}/share-links/${link.id}`, { active: false });
    expectError(await resolve(`${link.urls.published}start`), 404);
    expectError(await server.request('GET', `/v1/spaces/${privateSpace}`, { token: body.apiToken }), 401, /share link changed/);
  });

  it("asks a visitor-auth site's visitors for a visitor token, and evaluates adaptive content with its claims", async () => {
    const gated = await server.createSite(ada, org, { title: 'Members only', visibility: 'visitor-auth', spaces: [guides] });
    await server.publishSite(ada, org, gated.id);
    const url = `${server.app.config.sitesUrl}/${org}/${gated.basename}/start`;
    expectError(await resolve(url), 401);
    expectError(await resolve(url, { visitor: { jwtToken: 'not.a.token' } }), 401);
    const bobOrg = await server.createOrg(bob);
    const foreign = (await ok('POST', `/v1/orgs/${bobOrg}/ping`, undefined, bob.token)).gitbookVisitorClaims;
    expectError(await resolve(url, { visitor: { jwtToken: foreign } }), 401);

    const visitorToken = (await ok('POST', `/v1/orgs/${org}/ping`)).gitbookVisitorClaims;
    const body = await resolved(url, { visitor: { jwtToken: visitorToken, unsignedClaims: { plan: 'pro' } } });
    expect(body.contextId).toEqual(expect.any(String));
    const claims = decodeJwt(body.apiToken).claims as Record<string, unknown>;
    expect(claims).toMatchObject({ organization: org, name: 'Ada', role: 'admin' });
    // No visitor schema declares unsigned claims: they are not kept.
    expect(claims.unsigned).toBeUndefined();

    const space = await ok('GET', `/v1/spaces/${guides}`, undefined, body.apiToken);
    const pages = await ok('GET', `/v1/spaces/${guides}/revisions/${space.revision}/pages`, undefined, body.apiToken);
    const start = pages.pages[0].id;
    const evaluated = await ok('GET', `/v1/spaces/${guides}/revisions/${space.revision}/page/${start}?format=markdown&evaluated=true`, undefined, body.apiToken);
    expect(evaluated.markdown).toContain('Hello Ada!');
    // Without a visitor (a member's token), the claim reads as nothing.
    const member = await ok('GET', `/v1/spaces/${guides}/revisions/${space.revision}/page/${start}?format=markdown&evaluated=true`);
    expect(member.markdown).toContain('Hello !');
  });
});

describe('adaptive site spaces', () => {
  it("hide a site space whose condition is false for the token's visitor, in resolution and in the published profile", async () => {
    const adaptive = await server.createSite(ada, org, { title: 'Adaptive', visibility: 'visitor-auth', spaces: [guides, reference] });
    await server.publishSite(ada, org, adaptive.id);
    const siteSpaces = (await ok('GET', `/v1/orgs/${org}/sites/${adaptive.id}/site-spaces`)).items as { id: string; path: string; space: { id: string } }[];
    const gated = siteSpaces.find((s) => s.space.id === reference)!;
    await ok('PATCH', `/v1/orgs/${org}/sites/${adaptive.id}/site-spaces/${gated.id}`, { condition: 'visitor.claims.role == "admin"' });
    const base = `${server.app.config.sitesUrl}/${org}/${adaptive.basename}`;

    const profileOf = async (token: string) => (await ok('GET', `/v1/orgs/${org}/sites/${adaptive.id}/published`, undefined, token)).structure.structure as { id: string }[];
    const admin = await resolved(`${base}/${gated.path}/start`, { visitor: { jwtToken: (await ok('POST', `/v1/orgs/${org}/ping`)).gitbookVisitorClaims } });
    expect(admin).toMatchObject({ siteSpace: gated.id, pathname: 'start' });
    expect((await profileOf(admin.apiToken)).map((s) => s.id).sort()).toEqual(siteSpaces.map((s) => s.id).sort());

    await server.addMember(org, bob, 'read');
    const reader = await resolved(`${base}/${gated.path}/start`, { visitor: { jwtToken: (await ok('POST', `/v1/orgs/${org}/ping`, undefined, bob.token)).gitbookVisitorClaims } });
    // Not the gated site space: its path is a page path of the default one.
    expect(reader).toMatchObject({ space: guides, pathname: `${gated.path}/start` });
    const profile = await server.request('GET', `/v1/orgs/${org}/sites/${adaptive.id}/published`, { token: reader.apiToken });
    assertMatchesSpec('getPublishedContentSite', 200, profile.body);
    expect(profile.body.structure.structure.map((s: { id: string }) => s.id)).toEqual(siteSpaces.filter((s) => s.id !== gated.id).map((s) => s.id));
    expect(Object.keys(profile.body.customizations.siteSpaces)).not.toContain(gated.id);
    // Nor does their search find the gated space's pages (both spaces hold "Install").
    const found = await server.request('POST', `/v1/orgs/${org}/sites/${adaptive.id}/search`, { token: reader.apiToken, body: { query: 'install', scope: { mode: 'all' } } });
    expect(found.status, JSON.stringify(found.body)).toBe(200);
    expect(found.body.items.map((item: { id: string }) => item.id)).toEqual([guides]);
    const adminFound = await server.request('POST', `/v1/orgs/${org}/sites/${adaptive.id}/search`, { token: admin.apiToken, body: { query: 'install', scope: { mode: 'all' } } });
    expect(adminFound.body.items.map((item: { id: string }) => item.id).sort()).toEqual([guides, reference].sort());
    // Members read the whole structure, whatever the conditions.
    expect((await profileOf(ada.token)).map((s) => s.id).sort()).toEqual(siteSpaces.map((s) => s.id).sort());
  });
});

describe("GitBook's client", () => {
  it('resolves a URL and reads the space with the token it got', async () => {
    const anonymous = new GitBookAPI({ endpoint: server.baseUrl });
    const { data } = await anonymous.urls.resolvePublishedContentByUrl({ url: `${siteUrl}/${referencePath}/start` });
    if ('redirect' in data) throw new Error('unexpected redirect');
    expect(data.pathname).toBe('start');
    const visitor = new GitBookAPI({ endpoint: server.baseUrl, authToken: data.apiToken });
    const space = await visitor.spaces.getSpaceById(data.space);
    expect(space.data.id).toBe(reference);
    const site = await visitor.orgs.getPublishedContentSite(data.organization, data.site);
    expect(site.data.site.id).toBe(data.site);
    const deprecated = await anonymous.urls.getPublishedContentByUrl({ url: `${siteUrl}/${referencePath}/start` });
    expect(deprecated.data).toMatchObject({ space: reference, pathname: 'start' });
  });
});

/**
 * Site share links over real HTTP: list (paged), create (the key shown once,
 * only its hash stored), update, delete; roles, limits and isolation.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { hashShareKey } from '../../src/auth/share-keys.ts';
import { assertMatchesSpec } from '../helpers/openapi.ts';
import { expectError, useTestServer, type TestUser } from '../helpers/server.ts';

const { server, ada, bob } = useTestServer({ users: ['Ada', 'Bob'] });

const linksPath = (org: string, site: string, link = '') => `/v1/orgs/${org}/sites/${site}/share-links${link ? `/${link}` : ''}`;

async function createLink(user: TestUser, org: string, site: string, name: string) {
  const res = await server.request('POST', linksPath(org, site), { token: user.token, body: { name } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  assertMatchesSpec('createSiteShareLink', 201, res.body);
  return res.body;
}

/** The share key a published URL carries after the site's address `base`. */
function keyOf(published: string, base: string): string {
  expect(published.startsWith(base)).toBe(true);
  return published.slice(base.length).split('/')[0]!;
}

describe('share links', () => {
  it('creates a link whose key is shown once and stored only as a hash', async () => {
    const org = await server.createOrg(ada);
    const site = await server.createSite(ada, org, { title: 'Secret docs', visibility: 'share-link' });
    const link = await createLink(ada, org, site.id, 'For partners');
    expect(link).toMatchObject({ object: 'share-link', name: 'For partners', active: true, createdAt: expect.any(String) });

    // The key is the first path segment after the site's address, where the site renderer reads it.
    const key = keyOf(link.urls.published, `${server.app.config.sitesUrl}/${org}/secret-docs/`);
    expect(key).toMatch(/^[A-Za-z0-9_-]{20,}$/);
    expect(link.urls.published).toBe(`${server.app.config.sitesUrl}/${org}/secret-docs/${key}/`);

    const row = await server.app.db.siteShareLink.findUniqueOrThrow({ where: { id: link.id } });
    expect(row.keyHash).toBe(hashShareKey(key));
    expect(JSON.stringify(row)).not.toContain(key);

    // The key is not shown again.
    const list = await server.request('GET', linksPath(org, site.id), { token: ada.token });
    expect(list.status).toBe(200);
    assertMatchesSpec('listSiteShareLinks', 200, list.body);
    expect(list.body.items).toEqual([{ object: 'share-link', id: link.id, name: 'For partners', active: true, createdAt: link.createdAt, urls: {} }]);
    expect(JSON.stringify(list.body)).not.toContain(key);

    // Two links get two keys.
    const other = await createLink(ada, org, site.id, '');
    expect(other.name).toBe('');
    expect(keyOf(other.urls.published, `${server.app.config.sitesUrl}/${org}/secret-docs/`)).not.toBe(key);
  });

  it('pages through the links with next.page', async () => {
    const org = await server.createOrg(ada);
    const site = await server.createSite(ada, org);
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await createLink(ada, org, site.id, `Link ${i}`)).id);
    expect(await server.pageThrough(ada, linksPath(org, site.id), 'listSiteShareLinks')).toEqual({ ids, pages: 3, count: 5 });
    // Links of another site are not listed.
    const otherSite = await server.createSite(ada, org, { title: 'Other' });
    expect(await server.listIds(ada, linksPath(org, otherSite.id), 'listSiteShareLinks')).toEqual([]);
  });

  it('updates active and name; refuses an empty body, nulls and long names (400)', async () => {
    const org = await server.createOrg(ada);
    const site = await server.createSite(ada, org);
    const link = await createLink(ada, org, site.id, 'First');
    const path = linksPath(org, site.id, link.id);

    const off = await server.request('PATCH', path, { token: ada.token, body: { active: false } });
    expect(off.status, JSON.stringify(off.body)).toBe(200);
    assertMatchesSpec('updateSiteShareLinkById', 200, off.body);
    expect(off.body).toMatchObject({ id: link.id, name: 'First', active: false });

    const renamed = await server.request('PATCH', path, { token: ada.token, body: { name: 'x'.repeat(50), active: true } });
    expect(renamed.status).toBe(200);
    assertMatchesSpec('updateSiteShareLinkById', 200, renamed.body);
    expect(renamed.body).toMatchObject({ name: 'x'.repeat(50), active: true });

    for (const [body, message] of [
      [{}, /active.*name/],
      [{ unknown: 1 }, /active.*name/],
      [{ name: 'x'.repeat(51) }, /name/],
      [{ active: null }, /active/],
      [{ name: null }, /name/],
      [{ active: 'yes' }, /active/],
    ] as const) {
      expectError(await server.request('PATCH', path, { token: ada.token, body }), 400, message);
    }
    for (const body of [{ name: 'x'.repeat(51) }, {}, { name: 5 }]) {
      expectError(await server.request('POST', linksPath(org, site.id), { token: ada.token, body }), 400, /name/);
    }
    expect((await server.app.db.siteShareLink.findUniqueOrThrow({ where: { id: link.id } })).name).toBe('x'.repeat(50));
  });

  it('deletes a link (205), then answers 204', async () => {
    const org = await server.createOrg(ada);
    const site = await server.createSite(ada, org);
    const link = await createLink(ada, org, site.id, 'Temp');
    const deleted = await server.request('DELETE', linksPath(org, site.id, link.id), { token: ada.token });
    expect(deleted.status).toBe(205);
    assertMatchesSpec('deleteSiteShareLinkById', 205, deleted.body);
    expect(await server.app.db.siteShareLink.count({ where: { id: link.id } })).toBe(0);
    const again = await server.request('DELETE', linksPath(org, site.id, link.id), { token: ada.token });
    expect(again.status).toBe(204);
    assertMatchesSpec('deleteSiteShareLinkById', 204, again.body);
    expectError(await server.request('PATCH', linksPath(org, site.id, link.id), { token: ada.token, body: { active: false } }), 404);
  });

  describe('errors', () => {
    let org: string;
    let site: { id: string };
    let link: { id: string };
    let reader: TestUser;
    let creator: TestUser;

    beforeAll(async () => {
      org = await server.createOrg(ada);
      site = await server.createSite(ada, org);
      link = await createLink(ada, org, site.id, 'Guarded');
      reader = await server.createUser('Reader');
      creator = await server.createUser('Creator');
      await server.addMember(org, reader, 'read');
      await server.addMember(org, creator, 'create');
    });

    const endpoints = (orgId: string, siteId: string, linkId: string) =>
      [
        ['GET', linksPath(orgId, siteId), undefined],
        ['POST', linksPath(orgId, siteId), { name: 'New' }],
        ['PATCH', linksPath(orgId, siteId, linkId), { name: 'Renamed' }],
        ['DELETE', linksPath(orgId, siteId, linkId), undefined],
      ] as const;

    it('answers 401 without a token', async () => {
      await server.expectErrors(endpoints(org, site.id, link.id), undefined, 401);
    });

    it("answers 404 to non-members, for another organization's site, and for a link of another site", async () => {
      await server.expectErrors(endpoints(org, site.id, link.id), bob.token, 404);
      const bobOrg = await server.createOrg(bob);
      await server.addMember(bobOrg, ada, 'admin');
      await server.expectErrors(endpoints(bobOrg, site.id, link.id), ada.token, 404);
      // The link through another site of the same organization: not that site's link.
      const otherSite = await server.createSite(ada, org, { title: 'Other' });
      expectError(await server.request('PATCH', linksPath(org, otherSite.id, link.id), { token: ada.token, body: { name: 'x' } }), 404);
      expect((await server.request('DELETE', linksPath(org, otherSite.id, link.id), { token: ada.token })).status).toBe(204);
      expect(await server.app.db.siteShareLink.findUniqueOrThrow({ where: { id: link.id } })).toMatchObject({ name: 'Guarded' });
    });

    it('needs the create role (site:update): 403 for a reader', async () => {
      await server.expectErrors(endpoints(org, site.id, link.id), reader.token, 403);
      const created = await createLink(creator, org, site.id, 'By creator');
      const list = await server.listIds(creator, linksPath(org, site.id), 'listSiteShareLinks');
      expect(list).toContain(created.id);
      const res = await server.request('PATCH', linksPath(org, site.id, created.id), { token: creator.token, body: { active: false } });
      expect(res.status).toBe(200);
      expect((await server.request('DELETE', linksPath(org, site.id, created.id), { token: creator.token })).status).toBe(205);
    });
  });
});

import { describe, expect, it } from 'vitest';
import { assertMatchesSpec } from '../helpers/openapi.ts';
import { useTestServer } from '../helpers/server.ts';

const { server, ada, bob } = useTestServer({ users: ['Ada', 'Bob'] });

describe('GET /v1/user', () => {
  it('answers the authenticated user', async () => {
    const res = await server.request('GET', '/v1/user', { token: ada.token });
    expect(res.status).toBe(200);
    assertMatchesSpec('getAuthenticatedUser', 200, res.body);
    expect(res.body).toMatchObject({ object: 'user', id: ada.id, displayName: 'Ada' });
  });

  it('rejects a missing token and a bad token with 401 in the error shape', async () => {
    for (const token of [undefined, 'not-a-token']) {
      const res = await server.request('GET', '/v1/user', { token });
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ error: { code: 401, message: expect.any(String) } });
    }
  });
});

describe('GET /v1/users/{userId}', () => {
  it('answers the caller and the members of organizations whose members the caller may list; anyone else is not found', async () => {
    const own = await server.request('GET', `/v1/users/${ada.id}`, { token: ada.token });
    expect(own.status).toBe(200);
    assertMatchesSpec('getUserById', 200, own.body);
    expect(own.body).toMatchObject({ object: 'user', id: ada.id, displayName: 'Ada' });

    const carol = await server.createUser('Carol');
    const stranger = await server.request('GET', `/v1/users/${carol.id}`, { token: ada.token });
    expect(stranger.status).toBe(404);
    expect(stranger.body).toEqual({ error: { code: 404, message: expect.any(String) } });
    expect((await server.request('GET', '/v1/users/no-such-user', { token: ada.token })).status).toBe(404);

    const org = await server.createOrg(ada, 'Colleagues');
    await server.addMember(org, carol, 'read');
    const colleague = await server.request('GET', `/v1/users/${carol.id}`, { token: ada.token });
    expect(colleague.status).toBe(200);
    assertMatchesSpec('getUserById', 200, colleague.body);
    expect(colleague.body).toMatchObject({ id: carol.id, displayName: 'Carol', email: carol.email });
    // A guest of the organization may not list its members: the others stay unknown to them.
    const dave = await server.createUser('Dave');
    await server.addMember(org, dave, null);
    expect((await server.request('GET', `/v1/users/${carol.id}`, { token: dave.token })).status).toBe(404);
    expect((await server.request('GET', `/v1/users/${carol.id}`, { token: 'not-a-token' })).status).toBe(401);
  });
});

describe('organizations', () => {
  it('creates an organization whose creator is admin, and reads it back', async () => {
    const created = await server.request('POST', '/v1/orgs', { token: ada.token, body: { title: 'Acme Docs' } });
    expect(created.status).toBe(201);
    assertMatchesSpec('createOrganization', 201, created.body, 'next');
    expect(created.body.permissions.admin).toBe(true);

    const got = await server.request('GET', `/v1/orgs/${created.body.id}`, { token: ada.token });
    expect(got.status).toBe(200);
    assertMatchesSpec('getOrganizationById', 200, got.body);
    expect(got.body).toMatchObject({ id: created.body.id, title: 'Acme Docs', object: 'organization' });
  });

  it('hides an organization from non-members (404) and refuses a reader (403)', async () => {
    const org = (await server.request('POST', '/v1/orgs', { token: ada.token, body: { title: 'Private' } })).body;
    expect((await server.request('GET', `/v1/orgs/${org.id}`, { token: bob.token })).status).toBe(404);
    const patch = await server.request('PATCH', `/v1/orgs/${org.id}`, { token: bob.token, body: { title: 'Mine' } });
    expect(patch.status).toBe(404);

    await server.app.db.member.create({ data: { id: `m-${bob.id}-${org.id}`, organizationId: org.id, userId: bob.id, role: 'read' } });
    const forbidden = await server.request('PATCH', `/v1/orgs/${org.id}`, { token: bob.token, body: { title: 'Mine' } });
    expect(forbidden.status).toBe(403);
    expect(forbidden.body.error.code).toBe(403);
  });

  it('updates an organization and validates the limits of api.md', async () => {
    const org = (await server.request('POST', '/v1/orgs', { token: ada.token, body: { title: 'Before' } })).body;
    const ok = await server.request('PATCH', `/v1/orgs/${org.id}`, {
      token: ada.token,
      body: { title: 'After', hostname: 'acme', emailDomains: ['acme.test'], defaultRole: 'read', mergeRules: { type: 'none' } },
    });
    expect(ok.status).toBe(200);
    assertMatchesSpec('updateOrganizationById', 200, ok.body);
    expect(ok.body).toMatchObject({ title: 'After', hostname: 'acme', emailDomains: ['acme.test'], defaultRole: 'read' });

    for (const body of [{ title: 'A' }, { title: 'x'.repeat(256) }, { hostname: 'ab' }, { hostname: 'x'.repeat(33) }, { defaultRole: 'owner' }, { mergeRules: { type: 'bogus' } }]) {
      const res = await server.request('PATCH', `/v1/orgs/${org.id}`, { token: ada.token, body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error.message).toMatch(new RegExp(Object.keys(body)[0]!));
    }
    const malformed = await server.request('PATCH', `/v1/orgs/${org.id}`, { token: ada.token, body: '{"title":' });
    expect(malformed.status).toBe(400);
  });

  it("sets its default content to one of its sites, answers that site's custom hostname, and forgets it when the site goes", async () => {
    const org = await server.createOrg(ada, 'Default content');
    const other = await server.createOrg(ada, 'Elsewhere');
    const site = await server.createSite(ada, org, { title: 'Docs' });
    const foreign = await server.createSite(ada, other, { title: 'Not ours' });
    const patch = (body: unknown) => server.request('PATCH', `/v1/orgs/${org}`, { token: ada.token, body });

    const set = await patch({ defaultContent: { type: 'site', site: site.id } });
    expect(set.status, JSON.stringify(set.body)).toBe(200);
    assertMatchesSpec('updateOrganizationById', 200, set.body);
    expect(set.body.defaultContent).toEqual({ type: 'site', site: site.id });
    expect(set.body.customHostname).toBeUndefined();

    const hosted = await server.request('PATCH', `/v1/orgs/${org}/sites/${site.id}`, { token: ada.token, body: { hostname: 'docs.acme.example' } });
    expect(hosted.status, JSON.stringify(hosted.body)).toBe(200);
    const read = await server.request('GET', `/v1/orgs/${org}`, { token: ada.token });
    assertMatchesSpec('getOrganizationById', 200, read.body);
    expect(read.body).toMatchObject({ defaultContent: { type: 'site', site: site.id }, customHostname: 'docs.acme.example' });

    // Another organization's site, or none: a 400 that changes nothing.
    for (const id of [foreign.id, 'no-such-site']) {
      const refused = await patch({ defaultContent: { type: 'site', site: id } });
      expect(refused.status).toBe(400);
      expect(refused.body.error.message).toBe('defaultContent: no site with this id in the organization');
    }
    expect((await server.request('GET', `/v1/orgs/${org}`, { token: ada.token })).body.defaultContent.site).toBe(site.id);

    expect((await server.request('DELETE', `/v1/orgs/${org}/sites/${site.id}`, { token: ada.token })).status).toBeLessThan(300);
    const after = (await server.request('GET', `/v1/orgs/${org}`, { token: ada.token })).body;
    expect(after.defaultContent).toBeUndefined();
    expect(after.customHostname).toBeUndefined();

    const cleared = await patch({ defaultContent: null });
    expect(cleared.status).toBe(200);
  });

  it('pages through the organizations of the user, visiting each once', async () => {
    const carol = await server.createUser('Carol');
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await server.request('POST', '/v1/orgs', { token: carol.token, body: { title: `Org ${i}` } })).body.id);
    expect(await server.pageThrough(carol, '/v1/orgs', 'listOrganizationsForAuthenticatedUser')).toEqual({ ids, pages: 3, count: 5 });
    for (const limit of [0, 1001]) expect((await server.request('GET', `/v1/orgs?limit=${limit}`, { token: carol.token })).status).toBe(400);
  });
});

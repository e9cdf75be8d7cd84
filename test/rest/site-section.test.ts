/**
 * Site sections over real HTTP: list, add, update, delete and the deprecated
 * move; 2xx bodies validated against @gitbook/api@0.146.0's OpenAPI document.
 */
import { describe, expect, it } from 'vitest';
import { assertMatchesSpec } from '../helpers/openapi.ts';
import { expectError, useTestServer, type TestUser } from '../helpers/server.ts';

const { server, ada, bob } = useTestServer({ users: ['Ada', 'Bob'] });

const sections = (org: string, site: string) => `/v1/orgs/${org}/sites/${site}/sections`;

async function addSection(user: TestUser, org: string, site: string, body: Record<string, unknown>) {
  const res = await server.request('POST', sections(org, site), { token: user.token, body });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  assertMatchesSpec('addSectionToSite', 201, res.body);
  return res.body;
}

async function list(user: TestUser, org: string, site: string, query = '') {
  const res = await server.request('GET', `${sections(org, site)}${query}`, { token: user.token });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  assertMatchesSpec('listSiteSections', 200, res.body);
  return res.body;
}

async function patch(user: TestUser, org: string, site: string, id: string, body: unknown) {
  return server.request('PATCH', `${sections(org, site)}/${id}`, { token: user.token, body });
}

async function move(user: TestUser, org: string, site: string, id: string, body: unknown) {
  return server.request('POST', `${sections(org, site)}/${id}/move`, { token: user.token, body });
}

/** Ada's organization with spaces of these titles and a site without sections. */
const setup = (titles?: string[]) => server.siteWithSpaces(ada, titles);

describe('adding sections', () => {
  it('adds a section with a site space of the space; the first becomes the default section', async () => {
    const { org, site, spaces } = await setup();
    const first = await addSection(ada, org, site, { spaceId: spaces[0].id });
    expect(first).toMatchObject({ object: 'site-section', title: 'Guide', path: 'guide', default: true, urls: {} });
    expect(first.siteSpaces).toHaveLength(1);
    expect(first.siteSpaces[0]).toMatchObject({ object: 'site-space', section: first.id, default: true, path: 'guide', space: { id: spaces[0].id } });
    const second = await addSection(ada, org, site, { spaceId: spaces[1].id, title: 'Reference', icon: 'code' });
    expect(second).toMatchObject({ title: 'Reference', path: 'reference', icon: 'code', default: false });
    const third = await addSection(ada, org, site, { spaceId: spaces[0].id, title: 'Guide' });
    expect(third.path).toBe('guide-2');
    const body = await list(ada, org, site);
    expect(body.count).toBe(3);
    expect(body.items.map((s: any) => s.id)).toEqual([first.id, second.id, third.id]);
  });

  it("turns the root site spaces of a site into its first (default) section before adding one", async () => {
    const org = await server.createOrg(ada);
    const [a, b, c] = [await server.createSpace(ada, org, { title: 'Docs' }), await server.createSpace(ada, org, { title: 'v1' }), await server.createSpace(ada, org, { title: 'API' })];
    const site = (await server.createSite(ada, org, { spaces: [a.id, b.id] })).id;
    const added = await addSection(ada, org, site, { spaceId: c.id });
    expect(added).toMatchObject({ title: 'API', default: false });
    const body = await list(ada, org, site);
    expect(body.items.map((s: any) => [s.title, s.default, s.siteSpaces.map((x: any) => [x.space.id, x.default])])).toEqual([
      ['Docs', true, [[a.id, true], [b.id, false]]],
      ['API', false, [[c.id, true]]],
    ]);
    const structure = await server.request('GET', `/v1/orgs/${org}/sites/${site}/structure`, { token: ada.token });
    expect(structure.body.type).toBe('sections');
  });

  it('defaults the title to the space title, padded when shorter than 2 characters', async () => {
    const { org, site, spaces } = await setup(['X', '']);
    expect((await addSection(ada, org, site, { spaceId: spaces[0].id })).title).toBe('X section');
    expect((await addSection(ada, org, site, { spaceId: spaces[1].id })).title).toBe('Untitled section');
    expect((await addSection(ada, org, site, { spaceId: spaces[1].id, title: null })).title).toBe('Untitled section');
  });

  it('refuses bad bodies (400): title 1 or 129 characters, icon of 51, no spaceId, a space of another organization or in the bin', async () => {
    const { org, site, spaces } = await setup();
    for (const [body, field] of [
      [{ spaceId: spaces[0].id, title: 'x' }, /title/],
      [{ spaceId: spaces[0].id, title: 'x'.repeat(129) }, /title/],
      [{ spaceId: spaces[0].id, icon: 'x'.repeat(51) }, /icon/],
      [{ title: 'No space' }, /spaceId/],
      [{ spaceId: 42 }, /spaceId/],
      [{ spaceId: 'does-not-exist' }, /spaceId/],
    ] as const) {
      expectError(await server.request('POST', sections(org, site), { token: ada.token, body }), 400, field);
    }
    await addSection(ada, org, site, { spaceId: spaces[0].id, title: 'x'.repeat(128), icon: 'x'.repeat(50) });
    await addSection(ada, org, site, { spaceId: spaces[0].id, title: 'xy' });

    const bobOrg = await server.createOrg(bob);
    const foreign = await server.createSpace(bob, bobOrg);
    expectError(await server.request('POST', sections(org, site), { token: ada.token, body: { spaceId: foreign.id } }), 400, /spaceId/);
    // Even for a member of both organizations.
    await server.addMember(bobOrg, ada, 'admin');
    expectError(await server.request('POST', sections(org, site), { token: ada.token, body: { spaceId: foreign.id } }), 400, /another organization/);
    expect((await server.request('DELETE', `/v1/spaces/${spaces[2].id}`, { token: ada.token })).status).toBe(205);
    expectError(await server.request('POST', sections(org, site), { token: ada.token, body: { spaceId: spaces[2].id } }), 400, /spaceId/);
    expect((await list(ada, org, site)).count).toBe(2);
  });
});

describe('listing sections', () => {
  it('pages with limit and page', async () => {
    const { org, site, spaces } = await setup();
    const ids = [];
    for (const space of spaces) ids.push((await addSection(ada, org, site, { spaceId: space.id })).id);
    const first = await list(ada, org, site, '?limit=2');
    expect(first.items.map((s: any) => s.id)).toEqual(ids.slice(0, 2));
    expect(first.count).toBe(3);
    const second = await list(ada, org, site, `?limit=2&page=${first.next.page}`);
    expect(second.items.map((s: any) => s.id)).toEqual(ids.slice(2));
    expect(second.next).toBeUndefined();
    expectError(await server.request('GET', `${sections(org, site)}?limit=0`, { token: ada.token }), 400, /limit/);
  });

  it('gives published URLs once the site is published', async () => {
    const { org, site, spaces } = await setup();
    const section = await addSection(ada, org, site, { spaceId: spaces[0].id });
    expect(section.urls.published).toBeUndefined();
    await server.publishSite(ada, org, site);
    const [item] = (await list(ada, org, site)).items;
    const siteUrl = (await server.request('GET', `/v1/orgs/${org}/sites/${site}`, { token: ada.token })).body.urls.published;
    expect(siteUrl).toMatch(/\/$/);
    expect(item.urls.published).toBe(`${siteUrl}guide`);
    expect(item.siteSpaces[0].urls.published).toBe(`${siteUrl}guide/guide`);
  });
});

describe('updating sections', () => {
  it('updates title, path, description, icon, condition (unset keeps, null removes) and the default site space', async () => {
    const { org, site, spaces } = await setup();
    const section = await addSection(ada, org, site, { spaceId: spaces[0].id });
    const variant = (await server.request('POST', `/v1/orgs/${org}/sites/${site}/site-spaces`, { token: ada.token, body: { spaceId: spaces[1].id, sectionId: section.id } })).body;

    const res = await patch(ada, org, site, section.id, { title: 'Handbook', path: 'handbook', description: 'All of it', icon: 'book', condition: 'visitor.claims.beta' });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    assertMatchesSpec('updateSiteSectionById', 200, res.body);
    expect(res.body).toMatchObject({ title: 'Handbook', path: 'handbook', description: 'All of it', icon: 'book', condition: 'visitor.claims.beta' });

    const kept = await patch(ada, org, site, section.id, { title: 'Handbook 2' });
    expect(kept.body).toMatchObject({ title: 'Handbook 2', condition: 'visitor.claims.beta', icon: 'book', description: 'All of it' });
    const cleared = await patch(ada, org, site, section.id, { condition: null, icon: null, description: null });
    expect(cleared.status).toBe(200);
    assertMatchesSpec('updateSiteSectionById', 200, cleared.body);
    expect(cleared.body.condition).toBeUndefined();
    expect(cleared.body.icon).toBeUndefined();
    expect(cleared.body.description).toBeUndefined();

    const swapped = await patch(ada, org, site, section.id, { defaultSiteSpace: variant.id });
    expect(swapped.status).toBe(200);
    expect(swapped.body.siteSpaces.map((s: any) => [s.id, s.default])).toEqual([
      [section.siteSpaces[0].id, false],
      [variant.id, true],
    ]);
    const listed = await server.request('GET', `/v1/orgs/${org}/sites/${site}/site-spaces?default=true`, { token: ada.token });
    expect(listed.body.items.map((s: any) => s.id)).toEqual([variant.id]);
  });

  it('refuses limits (400), a path taken in the site (409), a site space of another section (400)', async () => {
    const { org, site, spaces } = await setup();
    const a = await addSection(ada, org, site, { spaceId: spaces[0].id });
    const b = await addSection(ada, org, site, { spaceId: spaces[1].id });
    for (const body of [
      { title: 'x' },
      { title: 'x'.repeat(129) },
      { path: '' },
      { path: 'x'.repeat(101) },
      { description: 'x'.repeat(257) },
      { condition: 'x'.repeat(1025) },
      { icon: 'x'.repeat(51) },
      { title: 42 },
    ]) {
      expectError(await patch(ada, org, site, a.id, body), 400, new RegExp(Object.keys(body)[0]!));
    }
    const limits = await patch(ada, org, site, a.id, { title: 'x'.repeat(128), path: 'x'.repeat(100), description: 'x'.repeat(256), condition: 'x'.repeat(1024), icon: 'x'.repeat(50) });
    expect(limits.status).toBe(200);
    assertMatchesSpec('updateSiteSectionById', 200, limits.body);
    expectError(await patch(ada, org, site, a.id, { path: b.path }), 409, /path/);
    expectError(await patch(ada, org, site, a.id, { defaultSiteSpace: b.siteSpaces[0].id }), 400, /defaultSiteSpace/);
    expectError(await patch(ada, org, site, 'nope', { title: 'Fine' }), 404);
    // Its own path again is no clash.
    expect((await patch(ada, org, site, b.id, { path: b.path })).status).toBe(200);
  });
});

describe('deleting sections', () => {
  it('deletes a section and its site spaces (205, then 204); the first one left becomes the default', async () => {
    const { org, site, spaces } = await setup();
    const a = await addSection(ada, org, site, { spaceId: spaces[0].id });
    const b = await addSection(ada, org, site, { spaceId: spaces[1].id });
    const c = await addSection(ada, org, site, { spaceId: spaces[2].id });
    await move(ada, org, site, c.id, { position: { before: { type: 'site-section', siteSection: b.id } } });
    const del = await server.request('DELETE', `${sections(org, site)}/${a.id}`, { token: ada.token });
    expect(del.status).toBe(205);
    assertMatchesSpec('deleteSiteSectionById', 205, del.body);
    expect(await server.app.db.siteSpace.count({ where: { sectionId: a.id } })).toBe(0);
    const body = await list(ada, org, site);
    expect(body.items.map((s: any) => [s.id, s.default])).toEqual([
      [c.id, true],
      [b.id, false],
    ]);
    const again = await server.request('DELETE', `${sections(org, site)}/${a.id}`, { token: ada.token });
    expect(again.status).toBe(204);
    assertMatchesSpec('deleteSiteSectionById', 204, again.body);
    // The spaces stay.
    expect((await server.request('GET', `/v1/spaces/${spaces[0].id}`, { token: ada.token })).status).toBe(200);

    // Without sections, the site takes root site spaces again.
    await server.request('DELETE', `${sections(org, site)}/${b.id}`, { token: ada.token });
    await server.request('DELETE', `${sections(org, site)}/${c.id}`, { token: ada.token });
    const added = await server.request('POST', `/v1/orgs/${org}/sites/${site}/site-spaces`, { token: ada.token, body: { spaceId: spaces[0].id } });
    expect(added.status).toBe(201);
    expect(added.body.section).toBeUndefined();
    const structure = await server.request('GET', `/v1/orgs/${org}/sites/${site}/structure`, { token: ada.token });
    expect(structure.body).toMatchObject({ type: 'siteSpaces', structure: [{ id: added.body.id, default: true }] });
  });
});

describe('moving sections (deprecated)', () => {
  it('moves a section before or after another, or to the end', async () => {
    const { org, site, spaces } = await setup();
    const [a, b, c] = [
      await addSection(ada, org, site, { spaceId: spaces[0].id }),
      await addSection(ada, org, site, { spaceId: spaces[1].id }),
      await addSection(ada, org, site, { spaceId: spaces[2].id }),
    ];
    const ids = async () => (await list(ada, org, site)).items.map((s: any) => s.id);
    const res = await move(ada, org, site, c.id, { position: { before: { type: 'site-section', siteSection: a.id } } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    assertMatchesSpec('moveSiteSection', 200, res.body);
    expect(res.body.id).toBe(c.id);
    expect(await ids()).toEqual([c.id, a.id, b.id]);
    expect((await move(ada, org, site, c.id, { position: { after: { type: 'site-section', siteSection: a.id } } })).status).toBe(200);
    expect(await ids()).toEqual([a.id, c.id, b.id]);
    expect((await move(ada, org, site, a.id, {})).status).toBe(200);
    expect(await ids()).toEqual([c.id, b.id, a.id]);
    // Many moves into the same gap stay ordered (positions are renumbered when fractions run out).
    for (let i = 0; i < 60; i++) {
      await move(ada, org, site, i % 2 ? a.id : b.id, { position: { after: { type: 'site-section', siteSection: c.id } } });
    }
    expect(await ids()).toEqual([c.id, a.id, b.id]);
  });

  it('answers 400 "invalid position" for a section of another site, itself, or another type', async () => {
    const { org, site, spaces } = await setup();
    const a = await addSection(ada, org, site, { spaceId: spaces[0].id });
    const b = await addSection(ada, org, site, { spaceId: spaces[1].id });
    const other = await setup();
    const foreign = await addSection(ada, other.org, other.site, { spaceId: other.spaces[0].id });
    for (const position of [
      { before: { type: 'site-section', siteSection: foreign.id } },
      { after: { type: 'site-section', siteSection: a.id } },
      { after: { type: 'site-space', siteSection: b.id } },
      { after: { type: 'site-section', siteSection: b.id }, before: { type: 'site-section', siteSection: b.id } },
      {},
    ]) {
      expectError(await move(ada, org, site, a.id, { position }), 400, /invalid position/);
    }
    expectError(await move(ada, org, site, 'nope', { position: { after: { type: 'site-section', siteSection: b.id } } }), 404);
  });
});

describe('access', () => {
  it("answers 404 for another organization's site (or a site of another organization in the path), 403 below the create role", async () => {
    const { org, site, spaces } = await setup();
    const section = await addSection(ada, org, site, { spaceId: spaces[0].id });
    const endpoints = [
      ['GET', sections(org, site), undefined],
      ['POST', sections(org, site), { spaceId: spaces[1].id }],
      ['PATCH', `${sections(org, site)}/${section.id}`, { title: 'Nope' }],
      ['DELETE', `${sections(org, site)}/${section.id}`, undefined],
      ['POST', `${sections(org, site)}/${section.id}/move`, {}],
    ] as const;
    await server.expectErrors(endpoints, bob.token, 404);
    await server.expectErrors(endpoints, undefined, 401);
    // The site exists, but not in that organization.
    const bobOrg = await server.createOrg(bob);
    expectError(await server.request('GET', sections(bobOrg, site), { token: bob.token }), 404);
    expectError(await server.request('GET', sections(org, 'nope'), { token: ada.token }), 404);

    const editor = await server.createUser('Editor');
    await server.addMember(org, editor, 'edit');
    expect((await list(editor, org, site)).count).toBe(1);
    await server.expectErrors(endpoints.slice(1), editor.token, 403);
    const creator = await server.createUser('Creator');
    await server.addMember(org, creator, 'create');
    expect((await patch(creator, org, site, section.id, { title: 'By creator' })).status).toBe(200);
    // Nothing else changed.
    expect((await list(ada, org, site)).items.map((s: any) => s.title)).toEqual(['By creator']);
  });
});

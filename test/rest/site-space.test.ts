/**
 * Site spaces over real HTTP: list (with the `default` filter), add, update,
 * delete and move; 2xx bodies validated against @gitbook/api@0.146.0's OpenAPI document.
 */
import { describe, expect, it } from 'vitest';
import { assertMatchesSpec } from '../helpers/openapi.ts';
import { expectError, useTestServer, type TestUser } from '../helpers/server.ts';

const { server, ada, bob } = useTestServer({ users: ['Ada', 'Bob'] });

const siteSpaces = (org: string, site: string) => `/v1/orgs/${org}/sites/${site}/site-spaces`;

async function add(user: TestUser, org: string, site: string, body: Record<string, unknown>) {
  const res = await server.request('POST', siteSpaces(org, site), { token: user.token, body });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  assertMatchesSpec('addSpaceToSite', 201, res.body);
  return res.body;
}

async function list(user: TestUser, org: string, site: string, query = '') {
  const res = await server.request('GET', `${siteSpaces(org, site)}${query}`, { token: user.token });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  assertMatchesSpec('listSiteSpaces', 200, res.body);
  return res.body;
}

const ids = async (org: string, site: string, query = '') => (await list(ada, org, site, query)).items.map((s: any) => s.id);

async function patch(user: TestUser, org: string, site: string, id: string, body: unknown) {
  return server.request('PATCH', `${siteSpaces(org, site)}/${id}`, { token: user.token, body });
}

async function move(user: TestUser, org: string, site: string, id: string, body: unknown) {
  return server.request('POST', `${siteSpaces(org, site)}/${id}/move`, { token: user.token, body });
}

async function addSection(org: string, site: string, spaceId: string) {
  const res = await server.request('POST', `/v1/orgs/${org}/sites/${site}/sections`, { token: ada.token, body: { spaceId } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
}

/** Ada's organization with spaces of these titles and a site without sections. */
const setup = (titles?: string[]) => server.siteWithSpaces(ada, titles);

describe('adding site spaces', () => {
  it('adds spaces at the root of a site without sections; the first is the default; paths are unique slugs', async () => {
    const { org, site, spaces } = await setup(['Getting Started!', 'Getting started', 'API']);
    const a = await add(ada, org, site, { spaceId: spaces[0].id });
    expect(a).toMatchObject({ object: 'site-space', path: 'getting-started', title: 'Getting Started!', default: true, hidden: false, hasAdvancedCustomizationFeature: false, urls: {} });
    expect(a.section).toBeUndefined();
    expect(a.space).toMatchObject({ object: 'space', id: spaces[0].id, organization: org });
    const b = await add(ada, org, site, { spaceId: spaces[1].id });
    expect(b).toMatchObject({ path: 'getting-started-2', default: false });
    const c = await add(ada, org, site, { spaceId: spaces[0].id });
    expect(c.path).toBe('getting-started-3');
    expect(await ids(org, site)).toEqual([a.id, b.id, c.id]);
    expect(await ids(org, site, '?default=true')).toEqual([a.id]);
    expect(await ids(org, site, '?default=false')).toEqual([b.id, c.id]);
    expectError(await server.request('GET', `${siteSpaces(org, site)}?default=maybe`, { token: ada.token }), 400, /default/);
  });

  it('adds to the default section, or to the section given; `default` filters on the default section', async () => {
    const { org, site, spaces } = await setup();
    const s1 = await addSection(org, site, spaces[0].id);
    const s2 = await addSection(org, site, spaces[1].id);
    const inDefault = await add(ada, org, site, { spaceId: spaces[2].id });
    expect(inDefault).toMatchObject({ section: s1.id, default: false });
    const inS2 = await add(ada, org, site, { spaceId: spaces[2].id, sectionId: s2.id });
    expect(inS2).toMatchObject({ section: s2.id, default: false, path: 'changelog' });
    expect(await ids(org, site, '?default=true')).toEqual([s1.siteSpaces[0].id]);
    expect((await list(ada, org, site, '?default=false')).count).toBe(3);
    expect((await list(ada, org, site)).count).toBe(4);

    const other = await setup();
    const foreignSection = await addSection(other.org, other.site, other.spaces[0].id);
    expectError(await server.request('POST', siteSpaces(org, site), { token: ada.token, body: { spaceId: spaces[0].id, sectionId: foreignSection.id } }), 400, /sectionId/);
  });

  it("refuses another organization's space, a space in the bin, an unknown space (400), and a missing spaceId", async () => {
    const { org, site, spaces } = await setup();
    const bobOrg = await server.createOrg(bob);
    const foreign = await server.createSpace(bob, bobOrg);
    expectError(await server.request('POST', siteSpaces(org, site), { token: ada.token, body: { spaceId: foreign.id } }), 400, /spaceId/);
    await server.addMember(bobOrg, ada, 'admin');
    expectError(await server.request('POST', siteSpaces(org, site), { token: ada.token, body: { spaceId: foreign.id } }), 400, /another organization/);
    expect((await server.request('DELETE', `/v1/spaces/${spaces[0].id}`, { token: ada.token })).status).toBe(205);
    expectError(await server.request('POST', siteSpaces(org, site), { token: ada.token, body: { spaceId: spaces[0].id } }), 400, /spaceId/);
    expectError(await server.request('POST', siteSpaces(org, site), { token: ada.token, body: { spaceId: 'nope' } }), 400, /spaceId/);
    expectError(await server.request('POST', siteSpaces(org, site), { token: ada.token, body: {} }), 400, /spaceId/);
    expectError(await server.request('POST', siteSpaces(org, site), { token: ada.token, body: '{"spaceId":' }), 400);
    expect((await list(ada, org, site)).count).toBe(0);
  });
});

describe('updating site spaces', () => {
  it('updates path, condition (unset keeps, null removes), hidden and the space', async () => {
    const { org, site, spaces } = await setup();
    const a = await add(ada, org, site, { spaceId: spaces[0].id });
    const res = await patch(ada, org, site, a.id, { path: 'start', condition: 'visitor.claims.plan == "pro"', hidden: true });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    assertMatchesSpec('updateSiteSpaceById', 200, res.body);
    expect(res.body).toMatchObject({ path: 'start', condition: 'visitor.claims.plan == "pro"', hidden: true });

    const kept = await patch(ada, org, site, a.id, { spaceId: spaces[1].id });
    expect(kept.status).toBe(200);
    assertMatchesSpec('updateSiteSpaceById', 200, kept.body);
    expect(kept.body).toMatchObject({ path: 'start', condition: 'visitor.claims.plan == "pro"', hidden: true, title: 'API', space: { id: spaces[1].id } });
    const cleared = await patch(ada, org, site, a.id, { condition: null, hidden: false });
    expect(cleared.body.condition).toBeUndefined();
    expect(cleared.body.hidden).toBe(false);
    expect((await patch(ada, org, site, a.id, {})).status).toBe(200);
  });

  it('refuses limits and bad spaces (400), a path taken in the same section (409), unknown ids (404)', async () => {
    const { org, site, spaces } = await setup();
    const a = await add(ada, org, site, { spaceId: spaces[0].id });
    const b = await add(ada, org, site, { spaceId: spaces[1].id });
    for (const [body, field] of [
      [{ path: '' }, /path/],
      [{ path: 'x'.repeat(101) }, /path/],
      [{ condition: 'x'.repeat(1025) }, /condition/],
      [{ hidden: 'yes' }, /hidden/],
      [{ spaceId: 'nope' }, /spaceId/],
    ] as const) {
      expectError(await patch(ada, org, site, a.id, body), 400, field);
    }
    const bobOrg = await server.createOrg(bob);
    expectError(await patch(ada, org, site, a.id, { spaceId: (await server.createSpace(bob, bobOrg)).id }), 400, /spaceId/);
    expect((await patch(ada, org, site, a.id, { path: 'x'.repeat(100), condition: 'x'.repeat(1024) })).status).toBe(200);
    expectError(await patch(ada, org, site, a.id, { path: b.path }), 409, /path/);
    expectError(await patch(ada, org, site, 'nope', { path: 'fine' }), 404);

    // The same path in another section is fine.
    const { org: o2, site: s2, spaces: sp2 } = await setup(['Same', 'Same']);
    const first = await addSection(o2, s2, sp2[0].id);
    const second = await addSection(o2, s2, sp2[1].id);
    expect(first.siteSpaces[0].path).toBe(second.siteSpaces[0].path);
  });
});

describe('deleting site spaces', () => {
  it('deletes (205, then 204); when the default goes, the next one becomes the default', async () => {
    const { org, site, spaces } = await setup();
    const [a, b, c] = [await add(ada, org, site, { spaceId: spaces[0].id }), await add(ada, org, site, { spaceId: spaces[1].id }), await add(ada, org, site, { spaceId: spaces[2].id })];
    await move(ada, org, site, c.id, { position: { before: { type: 'site-space', siteSpace: b.id } } });
    const del = await server.request('DELETE', `${siteSpaces(org, site)}/${a.id}`, { token: ada.token });
    expect(del.status).toBe(205);
    assertMatchesSpec('deleteSiteSpaceById', 205, del.body);
    expect((await server.request('DELETE', `${siteSpaces(org, site)}/${a.id}`, { token: ada.token })).status).toBe(204);
    expect((await server.request('DELETE', `${siteSpaces(org, site)}/nope`, { token: ada.token })).status).toBe(204);
    expect((await list(ada, org, site)).items.map((s: any) => [s.id, s.default])).toEqual([
      [c.id, true],
      [b.id, false],
    ]);
    // The space itself stays.
    expect((await server.request('GET', `/v1/spaces/${spaces[0].id}`, { token: ada.token })).status).toBe(200);
  });

  it('keeps the default of a section in step', async () => {
    const { org, site, spaces } = await setup();
    const section = await addSection(org, site, spaces[0].id);
    const variant = await add(ada, org, site, { spaceId: spaces[1].id, sectionId: section.id });
    await server.request('DELETE', `${siteSpaces(org, site)}/${section.siteSpaces[0].id}`, { token: ada.token });
    const sections = await server.request('GET', `/v1/orgs/${org}/sites/${site}/sections`, { token: ada.token });
    expect(sections.body.items[0].siteSpaces).toMatchObject([{ id: variant.id, default: true }]);
    expect((await server.app.db.siteSection.findUnique({ where: { id: section.id } }))?.defaultSiteSpaceId).toBe(variant.id);
  });
});

describe('moving site spaces', () => {
  it('moves before or after another site space of the same section, or to the end', async () => {
    const { org, site, spaces } = await setup();
    const [a, b, c] = [await add(ada, org, site, { spaceId: spaces[0].id }), await add(ada, org, site, { spaceId: spaces[1].id }), await add(ada, org, site, { spaceId: spaces[2].id })];
    const res = await move(ada, org, site, c.id, { position: { before: { type: 'site-space', siteSpace: a.id } } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    assertMatchesSpec('moveSiteSpace', 200, res.body);
    expect(res.body).toMatchObject({ id: c.id, default: false });
    expect(await ids(org, site)).toEqual([c.id, a.id, b.id]);
    expect((await move(ada, org, site, c.id, { position: { after: { type: 'site-space', siteSpace: b.id } } })).status).toBe(200);
    expect(await ids(org, site)).toEqual([a.id, b.id, c.id]);
    expect((await move(ada, org, site, a.id, {})).status).toBe(200);
    expect(await ids(org, site)).toEqual([b.id, c.id, a.id]);
  });

  it('answers 400 "invalid position" for a site space of another section or site, itself, or another type; 404 for an unknown one', async () => {
    const { org, site, spaces } = await setup();
    const s1 = await addSection(org, site, spaces[0].id);
    const s2 = await addSection(org, site, spaces[1].id);
    const mine = await add(ada, org, site, { spaceId: spaces[2].id, sectionId: s1.id });
    const other = await setup();
    const foreign = await add(ada, other.org, other.site, { spaceId: other.spaces[0].id });
    for (const position of [
      { before: { type: 'site-space', siteSpace: s2.siteSpaces[0].id } },
      { before: { type: 'site-space', siteSpace: foreign.id } },
      { after: { type: 'site-space', siteSpace: mine.id } },
      { after: { type: 'site-section', siteSpace: s1.siteSpaces[0].id } },
      {},
    ]) {
      expectError(await move(ada, org, site, mine.id, { position }), 400, /invalid position/);
    }
    expectError(await move(ada, org, site, 'nope', {}), 404);
    expectError(await move(ada, org, site, foreign.id, {}), 404);
  });
});

describe('access', () => {
  it("answers 404 for another organization's site, 401 without a token, 403 below the create role", async () => {
    const { org, site, spaces } = await setup();
    const a = await add(ada, org, site, { spaceId: spaces[0].id });
    const endpoints = [
      ['GET', siteSpaces(org, site), undefined],
      ['POST', siteSpaces(org, site), { spaceId: spaces[1].id }],
      ['PATCH', `${siteSpaces(org, site)}/${a.id}`, { path: 'x' }],
      ['DELETE', `${siteSpaces(org, site)}/${a.id}`, undefined],
      ['POST', `${siteSpaces(org, site)}/${a.id}/move`, {}],
    ] as const;
    await server.expectErrors(endpoints, bob.token, 404);
    await server.expectErrors(endpoints, undefined, 401);
    const bobOrg = await server.createOrg(bob);
    expectError(await server.request('GET', siteSpaces(bobOrg, site), { token: bob.token }), 404);

    const reader = await server.createUser('Reader');
    await server.addMember(org, reader, 'read');
    expect((await list(reader, org, site)).count).toBe(1);
    await server.expectErrors(endpoints.slice(1), reader.token, 403);
    expect(await ids(org, site)).toEqual([a.id]);
  });
});

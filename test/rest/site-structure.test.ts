/**
 * A site's structure (GET .../structure, PATCH .../structure/sort), section
 * groups (GraphQL), the published profile (GET .../published) and share keys
 * on the structure reads and on GET /v1/spaces/{spaceId}.
 */
import { GitBookAPI, GitBookAPIError } from '@gitbook/api';
import { describe, expect, it } from 'vitest';
import { restRoutes } from '../../src/rest/generated/routes.ts';
import { assertMatchesComponent, assertMatchesSpec } from '../helpers/openapi.ts';
import { expectError, shareKeyIn, useTestServer, type TestUser } from '../helpers/server.ts';

const { server, ada, bob } = useTestServer({ users: ['Ada', 'Bob'] });

const base = (org: string, site: string) => `/v1/orgs/${org}/sites/${site}`;

async function graphql(user: TestUser, query: string, variables: Record<string, unknown> = {}) {
  const res = await server.request('POST', '/graphql', { token: user.token, body: { query, variables } });
  // Errors with a status (400, 403, 404) set the HTTP status of a GraphQL response too.
  if (!res.body.errors) expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body as { data?: any; errors?: Array<{ message: string; extensions?: any }> };
}

async function structure(user: TestUser, org: string, site: string, query = '') {
  const res = await server.request('GET', `${base(org, site)}/structure${query}`, { token: user.token });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  assertMatchesSpec('getSiteStructure', 200, res.body);
  return res.body;
}

async function addSection(user: TestUser, org: string, site: string, body: Record<string, unknown>) {
  const res = await server.request('POST', `${base(org, site)}/sections`, { token: user.token, body });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  assertMatchesSpec('addSectionToSite', 201, res.body);
  return res.body;
}

async function addSiteSpace(user: TestUser, org: string, site: string, body: Record<string, unknown>) {
  const res = await server.request('POST', `${base(org, site)}/site-spaces`, { token: user.token, body });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  assertMatchesSpec('addSpaceToSite', 201, res.body);
  return res.body;
}

async function sort(user: TestUser, org: string, site: string, body: unknown) {
  return server.request('PATCH', `${base(org, site)}/structure/sort`, { token: user.token, body });
}

const createGroup = `mutation($org: ID!, $site: ID!, $input: CreateSiteSectionGroupInput!) {
  createSiteSectionGroup(organizationId: $org, siteId: $site, input: $input) { id title sectionGroup }
}`;
const putInGroup = `mutation($org: ID!, $site: ID!, $id: ID!, $group: String) {
  updateSiteSection(organizationId: $org, siteId: $site, siteSectionId: $id, input: { sectionGroup: $group }) { id sectionGroup }
}`;

/** Ids of a structure, depth first: `id` for sections / site spaces, `[id, ...children]` for groups. */
function shape(items: any[]): unknown[] {
  return items.map((item) => (item.object === 'site-section-group' ? [item.id, ...shape(item.children)] : item.id));
}

describe('structure', () => {
  it('is the root site spaces of a site without sections, in their order', async () => {
    const org = await server.createOrg(ada);
    const a = await server.createSpace(ada, org, { title: 'Alpha' });
    const b = await server.createSpace(ada, org, { title: 'Beta' });
    const site = await server.createSite(ada, org, { spaces: [a.id] });
    const sb = await addSiteSpace(ada, org, site.id, { spaceId: b.id });
    const body = await structure(ada, org, site.id);
    expect(body.type).toBe('siteSpaces');
    expect(body.structure.map((s: any) => [s.object, s.space.id, s.default])).toEqual([
      ['site-space', a.id, true],
      ['site-space', b.id, false],
    ]);
    expect(body.structure[1]).toMatchObject({ id: sb.id, path: 'beta', title: 'Beta', urls: {} });
  });

  it('is sections and section groups, nested, in their order', async () => {
    const org = await server.createOrg(ada);
    const spaces = [];
    for (const title of ['One', 'Two', 'Three', 'Four']) spaces.push(await server.createSpace(ada, org, { title }));
    const site = await server.createSite(ada, org);
    const sections = [];
    for (const space of spaces) sections.push(await addSection(ada, org, site.id, { spaceId: space.id }));
    const [s1, s2, s3, s4] = sections.map((s) => s.id);

    const group = (await graphql(ada, createGroup, { org, site: site.id, input: { title: 'Guides', icon: 'book' } })).data.createSiteSectionGroup;
    const sub = (await graphql(ada, createGroup, { org, site: site.id, input: { title: 'Advanced', sectionGroup: group.id } })).data
      .createSiteSectionGroup;
    expect(sub.sectionGroup).toBe(group.id);
    expect((await graphql(ada, putInGroup, { org, site: site.id, id: s2, group: group.id })).data.updateSiteSection.sectionGroup).toBe(group.id);
    await graphql(ada, putInGroup, { org, site: site.id, id: s3, group: sub.id });

    const body = await structure(ada, org, site.id);
    expect(body.type).toBe('sections');
    // The sub-group was created before s2 went into the group: it comes first there.
    expect(shape(body.structure)).toEqual([s1, s4, [group.id, [sub.id, s3], s2]]);
    const g = body.structure[2];
    expect(g).toMatchObject({ object: 'site-section-group', title: 'Guides', icon: 'book' });
    expect(g.sectionGroup).toBeUndefined();
    expect(g.sections.map((s: any) => s.id)).toEqual([s2]);
    expect(g.children[0]).toMatchObject({ object: 'site-section-group', sectionGroup: group.id, sections: [{ id: s3, sectionGroup: sub.id }] });
    expect(body.structure[0]).toMatchObject({ id: s1, default: true, siteSpaces: [{ space: { id: spaces[0].id }, default: true }] });
    // No drafts in this service: every section, group and site space is live once created.
    expect([body.structure[0].draft, body.structure[0].siteSpaces[0].draft, g.draft, g.children[0].draft, g.children[0].sections[0].draft]).toEqual([false, false, false, false, false]);
  });
});

describe('the structure documents', () => {
  it('answer the same sections, site spaces and spaces as the lists and GET /v1/spaces/{spaceId}', async () => {
    const { org, site, sections: [s1, , , s4], group } = await sectionedSite();
    await server.publishSite(ada, org, site);
    const listed = (await server.request('GET', `${base(org, site)}/sections`, { token: ada.token })).body.items;
    const byId = new Map(listed.map((s: any) => [s.id, s]));
    const tree = await structure(ada, org, site);
    expect(tree.structure[0]).toEqual(byId.get(s1));
    const g = tree.structure.find((i: any) => i.id === group);
    expect(g.children[0]).toEqual(byId.get(s4));
    expect(g.sections[0]).toEqual(byId.get(s4));
    const space = (await server.request('GET', `/v1/spaces/${tree.structure[0].siteSpaces[0].space.id}`, { token: ada.token })).body;
    expect(tree.structure[0].siteSpaces[0].space).toEqual(space);
    const siteSpaces = (await server.request('GET', `${base(org, site)}/site-spaces`, { token: ada.token })).body.items;
    expect(siteSpaces.find((x: any) => x.id === tree.structure[0].siteSpaces[0].id)).toEqual(tree.structure[0].siteSpaces[0]);

    const profile = await published(ada, org, site);
    expect(profile.structure.structure[0]).toEqual(byId.get(s1));
    expect(profile.structure.structure.find((i: any) => i.id === group)).toEqual(g);
    const sorted = await sort(ada, org, site, { item: { type: 'site-section', id: s1 } });
    expect(sorted.body).toEqual(byId.get(s1));
    const sortedGroup = await sort(ada, org, site, { item: { type: 'site-section-group', id: group } });
    expect(sortedGroup.body).toEqual(g);
  });
  // Written with fragments, the tree documents cost far more than graphql-armor allows a client
  // document (src/server.ts). Ours are validated once at startup and skip the per-request
  // validation armor runs in (docs/decisions.md, "REST adapter"); a client sending them is refused.
  it('are refused by graphql-armor when a client sends them to /graphql, and served by their REST routes', async () => {
    const { org, site } = await sectionedSite();
    for (const [operation, path] of [
      ['GetSiteStructure', 'structure'],
      ['GetPublishedContentSite', 'published'],
    ]) {
      const { document } = restRoutes.find((r) => r.operationName === operation)!;
      const res = await server.request('POST', '/graphql', {
        token: ada.token,
        body: { query: document, variables: { organizationId: org, siteId: site } },
        headers: { accept: 'application/graphql-response+json' },
      });
      expect(res.status, operation).toBe(400);
      expect(res.body.data).toBeUndefined();
      const messages = res.body.errors.map((e: any) => e.message);
      expect(messages).toContainEqual(expect.stringMatching(/^Query Cost limit of 20000 exceeded, found [\d.]+\.$/));
      expect(messages).toContainEqual(expect.stringMatching(/^Query depth limit of 12 exceeded, found \d+\.$/));
      const rest = await server.request('GET', `${base(org, site)}/${path}`, { token: ada.token });
      expect(rest.status, operation).toBe(200);
    }
  });
});

/** An organization with a site of three sections (one site space each) and a top-level group holding a fourth. */
async function sectionedSite(user: TestUser = ada) {
  const org = await server.createOrg(user);
  const spaces = [];
  for (const title of ['One', 'Two', 'Three', 'Four']) spaces.push(await server.createSpace(user, org, { title }));
  const site = await server.createSite(user, org);
  const sections = [];
  for (const space of spaces) sections.push((await addSection(user, org, site.id, { spaceId: space.id })).id);
  const group = (await graphql(user, createGroup, { org, site: site.id, input: { title: 'Group' } })).data.createSiteSectionGroup.id;
  await graphql(user, putInGroup, { org, site: site.id, id: sections[3], group });
  return { org, site: site.id, spaces, sections, group };
}

describe('sortSiteStructure', () => {
  it('moves sections and groups among the top-level items, and answers with the moved item', async () => {
    const { org, site, sections: [s1, s2, s3, s4], group } = await sectionedSite();
    const moved = await sort(ada, org, site, { item: { type: 'site-section', id: s3 }, position: { before: { type: 'site-section', id: s1 } } });
    expect(moved.status, JSON.stringify(moved.body)).toBe(200);
    assertMatchesSpec('sortSiteStructure', 200, moved.body);
    expect(moved.body).toMatchObject({ object: 'site-section', id: s3 });
    expect(shape((await structure(ada, org, site)).structure)).toEqual([s3, s1, s2, [group, s4]]);

    const g = await sort(ada, org, site, { item: { type: 'site-section-group', id: group }, position: { after: { type: 'site-section', id: s3 } } });
    expect(g.status, JSON.stringify(g.body)).toBe(200);
    assertMatchesSpec('sortSiteStructure', 200, g.body);
    expect(g.body).toMatchObject({ object: 'site-section-group', id: group, children: [{ id: s4 }], sections: [{ id: s4 }] });
    expect(shape((await structure(ada, org, site)).structure)).toEqual([s3, [group, s4], s1, s2]);

    // Without a position: to the end of its parent.
    const end = await sort(ada, org, site, { item: { type: 'site-section', id: s3 } });
    expect(end.status).toBe(200);
    expect(shape((await structure(ada, org, site)).structure)).toEqual([[group, s4], s1, s2, s3]);
  });

  it('moves a site space among the site spaces of its section', async () => {
    const { org, site, spaces, sections: [s1] } = await sectionedSite();
    const a = await addSiteSpace(ada, org, site, { spaceId: spaces[1].id, sectionId: s1 });
    const b = await addSiteSpace(ada, org, site, { spaceId: spaces[2].id, sectionId: s1 });
    const first = (await structure(ada, org, site)).structure[0].siteSpaces[0].id;
    const res = await sort(ada, org, site, { item: { type: 'site-space', id: b.id }, position: { before: { type: 'site-space', id: first } } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    assertMatchesSpec('sortSiteStructure', 200, res.body);
    expect(res.body).toMatchObject({ object: 'site-space', id: b.id, section: s1 });
    expect((await structure(ada, org, site)).structure[0].siteSpaces.map((s: any) => s.id)).toEqual([b.id, first, a.id]);
  });

  it('answers 400 "invalid position" for an item of another parent or site, a mismatched type, or itself; 404 for an unknown item', async () => {
    const { org, site, sections: [s1, s2, s3, s4], group } = await sectionedSite();
    const other = await sectionedSite();
    const inS2 = (await structure(ada, org, site)).structure[1].siteSpaces[0].id;
    const inS1 = (await structure(ada, org, site)).structure[0].siteSpaces[0].id;
    for (const body of [
      { item: { type: 'site-section', id: s1 }, position: { before: { type: 'site-section', id: s4 } } }, // s4 is in the group
      { item: { type: 'site-section', id: s1 }, position: { before: { type: 'site-section', id: other.sections[0] } } }, // another site
      { item: { type: 'site-section', id: s1 }, position: { after: { type: 'site-space', id: inS1 } } }, // mismatched type
      { item: { type: 'site-space', id: inS1 }, position: { after: { type: 'site-section', id: s2 } } },
      { item: { type: 'site-space', id: inS1 }, position: { after: { type: 'site-space', id: inS2 } } }, // another section
      { item: { type: 'site-section', id: s1 }, position: { after: { type: 'site-section', id: s1 } } }, // itself
      { item: { type: 'site-section-group', id: group }, position: { after: { type: 'site-section-group', id: group } } },
      { item: { type: 'site-section', id: s1 }, position: { after: { type: 'site-section', id: s2 }, before: { type: 'site-section', id: s2 } } },
      { item: { type: 'site-section', id: s1 }, position: {} },
    ]) {
      expectError(await sort(ada, org, site, body), 400, /invalid position/);
    }
    expectError(await sort(ada, org, site, { item: { type: 'site-thing', id: s1 }, position: { after: { type: 'site-section', id: s2 } } }), 400, /item\.type/);
    expectError(await sort(ada, org, site, { item: { type: 'site-section', id: 'nope' }, position: { after: { type: 'site-section', id: s2 } } }), 404);
    expectError(await sort(ada, org, site, { item: { type: 'site-section', id: other.sections[0] } }), 404);
    expectError(await sort(ada, org, site, { position: { after: { type: 'site-section', id: s2 } } }), 400, /item/);
    // Nothing moved.
    expect(shape((await structure(ada, org, site)).structure)).toEqual([s1, s2, s3, [group, s4]]);
  });

  it('needs the create role; a non-member gets 404', async () => {
    const { org, site, sections: [s1, s2] } = await sectionedSite();
    const editor = await server.createUser('Editor');
    await server.addMember(org, editor, 'edit');
    const body = { item: { type: 'site-section', id: s2 }, position: { before: { type: 'site-section', id: s1 } } };
    expectError(await sort(editor, org, site, body), 403);
    expectError(await sort(bob, org, site, body), 404);
    expectError(await server.request('GET', `${base(org, site)}/structure`, { token: bob.token }), 404);
    // The editor may read it.
    await structure(editor, org, site);
  });
});

describe('section groups (GraphQL)', () => {
  it('are created, renamed, nested two deep at most, and deleted (their items take their place)', async () => {
    const { org, site, sections: [s1, s2, s3, s4], group } = await sectionedSite();
    const update = `mutation($org: ID!, $site: ID!, $id: ID!, $input: UpdateSiteSectionGroupInput!) {
      updateSiteSectionGroup(organizationId: $org, siteId: $site, siteSectionGroupId: $id, input: $input) { id title icon sectionGroup }
    }`;
    const renamed = await graphql(ada, update, { org, site, id: group, input: { title: 'Renamed', icon: 'star' } });
    expect(renamed.data.updateSiteSectionGroup).toEqual({ id: group, title: 'Renamed', icon: 'star', sectionGroup: null });

    const inner = (await graphql(ada, createGroup, { org, site, input: { title: 'Inner', sectionGroup: group } })).data.createSiteSectionGroup.id;
    await graphql(ada, putInGroup, { org, site, id: s2, group: inner });
    const tooDeep = await graphql(ada, createGroup, { org, site, input: { title: 'Deeper', sectionGroup: inner } });
    expect(tooDeep.errors?.[0]?.message).toMatch(/nest 2 deep at most/);
    // A group holding a group cannot go into another group.
    const outer = (await graphql(ada, createGroup, { org, site, input: { title: 'Outer' } })).data.createSiteSectionGroup.id;
    expect((await graphql(ada, update, { org, site, id: group, input: { sectionGroup: outer } })).errors?.[0]?.message).toMatch(/nest 2 deep/);
    expect((await graphql(ada, update, { org, site, id: outer, input: { sectionGroup: outer } })).errors?.[0]?.message).toMatch(/itself/);
    expect(shape((await structure(ada, org, site)).structure)).toEqual([s1, s3, [group, s4, [inner, s2]], [outer]]);

    const del = `mutation($org: ID!, $site: ID!, $id: ID!) { deleteSiteSectionGroup(organizationId: $org, siteId: $site, siteSectionGroupId: $id) }`;
    expect((await graphql(ada, del, { org, site, id: group })).data.deleteSiteSectionGroup).toBe(true);
    expect(shape((await structure(ada, org, site)).structure)).toEqual([s1, s3, s4, [inner, s2], [outer]]);
    expect((await graphql(ada, del, { org, site, id: group })).data.deleteSiteSectionGroup).toBe(false);

    // Back to the top level.
    await graphql(ada, putInGroup, { org, site, id: s2, group: null });
    expect(shape((await structure(ada, org, site)).structure)).toEqual([s1, s3, s4, [inner], [outer], s2]);
  });

  it('need sections, a group of the same site, and the create role', async () => {
    const org = await server.createOrg(ada);
    const space = await server.createSpace(ada, org);
    const site = await server.createSite(ada, org, { spaces: [space.id] });
    expect((await graphql(ada, createGroup, { org, site: site.id, input: { title: 'G' } })).errors?.[0]?.message).toMatch(/add a section first/);
    const other = await sectionedSite();
    const { org: o, site: s, sections } = await sectionedSite();
    expect((await graphql(ada, putInGroup, { org: o, site: s, id: sections[0], group: other.group })).errors?.[0]?.message).toMatch(/sectionGroup/);
    const reader = await server.createUser('Reader');
    await server.addMember(o, reader, 'read');
    const denied = await graphql(reader, createGroup, { org: o, site: s, input: { title: 'G' } });
    expect(denied.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
    const hidden = await graphql(bob, createGroup, { org: o, site: s, input: { title: 'G' } });
    expect(hidden.errors?.[0]?.extensions?.code).toBe('NOT_FOUND');
    expect((await graphql(ada, createGroup, { org: o, site: s, input: { title: '' } })).errors?.[0]?.message).toMatch(/title/);
  });
});

async function published(user: TestUser, org: string, site: string, query = '') {
  const res = await server.request('GET', `${base(org, site)}/published${query}`, { token: user.token });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  assertMatchesSpec('getPublishedContentSite', 200, res.body);
  return res.body;
}

describe('published profile', () => {
  it('holds what a visitor sees: no hidden site spaces, none in the bin, no section or group left empty', async () => {
    const org = await server.createOrg(ada);
    const [a, b, c, d] = await Promise.all(['A', 'B', 'C', 'D'].map((title) => server.createSpace(ada, org, { title })));
    const site = (await server.createSite(ada, org)).id;
    const s1 = (await addSection(ada, org, site, { spaceId: a!.id })).id;
    const sb = await addSiteSpace(ada, org, site, { spaceId: b!.id, sectionId: s1 });
    const s2 = (await addSection(ada, org, site, { spaceId: c!.id })).id;
    const s3 = (await addSection(ada, org, site, { spaceId: d!.id })).id;
    const g1 = (await graphql(ada, createGroup, { org, site, input: { title: 'Kept' } })).data.createSiteSectionGroup.id;
    const g2 = (await graphql(ada, createGroup, { org, site, input: { title: 'Emptied' } })).data.createSiteSectionGroup.id;
    await graphql(ada, putInGroup, { org, site, id: s3, group: g1 });
    await graphql(ada, putInGroup, { org, site, id: s2, group: g2 });
    const hide = await server.request('PATCH', `${base(org, site)}/site-spaces/${sb.id}`, { token: ada.token, body: { hidden: true } });
    expect(hide.status).toBe(200);
    expect((await server.request('DELETE', `/v1/spaces/${c!.id}`, { token: ada.token })).status).toBe(205);

    // Members preview it before it is published; nobody else sees it.
    const preview = await published(ada, org, site);
    expect(preview).toMatchObject({ object: 'published-content-site', site: { id: site, published: false }, scripts: [] });
    expectError(await server.request('GET', `${base(org, site)}/published`, { token: bob.token }), 404);

    await server.publishSite(ada, org, site);
    const body = await published(ada, org, site);
    expect(body.site).toMatchObject({ id: site, published: true });
    expect(body.structure.type).toBe('sections');
    expect(shape(body.structure.structure)).toEqual([s1, [g1, s3]]);
    expect(body.structure.structure[0].siteSpaces.map((s: any) => s.space.id)).toEqual([a!.id]);
    expect(body.structure.structure[1].sections.map((s: any) => s.id)).toEqual([s3]);
    const visible = [body.structure.structure[0].siteSpaces[0].id, body.structure.structure[1].children[0].siteSpaces[0].id];
    expect(Object.keys(body.customizations.siteSpaces).sort()).toEqual([...visible].sort());
    expect(body.customizations.site.styling).toBeDefined();
    expect(body.structure.structure[0].urls.published).toMatch(new RegExp(`/sites/${org}/.+/${body.structure.structure[0].path}$`));

    // The editor's structure still has everything.
    expect(shape((await structure(ada, org, site)).structure)).toEqual([s1, [g1, s3], [g2, s2]]);
  });

  it('of a site without sections lists its visible root site spaces, with their customizations over the site', async () => {
    const org = await server.createOrg(ada);
    const [a, b] = await Promise.all(['A', 'B'].map((title) => server.createSpace(ada, org, { title })));
    const site = await server.createSite(ada, org, { spaces: [a!.id, b!.id] });
    await server.publishSite(ada, org, site.id);
    const before = await published(ada, org, site.id);
    expect(before.structure.type).toBe('siteSpaces');
    const [sa, sb] = before.structure.structure;
    await server.app.db.siteSpace.update({ where: { id: sa.id }, data: { customizations: { title: 'Variant A' } } });
    await server.request('PATCH', `${base(org, site.id)}/site-spaces/${sb.id}`, { token: ada.token, body: { hidden: true } });
    const body = await published(ada, org, site.id);
    expect(body.structure.structure.map((s: any) => s.id)).toEqual([sa.id]);
    expect(body.customizations.siteSpaces[sa.id].title).toBe('Variant A');
    expect(body.customizations.siteSpaces[sa.id].styling).toEqual(body.customizations.site.styling);
    expect(body.customizations.siteSpaces[sa.id].hasOverrides).toBe(true);
    expect(body.customizations.siteSpaces[sb.id]).toBeUndefined();
  });
});

describe('site space customizations', () => {
  const sitePath = (org: string, site: string, rest = '') => `${base(org, site)}${rest}`;
  const UPDATE = `mutation($org: ID!, $site: ID!, $id: ID!, $input: UpdateSiteSpaceInput!) {
    updateSiteSpace(organizationId: $org, siteId: $site, siteSpaceId: $id, input: $input) { id path customizations }
  }`;

  /** A published site of two root site spaces. */
  async function twoSpaceSite() {
    const org = await server.createOrg(ada);
    const [a, b] = await Promise.all(['A', 'B'].map((title) => server.createSpace(ada, org, { title })));
    const site = (await server.createSite(ada, org, { spaces: [a!.id, b!.id] })).id;
    await server.publishSite(ada, org, site);
    const [sa, sb] = (await published(ada, org, site)).structure.structure.map((s: any) => s.id as string);
    return { org, site, sa: sa!, sb: sb! };
  }

  async function patchSiteSpace(user: TestUser, org: string, site: string, id: string, body: unknown) {
    return server.request('PATCH', sitePath(org, site, `/site-spaces/${id}`), { token: user.token, body });
  }

  /** The published profile, its customizations checked against 0.202.0's too (socialAccounts, codeTheme and pageActions.items are its members). */
  async function publishedNext(org: string, site: string) {
    const body = await published(ada, org, site);
    assertMatchesComponent('PublishedContentSite/properties/customizations', body.customizations, 'next');
    for (const settings of Object.values(body.customizations.siteSpaces)) assertMatchesComponent('SiteSpaceCustomizationSettings', settings, 'next');
    return body;
  }

  it('overrides the site per site space through PATCH, and hasOverrides says which site spaces have overrides', async () => {
    const { org, site, sa, sb } = await twoSpaceSite();
    const before = await publishedNext(org, site);
    expect(before.customizations.siteSpaces[sa].hasOverrides).toBe(false);
    expect(before.customizations.site.socialAccounts).toEqual([]);
    expect(before.customizations.siteSpaces[sa].styling.codeTheme).toEqual({
      default: { light: 'default-light', dark: 'default-dark' },
      openapi: { light: 'default-light', dark: 'default-dark' },
    });

    expect((await server.request('PATCH', sitePath(org, site), { token: ada.token, body: { customizations: { styling: { theme: 'bold' }, socialAccounts: [{ platform: 'github', handle: 'site' }] } } })).status).toBe(200);
    const res = await patchSiteSpace(ada, org, site, sa, {
      customizations: { title: 'Variant A', styling: { codeTheme: { default: { light: 'github-light' } } }, socialAccounts: [{ platform: 'discord', handle: 'variant', display: { header: true } }] },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    assertMatchesSpec('updateSiteSpaceById', 200, res.body);
    expect((await server.app.db.siteSpace.findUniqueOrThrow({ where: { id: sa } })).customizations).toEqual({
      title: 'Variant A',
      styling: { codeTheme: { default: { light: 'github-light' } } },
      socialAccounts: [{ platform: 'discord', handle: 'variant', display: { header: true } }],
    });

    const body = await publishedNext(org, site);
    const [a, b] = [body.customizations.siteSpaces[sa], body.customizations.siteSpaces[sb]];
    expect(a).toMatchObject({
      hasOverrides: true,
      title: 'Variant A',
      styling: { theme: 'bold', codeTheme: { default: { light: 'github-light', dark: 'default-dark' } } },
      socialAccounts: [{ platform: 'discord', handle: 'variant', display: { footer: true, header: true } }],
    });
    expect(b).toMatchObject({ hasOverrides: false, styling: { theme: 'bold' }, socialAccounts: [{ platform: 'github', handle: 'site', display: { footer: true, header: false } }] });
    const { hasOverrides: _b, ...siteSettings } = b;
    expect(siteSettings).toEqual(body.customizations.site);

    // GraphQL answers the same, with the overrides merged member by member.
    const gql = await graphql(ada, UPDATE, { org, site, id: sa, input: { customizations: { styling: { codeTheme: { default: { dark: 'dracula' } } }, hasOverrides: false } } });
    expect(gql.errors).toBeUndefined();
    expect(gql.data.updateSiteSpace.customizations).toMatchObject({ hasOverrides: true, title: 'Variant A', styling: { codeTheme: { default: { light: 'github-light', dark: 'dracula' } } } });

    // Overrides emptied member by member, or all at once with null: no overrides left.
    const emptied = await patchSiteSpace(ada, org, site, sa, { customizations: { title: null, styling: { codeTheme: null }, socialAccounts: null } });
    expect(emptied.status, JSON.stringify(emptied.body)).toBe(200);
    expect((await publishedNext(org, site)).customizations.siteSpaces[sa]).toEqual({ ...body.customizations.site, hasOverrides: false });
    expect((await patchSiteSpace(ada, org, site, sa, { customizations: { favicon: {} } })).status).toBe(200);
    expect((await publishedNext(org, site)).customizations.siteSpaces[sa].hasOverrides).toBe(true);
    expect((await patchSiteSpace(ada, org, site, sa, { customizations: null })).status).toBe(200);
    expect((await server.app.db.siteSpace.findUniqueOrThrow({ where: { id: sa } })).customizations).toEqual({});
    expect((await publishedNext(org, site)).customizations.siteSpaces[sa].hasOverrides).toBe(false);
  });

  it("applies a site space's page action flags to the site's list", async () => {
    const { org, site, sa, sb } = await twoSpaceSite();
    expect((await server.request('PATCH', sitePath(org, site), { token: ada.token, body: { customizations: { pageActions: { items: ['pdf', 'markdown'] } } } })).status).toBe(200);
    expect((await patchSiteSpace(ada, org, site, sa, { customizations: { pageActions: { markdown: false, mcp: true } } })).status).toBe(200);
    const body = await publishedNext(org, site);
    expect(body.customizations.siteSpaces[sa].pageActions).toEqual({ externalAI: false, markdown: false, mcp: true, items: ['pdf', 'mcp'] });
    expect(body.customizations.siteSpaces[sb].pageActions).toEqual({ externalAI: false, markdown: true, mcp: false, items: ['pdf', 'markdown'] });
  });

  it('refuses invalid overrides with 400 naming the path, and writes nothing', async () => {
    const { org, site, sa } = await twoSpaceSite();
    const before = { title: 'Kept' };
    expect((await patchSiteSpace(ada, org, site, sa, { customizations: before })).status).toBe(200);
    const { path } = await server.app.db.siteSpace.findUniqueOrThrow({ where: { id: sa } });
    const bad: Array<[unknown, RegExp]> = [
      [{ styling: { codeTheme: { openapi: { dark: 'neon' } } } }, /customizations\.styling\.codeTheme\.openapi\.dark must be one of/],
      [{ socialAccounts: [{ platform: 'myspace', handle: 'tom' }] }, /customizations\.socialAccounts\[0\]\.platform must be one of/],
      [{ pageActions: { items: ['print'] } }, /customizations\.pageActions\.items\[0\] must be one of/],
      [{ styling: { theme: 'neon' } }, /customizations\.styling\.theme must be one of/],
      ['not an object', /customizations: must be an object or null/],
    ];
    for (const [customizations, message] of bad) {
      // With another member in the same body: nothing of it is written either.
      expectError(await patchSiteSpace(ada, org, site, sa, { path: 'moved', customizations }), 400, message);
      const res = await graphql(ada, UPDATE, { org, site, id: sa, input: { customizations } });
      expect(res.errors?.[0]?.message).toMatch(message);
    }
    expect(await server.app.db.siteSpace.findUniqueOrThrow({ where: { id: sa } })).toMatchObject({ path, customizations: before });
  });

  it("needs admin (site:configure), as the site's customizations do", async () => {
    const { org, site, sa } = await twoSpaceSite();
    const creator = await server.createUser('Creator');
    await server.addMember(org, creator, 'create');
    expectError(await patchSiteSpace(creator, org, site, sa, { customizations: { title: 'Nope' } }), 403);
    expect((await patchSiteSpace(creator, org, site, sa, { hidden: false })).status).toBe(200);
    expectError(await patchSiteSpace(bob, org, site, sa, { customizations: { title: 'Nope' } }), 404);
    expect((await server.app.db.siteSpace.findUniqueOrThrow({ where: { id: sa } })).customizations).toEqual({});
  });

  it('keeps every member of concurrent partial overrides', async () => {
    const { org, site, sa } = await twoSpaceSite();
    const patches = [{ title: 'Variant' }, { feedback: { enabled: true } }, { ai: { mode: 'assistant' } }, { styling: { corners: 'straight' } }, { socialAccounts: [{ platform: 'github', handle: 'x' }] }];
    const results = await Promise.all(patches.map((customizations) => patchSiteSpace(ada, org, site, sa, { customizations })));
    expect(results.map((r) => r.status)).toEqual(patches.map(() => 200));
    expect((await server.app.db.siteSpace.findUniqueOrThrow({ where: { id: sa } })).customizations).toEqual(Object.assign({}, ...patches));
  });
});

/** A published share-link site with two site spaces, and the key of one of its share links. */
async function sharedSite() {
  const org = await server.createOrg(ada);
  const onSite = await server.createSpace(ada, org, { title: 'Shared' });
  const second = await server.createSpace(ada, org, { title: 'Second' });
  const offSite = await server.createSpace(ada, org, { title: 'Private' });
  const site = (await server.createSite(ada, org, { visibility: 'share-link', spaces: [onSite.id, second.id] })).id;
  await server.publishSite(ada, org, site);
  const link = await server.request('POST', `${base(org, site)}/share-links`, { token: ada.token, body: { name: 'Partners' } });
  expect(link.status, JSON.stringify(link.body)).toBe(201);
  const key = shareKeyIn(link.body.urls.published, server.app.config.sitesUrl);
  expect(key).toBeTruthy();
  return { org, site, onSite, offSite, key, linkId: link.body.id as string };
}

const spaceQuery = `query($id: ID!, $key: String) { space(id: $id, shareKey: $key) { id urls { published } permissions { view edit } siteSpacesCount siteSpaces { id } } }`;

describe('share keys', () => {
  it("let a non-member read the structure, sections, site spaces and published profile of the key's site, with the key in published URLs", async () => {
    const { org, site, key } = await sharedSite();
    const q = `?shareKey=${encodeURIComponent(key)}`;
    const body = await structure(bob, org, site, q);
    expect(body.structure).toHaveLength(2);
    for (const item of body.structure) expect(shareKeyIn(item.urls.published, server.app.config.sitesUrl)).toBe(key);
    // The spaces on the site are readable, read-only.
    expect(body.structure[0].space.permissions).toMatchObject({ view: true, access: true, edit: false, admin: false });

    const spaces = await server.request('GET', `${base(org, site)}/site-spaces${q}`, { token: bob.token });
    expect(spaces.status).toBe(200);
    assertMatchesSpec('listSiteSpaces', 200, spaces.body);
    expect(spaces.body.count).toBe(2);
    const sections = await server.request('GET', `${base(org, site)}/sections${q}`, { token: bob.token });
    expect(sections.status).toBe(200);
    assertMatchesSpec('listSiteSections', 200, sections.body);
    const profile = await published(bob, org, site, q);
    expect(shareKeyIn(profile.structure.structure[0].urls.published, server.app.config.sitesUrl)).toBe(key);
    // The key's visitor reads the site, nothing more (not its adaptive schema: that read takes no key).
    expect(profile.site.permissions).toEqual({ view: true, access: true, edit: false, create: false, admin: false, installIntegration: false, viewAdaptiveSchema: false, editAdaptiveSchema: false });

    // A member passing the key gets it in the URLs too; without it, plain URLs.
    const member = await structure(ada, org, site, q);
    expect(shareKeyIn(member.structure[0].urls.published, server.app.config.sitesUrl)).toBe(key);
    expect((await structure(ada, org, site)).structure[0].urls.published).not.toContain(key);
  });

  it('are refused (404) when missing, wrong, of another site, deactivated, or when the site is unpublished; and never allow writes', async () => {
    const { org, site, key, linkId } = await sharedSite();
    const other = await sharedSite();
    const paths = ['structure', 'sections', 'site-spaces', 'published'];
    for (const path of paths) {
      for (const q of ['', '?shareKey=wrong', `?shareKey=${encodeURIComponent(other.key)}`]) {
        expectError(await server.request('GET', `${base(org, site)}/${path}${q}`, { token: bob.token }), 404);
      }
    }
    const q = `?shareKey=${encodeURIComponent(key)}`;
    const space = await server.createSpace(bob, await server.createOrg(bob));
    expectError(await server.request('POST', `${base(org, site)}/sections${q}`, { token: bob.token, body: { spaceId: space.id } }), 404);
    expectError(await server.request('POST', `${base(org, site)}/site-spaces${q}`, { token: bob.token, body: { spaceId: space.id } }), 404);
    expectError(await sort(bob, org, site, { item: { type: 'site-section', id: 'x' } }), 404);
    // Unauthenticated: 401 even with the key.
    expectError(await server.request('GET', `${base(org, site)}/structure${q}`), 401);

    const off = await server.request('PATCH', `${base(org, site)}/share-links/${linkId}`, { token: ada.token, body: { active: false } });
    expect(off.status, JSON.stringify(off.body)).toBe(200);
    expectError(await server.request('GET', `${base(org, site)}/structure${q}`, { token: bob.token }), 404);
    await server.request('PATCH', `${base(org, site)}/share-links/${linkId}`, { token: ada.token, body: { active: true } });
    await structure(bob, org, site, q);
    expect((await server.request('POST', `${base(org, site)}/unpublish`, { token: ada.token })).status).toBe(200);
    expectError(await server.request('GET', `${base(org, site)}/structure${q}`, { token: bob.token }), 404);
  });

  it('open GET /v1/spaces/{spaceId} for the spaces on the site only, read-only, with the key in urls.published', async () => {
    const { org, site, onSite, offSite, key } = await sharedSite();
    const q = `?shareKey=${encodeURIComponent(key)}`;
    const got = await server.request('GET', `/v1/spaces/${onSite.id}${q}`, { token: bob.token });
    expect(got.status, JSON.stringify(got.body)).toBe(200);
    assertMatchesSpec('getSpaceById', 200, got.body);
    expect(got.body.permissions).toMatchObject({ view: true, edit: false, admin: false, comment: false });
    expectError(await server.request('GET', `/v1/spaces/${onSite.id}`, { token: bob.token }), 404);
    expectError(await server.request('GET', `/v1/spaces/${offSite.id}${q}`, { token: bob.token }), 404);
    expectError(await server.request('PATCH', `/v1/spaces/${onSite.id}${q}`, { token: bob.token, body: { title: 'X' } }), 404);

    const gql = await graphql(bob, spaceQuery, { id: onSite.id, key });
    expect(gql.errors).toBeUndefined();
    const url = new URL(gql.data.space.urls.published);
    expect(shareKeyIn(url.toString(), server.app.config.sitesUrl)).toBe(key);
    expect(url.pathname).toMatch(new RegExp(`/sites/${org}/[^/]+/${key}/shared$`));
    // Reverse edges stay within the caller's organizations.
    expect(gql.data.space).toMatchObject({ siteSpacesCount: 0, siteSpaces: [] });

    const member = await graphql(ada, spaceQuery, { id: onSite.id });
    expect(member.data.space.urls.published).toBe(url.toString().replace(`/${key}/`, '/'));
    expect(member.data.space.siteSpacesCount).toBe(1);
    expect(member.data.space.siteSpaces).toHaveLength(1);
    expect((await graphql(ada, spaceQuery, { id: offSite.id })).data.space.urls.published).toBeNull();
    void site;
  });
});

describe("GitBook's client", () => {
  it('drives sections, site spaces and the structure, and sees 404 where it should', async () => {
    const api = new GitBookAPI({ authToken: ada.token, endpoint: server.baseUrl });
    const org = await server.createOrg(ada);
    const [a, b] = [await server.createSpace(ada, org, { title: 'A' }), await server.createSpace(ada, org, { title: 'B' })];
    const site = (await server.createSite(ada, org)).id;
    const section = (await api.orgs.addSectionToSite(org, site, { spaceId: a.id, title: 'Docs' })).data;
    expect(section).toMatchObject({ object: 'site-section', title: 'Docs', default: true });
    const variant = (await api.orgs.addSpaceToSite(org, site, { spaceId: b.id, sectionId: section.id })).data;
    const moved = (await api.orgs.moveSiteSpace(org, site, variant.id, { position: { before: { type: 'site-space', siteSpace: section.siteSpaces[0]!.id } } })).data;
    expect(moved.id).toBe(variant.id);
    const defaults = (await api.orgs.listSiteSpaces(org, site, { default: true })).data;
    expect(defaults.items.map((s) => s.id)).toEqual([section.siteSpaces[0]!.id]);
    const updated = (await api.orgs.updateSiteSectionById(org, site, section.id, { defaultSiteSpace: variant.id, description: 'All' })).data;
    expect(updated.siteSpaces.map((s) => [s.id, s.default])).toEqual([
      [variant.id, true],
      [section.siteSpaces[0]!.id, false],
    ]);
    const tree = (await api.orgs.getSiteStructure(org, site)).data;
    expect(tree.type).toBe('sections');
    const invalid = await api.orgs.sortSiteStructure(org, site, { item: { type: 'site-section', id: section.id }, position: {} }).catch((e: unknown) => e);
    expect(invalid).toBeInstanceOf(GitBookAPIError);
    expect((invalid as GitBookAPIError).code).toBe(400);
    expect((await api.orgs.listSiteSections(org, site)).data.count).toBe(1);
    await api.orgs.deleteSiteSectionById(org, site, section.id);
    expect((await api.orgs.getSiteStructure(org, site)).data).toEqual({ type: 'siteSpaces', structure: [] });

    const bobApi = new GitBookAPI({ authToken: bob.token, endpoint: server.baseUrl });
    const error = await bobApi.orgs.getSiteStructure(org, site).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GitBookAPIError);
    expect((error as GitBookAPIError).code).toBe(404);
  });
});

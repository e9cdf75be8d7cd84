import { beforeAll, describe, expect, it } from 'vitest';
import { assertMatchesSpec } from '../helpers/openapi.ts';
import { expectError, useTestServer, type TestUser } from '../helpers/server.ts';

const { server, ada, bob } = useTestServer({ users: ['Ada', 'Bob'] });

const listCollectionIds = (user: TestUser, organizationId: string, query = '') =>
  server.listIds(user, `/v1/orgs/${organizationId}/collections?limit=1000${query}`, 'listCollectionsInOrganizationById');

describe('creating, reading and listing collections', () => {
  it('creates top-level and nested collections and reads them back', async () => {
    const org = await server.createOrg(ada);
    const top = await server.createCollection(ada, org, { title: 'Guides' });
    expect(top).toMatchObject({ object: 'collection', title: 'Guides', organization: org });
    expect(top.parent).toBeUndefined();
    expect(top.permissions).toEqual({ view: true, admin: true, viewInviteLinks: true, create: true });

    const nested = await server.createCollection(ada, org, { title: 'Advanced', parent: top.id });
    expect(nested.parent).toBe(top.id);

    const got = await server.request('GET', `/v1/collections/${nested.id}`, { token: ada.token });
    expect(got.status).toBe(200);
    assertMatchesSpec('getCollectionById', 200, got.body);
    expect(got.body).toMatchObject({ id: nested.id, title: 'Advanced', parent: top.id, organization: org });

    const untitled = await server.request('POST', `/v1/orgs/${org}/collections`, { token: ada.token, body: {} });
    expect(untitled.status).toBe(201);
    assertMatchesSpec('createCollection', 201, untitled.body);
  });

  it('validates creation: title max 50, parent must be a collection of the same organization', async () => {
    const org = await server.createOrg(ada);
    const otherOrg = await server.createOrg(ada);
    const foreign = await server.createCollection(ada, otherOrg);
    const bobs = await server.createOrg(bob);
    const bobsCollection = await server.createCollection(bob, bobs);
    expectError(await server.request('POST', `/v1/orgs/${org}/collections`, { token: ada.token, body: { title: 'x'.repeat(51) } }), 400, /title/);
    expectError(await server.request('POST', `/v1/orgs/${org}/collections`, { token: ada.token, body: { parent: 'no-such-collection' } }), 400, /parent/);
    expectError(await server.request('POST', `/v1/orgs/${org}/collections`, { token: ada.token, body: { parent: foreign.id } }), 400, /parent/);
    expectError(await server.request('POST', `/v1/orgs/${org}/collections`, { token: ada.token, body: { parent: bobsCollection.id } }), 400, /parent/);
    expectError(await server.request('POST', `/v1/orgs/${org}/collections`, { token: ada.token, body: { title: 42 } }), 400, /title/);
    expectError(await server.request('POST', `/v1/orgs/${org}/collections`, { token: ada.token, body: '{"title"' }), 400);
    expect(await listCollectionIds(ada, org)).toEqual([]);
  });

  it('lists collections, with nested=false only top-level ones, paging with limit=2', async () => {
    const org = await server.createOrg(ada);
    const a = await server.createCollection(ada, org, { title: 'A' });
    const a1 = await server.createCollection(ada, org, { title: 'A1', parent: a.id });
    const b = await server.createCollection(ada, org, { title: 'B' });
    const a11 = await server.createCollection(ada, org, { title: 'A11', parent: a1.id });
    const c = await server.createCollection(ada, org, { title: 'C' });

    expect(await listCollectionIds(ada, org)).toEqual([a.id, a1.id, b.id, a11.id, c.id]);
    expect(await listCollectionIds(ada, org, '&nested=true')).toEqual([a.id, a1.id, b.id, a11.id, c.id]);
    expect(await listCollectionIds(ada, org, '&nested=false')).toEqual([a.id, b.id, c.id]);

    for (const [query, expected] of [
      ['', [a.id, a1.id, b.id, a11.id, c.id]],
      ['?nested=false', [a.id, b.id, c.id]],
    ] as const) {
      const paged = await server.pageThrough(ada, `/v1/orgs/${org}/collections${query}`, 'listCollectionsInOrganizationById');
      expect(paged).toEqual({ ids: expected, pages: Math.ceil(expected.length / 2), count: expected.length });
    }

    for (const q of ['limit=0', 'limit=1001', 'nested=maybe', 'page=garbage']) {
      expectError(await server.request('GET', `/v1/orgs/${org}/collections?${q}`, { token: ada.token }), 400, new RegExp(q.split('=')[0]!));
    }
  });

  it('lists the spaces of a collection in their order, paging with limit=2', async () => {
    const org = await server.createOrg(ada);
    const collection = await server.createCollection(ada, org);
    const nested = await server.createCollection(ada, org, { parent: collection.id });
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await server.createSpace(ada, org, { title: `S${i}`, parent: collection.id })).id);
    await server.createSpace(ada, org, { parent: nested.id });
    await server.createSpace(ada, org);

    expect(await server.pageThrough(ada, `/v1/collections/${collection.id}/spaces`, 'listSpacesInCollectionById')).toEqual({ ids, pages: 3, count: 5 });
    for (const limit of [0, 1001]) {
      expectError(await server.request('GET', `/v1/collections/${collection.id}/spaces?limit=${limit}`, { token: ada.token }), 400, /limit/);
    }
  });
});

describe('updating collections', () => {
  it('updates title and description, validates them, and only an admin sets defaultLevel', async () => {
    const org = await server.createOrg(ada);
    const collection = await server.createCollection(ada, org);
    const res = await server.request('PATCH', `/v1/collections/${collection.id}`, { token: ada.token, body: { title: 'Renamed', description: 'About it' } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    assertMatchesSpec('updateCollectionById', 200, res.body);
    expect(res.body).toMatchObject({ id: collection.id, title: 'Renamed', description: 'About it' });

    for (const body of [{ title: 'x'.repeat(51) }, { description: 'x'.repeat(101) }, { defaultLevel: 'owner' }, { title: 42 }]) {
      expectError(await server.request('PATCH', `/v1/collections/${collection.id}`, { token: ada.token, body }), 400, new RegExp(Object.keys(body)[0]!));
    }
    expectError(await server.request('PATCH', `/v1/collections/${collection.id}`, { token: ada.token, body: '{"title":' }), 400);

    const creator = await server.createUser('Creator');
    await server.addMember(org, creator, 'create');
    const byCreator = await server.request('PATCH', `/v1/collections/${collection.id}`, { token: creator.token, body: { title: 'By creator' } });
    expect(byCreator.status).toBe(200);
    assertMatchesSpec('updateCollectionById', 200, byCreator.body);
    expect(byCreator.body.permissions).toMatchObject({ view: true, create: true, admin: false });
    expectError(await server.request('PATCH', `/v1/collections/${collection.id}`, { token: creator.token, body: { defaultLevel: 'read' } }), 403);

    const level = await server.request('PATCH', `/v1/collections/${collection.id}`, { token: ada.token, body: { defaultLevel: 'comment' } });
    expect(level.status).toBe(200);
    assertMatchesSpec('updateCollectionById', 200, level.body);
    expect(level.body).toMatchObject({ title: 'By creator', description: 'About it', defaultLevel: 'comment' });
  });
});

describe('the error matrix of a collection', () => {
  let org: string;
  let collection: { id: string };
  let reader: TestUser;

  beforeAll(async () => {
    org = await server.createOrg(ada);
    collection = await server.createCollection(ada, org);
    reader = await server.createUser('Reader');
    await server.addMember(org, reader, 'read');
  });

  const endpoints = (id: string, orgId: string) =>
    [
      ['GET', `/v1/collections/${id}`, undefined],
      ['PATCH', `/v1/collections/${id}`, { title: 'X' }],
      ['DELETE', `/v1/collections/${id}`, undefined],
      ['GET', `/v1/collections/${id}/spaces`, undefined],
      ['POST', `/v1/collections/${id}/move`, { parent: null }],
      ['POST', `/v1/collections/${id}/transfer`, { organization: 'other' }],
      ['GET', `/v1/orgs/${orgId}/collections`, undefined],
      ['POST', `/v1/orgs/${orgId}/collections`, { title: 'X' }],
    ] as const;

  it('answers 401 without a token and with a bad token', async () => {
    for (const token of [undefined, 'not-a-token']) await server.expectErrors(endpoints(collection.id, org), token, 401);
  });

  it("answers 404 for another organization's collection, and for one that does not exist", async () => {
    await server.expectErrors(endpoints(collection.id, org), bob.token, 404);
    // DELETE of nothing is a 204 (below).
    await server.expectErrors(endpoints('no-such-collection', 'no-such-org').filter(([method]) => method !== 'DELETE'), ada.token, 404);
    expect((await server.request('DELETE', '/v1/collections/no-such-collection', { token: ada.token })).status).toBe(204);
    expect((await server.request('GET', `/v1/collections/${collection.id}`, { token: ada.token })).status).toBe(200);
  });

  it('lets a reader read, and answers 403 to everything else', async () => {
    const got = await server.request('GET', `/v1/collections/${collection.id}`, { token: reader.token });
    expect(got.status).toBe(200);
    assertMatchesSpec('getCollectionById', 200, got.body);
    expect(got.body.permissions).toEqual({ view: true, admin: false, viewInviteLinks: false, create: false });
    expect((await server.request('GET', `/v1/collections/${collection.id}/spaces`, { token: reader.token })).status).toBe(200);
    expect(await listCollectionIds(reader, org)).toContain(collection.id);

    const target = await server.createOrg(reader, 'Reader org');
    await server.expectErrors([
      ['PATCH', `/v1/collections/${collection.id}`, { title: 'X' }],
      ['DELETE', `/v1/collections/${collection.id}`, undefined],
      ['POST', `/v1/collections/${collection.id}/move`, { parent: null }],
      ['POST', `/v1/collections/${collection.id}/transfer`, { organization: target }],
      ['POST', `/v1/orgs/${org}/collections`, { title: 'X' }],
    ] as const, reader.token, 403);
    expect((await server.request('GET', `/v1/collections/${collection.id}`, { token: ada.token })).body.title).toBe('Collection');
  });

  it('answers 400 for malformed JSON and wrong types on every body endpoint', async () => {
    for (const [method, path, wrong] of [
      ['POST', `/v1/orgs/${org}/collections`, { title: 42 }],
      ['PATCH', `/v1/collections/${collection.id}`, { description: 42 }],
      ['POST', `/v1/collections/${collection.id}/move`, { parent: 42 }],
      ['POST', `/v1/collections/${collection.id}/transfer`, { organization: 42 }],
    ] as const) {
      expectError(await server.request(method, path, { token: ada.token, body: '{"title":' }), 400);
      expectError(await server.request(method, path, { token: ada.token, body: '"a string"' }), 400);
      expectError(await server.request(method, path, { token: ada.token, body: wrong }), 400, new RegExp(Object.keys(wrong)[0]!));
    }
    expectError(await server.request('POST', `/v1/collections/${collection.id}/transfer`, { token: ada.token, body: {} }), 400, /organization/);
  });
});

describe('moving collections', () => {
  it('moves into another collection, back to the top level, and before/after a sibling', async () => {
    const org = await server.createOrg(ada);
    const a = await server.createCollection(ada, org, { title: 'A' });
    const b = await server.createCollection(ada, org, { title: 'B' });
    const s = await server.createSpace(ada, org, { title: 'S' });
    const c = await server.createCollection(ada, org, { title: 'C' });
    expect(await server.childrenInOrder(org, null)).toEqual([a.id, b.id, s.id, c.id]);

    const into = await server.request('POST', `/v1/collections/${b.id}/move`, { token: ada.token, body: { parent: a.id } });
    expect(into.status, JSON.stringify(into.body)).toBe(200);
    assertMatchesSpec('moveCollection', 200, into.body);
    expect(into.body.parent).toBe(a.id);
    expect(await server.childrenInOrder(org, a.id)).toEqual([b.id]);
    expect(await listCollectionIds(ada, org, '&nested=false')).toEqual([a.id, c.id]);

    const out = await server.request('POST', `/v1/collections/${b.id}/move`, {
      token: ada.token,
      body: { parent: null, position: { before: { type: 'collection', collection: a.id } } },
    });
    expect(out.status, JSON.stringify(out.body)).toBe(200);
    assertMatchesSpec('moveCollection', 200, out.body);
    expect(out.body.parent).toBeUndefined();
    expect(await server.childrenInOrder(org, null)).toEqual([b.id, a.id, s.id, c.id]);

    const afterSpace = await server.request('POST', `/v1/collections/${b.id}/move`, { token: ada.token, body: { position: { after: { type: 'space', space: s.id } } } });
    expect(afterSpace.status, JSON.stringify(afterSpace.body)).toBe(200);
    assertMatchesSpec('moveCollection', 200, afterSpace.body);
    expect(await server.childrenInOrder(org, null)).toEqual([a.id, s.id, b.id, c.id]);

    const afterLast = await server.request('POST', `/v1/collections/${a.id}/move`, { token: ada.token, body: { position: { after: { type: 'collection', collection: c.id } } } });
    expect(afterLast.status).toBe(200);
    expect(await server.childrenInOrder(org, null)).toEqual([s.id, b.id, c.id, a.id]);

    // Moving a collection carries what is inside it.
    const inner = await server.createSpace(ada, org, { parent: c.id });
    expect((await server.request('POST', `/v1/collections/${c.id}/move`, { token: ada.token, body: { parent: a.id } })).status).toBe(200);
    expect(await server.listCollectionSpaceIds(ada, c.id)).toEqual([inner.id]);
    expect((await server.request('GET', `/v1/collections/${c.id}`, { token: ada.token })).body.parent).toBe(a.id);
  });

  it('refuses a move into itself or a descendant (400), an invalid position (400), and a move that changes nothing (409)', async () => {
    const org = await server.createOrg(ada);
    const top = await server.createCollection(ada, org, { title: 'Top' });
    const child = await server.createCollection(ada, org, { title: 'Child', parent: top.id });
    const grandchild = await server.createCollection(ada, org, { title: 'Grandchild', parent: child.id });
    const sibling = await server.createCollection(ada, org, { title: 'Sibling' });
    const otherOrg = await server.createOrg(ada);
    const foreign = await server.createCollection(ada, otherOrg);

    for (const parent of [top.id, child.id, grandchild.id]) {
      expectError(await server.request('POST', `/v1/collections/${top.id}/move`, { token: ada.token, body: { parent } }), 400, /parent/);
    }
    expectError(await server.request('POST', `/v1/collections/${top.id}/move`, { token: ada.token, body: { parent: 'no-such-collection' } }), 400, /parent/);
    expectError(await server.request('POST', `/v1/collections/${top.id}/move`, { token: ada.token, body: { parent: foreign.id } }), 400, /parent/);

    for (const position of [
      { before: { type: 'collection', collection: child.id } }, // not a sibling at the top level
      { after: { type: 'collection', collection: 'no-such-collection' } },
      { after: { type: 'collection', collection: top.id } }, // itself
      { before: { type: 'collection', collection: sibling.id }, after: { type: 'collection', collection: sibling.id } },
      { before: { type: 'space' } },
      { before: { type: 'page', page: 'p' } },
    ]) {
      const res = await server.request('POST', `/v1/collections/${top.id}/move`, { token: ada.token, body: { position } });
      expectError(res, 400);
    }
    expectError(await server.request('POST', `/v1/collections/${top.id}/move`, { token: ada.token, body: {} }), 400);

    expectError(await server.request('POST', `/v1/collections/${top.id}/move`, { token: ada.token, body: { parent: null } }), 409);
    expectError(await server.request('POST', `/v1/collections/${child.id}/move`, { token: ada.token, body: { parent: top.id } }), 409);

    // Nothing moved.
    expect(await server.childrenInOrder(org, null)).toEqual([top.id, sibling.id]);
    expect(await server.childrenInOrder(org, top.id)).toEqual([child.id]);
    expect(await server.childrenInOrder(org, child.id)).toEqual([grandchild.id]);
  });
  it('answers 409 to a position that leaves the collection where it is, and 400 to a position naming no place', async () => {
    const org = await server.createOrg(ada);
    const a = await server.createCollection(ada, org, { title: 'A' });
    const s = await server.createSpace(ada, org, { title: 'S' });
    const b = await server.createCollection(ada, org, { title: 'B' });
    const parent = await server.createCollection(ada, org, { title: 'Parent' });
    const x = await server.createCollection(ada, org, { title: 'X', parent: parent.id });
    const y = await server.createCollection(ada, org, { title: 'Y', parent: parent.id });
    expect(await server.childrenInOrder(org, null)).toEqual([a.id, s.id, b.id, parent.id]);
    const move = (id: string, body: unknown) => server.request('POST', `/v1/collections/${id}/move`, { token: ada.token, body });

    for (const [id, body] of [
      [a.id, { position: { before: { type: 'space', space: s.id } } }],
      [b.id, { position: { after: { type: 'space', space: s.id } } }],
      [b.id, { parent: null, position: { before: { type: 'collection', collection: parent.id } } }],
      [parent.id, { position: { after: { type: 'collection', collection: b.id } } }],
      [x.id, { position: { before: { type: 'collection', collection: y.id } } }],
      [y.id, { parent: parent.id, position: { after: { type: 'collection', collection: x.id } } }],
    ] as const) {
      expectError(await move(id, body), 409, /would not change anything/);
    }
    for (const body of [{ position: {} }, { position: { after: null } }, { parent: null, position: {} }, { parent: parent.id, position: {} }]) {
      expectError(await move(a.id, body), 400, /position/);
    }
    expect(await server.childrenInOrder(org, null)).toEqual([a.id, s.id, b.id, parent.id]);
    expect(await server.childrenInOrder(org, parent.id)).toEqual([x.id, y.id]);

    const changed = await move(a.id, { position: { after: { type: 'space', space: s.id } } });
    expect(changed.status, JSON.stringify(changed.body)).toBe(200);
    assertMatchesSpec('moveCollection', 200, changed.body);
    expect(await server.childrenInOrder(org, null)).toEqual([s.id, a.id, b.id, parent.id]);
    // Into another parent, with a position, is always a change.
    const into = await move(b.id, { parent: parent.id, position: { after: { type: 'collection', collection: y.id } } });
    expect(into.status, JSON.stringify(into.body)).toBe(200);
    expect(await server.childrenInOrder(org, parent.id)).toEqual([x.id, y.id, b.id]);
  });
});

describe('transferring collections', () => {
  it('transfers a top-level collection with everything in it', async () => {
    const source = await server.createOrg(ada, 'Source');
    const target = await server.createOrg(ada, 'Target');
    const top = await server.createCollection(ada, source, { title: 'Top' });
    const nested = await server.createCollection(ada, source, { title: 'Nested', parent: top.id });
    const s1 = await server.createSpace(ada, source, { parent: top.id });
    const s2 = await server.createSpace(ada, source, { parent: nested.id });
    const stays = await server.createSpace(ada, source);

    const res = await server.request('POST', `/v1/collections/${top.id}/transfer`, { token: ada.token, body: { organization: target } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    assertMatchesSpec('transferCollection', 200, res.body);
    expect(res.body).toMatchObject({ id: top.id, organization: target });
    expect(res.body.parent).toBeUndefined();

    expect(await listCollectionIds(ada, target)).toEqual([top.id, nested.id]);
    expect(await listCollectionIds(ada, source)).toEqual([]);
    expect(await server.listSpaceIds(ada, target)).toEqual([s1.id, s2.id]);
    expect(await server.listSpaceIds(ada, source)).toEqual([stays.id]);
    expect((await server.request('GET', `/v1/collections/${nested.id}`, { token: ada.token })).body).toMatchObject({ organization: target, parent: top.id });
    expect((await server.request('GET', `/v1/spaces/${s2.id}`, { token: ada.token })).body).toMatchObject({ organization: target, parent: nested.id });

    // To Bob's organization, where Ada may create content: Bob then sees it.
    const bobs = await server.createOrg(bob, 'Bob');
    await server.addMember(bobs, ada, 'create');
    const toBob = await server.request('POST', `/v1/collections/${top.id}/transfer`, { token: ada.token, body: { organization: bobs } });
    expect(toBob.status, JSON.stringify(toBob.body)).toBe(200);
    assertMatchesSpec('transferCollection', 200, toBob.body);
    expect(await listCollectionIds(bob, bobs)).toEqual([top.id, nested.id]);
    expect(await server.listSpaceIds(bob, bobs)).toEqual([s1.id, s2.id]);
  });

  it('answers 409 for the same organization, 412 for a nested collection, 404 for an organization the caller is not in', async () => {
    const org = await server.createOrg(ada);
    const target = await server.createOrg(ada);
    const top = await server.createCollection(ada, org);
    const nested = await server.createCollection(ada, org, { parent: top.id });
    expectError(await server.request('POST', `/v1/collections/${top.id}/transfer`, { token: ada.token, body: { organization: org } }), 409);
    expectError(await server.request('POST', `/v1/collections/${nested.id}/transfer`, { token: ada.token, body: { organization: target } }), 412);
    const bobs = await server.createOrg(bob);
    expectError(await server.request('POST', `/v1/collections/${top.id}/transfer`, { token: ada.token, body: { organization: bobs } }), 404);
    expectError(await server.request('POST', `/v1/collections/${top.id}/transfer`, { token: ada.token, body: { organization: 'no-such-org' } }), 404);
    const bobsOther = await server.createOrg(bob);
    await server.addMember(bobsOther, ada, 'review');
    expectError(await server.request('POST', `/v1/collections/${top.id}/transfer`, { token: ada.token, body: { organization: bobsOther } }), 403);
    expect(await listCollectionIds(ada, org)).toEqual([top.id, nested.id]);
  });
});

describe('deleting collections', () => {
  it('deletes nested collections and moves their spaces to the bin, from where they can be restored', async () => {
    const org = await server.createOrg(ada);
    const top = await server.createCollection(ada, org, { title: 'Top' });
    const child = await server.createCollection(ada, org, { title: 'Child', parent: top.id });
    const grandchild = await server.createCollection(ada, org, { title: 'Grandchild', parent: child.id });
    const keep = await server.createCollection(ada, org, { title: 'Keep' });
    const s1 = await server.createSpace(ada, org, { parent: top.id });
    const s2 = await server.createSpace(ada, org, { parent: child.id });
    const s3 = await server.createSpace(ada, org, { parent: grandchild.id });
    const kept = await server.createSpace(ada, org, { parent: keep.id });
    const loose = await server.createSpace(ada, org);

    const res = await server.request('DELETE', `/v1/collections/${top.id}`, { token: ada.token });
    expect(res.status).toBe(205);
    expect(res.body).toBeNull();
    assertMatchesSpec('deleteCollectionById', 205, res.body);

    for (const id of [top.id, child.id, grandchild.id]) {
      expectError(await server.request('GET', `/v1/collections/${id}`, { token: ada.token }), 404);
      expectError(await server.request('GET', `/v1/collections/${id}/spaces`, { token: ada.token }), 404);
    }
    expect(await listCollectionIds(ada, org)).toEqual([keep.id]);
    expect(await server.listSpaceIds(ada, org)).toEqual([kept.id, loose.id]);
    for (const s of [s1, s2, s3]) expectError(await server.request('GET', `/v1/spaces/${s.id}`, { token: ada.token }), 404);

    const again = await server.request('DELETE', `/v1/collections/${top.id}`, { token: ada.token });
    expect(again.status).toBe(204);
    assertMatchesSpec('deleteCollectionById', 204, again.body);
    expect((await server.request('DELETE', `/v1/collections/${child.id}`, { token: ada.token })).status).toBe(204);

    // The spaces are in the bin: restorable, back at the top level since their collections are gone.
    const restored = await server.request('POST', `/v1/spaces/${s2.id}/restore`, { token: ada.token });
    expect(restored.status, JSON.stringify(restored.body)).toBe(200);
    assertMatchesSpec('restoreSpace', 200, restored.body);
    expect(restored.body.parent).toBeUndefined();
    expect(await server.listSpaceIds(ada, org)).toEqual([s2.id, kept.id, loose.id]);
    expect((await server.request('GET', `/v1/spaces/${s2.id}`, { token: ada.token })).status).toBe(200);

    // The collection that was not deleted is untouched.
    expect(await server.listCollectionSpaceIds(ada, keep.id)).toEqual([kept.id]);
  });

  it('keeps a space already in the bin deleted at its own time when its collection is deleted', async () => {
    const org = await server.createOrg(ada);
    const collection = await server.createCollection(ada, org);
    const space = await server.createSpace(ada, org, { parent: collection.id });
    expect((await server.request('DELETE', `/v1/spaces/${space.id}`, { token: ada.token })).status).toBe(205);
    const deletedAt = new Date(Date.now() - 3 * 24 * 60 * 60 * 1000);
    await server.app.db.space.update({ where: { id: space.id }, data: { deletedAt } });
    expect((await server.request('DELETE', `/v1/collections/${collection.id}`, { token: ada.token })).status).toBe(205);
    const row = await server.app.db.space.findUnique({ where: { id: space.id } });
    expect(row?.deletedAt?.getTime()).toBe(deletedAt.getTime());
    expect(row?.parentId).toBeNull();
    expect((await server.request('POST', `/v1/spaces/${space.id}/restore`, { token: ada.token })).status).toBe(200);
  });

  it('needs admin to delete: a creator gets 403 and nothing is deleted', async () => {
    const org = await server.createOrg(ada);
    const collection = await server.createCollection(ada, org);
    const space = await server.createSpace(ada, org, { parent: collection.id });
    const creator = await server.createUser('Creator');
    await server.addMember(org, creator, 'create');
    expectError(await server.request('DELETE', `/v1/collections/${collection.id}`, { token: creator.token }), 403);
    expect(await server.listCollectionSpaceIds(ada, collection.id)).toEqual([space.id]);
  });
});

import { beforeAll, describe, expect, it } from 'vitest';
import { purgeDeletedSpaces } from '../../src/services/space-purge.ts';
import { assertMatchesSpec } from '../helpers/openapi.ts';
import { expectError, useTestServer, type TestUser } from '../helpers/server.ts';

const DAY = 24 * 60 * 60 * 1000;

const { server, ada, bob } = useTestServer({ users: ['Ada', 'Bob'] });

describe('creating and listing spaces', () => {
  it('creates a space and reads it back', async () => {
    const org = await server.createOrg(ada);
    const space = await server.createSpace(ada, org, { title: 'Handbook', emoji: '1f4d8', editMode: 'live' });
    expect(space).toMatchObject({ object: 'space', title: 'Handbook', organization: org, editMode: 'live', visibility: 'private' });
    expect(space.parent).toBeUndefined();
    expect(space.permissions).toMatchObject({ view: true, admin: true, edit: true });

    const got = await server.request('GET', `/v1/spaces/${space.id}`, { token: ada.token });
    expect(got.status).toBe(200);
    assertMatchesSpec('getSpaceById', 200, got.body);
    expect(got.body).toMatchObject({ id: space.id, title: 'Handbook', revision: space.revision });
  });

  it('pages through the spaces of an organization with limit=2, visiting each exactly once', async () => {
    const org = await server.createOrg(ada);
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await server.createSpace(ada, org, { title: `Space ${i}` })).id);
    expect(await server.pageThrough(ada, `/v1/orgs/${org}/spaces`, 'listSpacesInOrganizationById')).toEqual({ ids, pages: 3, count: 5 });
  });

  it('refuses limit=0 and limit=1001 with 400', async () => {
    const org = await server.createOrg(ada);
    for (const limit of [0, 1001]) {
      expectError(await server.request('GET', `/v1/orgs/${org}/spaces?limit=${limit}`, { token: ada.token }), 400, /limit/);
    }
    expectError(await server.request('GET', `/v1/orgs/${org}/spaces?limit=abc`, { token: ada.token }), 400, /limit/);
  });

  it('refuses a title longer than 50 characters, naming the field', async () => {
    const org = await server.createOrg(ada);
    expectError(await server.request('POST', `/v1/orgs/${org}/spaces`, { token: ada.token, body: { title: 'x'.repeat(51) } }), 400, /title/);
    await server.createSpace(ada, org, { title: 'x'.repeat(50) });
  });

  it('needs the create role to create a space', async () => {
    const org = await server.createOrg(ada);
    const reader = await server.createUser('Reader');
    await server.addMember(org, reader, 'edit');
    expectError(await server.request('POST', `/v1/orgs/${org}/spaces`, { token: reader.token, body: { title: 'Nope' } }), 403);
    expectError(await server.request('POST', `/v1/orgs/${org}/spaces`, { token: bob.token, body: { title: 'Nope' } }), 404);
  });
});

describe('updating spaces', () => {
  it('updates title, emoji and editMode', async () => {
    const org = await server.createOrg(ada);
    const space = await server.createSpace(ada, org);
    const res = await server.request('PATCH', `/v1/spaces/${space.id}`, { token: ada.token, body: { title: 'Renamed', emoji: '1f680', editMode: 'locked' } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    assertMatchesSpec('updateSpaceById', 200, res.body);
    expect(res.body).toMatchObject({ id: space.id, title: 'Renamed', emoji: '1f680', editMode: 'locked' });
    // A locked space cannot be edited, even by an admin.
    expect(res.body.permissions.edit).toBe(false);

    const back = await server.request('PATCH', `/v1/spaces/${space.id}`, { token: ada.token, body: { editMode: 'live' } });
    expect(back.status).toBe(200);
    assertMatchesSpec('updateSpaceById', 200, back.body);
    expect(back.body).toMatchObject({ title: 'Renamed', editMode: 'live', permissions: { edit: true } });
  });

  it('validates the body: title max 50, enums, types, malformed JSON', async () => {
    const org = await server.createOrg(ada);
    const space = await server.createSpace(ada, org);
    for (const body of [{ title: 'x'.repeat(51) }, { title: 123 }, { editMode: 'frozen' }, { defaultLevel: 'owner' }, { emoji: 'x'.repeat(51) }]) {
      const res = await server.request('PATCH', `/v1/spaces/${space.id}`, { token: ada.token, body });
      expectError(res, 400, new RegExp(Object.keys(body)[0]!));
    }
    expectError(await server.request('PATCH', `/v1/spaces/${space.id}`, { token: ada.token, body: '{"title":' }), 400);
    expectError(await server.request('PATCH', `/v1/spaces/${space.id}`, { token: ada.token, body: '[1,2]' }), 400);
    // Nothing was changed by the refused requests.
    const got = await server.request('GET', `/v1/spaces/${space.id}`, { token: ada.token });
    expect(got.body.title).toBe('Space');
  });

  it('lets an editor rename, but only an admin change defaultLevel and editMode', async () => {
    const org = await server.createOrg(ada);
    const space = await server.createSpace(ada, org);
    const editor = await server.createUser('Editor');
    await server.addMember(org, editor, 'edit');

    const renamed = await server.request('PATCH', `/v1/spaces/${space.id}`, { token: editor.token, body: { title: 'By editor' } });
    expect(renamed.status).toBe(200);
    assertMatchesSpec('updateSpaceById', 200, renamed.body);
    expect(renamed.body.permissions).toMatchObject({ edit: true, admin: false });

    expectError(await server.request('PATCH', `/v1/spaces/${space.id}`, { token: editor.token, body: { defaultLevel: 'read' } }), 403);
    expectError(await server.request('PATCH', `/v1/spaces/${space.id}`, { token: editor.token, body: { editMode: 'locked' } }), 403);

    const admin = await server.request('PATCH', `/v1/spaces/${space.id}`, { token: ada.token, body: { defaultLevel: 'read' } });
    expect(admin.status).toBe(200);
    assertMatchesSpec('updateSpaceById', 200, admin.body);
    expect(admin.body.defaultLevel).toBe('read');

    const cleared = await server.request('PATCH', `/v1/spaces/${space.id}`, { token: ada.token, body: { defaultLevel: null } });
    expect(cleared.status).toBe(200);
    assertMatchesSpec('updateSpaceById', 200, cleared.body);
    expect(cleared.body.defaultLevel).toBeNull();
  });
});

describe('the error matrix of a space', () => {
  let org: string;
  let space: { id: string };
  let reader: TestUser;

  beforeAll(async () => {
    org = await server.createOrg(ada);
    space = await server.createSpace(ada, org);
    reader = await server.createUser('Reader');
    await server.addMember(org, reader, 'read');
  });

  const endpoints = (id: string) =>
    [
      ['GET', `/v1/spaces/${id}`, undefined],
      ['PATCH', `/v1/spaces/${id}`, { title: 'X' }],
      ['DELETE', `/v1/spaces/${id}`, undefined],
      ['POST', `/v1/spaces/${id}/duplicate`, undefined],
      ['POST', `/v1/spaces/${id}/restore`, undefined],
      ['POST', `/v1/spaces/${id}/move`, { parent: null }],
      ['POST', `/v1/spaces/${id}/transfer`, { organization: 'other' }],
      ['GET', `/v1/spaces/${id}/links`, undefined],
    ] as const;

  it('answers 401 without a token and with a bad token', async () => {
    for (const token of [undefined, 'not-a-token']) await server.expectErrors([...endpoints(space.id), ['GET', `/v1/orgs/${org}/spaces`, undefined] as const, ['POST', `/v1/orgs/${org}/spaces`, { title: 'X' }] as const], token, 401);
  });

  it("answers 404 for another organization's space, and for a space that does not exist", async () => {
    await server.expectErrors(endpoints(space.id), bob.token, 404);
    expectError(await server.request('GET', `/v1/orgs/${org}/spaces`, { token: bob.token }), 404);
    expectError(await server.request('GET', '/v1/spaces/does-not-exist', { token: ada.token }), 404);
    expectError(await server.request('GET', '/v1/spaces/does-not-exist/links', { token: ada.token }), 404);
    // The space is untouched.
    expect((await server.request('GET', `/v1/spaces/${space.id}`, { token: ada.token })).body.title).toBe('Space');
  });

  it('lets a reader read, and answers 403 to everything else', async () => {
    const got = await server.request('GET', `/v1/spaces/${space.id}`, { token: reader.token });
    expect(got.status).toBe(200);
    assertMatchesSpec('getSpaceById', 200, got.body);
    expect(got.body.permissions).toMatchObject({ view: true, edit: false, admin: false, comment: false });
    const links = await server.request('GET', `/v1/spaces/${space.id}/links`, { token: reader.token });
    expect(links.status).toBe(200);
    const list = await server.request('GET', `/v1/orgs/${org}/spaces`, { token: reader.token });
    expect(list.status).toBe(200);
    expect(list.body.items.map((s: { id: string }) => s.id)).toContain(space.id);

    const target = await server.createOrg(reader, 'Reader org');
    await server.expectErrors([
      ['PATCH', `/v1/spaces/${space.id}`, { title: 'X' }],
      ['DELETE', `/v1/spaces/${space.id}`, undefined],
      ['POST', `/v1/spaces/${space.id}/duplicate`, undefined],
      ['POST', `/v1/spaces/${space.id}/move`, { position: null, parent: null }],
      ['POST', `/v1/spaces/${space.id}/transfer`, { organization: target }],
      ['POST', `/v1/orgs/${org}/spaces`, { title: 'X' }],
    ] as const, reader.token, 403);
    expect((await server.request('GET', `/v1/spaces/${space.id}`, { token: ada.token })).body.deletedAt).toBeUndefined();
  });

  it('answers 400 for malformed JSON and wrong types on every body endpoint', async () => {
    for (const [path, wrong] of [
      [`/v1/orgs/${org}/spaces`, { title: 42 }],
      [`/v1/spaces/${space.id}/move`, { parent: 42 }],
      [`/v1/spaces/${space.id}/transfer`, { organization: 42 }],
    ] as const) {
      expectError(await server.request('POST', path, { token: ada.token, body: '{"title":' }), 400);
      expectError(await server.request('POST', path, { token: ada.token, body: wrong }), 400, new RegExp(Object.keys(wrong)[0]!));
    }
    expectError(await server.request('PATCH', `/v1/spaces/${space.id}`, { token: ada.token, body: { editMode: 42 } }), 400, /editMode/);
    // transfer needs `organization`
    expectError(await server.request('POST', `/v1/spaces/${space.id}/transfer`, { token: ada.token, body: {} }), 400, /organization/);
  });
});

describe('deleting and restoring spaces', () => {
  it('deletes (205), hides the space everywhere, answers 204 the second time, and restores it', async () => {
    const org = await server.createOrg(ada);
    const collection = await server.createCollection(ada, org);
    const space = await server.createSpace(ada, org, { parent: collection.id });
    const other = await server.createSpace(ada, org);

    const deleted = await server.request('DELETE', `/v1/spaces/${space.id}`, { token: ada.token });
    expect(deleted.status).toBe(205);
    expect(deleted.body).toBeNull();
    assertMatchesSpec('deleteSpaceById', 205, deleted.body);

    expectError(await server.request('GET', `/v1/spaces/${space.id}`, { token: ada.token }), 404);
    expectError(await server.request('GET', `/v1/spaces/${space.id}/links`, { token: ada.token }), 404);
    expectError(await server.request('PATCH', `/v1/spaces/${space.id}`, { token: ada.token, body: { title: 'X' } }), 404);
    expect(await server.listSpaceIds(ada, org)).toEqual([other.id]);
    expect(await server.listCollectionSpaceIds(ada, collection.id)).toEqual([]);
    const page = await server.request('GET', `/v1/orgs/${org}/spaces`, { token: ada.token });
    expect(page.body.count).toBe(1);

    const again = await server.request('DELETE', `/v1/spaces/${space.id}`, { token: ada.token });
    expect(again.status).toBe(204);
    assertMatchesSpec('deleteSpaceById', 204, again.body);
    expect((await server.request('DELETE', '/v1/spaces/never-existed', { token: ada.token })).status).toBe(204);

    const restored = await server.request('POST', `/v1/spaces/${space.id}/restore`, { token: ada.token });
    expect(restored.status, JSON.stringify(restored.body)).toBe(200);
    assertMatchesSpec('restoreSpace', 200, restored.body);
    expect(restored.body).toMatchObject({ id: space.id, parent: collection.id });
    expect(restored.body.deletedAt).toBeUndefined();

    expect((await server.request('GET', `/v1/spaces/${space.id}`, { token: ada.token })).status).toBe(200);
    expect(await server.listSpaceIds(ada, org)).toEqual([space.id, other.id]);
    expect(await server.listCollectionSpaceIds(ada, collection.id)).toEqual([space.id]);
  });

  it('restores a space at the end of its siblings, whatever took its old place', async () => {
    const org = await server.createOrg(ada);
    const collection = await server.createCollection(ada, org);
    const a = await server.createSpace(ada, org, { title: 'A', parent: collection.id });
    const b = await server.createSpace(ada, org, { title: 'B', parent: collection.id });
    const before = await server.app.db.space.findUniqueOrThrow({ where: { id: a.id }, select: { position: true } });
    expect((await server.request('DELETE', `/v1/spaces/${a.id}`, { token: ada.token })).status).toBe(205);
    // While A is in the bin, C is created and moved first: it takes A's old position.
    const c = await server.createSpace(ada, org, { title: 'C', parent: collection.id });
    const moved = await server.request('POST', `/v1/spaces/${c.id}/move`, { token: ada.token, body: { position: { before: { type: 'space', space: b.id } } } });
    expect(moved.status, JSON.stringify(moved.body)).toBe(200);
    const cRow = await server.app.db.space.findUniqueOrThrow({ where: { id: c.id }, select: { position: true } });
    expect(cRow.position).toBe(before.position);

    const restored = await server.request('POST', `/v1/spaces/${a.id}/restore`, { token: ada.token });
    expect(restored.status, JSON.stringify(restored.body)).toBe(200);
    assertMatchesSpec('restoreSpace', 200, restored.body);
    expect(restored.body.parent).toBe(collection.id);
    expect(await server.childrenInOrder(org, collection.id)).toEqual([c.id, b.id, a.id]);
    expect(await server.listCollectionSpaceIds(ada, collection.id)).toEqual([c.id, b.id, a.id]);
    // No two siblings share a position.
    const positions = (await server.app.db.space.findMany({ where: { parentId: collection.id }, select: { position: true } })).map((r) => r.position);
    expect(new Set(positions).size).toBe(3);
  });

  it('restores a space whose collection is gone at the end of the top level', async () => {
    const org = await server.createOrg(ada);
    const first = await server.createSpace(ada, org, { title: 'First' });
    const collection = await server.createCollection(ada, org);
    const inside = await server.createSpace(ada, org, { title: 'Inside', parent: collection.id });
    const last = await server.createSpace(ada, org, { title: 'Last' });
    // Inside had position 1 in its collection: the same as First at the top level.
    expect((await server.app.db.space.findUniqueOrThrow({ where: { id: inside.id } })).position).toBe(
      (await server.app.db.space.findUniqueOrThrow({ where: { id: first.id } })).position,
    );
    expect((await server.request('DELETE', `/v1/collections/${collection.id}`, { token: ada.token })).status).toBe(205);
    const restored = await server.request('POST', `/v1/spaces/${inside.id}/restore`, { token: ada.token });
    expect(restored.status, JSON.stringify(restored.body)).toBe(200);
    expect(restored.body.parent).toBeUndefined();
    expect(await server.childrenInOrder(org, null)).toEqual([first.id, last.id, inside.id]);
  });

  it('answers 409 to the restore of a space that is not deleted, and 404 to other organizations', async () => {
    const org = await server.createOrg(ada);
    const space = await server.createSpace(ada, org);
    expectError(await server.request('POST', `/v1/spaces/${space.id}/restore`, { token: ada.token }), 409);
    expectError(await server.request('POST', `/v1/spaces/${space.id}/restore`, { token: bob.token }), 404);
    expectError(await server.request('POST', '/v1/spaces/never-existed/restore', { token: ada.token }), 404);

    expect((await server.request('DELETE', `/v1/spaces/${space.id}`, { token: ada.token })).status).toBe(205);
    expectError(await server.request('POST', `/v1/spaces/${space.id}/restore`, { token: bob.token }), 404);
    const reader = await server.createUser('Reader');
    await server.addMember(org, reader, 'read');
    expectError(await server.request('POST', `/v1/spaces/${space.id}/restore`, { token: reader.token }), 403);
    expect((await server.request('POST', `/v1/spaces/${space.id}/restore`, { token: ada.token })).status).toBe(200);
  });

  it('cannot restore a space deleted more than 7 days ago, and the purge removes it for good', async () => {
    const org = await server.createOrg(ada);
    const old = await server.createSpace(ada, org, { title: 'Old' });
    const recent = await server.createSpace(ada, org, { title: 'Recent' });
    const almost = await server.createSpace(ada, org, { title: 'Almost' });
    for (const s of [old, recent, almost]) expect((await server.request('DELETE', `/v1/spaces/${s.id}`, { token: ada.token })).status).toBe(205);
    await server.app.db.space.update({ where: { id: old.id }, data: { deletedAt: new Date(Date.now() - 8 * DAY) } });
    await server.app.db.space.update({ where: { id: almost.id }, data: { deletedAt: new Date(Date.now() - 6 * DAY) } });

    expectError(await server.request('POST', `/v1/spaces/${old.id}/restore`, { token: ada.token }), 409, /7 days/);
    const stillThere = await server.app.db.space.findUnique({ where: { id: old.id } });
    expect(stillThere?.deletedAt).toBeInstanceOf(Date);

    const purged = await purgeDeletedSpaces(server.app.db, server.app.provider);
    expect(purged).toBeGreaterThanOrEqual(1);
    expect(await server.app.db.space.findUnique({ where: { id: old.id } })).toBeNull();
    expect(await server.app.db.space.findUnique({ where: { id: recent.id } })).not.toBeNull();
    expect(await server.app.db.space.findUnique({ where: { id: almost.id } })).not.toBeNull();
    expect(await purgeDeletedSpaces(server.app.db, server.app.provider)).toBe(0);

    expectError(await server.request('POST', `/v1/spaces/${old.id}/restore`, { token: ada.token }), 404);
    expect((await server.request('DELETE', `/v1/spaces/${old.id}`, { token: ada.token })).status).toBe(204);
    for (const s of [recent, almost]) {
      const res = await server.request('POST', `/v1/spaces/${s.id}/restore`, { token: ada.token });
      expect(res.status).toBe(200);
      assertMatchesSpec('restoreSpace', 200, res.body);
    }
    expect(await server.listSpaceIds(ada, org)).toEqual([recent.id, almost.id]);
  });

  it('purges with an explicit clock: a space deleted now is purged 7 days and a moment later', async () => {
    const org = await server.createOrg(ada);
    const space = await server.createSpace(ada, org);
    expect((await server.request('DELETE', `/v1/spaces/${space.id}`, { token: ada.token })).status).toBe(205);
    await purgeDeletedSpaces(server.app.db, server.app.provider, new Date(Date.now() + 6 * DAY));
    expect(await server.app.db.space.findUnique({ where: { id: space.id } })).not.toBeNull();
    await purgeDeletedSpaces(server.app.db, server.app.provider, new Date(Date.now() + 7 * DAY + 60_000));
    expect(await server.app.db.space.findUnique({ where: { id: space.id } })).toBeNull();
  });
});

describe('duplicating spaces', () => {
  it('creates a copy next to the original (201), in the same collection', async () => {
    const org = await server.createOrg(ada);
    const collection = await server.createCollection(ada, org);
    const a = await server.createSpace(ada, org, { title: 'A', parent: collection.id, emoji: '1f4d8' });
    const b = await server.createSpace(ada, org, { title: 'B', parent: collection.id });
    const res = await server.request('POST', `/v1/spaces/${a.id}/duplicate`, { token: ada.token });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    assertMatchesSpec('duplicateSpace', 201, res.body);
    expect(res.body.id).not.toBe(a.id);
    expect(res.body.revision).not.toBe(a.revision);
    expect(res.body).toMatchObject({ title: 'Copy of A', emoji: '1f4d8', parent: collection.id, organization: org });
    expect(await server.listCollectionSpaceIds(ada, collection.id)).toEqual([a.id, res.body.id, b.id]);

    // The title stays within 50 characters.
    const long = await server.createSpace(ada, org, { title: 'y'.repeat(50) });
    const copy = await server.request('POST', `/v1/spaces/${long.id}/duplicate`, { token: ada.token });
    expect(copy.status).toBe(201);
    expect(copy.body.title.length).toBeLessThanOrEqual(50);
  });
});

describe('moving spaces', () => {
  it('moves into a collection, out of it, and before/after a sibling', async () => {
    const org = await server.createOrg(ada);
    const collection = await server.createCollection(ada, org);
    const a = await server.createSpace(ada, org, { title: 'A', parent: collection.id });
    const b = await server.createSpace(ada, org, { title: 'B', parent: collection.id });
    const c = await server.createSpace(ada, org, { title: 'C' });

    const into = await server.request('POST', `/v1/spaces/${c.id}/move`, { token: ada.token, body: { parent: collection.id } });
    expect(into.status, JSON.stringify(into.body)).toBe(200);
    assertMatchesSpec('moveSpace', 200, into.body);
    expect(into.body.parent).toBe(collection.id);
    expect(await server.listCollectionSpaceIds(ada, collection.id)).toEqual([a.id, b.id, c.id]);

    const before = await server.request('POST', `/v1/spaces/${c.id}/move`, { token: ada.token, body: { position: { before: { type: 'space', space: a.id } } } });
    expect(before.status, JSON.stringify(before.body)).toBe(200);
    assertMatchesSpec('moveSpace', 200, before.body);
    expect(await server.listCollectionSpaceIds(ada, collection.id)).toEqual([c.id, a.id, b.id]);

    const after = await server.request('POST', `/v1/spaces/${c.id}/move`, { token: ada.token, body: { position: { after: { type: 'space', space: a.id } } } });
    expect(after.status).toBe(200);
    assertMatchesSpec('moveSpace', 200, after.body);
    expect(await server.listCollectionSpaceIds(ada, collection.id)).toEqual([a.id, c.id, b.id]);

    const last = await server.request('POST', `/v1/spaces/${a.id}/move`, { token: ada.token, body: { position: { after: { type: 'space', space: b.id } } } });
    expect(last.status).toBe(200);
    expect(await server.listCollectionSpaceIds(ada, collection.id)).toEqual([c.id, b.id, a.id]);

    const out = await server.request('POST', `/v1/spaces/${c.id}/move`, { token: ada.token, body: { parent: null } });
    expect(out.status).toBe(200);
    assertMatchesSpec('moveSpace', 200, out.body);
    expect(out.body.parent).toBeUndefined();
    expect(await server.listCollectionSpaceIds(ada, collection.id)).toEqual([b.id, a.id]);

    // Into the collection at a given place.
    const placed = await server.request('POST', `/v1/spaces/${c.id}/move`, {
      token: ada.token,
      body: { parent: collection.id, position: { before: { type: 'space', space: a.id } } },
    });
    expect(placed.status).toBe(200);
    expect(await server.listCollectionSpaceIds(ada, collection.id)).toEqual([b.id, c.id, a.id]);
  });

  it('renumbers the siblings when the gap between two neighbours is too small for another position', async () => {
    const org = await server.createOrg(ada);
    const collection = await server.createCollection(ada, org);
    const a = await server.createSpace(ada, org, { title: 'A', parent: collection.id });
    const b = await server.createSpace(ada, org, { title: 'B', parent: collection.id });
    const c = await server.createSpace(ada, org, { title: 'C', parent: collection.id });
    // No double lies strictly between 1 and the next double after it.
    await server.app.db.space.update({ where: { id: a.id }, data: { position: 1 } });
    await server.app.db.space.update({ where: { id: b.id }, data: { position: 1 + Number.EPSILON } });
    await server.app.db.space.update({ where: { id: c.id }, data: { position: 5 } });
    const res = await server.request('POST', `/v1/spaces/${c.id}/move`, { token: ada.token, body: { position: { after: { type: 'space', space: a.id } } } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(await server.listCollectionSpaceIds(ada, collection.id)).toEqual([a.id, c.id, b.id]);
    const rows = await server.app.db.space.findMany({ where: { id: { in: [a.id, b.id] } }, select: { id: true, position: true } });
    expect(Object.fromEntries(rows.map((r) => [r.id, r.position]))).toEqual({ [a.id]: 1, [b.id]: 2 });
    const before = await server.request('POST', `/v1/spaces/${b.id}/move`, { token: ada.token, body: { position: { before: { type: 'space', space: c.id } } } });
    expect(before.status).toBe(200);
    expect(await server.listCollectionSpaceIds(ada, collection.id)).toEqual([a.id, b.id, c.id]);
  });

  it('refuses a position that is not a sibling (400), a move that changes nothing (409) and bad bodies (400)', async () => {
    const org = await server.createOrg(ada);
    const collection = await server.createCollection(ada, org);
    const inside = await server.createSpace(ada, org, { parent: collection.id });
    const top = await server.createSpace(ada, org);
    const otherOrg = await server.createOrg(ada);
    const foreign = await server.createCollection(ada, otherOrg);

    expectError(
      await server.request('POST', `/v1/spaces/${top.id}/move`, { token: ada.token, body: { position: { before: { type: 'space', space: inside.id } } } }),
      400,
      /position/,
    );
    expectError(
      await server.request('POST', `/v1/spaces/${top.id}/move`, { token: ada.token, body: { position: { after: { type: 'space', space: 'no-such-space' } } } }),
      400,
      /position/,
    );
    expectError(
      await server.request('POST', `/v1/spaces/${top.id}/move`, { token: ada.token, body: { position: { after: { type: 'space', space: top.id } } } }),
      400,
      /position/,
    );
    expectError(
      await server.request('POST', `/v1/spaces/${top.id}/move`, {
        token: ada.token,
        body: { position: { before: { type: 'space', space: inside.id }, after: { type: 'space', space: inside.id } } },
      }),
      400,
    );
    expectError(await server.request('POST', `/v1/spaces/${top.id}/move`, { token: ada.token, body: { position: { before: { type: 'page', page: 'x' } } } }), 400);
    expectError(await server.request('POST', `/v1/spaces/${top.id}/move`, { token: ada.token, body: { parent: 'no-such-collection' } }), 400, /parent/);
    expectError(await server.request('POST', `/v1/spaces/${top.id}/move`, { token: ada.token, body: { parent: foreign.id } }), 400, /parent/);
    expectError(await server.request('POST', `/v1/spaces/${top.id}/move`, { token: ada.token, body: {} }), 400);

    expectError(await server.request('POST', `/v1/spaces/${top.id}/move`, { token: ada.token, body: { parent: null } }), 409);
    expectError(await server.request('POST', `/v1/spaces/${inside.id}/move`, { token: ada.token, body: { parent: collection.id } }), 409);

    // Nothing moved.
    expect(await server.listCollectionSpaceIds(ada, collection.id)).toEqual([inside.id]);
    expect((await server.request('GET', `/v1/spaces/${top.id}`, { token: ada.token })).body.parent).toBeUndefined();
  });
  it('answers 409 to a position that leaves the space where it is, and 400 to a position naming no place', async () => {
    const org = await server.createOrg(ada);
    const collection = await server.createCollection(ada, org);
    const a = await server.createSpace(ada, org, { title: 'A', parent: collection.id });
    const b = await server.createSpace(ada, org, { title: 'B', parent: collection.id });
    const c = await server.createSpace(ada, org, { title: 'C', parent: collection.id });
    const move = (id: string, body: unknown) => server.request('POST', `/v1/spaces/${id}/move`, { token: ada.token, body });
    const at = (where: 'before' | 'after', id: string) => ({ [where]: { type: 'space', space: id } });

    for (const [id, position] of [
      [b.id, at('after', a.id)],
      [b.id, at('before', c.id)],
      [a.id, at('before', b.id)],
      [c.id, at('after', b.id)],
    ] as const) {
      expectError(await move(id, { position }), 409, /would not change anything/);
      // Naming the parent it is already in changes nothing either.
      expectError(await move(id, { parent: collection.id, position }), 409, /would not change anything/);
    }
    expect(await server.listCollectionSpaceIds(ada, collection.id)).toEqual([a.id, b.id, c.id]);

    for (const body of [{ position: {} }, { position: { before: null } }, { position: { after: null, before: null } }, { parent: collection.id, position: {} }, { parent: null, position: {} }]) {
      expectError(await move(c.id, body), 400, /position/);
    }
    expect(await server.listCollectionSpaceIds(ada, collection.id)).toEqual([a.id, b.id, c.id]);

    // A real change of place still goes through, and the same request again is then a no-op.
    const swapped = await move(a.id, { position: at('after', b.id) });
    expect(swapped.status, JSON.stringify(swapped.body)).toBe(200);
    assertMatchesSpec('moveSpace', 200, swapped.body);
    expect(await server.listCollectionSpaceIds(ada, collection.id)).toEqual([b.id, a.id, c.id]);
    expectError(await move(a.id, { position: at('after', b.id) }), 409);
    expectError(await move(a.id, { position: at('before', c.id) }), 409);

    // Next to a collection at the top level: the order mixes both kinds.
    const top = await server.createSpace(ada, org, { title: 'Top' });
    expect(await server.childrenInOrder(org, null)).toEqual([collection.id, top.id]);
    expectError(await move(top.id, { position: { after: { type: 'collection', collection: collection.id } } }), 409);
    const first = await move(top.id, { position: { before: { type: 'collection', collection: collection.id } } });
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect(await server.childrenInOrder(org, null)).toEqual([top.id, collection.id]);
  });
});

describe('transferring spaces', () => {
  it('transfers to an organization where the caller is admin or creator', async () => {
    const source = await server.createOrg(ada, 'Source');
    const target = await server.createOrg(ada, 'Target');
    const collection = await server.createCollection(ada, source);
    const space = await server.createSpace(ada, source, { parent: collection.id });

    const res = await server.request('POST', `/v1/spaces/${space.id}/transfer`, { token: ada.token, body: { organization: target } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    assertMatchesSpec('transferSpace', 200, res.body);
    expect(res.body).toMatchObject({ id: space.id, organization: target });
    expect(res.body.parent).toBeUndefined();
    expect(await server.listSpaceIds(ada, target)).toEqual([space.id]);
    expect(await server.listSpaceIds(ada, source)).toEqual([]);
    expect(await server.listCollectionSpaceIds(ada, collection.id)).toEqual([]);

    // To Bob's organization, where Ada may create content.
    const bobs = await server.createOrg(bob, 'Bob');
    await server.addMember(bobs, ada, 'create');
    const toBob = await server.request('POST', `/v1/spaces/${space.id}/transfer`, { token: ada.token, body: { organization: bobs } });
    expect(toBob.status, JSON.stringify(toBob.body)).toBe(200);
    assertMatchesSpec('transferSpace', 200, toBob.body);
    expect(toBob.body.organization).toBe(bobs);
    expect(await server.listSpaceIds(bob, bobs)).toEqual([space.id]);
    expect((await server.request('GET', `/v1/spaces/${space.id}`, { token: bob.token })).status).toBe(200);
  });

  it('answers 409 for the same organization, 404 for an organization the caller is not in, 403 for too little role there', async () => {
    const org = await server.createOrg(ada);
    const space = await server.createSpace(ada, org);
    expectError(await server.request('POST', `/v1/spaces/${space.id}/transfer`, { token: ada.token, body: { organization: org } }), 409);
    const bobs = await server.createOrg(bob, 'Bob');
    expectError(await server.request('POST', `/v1/spaces/${space.id}/transfer`, { token: ada.token, body: { organization: bobs } }), 404);
    expectError(await server.request('POST', `/v1/spaces/${space.id}/transfer`, { token: ada.token, body: { organization: 'no-such-org' } }), 404);
    const bobsOther = await server.createOrg(bob, 'Bob 2');
    await server.addMember(bobsOther, ada, 'edit');
    expectError(await server.request('POST', `/v1/spaces/${space.id}/transfer`, { token: ada.token, body: { organization: bobsOther } }), 403);
    expect(await server.listSpaceIds(ada, org)).toEqual([space.id]);
  });
});

describe('links of a space', () => {
  it('lists no links, with zero stats', async () => {
    const org = await server.createOrg(ada);
    const space = await server.createSpace(ada, org);
    const res = await server.request('GET', `/v1/spaces/${space.id}/links`, { token: ada.token });
    expect(res.status).toBe(200);
    assertMatchesSpec('listSpaceLinks', 200, res.body);
    expect(res.body).toMatchObject({ items: [], count: 0, stats: { total: 0, broken: { total: 0, changeRequest: 0 } } });
    expect(res.body.next).toBeUndefined();

    const filtered = await server.request('GET', `/v1/spaces/${space.id}/links?status=broken&limit=5`, { token: ada.token });
    expect(filtered.status).toBe(200);
    assertMatchesSpec('listSpaceLinks', 200, filtered.body);
    expectError(await server.request('GET', `/v1/spaces/${space.id}/links?status=bogus`, { token: ada.token }), 400, /status/);
    expectError(await server.request('GET', `/v1/spaces/${space.id}/links?limit=0`, { token: ada.token }), 400, /limit/);
  });
});

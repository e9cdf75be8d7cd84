/**
 * Collection permissions over REST (the eight endpoints: test/helpers/content-permissions.ts), and
 * what depends on them for collections: a grant on a collection opens it, the collections below it
 * and their spaces (lists included) and nothing beside it; grants dropped when a collection leaves
 * for another organization (on everything moved with it) or is deleted.
 */
import { describe, expect, it } from 'vitest';
import { describeContentPermissions, permissionsPath, rows } from '../helpers/content-permissions.ts';
import { assertMatchesSpec } from '../helpers/openapi.ts';

const { server, users, org, otherOrg } = describeContentPermissions('collection');
const db = () => rows(server);

/** A collection with a nested collection, a space in each, and a sibling collection with a space. */
async function tree(organization: string) {
  const ada = users.ada;
  const top = (await server.createCollection(ada, organization, { title: 'Top' })).id as string;
  const nested = (await server.createCollection(ada, organization, { title: 'Nested', parent: top })).id as string;
  const sibling = (await server.createCollection(ada, organization, { title: 'Sibling' })).id as string;
  const inTop = (await server.createSpace(ada, organization, { title: 'In top', parent: top })).id as string;
  const inNested = (await server.createSpace(ada, organization, { title: 'In nested', parent: nested })).id as string;
  const inSibling = (await server.createSpace(ada, organization, { title: 'In sibling', parent: sibling })).id as string;
  const loose = (await server.createSpace(ada, organization, { title: 'Loose' })).id as string;
  return { top, nested, sibling, inTop, inNested, inSibling, loose };
}

describe('a grant on a collection', () => {
  it('opens it, the collections below it and their spaces to a guest, in every list, and nothing beside it', async () => {
    const organization = await server.createOrg(users.ada, 'Shared');
    const t = await tree(organization);
    const guest = await server.createUser('Guest');
    const res = await server.request('POST', permissionsPath('collection', t.top), { token: users.ada.token, body: { role: 'comment', users: [guest.id] } });
    expect(res.status).toBe(204);

    expect((await server.listSpaceIds(guest, organization)).sort()).toEqual([t.inTop, t.inNested].sort());
    expect((await server.listIds(guest, `/v1/orgs/${organization}/collections`, 'listCollectionsInOrganizationById')).sort()).toEqual([t.top, t.nested].sort());
    expect(await server.listIds(guest, `/v1/orgs/${organization}/collections?nested=false`, 'listCollectionsInOrganizationById')).toEqual([t.top]);
    expect(await server.listCollectionSpaceIds(guest, t.nested)).toEqual([t.inNested]);
    const space = await server.request('GET', `/v1/spaces/${t.inNested}`, { token: guest.token });
    expect(space.status).toBe(200);
    expect(space.body.permissions).toMatchObject({ view: true, comment: true, edit: false });
    for (const path of [`/v1/spaces/${t.inSibling}`, `/v1/spaces/${t.loose}`, `/v1/collections/${t.sibling}`, `/v1/collections/${t.sibling}/spaces`]) {
      expect((await server.request('GET', path, { token: guest.token })).status, path).toBe(404);
    }
  });

  it("keeps the collection a guest's space grant sits in closed: 404 over REST, a null parent in GraphQL", async () => {
    const organization = await server.createOrg(users.ada, 'Partly shared');
    const t = await tree(organization);
    const guest = await server.createUser('Guest');
    await server.addMember(organization, guest, null);
    await db().grant(organization, 'space', t.inTop, 'user', guest.id, 'read');
    for (const path of [`/v1/collections/${t.top}`, `/v1/collections/${t.top}/spaces`]) {
      expect((await server.request('GET', path, { token: guest.token })).status, path).toBe(404);
    }
    const query = 'query($id: ID!) { space(id: $id) { id parentId parent { title spaces { items { id } } } } }';
    const graph = await server.graphql(query, { token: guest.token, variables: { id: t.inTop } });
    expect(graph.body).toEqual({ data: { space: { id: t.inTop, parentId: t.top, parent: null } } });
    // A member with a role reads it.
    const asAdmin = await server.graphql(query, { token: users.ada.token, variables: { id: t.inTop } });
    expect(asAdmin.body.data.space.parent).toEqual({ title: 'Top', spaces: { items: [{ id: t.inTop }] } });
    // Granted the nested collection, the guest reads it and what is in it, not the collection above it.
    await db().grant(organization, 'collection', t.nested, 'user', guest.id, 'read');
    const nested = await server.graphql('query($id: ID!) { collection(id: $id) { title parent { title } spaces { items { id } } } }', {
      token: guest.token,
      variables: { id: t.nested },
    });
    expect(nested.body).toEqual({ data: { collection: { title: 'Nested', parent: null, spaces: { items: [{ id: t.inNested }] } } } });
  });

  it('lists the spaces below a collection in the aggregate of each with the collection as the source', async () => {
    const organization = await server.createOrg(users.ada, 'Inherited');
    const t = await tree(organization);
    const guest = await server.createUser('Guest');
    await server.addMember(organization, guest, null);
    await db().grant(organization, 'collection', t.top, 'user', guest.id, 'edit');
    for (const [kind, id] of [['space', t.inNested], ['collection', t.nested]] as const) {
      const res = await server.request('GET', `${permissionsPath(kind, id)}/aggregate?role=edit`, { token: users.ada.token });
      assertMatchesSpec(kind === 'space' ? 'listPermissionsAggregateInSpace' : 'listPermissionsAggregateInCollection', 200, res.body);
      expect(res.body.items).toEqual([
        { permission: 'edit', user: expect.objectContaining({ id: guest.id }), sources: [{ type: 'user', role: 'edit', collection: t.top }] },
      ]);
    }
  });
});

describe('clean-up', () => {
  it("drops the old organization's grants on everything a transferred collection takes along, and only those", async () => {
    const t = await tree(org());
    const guest = await server.createUser('Guest');
    await server.addMember(org(), guest, null);
    const team = await db().team(org(), 'Movers', [users.rita]);
    const moved = [['collection', t.top], ['collection', t.nested], ['space', t.inTop], ['space', t.inNested]] as const;
    for (const [kind, id] of [...moved, ['collection', t.sibling], ['space', t.loose]] as const) {
      await db().grant(org(), kind, id, 'user', guest.id, 'read');
      await db().grant(org(), kind, id, 'team', team, 'edit');
    }
    const target = await server.createOrg(users.ada, 'Destination');
    const res = await server.request('POST', `/v1/collections/${t.top}/transfer`, { token: users.ada.token, body: { organization: target } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    for (const [kind, id] of moved) expect(await db().grantsOn(kind, id), `${kind} ${id}`).toEqual([]);
    expect(await db().grantsOn('collection', t.sibling)).toHaveLength(2);
    expect(await db().grantsOn('space', t.loose)).toHaveLength(2);
    expect((await server.request('GET', `/v1/spaces/${t.inNested}`, { token: guest.token })).status).toBe(404);
    // The new organization's admin lists no one of the old one.
    const aggregate = await server.request('GET', `${permissionsPath('collection', t.top)}/aggregate`, { token: users.ada.token });
    expect(aggregate.body.items.map((i: any) => i.user.id)).toEqual([users.ada.id]);
  });

  it('removes the grants on a deleted collection and the collections below it; its spaces in the bin keep theirs', async () => {
    const t = await tree(org());
    const guest = await server.createUser('Guest');
    await server.addMember(org(), guest, null);
    await db().grant(org(), 'collection', t.top, 'user', guest.id, 'read');
    await db().grant(org(), 'collection', t.nested, 'user', guest.id, 'edit');
    await db().grant(org(), 'space', t.inNested, 'user', guest.id, 'comment');
    await db().grant(org(), 'collection', t.sibling, 'user', guest.id, 'read');
    expect((await server.request('DELETE', `/v1/collections/${t.top}`, { token: users.ada.token })).status).toBe(205);
    expect(await db().grantsOn('collection', t.top)).toEqual([]);
    expect(await db().grantsOn('collection', t.nested)).toEqual([]);
    expect(await db().grantsOn('space', t.inNested)).toHaveLength(1);
    expect(await db().grantsOn('collection', t.sibling)).toHaveLength(1);
  });
});

describe('another organization', () => {
  it("never gets a 2xx from these routes with a second organization's token", async () => {
    const collection = (await server.createCollection(users.ada, org(), { title: 'Private' })).id;
    const team = await db().team(org(), 'Private team', [users.rita]);
    await db().grant(org(), 'collection', collection, 'user', users.rita.id, 'edit');
    await db().grant(org(), 'collection', collection, 'team', team, 'edit');
    const path = permissionsPath('collection', collection);
    const foreignTeam = await db().team(otherOrg(), 'Bob team', [users.bob]);
    const routes: Array<[string, string, unknown]> = [
      ['POST', path, { role: 'admin', users: [users.bob.id], teams: [foreignTeam] }],
      ['GET', `${path}/users`, undefined],
      ['PATCH', `${path}/users/${users.rita.id}`, { role: 'admin' }],
      ['DELETE', `${path}/users/${users.rita.id}`, undefined],
      ['GET', `${path}/teams`, undefined],
      ['PATCH', `${path}/teams/${team}`, { role: 'admin' }],
      ['DELETE', `${path}/teams/${team}`, undefined],
      ['GET', `${path}/aggregate`, undefined],
    ];
    for (const [method, route, body] of routes) {
      const res = await server.request(method, route, { token: users.bob.token, body });
      expect(res.status, `${method} ${route}`).toBe(404);
    }
    expect(await db().grantsOn('collection', collection)).toHaveLength(2);
  });
});

/**
 * Space permissions over REST (the eight endpoints: test/helpers/content-permissions.ts), and
 * what depends on them for spaces: GET /v1/orgs/{organizationId}/members/{userId}/spaces (every
 * space a member reaches, with their effective role), a guest with one space grant seeing that
 * space and nothing else, grants dropped when a space leaves for another organization or is
 * purged, and the statements a 1,000-space list costs (the same for 2,000).
 */
import { GitBookAPI } from '@gitbook/api';
import { describe, expect, it } from 'vitest';
import { newId } from '../../src/ids.ts';
import { purgeDeletedSpaces } from '../../src/services/space-purge.ts';
import { SPACE_RETENTION_MS } from '../../src/services/space.ts';
import { describeContentPermissions, permissionsPath, rows } from '../helpers/content-permissions.ts';
import { assertMatchesSpec } from '../helpers/openapi.ts';
import { databaseFingerprint } from '../helpers/rest-fixture.ts';
import { expectError, type TestUser } from '../helpers/server.ts';

const { server, users, org, otherOrg } = describeContentPermissions('space');
const db = () => rows(server);

describe('GET /v1/orgs/{organizationId}/members/{userId}/spaces', () => {
  const spacesOf = (user: { id: string }, query = '', caller: { token: string } = users.ada) =>
    server.request('GET', `/v1/orgs/${org()}/members/${user.id}/spaces${query ? `?${query}` : ''}`, { token: caller.token });

  /** A new organization of ada's with spaces `titles` (created in that order, one per second of createdAt). */
  async function organizationWithSpaces(titles: string[], parentOf: (i: number) => string | null = () => null) {
    const id = await server.createOrg(users.ada, 'Listed');
    const spaces = titles.map((title, i) => ({
      id: newId(),
      organizationId: id,
      parentId: parentOf(i),
      title,
      revisionId: newId(),
      position: i,
      createdAt: new Date(Date.UTC(2024, 0, 1, 0, 0, i)),
    }));
    return { id, spaces };
  }

  it('lists every space a member with a role reaches, newest first, each with their effective role', async () => {
    const { id: listed, spaces } = await organizationWithSpaces(['One', 'Two', 'Three', 'Four']);
    const folder = newId();
    await server.app.db.collection.create({ data: { id: folder, organizationId: listed, title: 'Folder' } });
    spaces[2]!.parentId = folder;
    await server.app.db.space.createMany({ data: spaces });
    const rita = await server.createUser('Member');
    await server.addMember(listed, rita, 'read');
    await db().grant(listed, 'collection', folder, 'user', rita.id, 'edit');
    await db().grant(listed, 'space', spaces[1]!.id, 'user', rita.id, 'admin');
    await server.app.db.space.update({ where: { id: spaces[3]!.id }, data: { defaultLevel: 'comment' } });
    await server.app.db.space.update({ where: { id: spaces[0]!.id }, data: { deletedAt: new Date() } }); // in the bin: not listed

    const res = await server.request('GET', `/v1/orgs/${listed}/members/${rita.id}/spaces`, { token: users.ada.token });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    assertMatchesSpec('listSpacesForOrganizationMember', 200, res.body);
    expect(res.body.items.map((i: any) => [i.space.title, i.permission])).toEqual([
      ['Four', 'comment'],
      ['Three', 'edit'],
      ['Two', 'admin'],
    ]);
    expect(res.body.count).toBe(3);
    // The space's own permissions are the caller's (ada, an admin).
    expect(res.body.items[0].space.permissions).toMatchObject({ admin: true });

    const asc = await server.request('GET', `/v1/orgs/${listed}/members/${rita.id}/spaces?order=asc&limit=2`, { token: users.ada.token });
    assertMatchesSpec('listSpacesForOrganizationMember', 200, asc.body);
    expect(asc.body.items.map((i: any) => i.space.title)).toEqual(['Two', 'Three']);
    const rest = await server.request('GET', `/v1/orgs/${listed}/members/${rita.id}/spaces?order=asc&limit=2&page=${asc.body.next.page}`, { token: users.ada.token });
    expect(rest.body.items.map((i: any) => i.space.title)).toEqual(['Four']);
    expect(rest.body.next).toBeUndefined();
  });

  it("lists a guest's spaces: exactly those their own and their teams' grants open, directly or through a collection", async () => {
    const { id: listed, spaces } = await organizationWithSpaces(['A', 'B', 'C', 'D', 'E']);
    const outer = newId();
    const inner = newId();
    await server.app.db.collection.create({ data: { id: outer, organizationId: listed, title: 'Outer' } });
    await server.app.db.collection.create({ data: { id: inner, organizationId: listed, title: 'Inner', parentId: outer } });
    spaces[3]!.parentId = inner;
    await server.app.db.space.createMany({ data: spaces });
    const guest = await server.createUser('Guest');
    await server.addMember(listed, guest, null);
    await db().grant(listed, 'space', spaces[0]!.id, 'user', guest.id, 'read');
    await db().grant(listed, 'collection', outer, 'team', await db().team(listed, 'T', [guest]), 'review');
    await db().grant(listed, 'space', spaces[3]!.id, 'user', guest.id, 'comment'); // the team's review is higher

    const res = await server.request('GET', `/v1/orgs/${listed}/members/${guest.id}/spaces`, { token: users.ada.token });
    assertMatchesSpec('listSpacesForOrganizationMember', 200, res.body);
    expect(res.body.items.map((i: any) => [i.space.title, i.permission])).toEqual([
      ['D', 'review'],
      ['A', 'read'],
    ]);
  });

  it('answers what GitBook\'s client expects', async () => {
    const api = new GitBookAPI({ authToken: users.ada.token, endpoint: server.baseUrl });
    const res = await api.orgs.listSpacesForOrganizationMember(org(), users.rita.id, { limit: 5, order: 'asc' as never });
    expect(res.status).toBe(200);
    assertMatchesSpec('listSpacesForOrganizationMember', 200, res.data);
    expect(res.data.items.every((i) => i.permission && i.space.object === 'space')).toBe(true);
  });

  it('is for members who may list members: a guest and another organization get 404; an unknown member 404', async () => {
    expect((await spacesOf(users.rita, '', users.rita)).status).toBe(200);
    expectError(await spacesOf(users.rita, '', users.gus), 404);
    expectError(await spacesOf(users.rita, '', users.bob), 404);
    expectError(await spacesOf(users.bob), 404);
    expectError(await spacesOf({ id: 'no-such-user' }), 404);
    expectError(await spacesOf(users.rita, 'order=sideways'), 400);
  });

  it("is empty for a disabled member (they reach nothing until re-enabled)", async () => {
    const dora = await server.createUser('Dora');
    await server.addMember(org(), dora, 'edit');
    expect((await spacesOf(dora)).body.count).toBeGreaterThan(0);
    await server.app.db.member.update({ where: { organizationId_userId: { organizationId: org(), userId: dora.id } }, data: { disabled: true } });
    const res = await spacesOf(dora);
    assertMatchesSpec('listSpacesForOrganizationMember', 200, res.body);
    expect(res.body).toMatchObject({ items: [], count: 0 });
  });
});

describe('a guest with one space grant', () => {
  it('sees that space, in the organization list and by id, and nothing else of the organization', async () => {
    const organization = await server.createOrg(users.ada, 'Guarded');
    const folder = (await server.createCollection(users.ada, organization, { title: 'Folder' })).id;
    const open = (await server.createSpace(users.ada, organization, { title: 'Open', parent: folder })).id;
    const sibling = (await server.createSpace(users.ada, organization, { title: 'Sibling', parent: folder })).id;
    const closed = (await server.createSpace(users.ada, organization, { title: 'Closed' })).id;
    const guest = await server.createUser('Guest');
    expect((await server.request('POST', permissionsPath('space', open), { token: users.ada.token, body: { role: 'read', users: [guest.email] } })).status).toBe(204);

    expect(await server.listSpaceIds(guest, organization)).toEqual([open]);
    expect((await server.request('GET', `/v1/spaces/${open}`, { token: guest.token })).status).toBe(200);
    for (const path of [`/v1/spaces/${sibling}`, `/v1/spaces/${closed}`, `/v1/collections/${folder}`, `/v1/collections/${folder}/spaces`]) {
      expect((await server.request('GET', path, { token: guest.token })).status, path).toBe(404);
    }
    // A guest knows the organization (they are a member of it) but may not list its members.
    expect((await server.request('GET', `/v1/orgs/${organization}/members`, { token: guest.token })).status).toBe(403);
    expect(await server.listIds(guest, `/v1/orgs/${organization}/collections`, 'listCollectionsInOrganizationById')).toEqual([]);
  });
});

describe('invites with limits', () => {
  it('adds no one outside an organization that lets new members in only through SAML (403, nothing written); its members are invited', async () => {
    const organization = await server.createOrg(users.ada, 'Single sign-on');
    await server.app.db.organization.update({ where: { id: organization }, data: { sso: true } });
    const space = (await server.createSpace(users.ada, organization, { title: 'SSO' })).id;
    const stranger = await server.createUser('Stranger');
    const member = await server.createUser('Member');
    await server.addMember(organization, member, 'read');
    const before = await databaseFingerprint(server);
    const res = await server.request('POST', permissionsPath('space', space), { token: users.ada.token, body: { role: 'edit', users: [member.id, stranger.email] } });
    expectError(res, 403, /requires single sign-on.*users: ".*" is not a member of it$/);
    expect(await databaseFingerprint(server)).toEqual(before);
    expect((await server.request('POST', permissionsPath('space', space), { token: users.ada.token, body: { role: 'edit', users: [member.id] } })).status).toBe(204);
  });

  it('takes at most 1,000 users and 1,000 teams in one call', async () => {
    const space = (await server.createSpace(users.ada, org(), { title: 'Crowded' })).id;
    const many = Array.from({ length: 1001 }, (_, i) => `user-${i}`);
    expectError(await server.request('POST', permissionsPath('space', space), { token: users.ada.token, body: { role: 'read', users: many } }), 400, /^users: at most 1000 users/);
    expectError(await server.request('POST', permissionsPath('space', space), { token: users.ada.token, body: { role: 'read', teams: many } }), 400, /^teams: at most 1000 teams/);
  });
});

describe('clean-up', () => {
  it('drops the grants of a space transferred to another organization, and the guest loses it', async () => {
    const space = (await server.createSpace(users.ada, org(), { title: 'Leaving' })).id;
    const other = (await server.createSpace(users.ada, org(), { title: 'Staying' })).id;
    const guest = await server.createUser('Guest');
    await server.addMember(org(), guest, null);
    const team = await db().team(org(), 'Leavers', [users.rita]);
    for (const id of [space, other]) {
      await db().grant(org(), 'space', id, 'user', guest.id, 'edit');
      await db().grant(org(), 'space', id, 'team', team, 'edit');
    }
    const target = await server.createOrg(users.ada, 'Destination');
    const res = await server.request('POST', `/v1/spaces/${space}/transfer`, { token: users.ada.token, body: { organization: target } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(await db().grantsOn('space', space)).toEqual([]);
    expect(await db().grantsOn('space', other)).toHaveLength(2);
    expect((await server.request('GET', `/v1/spaces/${space}`, { token: guest.token })).status).toBe(404);
  });

  it('keeps the grants of a space in the bin (a restore brings them back) and drops them when it is purged', async () => {
    const space = (await server.createSpace(users.ada, org(), { title: 'Binned' })).id;
    const guest = await server.createUser('Guest');
    await server.addMember(org(), guest, null);
    await db().grant(org(), 'space', space, 'user', guest.id, 'read');
    expect((await server.request('DELETE', `/v1/spaces/${space}`, { token: users.ada.token })).status).toBe(205);
    expect(await db().grantsOn('space', space)).toHaveLength(1);
    expect((await server.request('GET', `/v1/orgs/${org()}/members/${guest.id}/spaces`, { token: users.ada.token })).body.count).toBe(0);
    expect((await server.request('POST', `/v1/spaces/${space}/restore`, { token: users.ada.token })).status).toBe(200);
    expect((await server.request('GET', `/v1/spaces/${space}`, { token: guest.token })).status).toBe(200);

    expect((await server.request('DELETE', `/v1/spaces/${space}`, { token: users.ada.token })).status).toBe(205);
    const purged = await purgeDeletedSpaces(server.app.db, server.app.provider, new Date(Date.now() + SPACE_RETENTION_MS + 60_000));
    expect(purged).toBeGreaterThanOrEqual(1);
    expect(await db().grantsOn('space', space)).toEqual([]);
  });
});

describe('statements', () => {
  /** An organization with `n` spaces, half of them two collections deep; `guest` holds a grant on the outer collection and on every tenth top-level space. */
  async function seed(n: number, guest: TestUser) {
    const organization = await server.createOrg(users.ada, `Org of ${n}`);
    const outer = newId();
    const inner = newId();
    await server.app.db.collection.create({ data: { id: outer, organizationId: organization, title: 'Outer' } });
    await server.app.db.collection.create({ data: { id: inner, organizationId: organization, title: 'Inner', parentId: outer, defaultLevel: 'edit' } });
    const spaces = Array.from({ length: n }, (_, i) => ({
      id: newId(),
      organizationId: organization,
      parentId: i % 2 ? inner : null,
      title: `Space ${i}`,
      revisionId: newId(),
      position: i,
      defaultLevel: i % 3 ? 'inherit' : 'comment',
    }));
    await server.app.db.space.createMany({ data: spaces });
    await server.addMember(organization, guest, null);
    await db().grant(organization, 'collection', outer, 'user', guest.id, 'read');
    await server.app.db.contentGrant.createMany({
      data: spaces
        .filter((s, i) => !s.parentId && i % 10 === 0)
        .map((s) => ({ id: newId(), organizationId: organization, resourceKind: 'space', resourceId: s.id, granteeKind: 'user', granteeId: guest.id, role: 'edit' })),
    });
    // A member with a role and grants of their own, and through a team.
    const member = await server.createUser('Member');
    await server.addMember(organization, member, 'read');
    await db().grant(organization, 'collection', outer, 'team', await db().team(organization, 'Team', [member]), 'edit');
    return { organization, reachable: n / 2 + n / 10, member };
  }

  it("members/{userId}/spaces of 1,000 spaces, and a guest's space list of 1,000, cost the same handful of statements as with 2,000", async () => {
    const counts: Record<string, number[]> = { memberSpaces: [], guestMemberSpaces: [], guestList: [], guestGraph: [] };
    for (const n of [1000, 2000]) {
      const guest = await server.createUser(`Guest ${n}`);
      const { organization, reachable, member } = await seed(n, guest);
      const memberSpaces = await server.countStatements(() => server.request('GET', `/v1/orgs/${organization}/members/${member.id}/spaces?limit=1000`, { token: users.ada.token }));
      expect(memberSpaces.result.status).toBe(200);
      expect(memberSpaces.result.body.count).toBe(n);
      expect(new Set(memberSpaces.result.body.items.map((i: any) => i.permission))).toEqual(new Set(['read', 'comment', 'edit']));
      const guestSpaces = await server.countStatements(() => server.request('GET', `/v1/orgs/${organization}/members/${guest.id}/spaces?limit=1000`, { token: users.ada.token }));
      expect(guestSpaces.result.body.count).toBe(reachable);
      await server.request('GET', `/v1/orgs/${organization}`, { token: guest.token }); // the token's first use is recorded (a write) once a minute
      const guestList = await server.countStatements(() => server.request('GET', `/v1/orgs/${organization}/spaces?limit=1000`, { token: guest.token }));
      expect(guestList.result.status).toBe(200);
      expect(guestList.result.body.count).toBe(reachable);
      expect(guestList.result.body.items.length).toBe(Math.min(1000, reachable));
      expect(guestList.result.body.items.every((s: any) => s.permissions.view)).toBe(true);
      const guestGraph = await server.countStatements(() =>
        server.graphql('query($id: ID!) { organization(id: $id) { spaces(limit: 1000) { count items { id permissions { view edit } } } } }', {
          token: guest.token,
          variables: { id: organization },
        }),
      );
      expect(guestGraph.result.body.data.organization.spaces.count).toBe(reachable);
      counts.memberSpaces!.push(memberSpaces.statements);
      counts.guestMemberSpaces!.push(guestSpaces.statements);
      counts.guestList!.push(guestList.statements);
      counts.guestGraph!.push(guestGraph.statements);
    }
    console.log(`statements for 1,000 and 2,000 spaces: ${JSON.stringify(counts)}`);
    for (const [name, [small, large]] of Object.entries(counts)) {
      expect(large, name).toBe(small);
      expect(small, name).toBeLessThanOrEqual(12);
    }
  }, 120_000);
});

describe('another organization', () => {
  it("never gets a 2xx from these routes with a second organization's token", async () => {
    const space = (await server.createSpace(users.ada, org(), { title: 'Private' })).id;
    const team = await db().team(org(), 'Private team', [users.rita]);
    await db().grant(org(), 'space', space, 'user', users.rita.id, 'edit');
    await db().grant(org(), 'space', space, 'team', team, 'edit');
    const path = permissionsPath('space', space);
    // Even naming bob's own team, and bob's organization's id for the member list.
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
      ['GET', `/v1/orgs/${org()}/members/${users.rita.id}/spaces`, undefined],
    ];
    for (const [method, route, body] of routes) {
      const res = await server.request(method, route, { token: users.bob.token, body });
      expect(res.status, `${method} ${route}`).toBe(404);
    }
    expect(await db().grantsOn('space', space)).toHaveLength(2);
  });
});

/**
 * The permission endpoints of spaces and of collections mirror each other: one suite, run by
 * test/rest/space-permissions.test.ts and test/rest/collection-permissions.test.ts for their
 * kind. Over real HTTP, every answer checked against the OpenAPI document: inviting users (by id
 * and e-mail) and teams, listing users and teams with their roles, changing and removing a grant,
 * the aggregate with the sources of each role; bad input (400 naming it, nothing written), another
 * organization's team (404), a second organization's token (never a 2xx); the effective role the
 * rules decide on, through each of its paths, with the weakest role that may and the strongest
 * that may not; and GitBook's client.
 */
import { GitBookAPI } from '@gitbook/api';
import { beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../src/ids.ts';
import { assertMatchesSpec } from './openapi.ts';
import { databaseFingerprint } from './rest-fixture.ts';
import { expectError, useTestServer, type TestServer, type TestUser } from './server.ts';

export type Kind = 'space' | 'collection';

/** GitBook's operationIds of a kind's eight endpoints. */
export function operationsOf(kind: Kind) {
  const Type = kind === 'space' ? 'Space' : 'Collection';
  return {
    invite: `inviteTo${Type}`,
    listUsers: `listUserPermissionsIn${Type}`,
    updateUser: `updateUserPermissionIn${Type}`,
    removeUser: `removeUserFrom${Type}`,
    listTeams: `listTeamPermissionsIn${Type}`,
    updateTeam: `updateTeamPermissionIn${Type}`,
    removeTeam: `removeTeamFrom${Type}`,
    aggregate: `listPermissionsAggregateIn${Type}`,
  };
}

/** `/v1/spaces/{id}/permissions` or `/v1/collections/{id}/permissions`. */
export const permissionsPath = (kind: Kind, id: string) => `/v1/${kind === 'space' ? 'spaces' : 'collections'}/${id}/permissions`;

/** Writes rows straight to the database: teams and grants (the team endpoints are another part of the service). */
export function rows(server: TestServer) {
  return {
    async team(organizationId: string, title: string, members: Array<{ id: string }> = []): Promise<string> {
      const id = newId();
      await server.app.db.team.create({ data: { id, organizationId, title, members: { create: members.map((m) => ({ userId: m.id, role: 'member' })) } } });
      return id;
    },
    async grant(organizationId: string, resourceKind: Kind, resourceId: string, granteeKind: 'user' | 'team', granteeId: string, role: string) {
      await server.app.db.contentGrant.create({ data: { id: newId(), organizationId, resourceKind, resourceId, granteeKind, granteeId, role } });
    },
    grantsOn: (resourceKind: Kind, resourceId: string) =>
      server.app.db.contentGrant.findMany({ where: { resourceKind, resourceId }, select: { granteeKind: true, granteeId: true, role: true }, orderBy: { granteeId: 'asc' } }),
  };
}

/** The suite of one kind's eight endpoints. */
export function describeContentPermissions(kind: Kind) {
  const ops = operationsOf(kind);
  const { server, ada, rita, gus, olga, bob } = useTestServer({ users: ['Ada', 'Rita', 'Gus', 'Olga', 'Bob'] });
  // ada: admin; rita: read; gus: guest; olga: outside the organization; bob: admin of another organization.
  let org: string;
  let otherOrg: string;
  let parent: string; // the collection the resource is in
  let resource: string;
  let team: string; // rita's team
  let foreignTeam: string; // a team of bob's organization
  const db = () => rows(server);

  /** A new space or collection (the kind under test) in a new collection of the organization. */
  async function freshTarget(): Promise<{ id: string; parent: string }> {
    const folder = (await server.createCollection(ada, org, { title: 'Folder' })).id as string;
    const created = kind === 'space' ? await server.createSpace(ada, org, { title: 'Target', parent: folder }) : await server.createCollection(ada, org, { title: 'Target', parent: folder });
    return { id: created.id, parent: folder };
  }

  const call = (method: string, path: string, user: { token: string } | undefined, body?: unknown) => server.request(method, path, { token: user?.token, body });
  const base = () => permissionsPath(kind, resource);

  beforeAll(async () => {
    org = await server.createOrg(ada);
    otherOrg = await server.createOrg(bob, 'Other');
    await server.addMember(org, rita, 'read');
    await server.addMember(org, gus, null);
    ({ id: resource, parent } = await freshTarget());
    team = await db().team(org, 'Writers', [rita]);
    foreignTeam = await db().team(otherOrg, 'Elsewhere', [bob]);
  });

  describe(`${kind} permissions`, () => {
    it('invites users by id and by e-mail, and teams, with a role (204), then lists them with their roles', async () => {
      const res = await call('POST', base(), ada, { role: 'edit', users: [rita.id, gus.email.toUpperCase()], teams: [team] });
      expect(res.status, JSON.stringify(res.body)).toBe(204);
      assertMatchesSpec(ops.invite, 204, res.body);

      const users = await call('GET', `${base()}/users`, ada);
      expect(users.status).toBe(200);
      assertMatchesSpec(ops.listUsers, 200, users.body);
      expect(users.body.count).toBe(2);
      expect(users.body.items.map((i: any) => [i.user.id, i.permission]).sort()).toEqual([[gus.id, 'edit'], [rita.id, 'edit']].sort());
      expect(users.body.items[0].user).toMatchObject({ object: 'user', urls: { location: expect.stringContaining('/v1/users/') } });

      const teams = await call('GET', `${base()}/teams`, ada);
      expect(teams.status).toBe(200);
      assertMatchesSpec(ops.listTeams, 200, teams.body);
      expect(teams.body.items).toEqual([
        { permission: 'edit', team: { object: 'team', id: team, title: 'Writers', members: 1, spaces: kind === 'space' ? 1 : 0, createdAt: expect.any(String), permissions: { admin: true, view: true } } },
      ]);
    });

    it('inviting again changes the role of the grants named, and only theirs', async () => {
      expect((await call('POST', base(), ada, { role: 'comment', users: [gus.id] })).status).toBe(204);
      const held = await db().grantsOn(kind, resource);
      expect(held.find((g) => g.granteeId === gus.id)?.role).toBe('comment');
      expect(held.find((g) => g.granteeId === rita.id)?.role).toBe('edit');
      expect(held.find((g) => g.granteeId === team)?.role).toBe('edit');
    });

    it('makes a user outside the organization a guest of it, who then reaches the resource and nothing else', async () => {
      expect((await call('GET', `/v1/${kind === 'space' ? 'spaces' : 'collections'}/${resource}`, olga)).status).toBe(404);
      expect((await call('POST', base(), ada, { role: 'read', users: [olga.email] })).status).toBe(204);
      const member = await server.app.db.member.findUnique({ where: { organizationId_userId: { organizationId: org, userId: olga.id } } });
      expect(member).toMatchObject({ role: null, disabled: false });
      const got = await call('GET', `/v1/${kind === 'space' ? 'spaces' : 'collections'}/${resource}`, olga);
      expect(got.status).toBe(200);
      expect(got.body.permissions).toMatchObject({ view: true, admin: false });
      // The collection above stays closed to her.
      expect((await call('GET', `/v1/collections/${parent}`, olga)).status).toBe(404);
      if (kind === 'space') expect(await server.listSpaceIds(olga, org)).toEqual([resource]);
      else expect(await server.listIds(olga, `/v1/orgs/${org}/collections`, 'listCollectionsInOrganizationById')).toEqual([resource]);
    });

    it('refuses a role that is null, guest or unknown, and a call naming nobody: 400, nothing written', async () => {
      const before = await databaseFingerprint(server);
      const cases: Array<[unknown, RegExp]> = [
        [{ role: null, users: [rita.id] }, /^role: .*null \(a guest\)/],
        [{ users: [rita.id] }, /^role: /],
        [{ role: 'guest', users: [rita.id] }, /^role: /],
        [{ role: 'owner', teams: [team] }, /^role: /],
        [{ role: 'read' }, /at least one user in `users` or one team in `teams`/],
        [{ role: 'read', users: [], teams: [team] }, /^users: must hold at least one item/],
        [{ role: 'read', users: 'rita' }, /^users: must be an array/],
      ];
      for (const [body, message] of cases) expectError(await call('POST', base(), ada, body), 400, message);
      expect(await databaseFingerprint(server)).toEqual(before);
    });

    it('refuses unknown users, e-mails and teams with a 400 naming each, and applies nothing of the call', async () => {
      const before = await databaseFingerprint(server);
      const res = await call('POST', base(), ada, { role: 'admin', users: [rita.id, 'nobody@example.com', 'no-such-user'], teams: [team, 'no-such-team'] });
      expectError(res, 400, /^users: no user with the id or e-mail "nobody@example.com", "no-such-user"; teams: no team "no-such-team"$/);
      expect(await databaseFingerprint(server)).toEqual(before);
    });

    it("answers 404 for another organization's team, and applies nothing of the call", async () => {
      const before = await databaseFingerprint(server);
      expectError(await call('POST', base(), ada, { role: 'admin', users: [olga.id, bob.id], teams: [foreignTeam] }), 404, /^Team ".*" not found$/);
      expectError(await call('PATCH', `${base()}/teams/${foreignTeam}`, ada, { role: 'read' }), 404);
      expectError(await call('DELETE', `${base()}/teams/${foreignTeam}`, ada), 404);
      expect(await databaseFingerprint(server)).toEqual(before);
    });

    it("changes a user's and a team's role (204); a grantee without a grant is 404; a null or guest role 400", async () => {
      const patched = await call('PATCH', `${base()}/users/${rita.id}`, ada, { role: 'review' });
      expect(patched.status, JSON.stringify(patched.body)).toBe(204);
      assertMatchesSpec(ops.updateUser, 204, patched.body);
      const team204 = await call('PATCH', `${base()}/teams/${team}`, ada, { role: 'create' });
      expect(team204.status).toBe(204);
      assertMatchesSpec(ops.updateTeam, 204, team204.body);
      const held = await db().grantsOn(kind, resource);
      expect(held.find((g) => g.granteeId === rita.id)?.role).toBe('review');
      expect(held.find((g) => g.granteeId === team)?.role).toBe('create');

      const before = await databaseFingerprint(server);
      expectError(await call('PATCH', `${base()}/users/${ada.id}`, ada, { role: 'read' }), 404, /holds no permission on/);
      expectError(await call('PATCH', `${base()}/users/no-such-user`, ada, { role: 'read' }), 404);
      expectError(await call('PATCH', `${base()}/teams/no-such-team`, ada, { role: 'read' }), 404);
      expectError(await call('PATCH', `${base()}/users/${rita.id}`, ada, { role: null }), 400, /^role: /);
      expectError(await call('PATCH', `${base()}/users/${rita.id}`, ada, { role: 'guest' }), 400, /^role: /);
      expectError(await call('PATCH', `${base()}/teams/${team}`, ada, {}), 400, /^role: /);
      expect(await databaseFingerprint(server)).toEqual(before);
    });

    it("lists every user who reaches it, with the effective role and where it comes from; filtered by role, paged", async () => {
      const { id, parent: folder } = await freshTarget();
      const path = permissionsPath(kind, id);
      const [cara, dora, gil, ned] = await Promise.all(['Cara', 'Dora', 'Gil', 'Ned'].map((n) => server.createUser(n)));
      await server.addMember(org, cara!, null); // guest, grant on the collection above
      await server.addMember(org, dora!, 'edit'); // disabled: reaches nothing
      await server.app.db.member.update({ where: { organizationId_userId: { organizationId: org, userId: dora!.id } }, data: { disabled: true } });
      await server.addMember(org, gil!, null); // guest without grants: not listed
      await server.addMember(org, ned!, 'comment'); // raised by the default level
      const reviewers = await db().team(org, 'Reviewers', [rita, gus]);
      await db().grant(org, 'collection', folder, 'user', cara!.id, 'comment');
      await db().grant(org, kind, id, 'team', reviewers, 'edit');
      await db().grant(org, kind, id, 'user', rita.id, 'read'); // never lowers her
      const defaultLevel = await call('PATCH', `/v1/${kind === 'space' ? 'spaces' : 'collections'}/${id}`, ada, { defaultLevel: 'review' });
      expect(defaultLevel.status, JSON.stringify(defaultLevel.body)).toBe(200);

      const res = await call('GET', `${path}/aggregate`, ada);
      expect(res.status).toBe(200);
      assertMatchesSpec(ops.aggregate, 200, res.body);
      const byUser = new Map(res.body.items.map((i: any) => [i.user.id, i]));
      expect(res.body.count).toBe(res.body.items.length);
      expect(byUser.get(ada.id)).toMatchObject({ permission: 'admin', sources: [{ type: 'organization', role: 'admin' }, { type: 'defaultLevel', role: 'review' }] });
      expect(byUser.get(rita.id)).toMatchObject({
        permission: 'review',
        sources: [
          { type: 'organization', role: 'read' },
          { type: 'defaultLevel', role: 'review' },
          { type: 'user', role: 'read' },
          { type: 'team', role: 'edit', team: reviewers },
        ],
      });
      expect(byUser.get(gus.id)).toMatchObject({ permission: 'edit', sources: [{ type: 'team', role: 'edit', team: reviewers }] });
      expect(byUser.get(cara!.id)).toMatchObject({ permission: 'comment', sources: [{ type: 'user', role: 'comment', collection: folder }] });
      expect(byUser.get(ned!.id)).toMatchObject({ permission: 'review' });
      expect(byUser.has(dora!.id)).toBe(false);
      expect(byUser.has(gil!.id)).toBe(false);
      expect(byUser.has(olga.id)).toBe(false);
      // Strongest first.
      const ranks = ['admin', 'create', 'review', 'edit', 'comment', 'read'];
      const order = res.body.items.map((i: any) => ranks.indexOf(i.permission));
      expect(order).toEqual([...order].sort((a: number, b: number) => a - b));

      const edits = await call('GET', `${path}/aggregate?role=edit`, ada);
      assertMatchesSpec(ops.aggregate, 200, edits.body);
      expect(edits.body.items.map((i: any) => i.user.id)).toEqual([gus.id]);
      expectError(await call('GET', `${path}/aggregate?role=guest`, ada), 400);

      // Paged two at a time: the same users, in the same order, each once.
      const seen: string[] = [];
      let page: string | undefined;
      do {
        const next = await call('GET', `${path}/aggregate?limit=2${page ? `&page=${page}` : ''}`, ada);
        assertMatchesSpec(ops.aggregate, 200, next.body);
        expect(next.body.count).toBe(res.body.count);
        seen.push(...next.body.items.map((i: any) => i.user.id));
        page = next.body.next?.page;
      } while (page);
      expect(seen).toEqual(res.body.items.map((i: any) => i.user.id));
    });

    it('removes a grant (205), then answers 404 for it', async () => {
      const removed = await call('DELETE', `${base()}/users/${gus.id}`, ada);
      expect(removed.status).toBe(205);
      assertMatchesSpec(ops.removeUser, 205, removed.body);
      expectError(await call('DELETE', `${base()}/users/${gus.id}`, ada), 404, /holds no permission on/);
      const teamRemoved = await call('DELETE', `${base()}/teams/${team}`, ada);
      expect(teamRemoved.status).toBe(205);
      assertMatchesSpec(ops.removeTeam, 205, teamRemoved.body);
      expectError(await call('DELETE', `${base()}/teams/${team}`, ada), 404);
      expect((await db().grantsOn(kind, resource)).map((g) => g.granteeId).sort()).toEqual([olga.id, rita.id].sort());
    });

    it('lets readers list and only admins of it change; a guest without a grant, another organization and no token get nothing', async () => {
      const every = (path: string) =>
        [
          ['POST', path, { role: 'read', users: [gus.id] }],
          ['GET', `${path}/users`, undefined],
          ['PATCH', `${path}/users/${rita.id}`, { role: 'read' }],
          ['DELETE', `${path}/users/${rita.id}`, undefined],
          ['GET', `${path}/teams`, undefined],
          ['PATCH', `${path}/teams/${team}`, { role: 'read' }],
          ['DELETE', `${path}/teams/${team}`, undefined],
          ['GET', `${path}/aggregate`, undefined],
        ] as const;
      // The mirror of the lists: bob's organization's resource is as invisible to ada.
      const theirs = kind === 'space' ? (await server.createSpace(bob, otherOrg)).id : (await server.createCollection(bob, otherOrg)).id;
      const before = await databaseFingerprint(server);
      for (const [method, path, body] of every(base())) {
        const res = await call(method, path, rita, body);
        if (method === 'GET') expect(res.status, `${method} ${path}`).toBe(200);
        else expectError(res, 403);
      }
      await server.expectErrors(every(base()), gus.token, 404);
      await server.expectErrors(every(base()), bob.token, 404);
      await server.expectErrors(every(permissionsPath(kind, theirs)), ada.token, 404);
      await server.expectErrors(every(base()), undefined, 401);
      expect(await databaseFingerprint(server)).toEqual(before);
    });

    describe('decides on the caller\'s effective role, through each of its paths', () => {
      /** Whether `user` may invite someone to the target (manage) and list its grants (list). */
      async function may(user: TestUser, target: string) {
        const path = permissionsPath(kind, target);
        const list = (await call('GET', `${path}/users`, user)).status;
        const manage = (await call('POST', path, user, { role: 'read', users: [rita.id] })).status;
        return { list, manage };
      }
      async function guestWith(name: string) {
        const user = await server.createUser(name);
        await server.addMember(org, user, null);
        return user;
      }

      it('organization role: admin manages, create only lists; a guest does neither', async () => {
        const { id } = await freshTarget();
        const [admin, creator] = await Promise.all([server.createUser('Admin'), server.createUser('Creator')]);
        await server.addMember(org, admin, 'admin');
        await server.addMember(org, creator, 'create');
        expect(await may(admin, id)).toEqual({ list: 200, manage: 204 });
        expect(await may(creator, id)).toEqual({ list: 200, manage: 403 });
        expect(await may(gus, id)).toEqual({ list: 404, manage: 404 });
      });

      it('default level: admin manages, create does not (a member with read)', async () => {
        const reader = await server.createUser('Reader');
        await server.addMember(org, reader, 'read');
        for (const [level, manage] of [['admin', 204], ['create', 403]] as const) {
          const { id } = await freshTarget();
          expect((await call('PATCH', `/v1/${kind === 'space' ? 'spaces' : 'collections'}/${id}`, ada, { defaultLevel: level })).status).toBe(200);
          expect(await may(reader, id)).toEqual({ list: 200, manage });
        }
      });

      it("a user's own grant: admin manages, create does not; read lists, none does not", async () => {
        for (const [role, expected] of [['admin', { list: 200, manage: 204 }], ['create', { list: 200, manage: 403 }], ['read', { list: 200, manage: 403 }]] as const) {
          const { id } = await freshTarget();
          const user = await guestWith(`Grantee ${role}`);
          await db().grant(org, kind, id, 'user', user.id, role);
          expect(await may(user, id), role).toEqual(expected);
        }
        const { id } = await freshTarget();
        expect(await may(await guestWith('Nobody'), id)).toEqual({ list: 404, manage: 404 });
      });

      it("a team's grant: admin manages, create does not; read lists", async () => {
        for (const [role, expected] of [['admin', { list: 200, manage: 204 }], ['create', { list: 200, manage: 403 }], ['read', { list: 200, manage: 403 }]] as const) {
          const { id } = await freshTarget();
          const user = await guestWith(`Team member ${role}`);
          await db().grant(org, kind, id, 'team', await db().team(org, `Team ${role}`, [user]), role);
          expect(await may(user, id), role).toEqual(expected);
        }
      });

      it('a grant on the collection above: admin manages, create does not; read lists', async () => {
        for (const [role, expected] of [['admin', { list: 200, manage: 204 }], ['create', { list: 200, manage: 403 }], ['read', { list: 200, manage: 403 }]] as const) {
          const { id, parent: folder } = await freshTarget();
          const user = await guestWith(`Inheritor ${role}`);
          await db().grant(org, 'collection', folder, 'user', user.id, role);
          expect(await may(user, id), role).toEqual(expected);
        }
      });
    });

    it("works through GitBook's client", async () => {
      const { id } = await freshTarget();
      const api = new GitBookAPI({ authToken: ada.token, endpoint: server.baseUrl });
      const target = api[kind === 'space' ? 'spaces' : 'collections'] as any;
      const reviewers = await db().team(org, 'Client team', [rita]);
      expect((await target[ops.invite](id, { role: 'edit', users: [gus.id], teams: [reviewers] })).status).toBe(204);
      const users = await target[ops.listUsers](id, { limit: 10 });
      assertMatchesSpec(ops.listUsers, 200, users.data);
      expect(users.data.items.map((i: any) => i.user.id)).toEqual([gus.id]);
      const teams = await target[ops.listTeams](id);
      assertMatchesSpec(ops.listTeams, 200, teams.data);
      expect(teams.data.items.map((i: any) => i.team.id)).toEqual([reviewers]);
      expect((await target[ops.updateUser](id, gus.id, { role: 'admin' })).status).toBe(204);
      expect((await target[ops.updateTeam](id, reviewers, { role: 'comment' })).status).toBe(204);
      const aggregate = await target[ops.aggregate](id, { role: 'admin' });
      assertMatchesSpec(ops.aggregate, 200, aggregate.data);
      expect(aggregate.data.items.map((i: any) => i.user.id)).toEqual(expect.arrayContaining([ada.id, gus.id]));
      expect(aggregate.data.items.every((i: any) => i.permission === 'admin')).toBe(true);
      expect((await target[ops.removeUser](id, gus.id)).status).toBe(205);
      expect((await target[ops.removeTeam](id, reviewers)).status).toBe(205);
      expect(await db().grantsOn(kind, id)).toEqual([]);
    });
  });

  return { server, users: { ada, rita, gus, olga, bob }, org: () => org, otherOrg: () => otherOrg, freshTarget };
}

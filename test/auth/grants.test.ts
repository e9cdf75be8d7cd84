/**
 * The access model's grants, end to end over REST: a user or a team holding a role on a space or
 * a collection (rows written directly: the permission endpoints build on this), raising the
 * caller's effective role through collection inheritance and team membership, never lowering
 * it; guests and non-members seeing exactly what their grants open; a disabled member refused.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../src/ids.ts';
import { useTestServer, type TestUser } from '../helpers/server.ts';

const { server, ada } = useTestServer({ users: ['Ada'] });

describe('grants', () => {
  let org: string;
  let collection: string;
  let nested: string;
  let inNested: string;
  let topLevel: string;
  let gus: TestUser; // guest
  let rita: TestUser; // read
  let olga: TestUser; // not a member
  let team: string;

  async function grant(resourceKind: 'space' | 'collection', resourceId: string, granteeKind: 'user' | 'team', granteeId: string, role: string) {
    await server.app.db.contentGrant.create({ data: { id: newId(), organizationId: org, resourceKind, resourceId, granteeKind, granteeId, role } });
  }
  const get = (path: string, user: TestUser) => server.request('GET', path, { token: user.token });
  const rename = (space: string, user: TestUser) => server.request('PATCH', `/v1/spaces/${space}`, { token: user.token, body: { title: 'Renamed' } });

  beforeAll(async () => {
    org = await server.createOrg(ada);
    collection = (await server.createCollection(ada, org, { title: 'Handbook' })).id;
    nested = (await server.createCollection(ada, org, { title: 'Nested', parent: collection })).id;
    inNested = (await server.createSpace(ada, org, { title: 'Deep', parent: nested })).id;
    topLevel = (await server.createSpace(ada, org, { title: 'Top' })).id;
    gus = await server.createUser('Gus');
    rita = await server.createUser('Rita');
    olga = await server.createUser('Olga');
    await server.addMember(org, gus, null);
    await server.addMember(org, rita, 'read');
    team = newId();
    await server.app.db.team.create({ data: { id: team, organizationId: org, title: 'Writers', members: { create: [{ userId: rita.id, role: 'member' }] } } });
  });

  it('a guest sees nothing until a grant opens a space, then that space only', async () => {
    expect((await get(`/v1/spaces/${inNested}`, gus)).status).toBe(404);
    await grant('space', inNested, 'user', gus.id, 'read');
    const res = await get(`/v1/spaces/${inNested}`, gus);
    expect(res.status).toBe(200);
    expect(res.body.permissions).toMatchObject({ view: true, edit: false, admin: false });
    expect((await get(`/v1/spaces/${topLevel}`, gus)).status).toBe(404);
    expect((await get(`/v1/collections/${nested}`, gus)).status).toBe(404);
    expect((await rename(inNested, gus)).status).toBe(403);
  });

  it("a team's grant on a collection raises its members' role on everything below it", async () => {
    expect((await rename(inNested, rita)).status).toBe(403);
    await grant('collection', collection, 'team', team, 'edit');
    const res = await rename(inNested, rita);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect((await get(`/v1/spaces/${inNested}`, rita)).body.permissions).toMatchObject({ edit: true, admin: false });
    // Not above the collection: the top-level space keeps the organization role.
    expect((await rename(topLevel, rita)).status).toBe(403);
  });

  it("counts a member's teams and their own space grants, in one pair of statements for the whole list", async () => {
    const res = await get(`/v1/orgs/${org}/members`, ada);
    expect(res.status).toBe(200);
    const byId = new Map(res.body.items.map((m: { id: string }) => [m.id, m]));
    expect(byId.get(rita.id)).toMatchObject({ teams: 1, spaces: 0 });
    expect(byId.get(gus.id)).toMatchObject({ teams: 0, spaces: 1 });
    expect(byId.get(ada.id)).toMatchObject({ teams: 0, spaces: 0 });
  });

  it('a grant never lowers a role', async () => {
    await grant('space', topLevel, 'user', ada.id, 'read');
    expect((await get(`/v1/spaces/${topLevel}`, ada)).body.permissions).toMatchObject({ admin: true });
  });

  it('a user outside the organization reaches what a grant opens, and not the organization', async () => {
    expect((await get(`/v1/spaces/${topLevel}`, olga)).status).toBe(404);
    await grant('space', topLevel, 'user', olga.id, 'comment');
    const res = await get(`/v1/spaces/${topLevel}`, olga);
    expect(res.status).toBe(200);
    expect(res.body.permissions).toMatchObject({ view: true, comment: true, edit: false });
    expect((await get(`/v1/orgs/${org}`, olga)).status).toBe(404);
  });

  it('a disabled member is refused with a 403 that says so, whatever their grants, until re-enabled', async () => {
    await server.app.db.member.update({ where: { organizationId_userId: { organizationId: org, userId: rita.id } }, data: { disabled: true } });
    for (const path of [`/v1/spaces/${inNested}`, `/v1/orgs/${org}`, `/v1/orgs/${org}/members`]) {
      const res = await get(path, rita);
      expect(res.status, path).toBe(403);
      expect(res.body.error.message).toMatch(/membership of organization .* is disabled/);
    }
    await server.app.db.member.update({ where: { organizationId_userId: { organizationId: org, userId: rita.id } }, data: { disabled: false } });
    expect((await get(`/v1/spaces/${inNested}`, rita)).status).toBe(200);
  });

  it('costs a caller without grants no statement, and one with grants one per request', async () => {
    const read = async (user: TestUser) => (await server.countStatements(() => get(`/v1/spaces/${topLevel}`, user))).statements;
    const member = await server.createUser('Mona');
    await server.addMember(org, member, 'read');
    await get(`/v1/spaces/${topLevel}`, member); // the token's first use is recorded (a write) once a minute
    const withoutGrants = await read(member);
    await grant('space', inNested, 'user', member.id, 'edit');
    await get(`/v1/spaces/${topLevel}`, member); // the grant made the process forget the callers it kept: read again once
    const withGrants = await read(member);
    expect((await get(`/v1/spaces/${inNested}`, member)).body.permissions).toMatchObject({ edit: true });
    expect(withGrants).toBe(withoutGrants + 1);
  });
});

/**
 * Disabling members, end to end: PATCH .../members/{userId} with `disabled`
 * (an extension) and GraphQL's disableMember/enableMember, by admins only; a
 * disabled member is refused everything of the organization (403 naming it)
 * until enabled again; the last enabled admin is never disabled, demoted or
 * removed. And removing a member removes their grants and team memberships in
 * that organization (only there).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../src/ids.ts';
import { assertMatchesSpec } from '../helpers/openapi.ts';
import { databaseFingerprint } from '../helpers/rest-fixture.ts';
import { expectError, useTestServer, type TestUser } from '../helpers/server.ts';

const { server, ada, bob } = useTestServer({ users: ['Ada', 'Bob'] }); // Ada: admin; Bob: another organization's admin
let otherOrg: string;

beforeAll(async () => {
  otherOrg = await server.createOrg(bob, 'Elsewhere');
});

const member = (organizationId: string, userId: string) => `/v1/orgs/${organizationId}/members/${userId}`;

async function patch(organizationId: string, user: TestUser, body: unknown, as: TestUser = ada) {
  return server.request('PATCH', member(organizationId, user.id), { token: as.token, body });
}

describe('PATCH /v1/orgs/{organizationId}/members/{userId} with disabled', () => {
  it('disables a member, who is refused with a 403 naming it, and enables them again', async () => {
    const org = await server.createOrg(ada, 'Disable');
    const space = (await server.createSpace(ada, org)).id;
    const ed = await server.createUser('Ed');
    await server.addMember(org, ed, 'edit');
    expect((await server.request('GET', `/v1/spaces/${space}`, { token: ed.token })).status).toBe(200);

    const res = await patch(org, ed, { disabled: true });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    assertMatchesSpec('updateMemberInOrganizationById', 200, res.body);
    expect(res.body).toMatchObject({ id: ed.id, role: 'edit', disabled: true });
    for (const [method, path] of [
      ['GET', `/v1/spaces/${space}`],
      ['GET', `/v1/orgs/${org}`],
      ['GET', `/v1/orgs/${org}/members`],
      ['POST', `/v1/orgs/${org}/ping`],
    ] as const) {
      expectError(await server.request(method, path, { token: ed.token }), 403, /^Your membership of organization ".*" is disabled/);
    }
    // Their token still works elsewhere.
    expect((await server.request('GET', '/v1/user', { token: ed.token })).status).toBe(200);

    const enabled = await patch(org, ed, { disabled: false });
    assertMatchesSpec('updateMemberInOrganizationById', 200, enabled.body);
    expect(enabled.body.disabled).toBe(false);
    expect((await server.request('GET', `/v1/spaces/${space}`, { token: ed.token })).status).toBe(200);
    // Role and state change together.
    const both = await patch(org, ed, { role: 'read', disabled: true });
    expect(both.body).toMatchObject({ role: 'read', disabled: true });
  });

  it('is for admins only, and refuses bad values, writing nothing', async () => {
    const org = await server.createOrg(ada, 'Rules');
    const [ed, rae] = [await server.createUser('Ed'), await server.createUser('Rae')];
    await server.addMember(org, ed, 'create');
    await server.addMember(org, rae, 'read');
    const before = await databaseFingerprint(server);
    expectError(await patch(org, rae, { disabled: true }, ed), 403, /member:update/);
    expectError(await patch(org, rae, { disabled: true }, bob), 404);
    expectError(await patch(org, rae, { disabled: 'yes' }), 400, /^disabled: must be true or false$/);
    expectError(await patch(org, rae, { disabled: null }), 400, /^disabled: must be true or false$/);
    expect(await databaseFingerprint(server)).toEqual(before);
    expect((await server.app.db.member.findFirstOrThrow({ where: { organizationId: org, userId: rae.id } })).disabled).toBe(false);
  });

  it('never disables, demotes or removes the last enabled admin (409)', async () => {
    const org = await server.createOrg(ada, 'Admins');
    expectError(await patch(org, ada, { disabled: true }), 409, /at least one admin/);
    const cy = await server.createUser('Cy');
    await server.addMember(org, cy, 'admin');
    // With another enabled admin, one may go; then the other is the last.
    expect((await patch(org, cy, { disabled: true })).status).toBe(200);
    expectError(await patch(org, ada, { disabled: true }), 409, /at least one admin/);
    expectError(await patch(org, ada, { role: 'edit' }), 409, /at least one admin/);
    expectError(await server.request('DELETE', member(org, ada.id), { token: ada.token }), 409, /at least one admin/);
    // A disabled admin can be removed; an enabled one cannot be disabled and demoted at once when last.
    expectError(await patch(org, ada, { role: 'admin', disabled: true }), 409);
    expect((await patch(org, cy, { disabled: false })).status).toBe(200);
    expect((await patch(org, ada, { disabled: true })).status).toBe(200);
    // Ada is disabled now: Cy, the one enabled admin, re-enables her.
    expectError(await patch(org, cy, { disabled: false }, ada), 403, /is disabled/);
    expect((await patch(org, ada, { disabled: false }, cy)).status).toBe(200);
  });

  it('lets exactly one of two admins disable the other at the same time', async () => {
    const org = await server.createOrg(ada, 'Race');
    const cy = await server.createUser('Cy');
    await server.addMember(org, cy, 'admin');
    const results = await Promise.all([patch(org, cy, { disabled: true }, ada), patch(org, ada, { disabled: true }, cy)]);
    const statuses = results.map((r) => r.status).sort();
    // The loser is refused as disabled (403, its caller was disabled first) or as the last admin (409).
    expect(statuses[0], JSON.stringify(results.map((r) => r.body))).toBe(200);
    expect([403, 409]).toContain(statuses[1]);
    expect(await server.app.db.member.count({ where: { organizationId: org, role: 'admin', disabled: false } })).toBe(1);
  });
});

describe('GraphQL disableMember and enableMember', () => {
  it('disable and enable a member, answering the member with nested fields', async () => {
    const org = await server.createOrg(ada, 'GraphQL');
    const fin = await server.createUser('Fin');
    await server.addMember(org, fin, 'comment');
    const run = (mutation: 'disableMember' | 'enableMember', token = ada.token) =>
      server.graphql(`mutation($org: ID!, $user: ID!) { ${mutation}(organizationId: $org, userId: $user) { id role disabled user { email } } }`, {
        token,
        variables: { org, user: fin.id },
      });
    const disabled = await run('disableMember');
    expect(disabled.body).toEqual({ data: { disableMember: { id: fin.id, role: 'comment', disabled: true, user: { email: fin.email } } } });
    const members = await server.graphql('query($org: ID!) { organization(id: $org) { members { items { id disabled } } } }', { token: ada.token, variables: { org } });
    expect(members.body.data.organization.members.items).toContainEqual({ id: fin.id, disabled: true });
    const refused = await server.graphql('query($org: ID!) { organization(id: $org) { title } }', { token: fin.token, variables: { org } });
    expect(refused.body.errors?.[0]?.message).toMatch(/is disabled/);
    expect((await run('enableMember', fin.token)).body.errors?.[0]?.message).toMatch(/is disabled/);
    expect((await run('enableMember')).body.data.enableMember.disabled).toBe(false);
    const notAdmin = await run('disableMember', fin.token);
    expect(notAdmin.body.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
  });
});

describe('removing a member', () => {
  it("removes their grants and team memberships in that organization, and nothing of another's", async () => {
    const org = await server.createOrg(ada, 'Clean-up');
    const space = (await server.createSpace(ada, org)).id;
    const collection = (await server.createCollection(ada, org)).id;
    const otherSpace = (await server.createSpace(bob, otherOrg)).id;
    const gil = await server.createUser('Gil');
    await server.addMember(org, gil, 'read');
    await server.addMember(otherOrg, gil, 'read');
    const db = server.app.db;
    const team = await db.team.create({ data: { id: newId(), organizationId: org, title: 'Writers' } });
    const otherTeam = await db.team.create({ data: { id: newId(), organizationId: otherOrg, title: 'Elsewhere' } });
    await db.teamMember.createMany({ data: [{ teamId: team.id, userId: gil.id, role: 'owner' }, { teamId: otherTeam.id, userId: gil.id }, { teamId: team.id, userId: ada.id }] });
    const grant = (organizationId: string, resourceKind: string, resourceId: string, granteeKind: string, granteeId: string) => ({
      id: newId(), organizationId, resourceKind, resourceId, granteeKind, granteeId, role: 'edit',
    });
    await db.contentGrant.createMany({
      data: [
        grant(org, 'space', space, 'user', gil.id),
        grant(org, 'collection', collection, 'user', gil.id),
        grant(otherOrg, 'space', otherSpace, 'user', gil.id),
        grant(org, 'space', space, 'team', team.id),
      ],
    });
    const before = await server.request('GET', member(org, gil.id), { token: ada.token });
    expect(before.body).toMatchObject({ spaces: 1, teams: 1 });

    const removed = await server.request('DELETE', member(org, gil.id), { token: ada.token });
    expect(removed.status).toBe(205);
    expect(await db.contentGrant.findMany({ where: { granteeId: gil.id }, select: { organizationId: true } })).toEqual([{ organizationId: otherOrg }]);
    expect(await db.teamMember.findMany({ where: { userId: gil.id }, select: { teamId: true } })).toEqual([{ teamId: otherTeam.id }]);
    // The team keeps its other members and its own grants.
    expect(await db.teamMember.count({ where: { teamId: team.id } })).toBe(1);
    expect(await db.contentGrant.count({ where: { granteeKind: 'team', granteeId: team.id } })).toBe(1);
    expectError(await server.request('GET', `/v1/spaces/${space}`, { token: gil.token }), 404);
    expect((await server.request('GET', `/v1/spaces/${otherSpace}`, { token: gil.token })).status).toBe(200);
  });

  it('does so when a member leaves, through GraphQL too', async () => {
    const org = await server.createOrg(ada, 'Leaving');
    const space = (await server.createSpace(ada, org)).id;
    const hu = await server.createUser('Hu');
    await server.addMember(org, hu, null);
    await server.app.db.contentGrant.create({ data: { id: newId(), organizationId: org, resourceKind: 'space', resourceId: space, granteeKind: 'user', granteeId: hu.id, role: 'read' } });
    const res = await server.graphql('mutation($org: ID!, $user: ID!) { removeMember(organizationId: $org, userId: $user) }', { token: hu.token, variables: { org, user: hu.id } });
    expect(res.body).toEqual({ data: { removeMember: true } });
    expect(await server.app.db.contentGrant.count({ where: { granteeId: hu.id } })).toBe(0);
  });
});

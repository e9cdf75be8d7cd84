/**
 * Teams and team members over REST: create, list (owner and title filters, paging), get, rename
 * and delete teams; list, bulk-change, set and remove their members; a member's teams. Every
 * answer is checked against GitBook's OpenAPI document. Who may do what: members see teams,
 * admins make, rename and delete them, admins and the team's owners manage its members, and an
 * owner never adds members to a team whose grants exceed their own role. Another organization's
 * teams and users are 404, and its members never get a 2xx here.
 */
import { GitBookAPI } from '@gitbook/api';
import { beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../src/ids.ts';
import { restRoutes } from '../../src/rest/generated/routes.ts';
import { assertMatchesSpec } from '../helpers/openapi.ts';
import { expectError, useTestServer, type TestUser } from '../helpers/server.ts';

// Ada: admin; Olive: read, owns teams; Mia: edit; Rita: read; Gus: guest; Outsider: no member; Bob: admin of another organization.
const { server, ada, olive, mia, rita, gus, outsider, bob } = useTestServer({ users: ['Ada', 'Olive', 'Mia', 'Rita', 'Gus', 'Outsider', 'Bob'] });

let org: string;
let otherOrg: string;
let otherTeam: string;

interface Team {
  id: string;
  title: string;
  members: number;
  spaces: number;
  permissions: { admin: boolean; view: boolean };
}

async function createTeam(user: TestUser, organizationId: string, body: Record<string, unknown>): Promise<Team> {
  const res = await server.request('PUT', `/v1/orgs/${organizationId}/teams`, { token: user.token, body });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  assertMatchesSpec('createOrganizationTeam', 201, res.body);
  return res.body;
}

/** Puts users in a team straight in the database, with their roles. */
async function seedMembers(teamId: string, members: Array<[TestUser, 'owner' | 'member']>) {
  await server.app.db.teamMember.createMany({ data: members.map(([user, role]) => ({ teamId, userId: user.id, role })) });
}

async function grant(organizationId: string, resourceKind: 'space' | 'collection', resourceId: string, granteeKind: 'user' | 'team', granteeId: string, role: string) {
  await server.app.db.contentGrant.create({ data: { id: newId(), organizationId, resourceKind, resourceId, granteeKind, granteeId, role } });
}

/** The team's members as `{userId: role}`, through GET .../members (validated). */
async function membersOf(teamId: string, organizationId = org, token = ada.token): Promise<Record<string, string>> {
  const res = await server.request('GET', `/v1/orgs/${organizationId}/teams/${teamId}/members?limit=1000`, { token });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  assertMatchesSpec('listTeamMembersInOrganizationById', 200, res.body);
  return Object.fromEntries(res.body.items.map((i: { organization: { id: string }; team: { role: string } }) => [i.organization.id, i.team.role]));
}

const putMembers = (teamId: string, body: unknown, user: TestUser = ada, organizationId = org) =>
  server.request('PUT', `/v1/orgs/${organizationId}/teams/${teamId}/members`, { token: user.token, body });

beforeAll(async () => {
  org = await server.createOrg(ada, 'Acme');
  await server.addMember(org, olive, 'read');
  await server.addMember(org, mia, 'edit');
  await server.addMember(org, rita, 'read');
  await server.addMember(org, gus, null);
  otherOrg = await server.createOrg(bob, 'Elsewhere');
  await server.addMember(otherOrg, outsider, 'read');
  otherTeam = (await createTeam(bob, otherOrg, { title: 'Theirs', members: [outsider.id] })).id;
});

describe('PUT /v1/orgs/{organizationId}/teams', () => {
  it('creates a team with members named by id and by e-mail, answering 201 with its Location', async () => {
    const res = await server.request('PUT', `/v1/orgs/${org}/teams`, { token: ada.token, body: { title: 'Writers', members: [mia.id, rita.email.toUpperCase(), mia.email] } });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    assertMatchesSpec('createOrganizationTeam', 201, res.body);
    expect(res.body).toMatchObject({ object: 'team', title: 'Writers', members: 2, spaces: 0, permissions: { admin: true, view: true } });
    expect(res.body).not.toHaveProperty('urls');
    expect(Date.parse(res.body.createdAt)).toBeGreaterThan(Date.now() - 60_000);
    expect(res.headers.get('location')).toBe(`${server.baseUrl}/v1/orgs/${org}/teams/${res.body.id}`);
    expect(await membersOf(res.body.id)).toEqual({ [mia.id]: 'member', [rita.id]: 'member' });
    // The members' team counts follow.
    const member = await server.request('GET', `/v1/orgs/${org}/members/${mia.id}`, { token: ada.token });
    expect(member.body.teams).toBeGreaterThanOrEqual(1);
  });

  it('is for admins: 403 for members, 404 for guests and outsiders', async () => {
    for (const user of [olive, mia]) expectError(await server.request('PUT', `/v1/orgs/${org}/teams`, { token: user.token, body: { title: 'Mine' } }), 403, /team:create/);
    for (const user of [gus, outsider, bob]) expectError(await server.request('PUT', `/v1/orgs/${org}/teams`, { token: user.token, body: { title: 'Mine' } }), 404);
  });

  it('names every member that is not one of the organization, and creates nothing', async () => {
    const before = await server.app.db.team.count({ where: { organizationId: org } });
    const res = await server.request('PUT', `/v1/orgs/${org}/teams`, {
      token: ada.token,
      body: { title: 'Broken', members: [mia.id, 'nobody', outsider.id, 'ghost@example.com'] },
    });
    expectError(res, 400);
    expect(res.body.error.message).toContain('members[1]: no user with the id "nobody"');
    expect(res.body.error.message).toContain(`members[2]: "${outsider.id}" is not a member of the organization`);
    expect(res.body.error.message).toContain('members[3]: no user with the e-mail "ghost@example.com"');
    expect(await server.app.db.team.count({ where: { organizationId: org } })).toBe(before);
  });

  it('keeps titles to 1..64 characters, not only spaces', async () => {
    for (const title of ['', ' \t ', 'a'.repeat(65)]) {
      expectError(await server.request('PUT', `/v1/orgs/${org}/teams`, { token: ada.token, body: { title } }), 400, /^title: /);
    }
    expectError(await server.request('PUT', `/v1/orgs/${org}/teams`, { token: ada.token, body: {} }), 400, /^title: is required$/);
    expect((await createTeam(ada, org, { title: 'b'.repeat(64) })).title).toBe('b'.repeat(64));
  });
});

describe('GET /v1/orgs/{organizationId}/teams', () => {
  let listOrg: string;
  let alpha: Team;
  let beta: Team;
  let gamma: Team;
  let delta: Team;

  beforeAll(async () => {
    listOrg = await server.createOrg(ada, 'Lists');
    for (const [user, role] of [[olive, 'read'], [mia, 'edit'], [gus, null]] as const) await server.addMember(listOrg, user, role);
    alpha = await createTeam(ada, listOrg, { title: 'Alpha Writers', members: [mia.id] });
    beta = await createTeam(ada, listOrg, { title: 'beta_reviewers' });
    gamma = await createTeam(ada, listOrg, { title: 'Gamma 100%' });
    delta = await createTeam(ada, listOrg, { title: 'Delta' });
    await seedMembers(alpha.id, [[olive, 'owner']]);
    await seedMembers(delta.id, [[olive, 'owner']]);
    const space = await server.createSpace(ada, listOrg, { title: 'Handbook' });
    await grant(listOrg, 'space', space.id, 'team', alpha.id, 'edit');
  });

  const list = async (query: string, user: TestUser = ada) => {
    const res = await server.request('GET', `/v1/orgs/${listOrg}/teams${query ? `?${query}` : ''}`, { token: user.token });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    assertMatchesSpec('listTeamsInOrganizationById', 200, res.body);
    return res.body as { items: Team[]; count: number; next?: { page: string } };
  };
  const titles = async (query: string, user: TestUser = ada) => (await list(query, user)).items.map((t) => t.title);

  it('lists the teams oldest first, with their counts from the model, and pages through them', async () => {
    const body = await list('');
    expect(body.items.map((t) => t.id)).toEqual([alpha.id, beta.id, gamma.id, delta.id]);
    expect(body.count).toBe(4);
    expect(body.items[0]).toMatchObject({ title: 'Alpha Writers', members: 2, spaces: 1 });
    expect(body.items[3]).toMatchObject({ title: 'Delta', members: 1, spaces: 0 });
    const paged = await server.pageThrough(ada, `/v1/orgs/${listOrg}/teams`, 'listTeamsInOrganizationById');
    expect(paged).toEqual({ ids: [alpha.id, beta.id, gamma.id, delta.id], pages: 2, count: 4 });
  });

  it('filters titles case-insensitively, taking % and _ literally', async () => {
    expect(await titles('title=WRITERS')).toEqual(['Alpha Writers']);
    expect(await titles('title=_')).toEqual(['beta_reviewers']);
    expect(await titles('title=100%25')).toEqual(['Gamma 100%']);
    // Unescaped, `_` would match the space of "Alpha Writers", `%` anything.
    expect(await titles('title=a_w')).toEqual([]);
    expect(await titles('title=%25%25')).toEqual([]);
    expect((await list('title=nothing-like-it')).count).toBe(0);
  });

  it('filters the teams a member can manage: every team for an admin, the teams they own, none otherwise', async () => {
    expect(await titles(`owner=${ada.id}`)).toEqual(['Alpha Writers', 'beta_reviewers', 'Gamma 100%', 'Delta']);
    expect(await titles(`owner=${olive.id}`)).toEqual(['Alpha Writers', 'Delta']);
    expect(await titles(`owner=${olive.id}&title=del`)).toEqual(['Delta']);
    for (const user of [mia, gus, outsider]) expect(await titles(`owner=${user.id}`), user.email).toEqual([]);
    expect(await titles('owner=nobody')).toEqual([]);
  });

  it("tells each caller whether they may manage each team", async () => {
    const admin = (user: TestUser) => list('', user).then((b) => b.items.map((t) => t.permissions.admin));
    expect(await admin(ada)).toEqual([true, true, true, true]);
    expect(await admin(olive)).toEqual([true, false, false, true]);
    expect(await admin(mia)).toEqual([false, false, false, false]);
    expect((await list('', mia)).items.every((t) => t.permissions.view)).toBe(true);
  });

  it('is for members with a role: 403 for guests, 404 outside the organization', async () => {
    expectError(await server.request('GET', `/v1/orgs/${listOrg}/teams`, { token: gus.token }), 403);
    for (const user of [outsider, bob]) expectError(await server.request('GET', `/v1/orgs/${listOrg}/teams`, { token: user.token }), 404);
  });

  it("answers Organization.permissions listTeams and ownTeam from the model", async () => {
    const permissions = async (user: TestUser) => (await server.request('GET', `/v1/orgs/${listOrg}`, { token: user.token })).body.permissions;
    expect(await permissions(ada)).toMatchObject({ listTeams: true, ownTeam: true });
    expect(await permissions(olive)).toMatchObject({ listTeams: true, ownTeam: true });
    expect(await permissions(mia)).toMatchObject({ listTeams: true, ownTeam: false });
    expect(await permissions(gus)).toMatchObject({ listTeams: false, ownTeam: false });
    // Olive owns teams of listOrg only.
    expect((await server.request('GET', `/v1/orgs/${org}`, { token: olive.token })).body.permissions).toMatchObject({ listTeams: true, ownTeam: false });
  });
});

describe('GET, PATCH and DELETE /v1/orgs/{organizationId}/teams/{teamId}', () => {
  let team: Team;

  beforeAll(async () => {
    team = await createTeam(ada, org, { title: 'Editors', members: [mia.id] });
    await seedMembers(team.id, [[olive, 'owner']]);
  });

  const path = (teamId: string, organizationId = org) => `/v1/orgs/${organizationId}/teams/${teamId}`;

  it('shows a team to members, with what the caller may do', async () => {
    for (const [user, admin] of [[ada, true], [olive, true], [mia, false], [rita, false]] as const) {
      const res = await server.request('GET', path(team.id), { token: user.token });
      expect(res.status).toBe(200);
      assertMatchesSpec('getTeamInOrganizationById', 200, res.body);
      expect(res.body).toMatchObject({ id: team.id, title: 'Editors', members: 2, spaces: 0, permissions: { admin, view: true } });
    }
  });

  it('answers 404 for a team of another organization, an unknown team, guests and outsiders', async () => {
    expectError(await server.request('GET', path(otherTeam), { token: ada.token }), 404, /Team/);
    expectError(await server.request('GET', path('nope'), { token: ada.token }), 404);
    for (const user of [gus, outsider, bob]) expectError(await server.request('GET', path(team.id), { token: user.token }), 404);
  });

  it('renames a team (admins only)', async () => {
    const res = await server.request('PATCH', path(team.id), { token: ada.token, body: { title: 'Editors 2' } });
    expect(res.status).toBe(200);
    assertMatchesSpec('updateTeamInOrganizationById', 200, res.body);
    expect(res.body).toMatchObject({ id: team.id, title: 'Editors 2', members: 2 });
    for (const user of [olive, mia]) expectError(await server.request('PATCH', path(team.id), { token: user.token, body: { title: 'Mine' } }), 403, /team:update/);
    expectError(await server.request('PATCH', path(otherTeam), { token: ada.token, body: { title: 'Mine' } }), 404);
    expectError(await server.request('PATCH', path(team.id), { token: ada.token, body: { title: '' } }), 400, /^title: /);
    expect((await server.app.db.team.findUniqueOrThrow({ where: { id: otherTeam } })).title).toBe('Theirs');
  });

  it('deletes a team with its memberships and grants, and clears SAML providers defaulting to it, in one go', async () => {
    const doomed = await createTeam(ada, org, { title: 'Doomed', members: [mia.id, rita.id] });
    const kept = await createTeam(ada, org, { title: 'Kept', members: [mia.id] });
    const space = await server.createSpace(ada, org, { title: 'Doomed space' });
    const collection = await server.createCollection(ada, org, { title: 'Doomed collection' });
    await grant(org, 'space', space.id, 'team', doomed.id, 'edit');
    await grant(org, 'collection', collection.id, 'team', doomed.id, 'read');
    await grant(org, 'space', space.id, 'team', kept.id, 'read');
    const db = server.app.db;
    const saml = await db.samlProvider.create({ data: { id: newId(), organizationId: org, label: 'IdP', defaultTeamId: doomed.id } });
    const other = await db.samlProvider.create({ data: { id: newId(), organizationId: org, label: 'Other IdP', defaultTeamId: kept.id } });

    for (const user of [olive, mia]) expectError(await server.request('DELETE', path(doomed.id), { token: user.token }), 403, /team:delete/);
    const res = await server.request('DELETE', path(doomed.id), { token: ada.token });
    expect(res.status).toBe(205);
    expect(res.body).toBeNull();
    expect(await db.team.findUnique({ where: { id: doomed.id } })).toBeNull();
    expect(await db.teamMember.count({ where: { teamId: doomed.id } })).toBe(0);
    expect(await db.contentGrant.count({ where: { granteeKind: 'team', granteeId: doomed.id } })).toBe(0);
    expect((await db.samlProvider.findUniqueOrThrow({ where: { id: saml.id } })).defaultTeamId).toBeNull();
    // What belongs to other teams stays.
    expect((await db.samlProvider.findUniqueOrThrow({ where: { id: other.id } })).defaultTeamId).toBe(kept.id);
    expect(await db.contentGrant.count({ where: { granteeKind: 'team', granteeId: kept.id } })).toBe(1);
    expect(await membersOf(kept.id)).toEqual({ [mia.id]: 'member' });
    expectError(await server.request('GET', path(doomed.id), { token: ada.token }), 404);

    // Deleting it again: it did not exist (204).
    const again = await server.request('DELETE', path(doomed.id), { token: ada.token });
    expect(again.status).toBe(204);
  });

  it("never deletes another organization's team", async () => {
    expectError(await server.request('DELETE', path(otherTeam), { token: ada.token }), 404);
    for (const user of [outsider, bob]) expectError(await server.request('DELETE', path(team.id), { token: user.token }), 404);
    expect(await server.app.db.team.findUnique({ where: { id: otherTeam } })).not.toBeNull();
    expect(await server.app.db.team.findUnique({ where: { id: team.id } })).not.toBeNull();
  });
});

describe('team members', () => {
  let team: Team;

  beforeAll(async () => {
    team = await createTeam(ada, org, { title: 'Support' });
    await seedMembers(team.id, [[olive, 'owner']]);
  });

  it('lists members in the order they joined, as organization members with their team role, and pages', async () => {
    const paging = await createTeam(ada, org, { title: 'Paging' });
    await seedMembers(paging.id, [[olive, 'owner']]);
    await new Promise((resolve) => setTimeout(resolve, 5));
    await seedMembers(paging.id, [[mia, 'member']]);
    await new Promise((resolve) => setTimeout(resolve, 5));
    await seedMembers(paging.id, [[rita, 'member']]);
    const res = await server.request('GET', `/v1/orgs/${org}/teams/${paging.id}/members`, { token: rita.token });
    expect(res.status).toBe(200);
    assertMatchesSpec('listTeamMembersInOrganizationById', 200, res.body);
    expect(res.body.count).toBe(3);
    expect(res.body.items.map((i: { organization: { id: string } }) => i.organization.id)).toEqual([olive.id, mia.id, rita.id]);
    const oliveTeams = await server.app.db.teamMember.count({ where: { userId: olive.id, team: { organizationId: org } } });
    expect(res.body.items[0]).toMatchObject({
      organization: { object: 'member', id: olive.id, role: 'read', user: { object: 'user', id: olive.id, email: olive.email }, teams: oliveTeams },
      team: { role: 'owner' },
      permissions: { view: true },
    });
    const seen: string[] = [];
    let page: string | undefined;
    do {
      const next = await server.request('GET', `/v1/orgs/${org}/teams/${paging.id}/members?limit=2${page ? `&page=${page}` : ''}`, { token: ada.token });
      assertMatchesSpec('listTeamMembersInOrganizationById', 200, next.body);
      seen.push(...next.body.items.map((i: { organization: { id: string } }) => i.organization.id));
      page = next.body.next?.page;
    } while (page);
    expect(seen).toEqual([olive.id, mia.id, rita.id]);
  });

  it('adds by id or e-mail with roles, removes, and a user in both add and remove is removed', async () => {
    const res = await putMembers(team.id, { add: [mia.id, rita.email], memberships: { [mia.email]: { role: 'owner' } } });
    expect(res.status, JSON.stringify(res.body)).toBe(204);
    expect(res.body).toBeNull();
    expect(await membersOf(team.id)).toEqual({ [olive.id]: 'owner', [mia.id]: 'owner', [rita.id]: 'member' });

    expect((await putMembers(team.id, { add: [rita.id, gus.id], remove: [rita.email, gus.id], memberships: { [mia.id]: { role: 'member' } } })).status).toBe(204);
    expect(await membersOf(team.id)).toEqual({ [olive.id]: 'owner', [mia.id]: 'member' });
    // `memberships` alone adds a user not in the team; an empty body changes nothing.
    expect((await putMembers(team.id, { memberships: { [gus.id]: { role: 'member' } } })).status).toBe(204);
    expect((await putMembers(team.id, {})).status).toBe(204);
    expect(await membersOf(team.id)).toEqual({ [olive.id]: 'owner', [mia.id]: 'member', [gus.id]: 'member' });
  });

  it('applies nothing of a call naming an unknown user or e-mail, or a user outside the organization (400 naming each)', async () => {
    const before = await membersOf(team.id);
    const cases: Array<[unknown, RegExp]> = [
      [{ add: [rita.id, 'nobody'], remove: [mia.id] }, /^add\[1\]: no user with the id "nobody"/],
      [{ add: [outsider.id], memberships: { [mia.id]: { role: 'owner' } } }, new RegExp(`^add\\[0\\]: "${outsider.id}" is not a member of the organization`)],
      [{ add: [rita.id], remove: ['ghost@example.com'] }, /^remove\[0\]: no user with the e-mail "ghost@example.com"/],
      [{ remove: [mia.id], memberships: { [bob.email]: { role: 'member' } } }, new RegExp(`^memberships\\.${bob.email.replace(/[.]/g, '\\.')}: "${bob.email}" is not a member`)],
      [{ add: [rita.id], memberships: { [rita.id]: { role: 'boss' } } }, /^memberships: the role of ".+" must be one of owner, member/],
      [{ add: [rita.id], memberships: { [rita.id]: 'owner' } }, /^memberships: /],
      [{ add: rita.id }, /^add: must be an array$/],
    ];
    for (const [body, message] of cases) expectError(await putMembers(team.id, body), 400, message);
    const both = await putMembers(team.id, { add: ['nobody', outsider.email] });
    expect(both.body.error.message).toMatch(/add\[0\]: .*; add\[1\]: .*Nothing was changed$/);
    expect(await membersOf(team.id)).toEqual(before);
  });

  it("lets the team's owners manage it, and nobody else below admin", async () => {
    const other = await createTeam(ada, org, { title: 'Not Olive’s' });
    await seedMembers(other.id, [[mia, 'member']]);
    expect((await putMembers(team.id, { add: [rita.id], memberships: { [rita.id]: { role: 'owner' } } }, olive)).status).toBe(204);
    expect((await membersOf(team.id))[rita.id]).toBe('owner');
    expectError(await putMembers(other.id, { add: [rita.id] }, olive), 403, /team:manage-members/);
    expectError(await putMembers(other.id, { add: [rita.id] }, mia), 403, /team:manage-members/);
    for (const user of [gus, outsider, bob]) expectError(await putMembers(team.id, { add: [rita.id] }, user), 404);
    expectError(await putMembers(otherTeam, { add: [rita.id] }), 404);
    expect(await membersOf(other.id)).toEqual({ [mia.id]: 'member' });
  });

  it("stops an owner from adding members to a team whose grants exceed the owner's own role", async () => {
    const collection = await server.createCollection(ada, org, { title: 'Product' });
    const space = await server.createSpace(ada, org, { title: 'Specs', parent: collection.id });
    const team2 = await createTeam(ada, org, { title: 'Spec writers' });
    await seedMembers(team2.id, [[olive, 'owner']]);
    await grant(org, 'space', space.id, 'team', team2.id, 'edit');
    // Olive (read) holds edit on the space only through this team: adding Rita would give her more than Olive's own role.
    const refused = await putMembers(team2.id, { add: [rita.id] }, olive);
    expectError(refused, 403, new RegExp(`the team holds edit on space "${space.id}", above your own role there \\(read\\)`));
    expectError(await server.request('PUT', `/v1/orgs/${org}/teams/${team2.id}/members/${rita.id}`, { token: olive.token, body: {} }), 403, /above your own role/);
    expect(await membersOf(team2.id)).toEqual({ [olive.id]: 'owner' });
    // Changing the roles of members already in it, or removing them, gives nobody anything.
    await seedMembers(team2.id, [[mia, 'member']]);
    expect((await putMembers(team2.id, { memberships: { [mia.id]: { role: 'owner' } } }, olive)).status).toBe(204);
    // An admin may add anyone.
    expect((await putMembers(team2.id, { add: [rita.id] })).status).toBe(204);
    expect((await putMembers(team2.id, { remove: [rita.id] }, olive)).status).toBe(204);
    // Once Olive holds edit on the collection above (a grant of her own), she may.
    await grant(org, 'collection', collection.id, 'user', olive.id, 'edit');
    expect((await putMembers(team2.id, { add: [rita.id] }, olive)).status).toBe(204);
    expect(await membersOf(team2.id)).toEqual({ [olive.id]: 'owner', [mia.id]: 'owner', [rita.id]: 'member' });
  });

  it('sets one member\'s team role with PUT .../members/{userId}, adding them', async () => {
    const single = await createTeam(ada, org, { title: 'Single' });
    const put = (userId: string, body?: unknown, user: TestUser = ada) =>
      server.request('PUT', `/v1/orgs/${org}/teams/${single.id}/members/${userId}`, { token: user.token, body });
    const added = await put(rita.id);
    expect(added.status, JSON.stringify(added.body)).toBe(204);
    expect(await membersOf(single.id)).toEqual({ [rita.id]: 'member' });
    expect((await put(rita.id, { role: 'owner' })).status).toBe(204);
    expect((await put(rita.id, {})).status).toBe(204); // no role: unchanged
    expect(await membersOf(single.id)).toEqual({ [rita.id]: 'owner' });
    expect((await put(mia.id, { role: 'member' }, rita)).status).toBe(204); // Rita owns it now
    expectError(await put(olive.id, { role: 'member' }, mia), 403);
    expectError(await put(rita.id, { role: 'boss' }), 400, /^role: must be one of member, owner$/);
    expectError(await put(outsider.id, { role: 'member' }), 404, /Member/);
    expectError(await put('nobody', { role: 'member' }), 404);
    expectError(await server.request('PUT', `/v1/orgs/${org}/teams/${otherTeam}/members/${rita.id}`, { token: ada.token, body: {} }), 404);
    expect(await membersOf(single.id)).toEqual({ [rita.id]: 'owner', [mia.id]: 'member' });
  });

  it('removes one member with DELETE .../members/{userId}: 205, then 204', async () => {
    const single = await createTeam(ada, org, { title: 'Leaving', members: [mia.id, rita.id] });
    const del = (userId: string, user: TestUser = ada) => server.request('DELETE', `/v1/orgs/${org}/teams/${single.id}/members/${userId}`, { token: user.token });
    expectError(await del(rita.id, mia), 403);
    expect((await del(rita.id)).status).toBe(205);
    expect((await del(rita.id)).status).toBe(204);
    expectError(await del(outsider.id), 404);
    expectError(await server.request('DELETE', `/v1/orgs/${org}/teams/${otherTeam}/members/${outsider.id}`, { token: ada.token }), 404);
    expect(await membersOf(single.id)).toEqual({ [mia.id]: 'member' });
    expect(await membersOf(otherTeam, otherOrg, bob.token)).toEqual({ [outsider.id]: 'member' });
  });
});

describe('GET /v1/orgs/{organizationId}/members/{userId}/teams', () => {
  let memberOrg: string;
  let first: Team;
  let second: Team;
  let third: Team;

  beforeAll(async () => {
    memberOrg = await server.createOrg(ada, 'Member teams');
    await server.addMember(memberOrg, mia, 'edit');
    await server.addMember(memberOrg, gus, null);
    first = await createTeam(ada, memberOrg, { title: 'First Team' });
    second = await createTeam(ada, memberOrg, { title: 'Second_Team' });
    third = await createTeam(ada, memberOrg, { title: 'Third' });
    await seedMembers(first.id, [[mia, 'owner']]);
    await new Promise((resolve) => setTimeout(resolve, 5));
    await seedMembers(second.id, [[mia, 'member']]);
  });

  const get = (query = '', user: TestUser = ada, userId = mia.id) =>
    server.request('GET', `/v1/orgs/${memberOrg}/members/${userId}/teams${query ? `?${query}` : ''}`, { token: user.token });

  it("lists the member's teams with their role in each", async () => {
    const res = await get();
    expect(res.status).toBe(200);
    assertMatchesSpec('listTeamsForOrganizationMember', 200, res.body);
    expect(res.body.count).toBe(2);
    expect(res.body.items).toEqual([
      { team: expect.objectContaining({ object: 'team', id: first.id, title: 'First Team', members: 1 }), member: { role: 'owner' } },
      { team: expect.objectContaining({ id: second.id, title: 'Second_Team' }), member: { role: 'member' } },
    ]);
    expect(res.body.items.map((i: { team: Team }) => i.team.id)).not.toContain(third.id);
    const page = await get('limit=1');
    expect(page.body.items.map((i: { team: Team }) => i.team.id)).toEqual([first.id]);
    const rest = await get(`limit=1&page=${page.body.next.page}`);
    assertMatchesSpec('listTeamsForOrganizationMember', 200, rest.body);
    expect(rest.body.items.map((i: { team: Team }) => i.team.id)).toEqual([second.id]);
    expect(rest.body.next).toBeUndefined();
  });

  it('filters titles case-insensitively and literally', async () => {
    const ids = async (query: string) => (await get(query)).body.items.map((i: { team: Team }) => i.team.id);
    expect(await ids('title=TEAM')).toEqual([first.id, second.id]);
    expect(await ids('title=_')).toEqual([second.id]);
    expect(await ids('title=t_t')).toEqual([]);
  });

  it('is 404 for a user outside the organization, guests and outsiders', async () => {
    expectError(await get('', ada, outsider.id), 404);
    expect((await get('', mia)).status).toBe(200);
    for (const user of [gus, outsider, bob]) expectError(await get('', user), 404);
  });
});

describe("another organization's members", () => {
  it('never get a 2xx on any team route of this organization', async () => {
    const team = await createTeam(ada, org, { title: 'Private', members: [mia.id] });
    const params: Record<string, string> = { organizationId: org, teamId: team.id, userId: mia.id };
    const bodies: Record<string, unknown> = {
      CreateOrganizationTeam: { title: 'Intruders' },
      UpdateTeamInOrganizationById: { title: 'Taken' },
      UpdateMembersInOrganizationTeam: { add: [bob.id], remove: [mia.id] },
      AddMemberToOrganizationTeamById: { role: 'owner' },
    };
    // The team routes (not the space and collection permission routes of teams).
    const routes = restRoutes.filter((r) => /^\/v1\/orgs\/\{organizationId\}\/(teams|members\/\{userId\}\/teams)/.test(r.path));
    expect(routes).toHaveLength(10);
    for (const user of [bob, outsider]) {
      for (const route of routes) {
        const path = route.path.replace(/\{(\w+)\}/g, (_, name: string) => params[name]!);
        const res = await server.request(route.method, path, { token: user.token, body: bodies[route.operationName] });
        expect(res.status, `${route.method} ${route.path}`).toBe(404);
      }
    }
    // Nor does this organization's admin on the other organization's team through this organization's path.
    const crossed: Record<string, string> = { organizationId: org, teamId: otherTeam, userId: outsider.id };
    for (const route of routes.filter((r) => r.path.includes('{teamId}'))) {
      const path = route.path.replace(/\{(\w+)\}/g, (_, name: string) => crossed[name]!);
      const res = await server.request(route.method, path, { token: ada.token, body: bodies[route.operationName] });
      expect(res.status, `${route.method} ${route.path}`).toBe(404);
    }
    expect(await membersOf(team.id)).toEqual({ [mia.id]: 'member' });
    expect(await membersOf(otherTeam, otherOrg, bob.token)).toEqual({ [outsider.id]: 'member' });
    expect((await server.app.db.team.findUniqueOrThrow({ where: { id: team.id } })).title).toBe('Private');
  });
});

describe("GitBook's TypeScript client", () => {
  it('drives every team endpoint', async () => {
    const api = new GitBookAPI({ authToken: ada.token, endpoint: server.baseUrl });
    const created = await api.orgs.createOrganizationTeam(org, { title: 'Client team', members: [mia.id] });
    expect(created.status).toBe(201);
    assertMatchesSpec('createOrganizationTeam', 201, created.data);
    const teamId = created.data.id;

    const listed = await api.orgs.listTeamsInOrganizationById(org, { title: 'client', owner: ada.id, limit: 10 });
    assertMatchesSpec('listTeamsInOrganizationById', 200, listed.data);
    expect(listed.data.items.map((t) => t.id)).toEqual([teamId]);

    const got = await api.orgs.getTeamInOrganizationById(org, teamId);
    assertMatchesSpec('getTeamInOrganizationById', 200, got.data);
    expect(got.data).toMatchObject({ id: teamId, members: 1 });

    const renamed = await api.orgs.updateTeamInOrganizationById(org, teamId, { title: 'Client team 2' });
    assertMatchesSpec('updateTeamInOrganizationById', 200, renamed.data);
    expect(renamed.data.title).toBe('Client team 2');

    expect((await api.orgs.updateMembersInOrganizationTeam(org, teamId, { add: [rita.email], memberships: { [mia.id]: { role: 'owner' as never } } })).status).toBe(204);
    expect((await api.orgs.addMemberToOrganizationTeamById(org, teamId, olive.id, { role: 'member' as never })).status).toBe(204);

    const members = await api.orgs.listTeamMembersInOrganizationById(org, teamId, { limit: 10 });
    assertMatchesSpec('listTeamMembersInOrganizationById', 200, members.data);
    expect(Object.fromEntries(members.data.items.map((i) => [i.organization.id, i.team.role]))).toEqual({ [mia.id]: 'owner', [rita.id]: 'member', [olive.id]: 'member' });

    const teams = await api.orgs.listTeamsForOrganizationMember(org, mia.id, { title: 'CLIENT TEAM' });
    assertMatchesSpec('listTeamsForOrganizationMember', 200, teams.data);
    expect(teams.data.items).toEqual([{ team: expect.objectContaining({ id: teamId, members: 3 }), member: { role: 'owner' } }]);

    expect((await api.orgs.deleteMemberFromOrganizationTeamById(org, teamId, olive.id)).status).toBe(205);
    expect((await api.orgs.removeTeamFromOrganizationById(org, teamId)).status).toBe(205);
    await expect(api.orgs.getTeamInOrganizationById(org, teamId)).rejects.toMatchObject({ code: 404 });
  });
});

/**
 * Teams in GraphQL: the nested graph (organization -> teams -> memberships -> member -> user),
 * the `team` root field, Member.teamMemberships and the team mutations (which REST runs), and
 * the number of SQL statements of team lists, constant when the data doubles (GraphQL and REST).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../src/ids.ts';
import { useTestServer, type TestUser } from '../helpers/server.ts';

const { server, ada, olive, mia } = useTestServer({ users: ['Ada', 'Olive', 'Mia'] }); // admin, read (owner), edit

/**
 * An organization with `teams` teams of `perTeam` members each (users made for it) and a grant
 * on a space each; Olive owns the first team, Mia is in every team. Returns the organization.
 */
async function seed(teams: number, perTeam: number): Promise<{ org: string; teamIds: string[] }> {
  const org = await server.createOrg(ada, `Teams ${teams}x${perTeam}`);
  await server.addMember(org, olive, 'read');
  await server.addMember(org, mia, 'edit');
  const db = server.app.db;
  const users = Array.from({ length: perTeam }, (_, i) => ({ id: newId(), email: `seeded-${newId().toLowerCase()}-${i}@example.com`, displayName: `Seeded ${i}` }));
  await db.user.createMany({ data: users });
  await db.member.createMany({ data: users.map((u) => ({ id: newId(), organizationId: org, userId: u.id, role: 'read' })) });
  const teamIds = Array.from({ length: teams }, () => newId());
  await db.team.createMany({ data: teamIds.map((id, i) => ({ id, organizationId: org, title: `Team ${i}`, createdAt: new Date(Date.UTC(2024, 0, 1, 0, i)) })) });
  await db.teamMember.createMany({
    data: teamIds.flatMap((teamId, i) => [
      ...users.map((u) => ({ teamId, userId: u.id, role: 'member' })),
      { teamId, userId: mia.id, role: 'member' },
      ...(i === 0 ? [{ teamId, userId: olive.id, role: 'owner' }] : []),
    ]),
  });
  const space = await server.createSpace(ada, org, { title: 'Shared' });
  await db.contentGrant.createMany({
    data: teamIds.map((teamId) => ({ id: newId(), organizationId: org, resourceKind: 'space', resourceId: space.id, granteeKind: 'team', granteeId: teamId, role: 'read' })),
  });
  return { org, teamIds };
}

const nestedQuery = `query($id: ID!) {
  organization(id: $id) {
    permissions { listTeams ownTeam }
    teams(limit: 1000) {
      count
      items {
        id title createdAt members spaces
        permissions { admin view }
        urls { location }
        memberships(limit: 1000) {
          count
          items {
            role createdAt
            teamMember { role }
            permissions { view }
            user { id displayName }
            member { id role teams spaces user { id email } }
            team { id title }
          }
        }
      }
    }
  }
}`;

async function gql<T = any>(query: string, user: TestUser, variables: Record<string, unknown> = {}) {
  const res = await server.graphql<T>(query, { token: user.token, variables });
  return res.body;
}

describe('the team graph', () => {
  let org: string;
  let teamIds: string[];

  beforeAll(async () => {
    ({ org, teamIds } = await seed(3, 2));
  });

  it('nests organization -> teams -> memberships -> member -> user, with counts and permissions from the model', async () => {
    const body = await gql(nestedQuery, olive, { id: org });
    expect(body.errors).toBeUndefined();
    const { permissions, teams } = body.data.organization;
    expect(permissions).toEqual({ listTeams: true, ownTeam: true });
    expect(teams.count).toBe(3);
    expect(teams.items.map((t: { id: string }) => t.id)).toEqual(teamIds);
    const [first, second] = teams.items;
    expect(first).toMatchObject({ title: 'Team 0', members: 4, spaces: 1, permissions: { admin: true, view: true } });
    expect(first.urls.location).toBe(`${server.baseUrl}/v1/orgs/${org}/teams/${teamIds[0]}`);
    expect(second).toMatchObject({ members: 3, permissions: { admin: false, view: true } });
    expect(first.memberships.count).toBe(4);
    const oliveEntry = first.memberships.items.find((m: { user: { id: string } }) => m.user.id === olive.id);
    expect(oliveEntry).toMatchObject({ role: 'owner', teamMember: { role: 'owner' }, permissions: { view: true }, team: { id: teamIds[0] } });
    expect(oliveEntry.member).toEqual({ id: olive.id, role: 'read', teams: 1, spaces: 0, user: { id: olive.id, email: olive.email } });
    const miaEntry = first.memberships.items.find((m: { user: { id: string } }) => m.user.id === mia.id);
    expect(miaEntry.member).toMatchObject({ role: 'edit', teams: 3 });
  });

  it('answers the team root field and Member.teamMemberships (with its title filter)', async () => {
    const body = await gql(
      `query($org: ID!, $team: ID!, $user: ID!) {
        team(organizationId: $org, teamId: $team) { id title members }
        member(organizationId: $org, userId: $user) {
          teams
          teamMemberships(limit: 2) { count next { page } items { role team { id title } } }
          filtered: teamMemberships(title: "TEAM 2") { count items { team { id } } }
        }
      }`,
      mia,
      { org, team: teamIds[1], user: mia.id },
    );
    expect(body.errors).toBeUndefined();
    expect(body.data.team).toEqual({ id: teamIds[1], title: 'Team 1', members: 3 });
    expect(body.data.member.teams).toBe(3);
    expect(body.data.member.teamMemberships.count).toBe(3);
    expect(body.data.member.teamMemberships.items.map((m: { team: { id: string } }) => m.team.id)).toHaveLength(2);
    expect(body.data.member.teamMemberships.next.page).toEqual(expect.any(String));
    expect(body.data.member.filtered).toEqual({ count: 1, items: [{ team: { id: teamIds[2] } }] });
  });

  it('keeps teams to the organization: 404 outside it, and for another organization\'s team', async () => {
    const other = await server.createOrg(olive, 'Olive’s own');
    const foreign = await gql(`mutation($org: ID!) { createTeam(organizationId: $org, input: { title: "Hers" }) { id } }`, olive, { org: other });
    expect(foreign.errors).toBeUndefined();
    const res = await gql(`query($org: ID!, $team: ID!) { team(organizationId: $org, teamId: $team) { id } }`, ada, { org, team: foreign.data.createTeam.id });
    expect(res.errors?.[0]?.extensions?.code).toBe('NOT_FOUND');
    const outside = await gql(`query($org: ID!) { organization(id: $org) { teams { count } } }`, ada, { org: other });
    expect(outside.errors?.[0]?.extensions?.code).toBe('NOT_FOUND');
  });

  it('runs every team mutation', async () => {
    const created = await gql(
      `mutation($org: ID!, $members: [String!]) { createTeam(organizationId: $org, input: { title: "GraphQL team", members: $members }) { id title members } }`,
      ada,
      { org, members: [olive.email] },
    );
    expect(created.errors).toBeUndefined();
    const team = created.data.createTeam.id;
    expect(created.data.createTeam).toMatchObject({ title: 'GraphQL team', members: 1 });
    const renamed = await gql(`mutation($org: ID!, $team: ID!) { updateTeam(organizationId: $org, teamId: $team, input: { title: "Renamed" }) { title } }`, ada, { org, team });
    expect(renamed.data.updateTeam.title).toBe('Renamed');
    const changed = await gql(
      `mutation($org: ID!, $team: ID!, $input: UpdateTeamMembersInput!) { updateTeamMembers(organizationId: $org, teamId: $team, input: $input) { members } }`,
      ada,
      { org, team, input: { add: [mia.id], memberships: { [olive.id]: { role: 'owner' } } } },
    );
    expect(changed.errors).toBeUndefined();
    expect(changed.data.updateTeamMembers.members).toBe(2);
    const bad = await gql(
      `mutation($org: ID!, $team: ID!, $input: UpdateTeamMembersInput!) { updateTeamMembers(organizationId: $org, teamId: $team, input: $input) { members } }`,
      ada,
      { org, team, input: { memberships: { [mia.id]: { role: 'captain' } } } },
    );
    expect(bad.errors?.[0]?.message).toMatch(/must be one of owner, member/);
    const set = await gql(
      `mutation($org: ID!, $team: ID!, $user: ID!) { setTeamMember(organizationId: $org, teamId: $team, userId: $user, input: { role: owner }) { role user { id } team { id } } }`,
      olive,
      { org, team, user: mia.id },
    );
    expect(set.errors).toBeUndefined();
    expect(set.data.setTeamMember).toEqual({ role: 'owner', user: { id: mia.id }, team: { id: team } });
    const removed = await gql(`mutation($org: ID!, $team: ID!, $user: ID!) { removeTeamMember(organizationId: $org, teamId: $team, userId: $user) }`, mia, { org, team, user: olive.id });
    expect(removed.data.removeTeamMember).toBe(true);
    const forbidden = await gql(`mutation($org: ID!, $team: ID!) { deleteTeam(organizationId: $org, teamId: $team) }`, mia, { org, team });
    expect(forbidden.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
    const deleted = await gql(`mutation($org: ID!, $team: ID!) { deleteTeam(organizationId: $org, teamId: $team) }`, ada, { org, team });
    expect(deleted.data.deleteTeam).toBe(true);
    const again = await gql(`mutation($org: ID!, $team: ID!) { deleteTeam(organizationId: $org, teamId: $team) }`, ada, { org, team });
    expect(again.data.deleteTeam).toBe(false);
  });
});

describe('statement counts', () => {
  it('stay the same when the teams and their members double (GraphQL and REST)', async () => {
    const small = await seed(5, 4);
    const large = await seed(10, 8);
    // A caller's first request records the token's use, and their first in an organization their
    // lastSeenAt there (each at most once a minute): the counts start after them.
    for (const user of [ada, olive]) {
      await server.request('GET', '/v1/user', { token: user.token });
      for (const { org } of [small, large]) await server.request('GET', `/v1/orgs/${org}`, { token: user.token });
    }

    const measure = async (label: string, run: (data: { org: string; teamIds: string[] }) => Promise<unknown>, most: number) => {
      const { statements: forSmall } = await server.countStatements(() => run(small));
      const { statements: forLarge } = await server.countStatements(() => run(large));
      expect(forLarge, `${label}: ${forSmall} statements for the small organization, ${forLarge} for the large one`).toBe(forSmall);
      expect(forLarge, label).toBeLessThanOrEqual(most);
      return forLarge;
    };
    const rest = (path: string, user: TestUser) => async () => {
      const res = await server.request('GET', path, { token: user.token });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
    };

    // The bounds: the viewer, the root row, a page and its count, the team counts, the caller's team roles
    // (permissions.admin), the memberships (keys, rows, their users and teams), the members (rows, users, counts).
    const counts: Record<string, number> = {};
    for (const user of [ada, olive]) {
      counts[`GraphQL nested, ${user === ada ? 'admin' : 'owner'}`] = await measure(
        'nested',
        async ({ org }) => {
          const body = await gql(nestedQuery, user, { id: org });
          expect(body.errors).toBeUndefined();
        },
        15,
      );
    }
    counts['GraphQL members with their teams'] = await measure(
      'members -> teams',
      async ({ org }) => {
        const body = await gql(
          `query($id: ID!) { organization(id: $id) { members(limit: 1000) { items { id teams teamMemberships { count items { role team { id title members } } } } } } }`,
          olive,
          { id: org },
        );
        expect(body.errors).toBeUndefined();
        const items = body.data.organization.members.items as Array<{ id: string; teams: number; teamMemberships: { count: number; items: unknown[] } }>;
        for (const member of items) expect(member.teamMemberships.items).toHaveLength(member.teams);
        expect(items.find((m) => m.id === mia.id)!.teamMemberships.count).toBeGreaterThanOrEqual(5);
      },
      12,
    );
    counts['REST list teams'] = await measure('teams', ({ org }) => rest(`/v1/orgs/${org}/teams?limit=1000`, olive)(), 6);
    counts['REST list team members'] = await measure('members', ({ org, teamIds }) => rest(`/v1/orgs/${org}/teams/${teamIds[0]}/members?limit=1000`, olive)(), 10);
    counts["REST list a member's teams"] = await measure('member teams', ({ org }) => rest(`/v1/orgs/${org}/members/${mia.id}/teams?limit=1000`, olive)(), 9);
    counts['REST get organization'] = await measure('organization', ({ org }) => rest(`/v1/orgs/${org}`, olive)(), 3);
    console.log(`statements per request: ${JSON.stringify(counts)}`);
  });
});

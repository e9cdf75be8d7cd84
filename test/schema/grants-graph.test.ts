/**
 * Grants in GraphQL, with nested queries: `Space` and `Collection` with the users and teams holding
 * a role on them and the aggregate of everyone who reaches them (with the sources of each role),
 * `Member.spaceAccess`, the mutations the REST endpoints run (invite, change, remove), what a guest
 * with one space grant sees of the organization, and the aggregate nested in a list of spaces
 * costing the same statements for 10 spaces as for 20.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../src/ids.ts';
import { useTestServer, type TestUser } from '../helpers/server.ts';

const { server, ada, rita, gus, bob } = useTestServer({ users: ['Ada', 'Rita', 'Gus', 'Bob'] }); // admin, read, guest, another organization

let org: string;
let folder: string;
let space: string;
let other: string;
let team: string;

async function gql(user: TestUser, query: string, variables: Record<string, unknown> = {}) {
  return (await server.graphql(query, { token: user.token, variables })).body;
}

beforeAll(async () => {
  org = await server.createOrg(ada);
  await server.addMember(org, rita, 'read');
  await server.addMember(org, gus, null);
  folder = (await server.createCollection(ada, org, { title: 'Folder' })).id;
  space = (await server.createSpace(ada, org, { title: 'Guide', parent: folder })).id;
  other = (await server.createSpace(ada, org, { title: 'Other' })).id;
  team = newId();
  await server.app.db.team.create({ data: { id: team, organizationId: org, title: 'Writers', members: { create: [{ userId: rita.id, role: 'owner' }] } } });
});

describe('grants in GraphQL', () => {
  it('invites, lists, changes and removes through the mutations, and reads the grants nested in a space', async () => {
    const invited = await gql(
      ada,
      `mutation($space: ID!, $collection: ID!, $gus: String!, $team: String!) {
        toSpace: inviteToSpace(spaceId: $space, input: { role: edit, users: [$gus], teams: [$team] })
        toCollection: inviteToCollection(collectionId: $collection, input: { role: comment, users: [$gus] })
      }`,
      { space, collection: folder, gus: gus.email, team },
    );
    expect(invited).toEqual({ data: { toSpace: true, toCollection: true } });

    const read = await gql(
      ada,
      `query($id: ID!) {
        space(id: $id) {
          title
          userPermissions { count items { permission user { id displayName } sources { type role } } }
          teamPermissions { count items { permission team { id title members spaces permissions { admin view } } } }
          permissionsAggregate(role: edit) { count items { permission user { id } sources { type role teamId collectionId } } }
          parent {
            title
            userPermissions { items { permission user { id } } }
            permissionsAggregate { items { permission user { id } } }
          }
        }
      }`,
      { id: space },
    );
    expect(read.errors).toBeUndefined();
    expect(read.data.space).toEqual({
      title: 'Guide',
      userPermissions: { count: 1, items: [{ permission: 'edit', user: { id: gus.id, displayName: 'Gus' }, sources: [{ type: 'user', role: 'edit' }] }] },
      teamPermissions: { count: 1, items: [{ permission: 'edit', team: { id: team, title: 'Writers', members: 1, spaces: 1, permissions: { admin: true, view: true } } }] },
      permissionsAggregate: {
        count: 2,
        items: expect.arrayContaining([
          {
            permission: 'edit',
            user: { id: gus.id },
            sources: [
              { type: 'user', role: 'edit', teamId: null, collectionId: null },
              { type: 'user', role: 'comment', teamId: null, collectionId: folder },
            ],
          },
          {
            permission: 'edit',
            user: { id: rita.id },
            sources: [
              { type: 'organization', role: 'read', teamId: null, collectionId: null },
              { type: 'team', role: 'edit', teamId: team, collectionId: null },
            ],
          },
        ]),
      },
      parent: {
        title: 'Folder',
        userPermissions: { items: [{ permission: 'comment', user: { id: gus.id } }] },
        permissionsAggregate: { items: expect.arrayContaining([{ permission: 'comment', user: { id: gus.id } }, { permission: 'admin', user: { id: ada.id } }]) },
      },
    });

    const changed = await gql(
      ada,
      `mutation($space: ID!, $collection: ID!, $gus: ID!, $team: ID!) {
        user: updateUserPermissionInSpace(spaceId: $space, userId: $gus, input: { role: review }) { permission user { id } sources { type role } }
        team: updateTeamPermissionInSpace(spaceId: $space, teamId: $team, input: { role: read }) { permission team { title } }
        removed: removeUserFromCollection(collectionId: $collection, userId: $gus)
      }`,
      { space, collection: folder, gus: gus.id, team },
    );
    expect(changed).toEqual({
      data: {
        user: { permission: 'review', user: { id: gus.id }, sources: [{ type: 'user', role: 'review' }] },
        team: { permission: 'read', team: { title: 'Writers' } },
        removed: true,
      },
    });
  });

  it('answers errors with their codes: a null role, an unknown user, a grant that does not exist, a reader changing grants', async () => {
    const codes = async (user: TestUser, query: string) => (await gql(user, query, { space, gus: gus.id })).errors?.map((e: any) => e.extensions?.code);
    expect(await codes(ada, 'mutation($space: ID!) { inviteToSpace(spaceId: $space, input: { role: null, users: ["x"] }) }')).toEqual(['BAD_REQUEST']);
    expect(await codes(ada, 'mutation($space: ID!) { inviteToSpace(spaceId: $space, input: { role: read, users: ["nobody@example.com"] }) }')).toEqual(['BAD_REQUEST']);
    expect(await codes(ada, 'mutation($space: ID!) { removeTeamFromSpace(spaceId: $space, teamId: "nope") }')).toEqual(['NOT_FOUND']);
    expect(await codes(rita, 'mutation($space: ID!, $gus: ID!) { removeUserFromSpace(spaceId: $space, userId: $gus) }')).toEqual(['FORBIDDEN']);
    expect(await codes(bob, 'mutation($space: ID!, $gus: ID!) { removeUserFromSpace(spaceId: $space, userId: $gus) }')).toEqual(['NOT_FOUND']);
    const listed = await gql(rita, 'query($space: ID!) { space(id: $space) { userPermissions { count } } }', { space });
    expect(listed).toEqual({ data: { space: { userPermissions: { count: 1 } } } });
  });

  it("lists a member's spaces with their effective role, nested in the organization's members", async () => {
    const res = await gql(
      ada,
      `query($org: ID!) {
        organization(id: $org) {
          members(role: guest) { items { id spaceAccess { count items { permission space { id title } } } } }
        }
      }`,
      { org },
    );
    expect(res.errors).toBeUndefined();
    expect(res.data.organization.members.items).toEqual([{ id: gus.id, spaceAccess: { count: 1, items: [{ permission: 'review', space: { id: space, title: 'Guide' } }] } }]);
    const rita_ = await gql(ada, 'query($org: ID!, $user: ID!) { member(organizationId: $org, userId: $user) { spaceAccess(order: asc) { items { permission space { id } } } } }', { org, user: rita.id });
    expect(rita_.data.member.spaceAccess.items).toEqual([
      { permission: 'read', space: { id: space } },
      { permission: 'read', space: { id: other } },
    ]);
  });

  it('shows a guest with one space grant that space and nothing else of the organization', async () => {
    const res = await gql(
      gus,
      `query($org: ID!, $space: ID!) {
        organization(id: $org) {
          spaces { count items { id title parent { id } permissions { view edit review admin } } }
          collections { count }
        }
        space(id: $space) { title parentId parent { title } userPermissions { count } }
      }`,
      { org, space },
    );
    expect(res.errors).toBeUndefined();
    expect(res.data).toEqual({
      organization: {
        spaces: { count: 1, items: [{ id: space, title: 'Guide', parent: null, permissions: { view: true, edit: true, review: true, admin: false } }] },
        collections: { count: 0 },
      },
      space: { title: 'Guide', parentId: folder, parent: null, userPermissions: { count: 1 } },
    });
    const closed = await gql(gus, 'query($id: ID!) { space(id: $id) { id } }', { id: other });
    expect(closed.errors?.[0]?.extensions?.code).toBe('NOT_FOUND');
  });

  it('costs the same statements for the aggregate of every space of a list of 10 as of 20', async () => {
    const seed = async (n: number) => {
      const id = await server.createOrg(ada, `Org of ${n}`);
      const parent = newId();
      await server.app.db.collection.create({ data: { id: parent, organizationId: id, title: 'Parent', defaultLevel: 'comment' } });
      await server.app.db.space.createMany({
        data: Array.from({ length: n }, (_, i) => ({ id: newId(), organizationId: id, parentId: i % 2 ? parent : null, title: `S${i}`, revisionId: newId(), position: i })),
      });
      await server.addMember(id, rita, 'read');
      await server.addMember(id, gus, null);
      const t = newId();
      await server.app.db.team.create({ data: { id: t, organizationId: id, title: 'T', members: { create: [{ userId: gus.id }] } } });
      await server.app.db.contentGrant.create({ data: { id: newId(), organizationId: id, resourceKind: 'collection', resourceId: parent, granteeKind: 'team', granteeId: t, role: 'edit' } });
      return id;
    };
    const query = `query($id: ID!) { organization(id: $id) { spaces(limit: 100) { items { id permissionsAggregate { count items { permission user { id } sources { type } } } } } } }`;
    const counts: number[] = [];
    for (const n of [10, 20]) {
      const id = await seed(n);
      const { statements, result } = await server.countStatements(() => gql(ada, query, { id }));
      expect(result.errors).toBeUndefined();
      const items = result.data.organization.spaces.items;
      expect(items).toHaveLength(n);
      expect(items.filter((s: any) => s.permissionsAggregate.count === 3)).toHaveLength(n / 2);
      counts.push(statements);
    }
    console.log(`statements for the aggregates of 10 and 20 spaces: ${counts.join(', ')}`);
    expect(counts[1]).toBe(counts[0]);
    expect(counts[0]).toBeLessThanOrEqual(10);
  });
});

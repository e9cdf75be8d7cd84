/**
 * Listing spaces with their permissions and parent collection costs a fixed
 * number of SQL statements, whatever the number of spaces (no N+1).
 */
import { describe, expect, it } from 'vitest';
import { newId } from '../../src/ids.ts';
import { useTestServer } from '../helpers/server.ts';

const { server, counter } = useTestServer({ users: ['Counter'] });

/** An organization with `n` spaces, half of them in nested collections. */
async function seedOrganization(n: number): Promise<string> {
  const org = await server.createOrg(counter, `Org of ${n}`);
  const outer = newId();
  const inner = newId();
  const db = server.app.db;
  await db.collection.create({ data: { id: outer, organizationId: org, title: 'Outer' } });
  await db.collection.create({ data: { id: inner, organizationId: org, title: 'Inner', parentId: outer, defaultLevel: 'edit' } });
  await db.space.createMany({
    data: Array.from({ length: n }, (_, i) => ({
      id: newId(),
      organizationId: org,
      parentId: i % 2 ? inner : null,
      title: `Space ${i}`,
      revisionId: newId(),
      position: i,
    })),
  });
  return org;
}

const graphqlQuery = `query($id: ID!) {
  organization(id: $id) {
    spaces(limit: 100) {
      count
      items { id title parent { id title } permissions { view edit admin merge } }
    }
  }
}`;

describe('statement count', () => {
  it('does not grow with the number of spaces listed (GraphQL and REST)', async () => {
    const small = await seedOrganization(10);
    const large = await seedOrganization(100);

    const gql = async (orgId: string) => {
      const res = await server.graphql(graphqlQuery, { token: counter.token, variables: { id: orgId } });
      expect(res.body.errors).toBeUndefined();
      return res.body.data.organization.spaces.items.length as number;
    };

    // Warm-up: the seeding's writes made the process forget the caller (the viewer cache), and the first request reads them again.
    await gql(small);
    const { statements: forSmall, result: smallCount } = await server.countStatements(() => gql(small));
    const { statements: forLarge, result: largeCount } = await server.countStatements(() => gql(large));
    expect([smallCount, largeCount]).toEqual([10, 100]);
    expect(forLarge).toBe(forSmall);
    expect(forLarge).toBeLessThanOrEqual(8);

    const { statements: restSmall } = await server.countStatements(() => server.request('GET', `/v1/orgs/${small}/spaces?limit=100`, { token: counter.token }));
    const { statements: restLarge } = await server.countStatements(() => server.request('GET', `/v1/orgs/${large}/spaces?limit=100`, { token: counter.token }));
    expect(restLarge).toBe(restSmall);
    console.log(`statements per list request: GraphQL ${forLarge}, REST ${restLarge}`);
  });
});

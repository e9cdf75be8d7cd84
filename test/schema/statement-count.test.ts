/**
 * Listing spaces with their permissions and parent collection costs a fixed
 * number of SQL statements, whatever the number of spaces (no N+1).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../src/ids.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

let server: TestServer;
let token: string;

async function statementsFor(fn: () => Promise<unknown>): Promise<number> {
  const before = (await server.app.metrics.dbQueries.get()).values[0]?.value ?? 0;
  await fn();
  const after = (await server.app.metrics.dbQueries.get()).values[0]?.value ?? 0;
  return after - before;
}

/** An organization with `n` spaces, half of them in nested collections. */
async function seedOrganization(n: number): Promise<string> {
  const org = (await server.request('POST', '/v1/orgs', { token, body: { title: `Org of ${n}` } })).body;
  const outer = newId();
  const inner = newId();
  const db = server.app.db;
  await db.collection.create({ data: { id: outer, organizationId: org.id, title: 'Outer' } });
  await db.collection.create({ data: { id: inner, organizationId: org.id, title: 'Inner', parentId: outer, defaultLevel: 'edit' } });
  await db.space.createMany({
    data: Array.from({ length: n }, (_, i) => ({
      id: newId(),
      organizationId: org.id,
      parentId: i % 2 ? inner : null,
      title: `Space ${i}`,
      revisionId: newId(),
      position: i,
    })),
  });
  return org.id;
}

beforeAll(async () => {
  server = await startTestServer();
  token = (await server.createUser('Counter')).token;
});
afterAll(() => server.close());

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
      const res = await server.request('POST', '/graphql', { token: token, body: { query: graphqlQuery, variables: { id: orgId } } });
      expect(res.body.errors).toBeUndefined();
      return res.body.data.organization.spaces.items.length as number;
    };

    let smallCount = 0;
    let largeCount = 0;
    const forSmall = await statementsFor(async () => (smallCount = await gql(small)));
    const forLarge = await statementsFor(async () => (largeCount = await gql(large)));
    expect([smallCount, largeCount]).toEqual([10, 100]);
    expect(forLarge).toBe(forSmall);
    expect(forLarge).toBeLessThanOrEqual(8);

    const restSmall = await statementsFor(() => server.request('GET', `/v1/orgs/${small}/spaces?limit=100`, { token: token }));
    const restLarge = await statementsFor(() => server.request('GET', `/v1/orgs/${large}/spaces?limit=100`, { token: token }));
    expect(restLarge).toBe(restSmall);
    console.log(`statements per list request: GraphQL ${forLarge}, REST ${restLarge}`);
  });
});

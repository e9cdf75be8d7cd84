/**
 * The organization's OpenAPI specs with their versions and each version's content, in one GraphQL
 * request: a fixed number of SQL statements whatever the number of specs and versions (the
 * content is read from the storage, not the database).
 */
import { describe, expect, it } from 'vitest';
import { newId } from '../../src/ids.ts';
import { FIXTURE_OPENAPI } from '../helpers/openapi-specs.ts';
import { useTestServer } from '../helpers/server.ts';

const { server, counter } = useTestServer({ users: ['Counter'] });

/** An organization with `specs` specs of `versions` versions each, written as processing writes them. */
async function seedOrganization(specs: number, versions: number): Promise<string> {
  const org = await server.createOrg(counter, `Org of ${specs}x${versions}`);
  const { key, size } = await server.app.storage.put(Buffer.from(FIXTURE_OPENAPI));
  const files = [{ path: 'openapi.yaml', key, size, isEntrypoint: true, references: [] }];
  for (let s = 0; s < specs; s++) {
    const specId = newId();
    const versionIds = Array.from({ length: versions }, () => newId());
    await server.app.db.openAPISpec.create({
      data: { id: specId, organizationId: org, slug: `api-${s}`, sourceKind: 'text', sourceTextKey: key, processingState: 'complete', lastVersionId: versionIds.at(-1) },
    });
    await server.app.db.openAPISpecVersion.createMany({
      data: versionIds.map((id, v) => ({ id, specId, contentHash: `${s}-${v}`, files, createdAt: new Date(Date.UTC(2026, 0, 1, 0, v)) })),
    });
  }
  return org;
}

const query = `query($id: ID!) {
  organization(id: $id) {
    openAPISpecs(limit: 100) {
      count
      items { slug processingState lastVersion permissions { view edit } versions { id url content } }
    }
  }
}`;

describe('OpenAPI specs in the resource graph', () => {
  it('costs the same statements for 20 specs of 10 versions as for 3 of 2', async () => {
    const small = await seedOrganization(3, 2);
    const large = await seedOrganization(20, 10);
    const run = async (org: string) => {
      const res = await server.graphql(query, { token: counter.token, variables: { id: org } });
      expect(res.body.errors).toBeUndefined();
      return res.body.data.organization.openAPISpecs.items as { slug: string; lastVersion: string; versions: { id: string; content: any }[] }[];
    };
    await run(small); // warm-up: the seeding made the process forget the caller
    const { statements: forSmall, result: smallItems } = await server.countStatements(() => run(small));
    const { statements: forLarge, result: largeItems } = await server.countStatements(() => run(large));
    expect(smallItems).toHaveLength(3);
    expect(largeItems).toHaveLength(20);
    expect(largeItems.every((spec) => spec.versions.length === 10 && spec.versions[0]!.id === spec.lastVersion)).toBe(true);
    expect(largeItems[0]!.versions[0]!.content.filesystem['openapi.yaml'].specification.info.title).toBe('Fixture API');
    expect(forLarge).toBe(forSmall);
    console.log(`statements for 20 specs x 10 versions with their content: ${forLarge}`);
  });
});

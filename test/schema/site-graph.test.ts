/**
 * The nested site graph in one GraphQL request (organization -> sites ->
 * sections -> site spaces -> space) costs the same number of SQL statements
 * whatever the amount of data (one per level of nesting), and lists items in
 * the order of the REST structure. The REST structure of a site is bounded too.
 */
import { describe, expect, it } from 'vitest';
import { newId } from '../../src/ids.ts';
import { useTestServer } from '../helpers/server.ts';

const { server, graph } = useTestServer({ users: ['Graph'] });

const SECTIONS_PER_SITE = 5;

/** Shuffled positions, so that position order is neither insertion nor id order. */
function positions(n: number): number[] {
  const list = Array.from({ length: n }, (_, i) => i + 1);
  for (let i = list.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [list[i], list[j]] = [list[j]!, list[i]!];
  }
  // Never insertion order (a shuffle of 5 is one once in 120 runs), which the test tells apart.
  if (n > 1 && list.every((p, i) => p === i + 1)) [list[0], list[1]] = [list[1]!, list[0]!];
  return list;
}

/** One organization with `sites` published sites of 5 sections of `perSection` site spaces, each on its own space. */
async function seed(sites: number, perSection: number): Promise<string> {
  const org = await server.createOrg(graph, `Org ${sites}x${perSection}`);
  const db = server.app.db;
  const siteRows = [];
  const sectionRows = [];
  const spaceRows = [];
  const siteSpaceRows = [];
  for (let s = 0; s < sites; s++) {
    const siteId = newId();
    const sectionIds = Array.from({ length: SECTIONS_PER_SITE }, () => newId());
    siteRows.push({ id: siteId, organizationId: org, title: `Site ${s}`, basename: `site-${s}`, published: true, defaultSectionId: sectionIds[0]! });
    const sectionPositions = positions(SECTIONS_PER_SITE);
    for (const [i, sectionId] of sectionIds.entries()) {
      sectionRows.push({ id: sectionId, siteId, title: `Section ${i}`, path: `section-${i}`, position: sectionPositions[i]! });
      const spacePositions = positions(perSection);
      for (let k = 0; k < perSection; k++) {
        const spaceId = newId();
        spaceRows.push({ id: spaceId, organizationId: org, title: `Space ${s}.${i}.${k}`, revisionId: newId() });
        siteSpaceRows.push({ id: newId(), siteId, sectionId, spaceId, path: `space-${k}`, position: spacePositions[k]!, isDefault: k === 0 });
      }
    }
  }
  await db.site.createMany({ data: siteRows });
  await db.siteSection.createMany({ data: sectionRows });
  await db.space.createMany({ data: spaceRows });
  for (let i = 0; i < siteSpaceRows.length; i += 500) await db.siteSpace.createMany({ data: siteSpaceRows.slice(i, i + 500) });
  return org;
}

const nestedQuery = `query($id: ID!) {
  organization(id: $id) {
    sites(limit: 1000) {
      count
      items {
        id title sectionsCount
        sections {
          id path default siteSpacesCount urls { published }
          siteSpaces {
            id path default title urls { published }
            space { id title siteSpacesCount urls { location app published } }
          }
        }
      }
    }
  }
}`;

/**
 * Runs the nested query on an organization of `sites` sites and one of twice
 * as many; both must cost the same statements. Checks counts and the order of
 * the REST structure on a sample site.
 */
async function nestedGraphCosts(sites: number, perSection: number) {
  const small = await seed(sites, perSection);
  const large = await seed(2 * sites, perSection);
  const run = async (org: string) => {
    const res = await server.graphql(nestedQuery, { token: graph.token, variables: { id: org } });
    expect(res.body.errors?.[0], `${res.body.errors?.length} errors`).toBeUndefined();
    return res.body.data.organization.sites;
  };
  await run(small); // warm up (statement caches)
  const a = await server.countStatements(() => run(small));
  const b = await server.countStatements(() => run(large));
  expect([a.result.count, b.result.count]).toEqual([sites, 2 * sites]);
  const siteSpaces = (list: any) => list.items.flatMap((s: any) => s.sections.flatMap((x: any) => x.siteSpaces));
  expect(siteSpaces(a.result)).toHaveLength(sites * SECTIONS_PER_SITE * perSection);
  expect(siteSpaces(b.result)).toHaveLength(2 * sites * SECTIONS_PER_SITE * perSection);
  console.log(
    `nested site graph: ${a.statements} statements for ${sites} sites (${sites * SECTIONS_PER_SITE * perSection} site spaces), ` +
      `${b.statements} for ${2 * sites} (${2 * sites * SECTIONS_PER_SITE * perSection})`,
  );
  expect(b.statements).toBe(a.statements);
  // The viewer; the organization; a page of sites (with their section counts) and its total; sections (with
  // their site space counts); site spaces; spaces (with theirs); the site and section facts of `default` and
  // `urls` (2, batched for the whole response); the published places of the spaces: 10.
  expect(b.statements).toBeLessThanOrEqual(10);

  const sample = b.result.items[Math.min(7, b.result.items.length - 1)];
  expect(sample.sectionsCount).toBe(SECTIONS_PER_SITE);
  expect(sample.sections[0].siteSpacesCount).toBe(perSection);
  expect(sample.sections[0].siteSpaces[0].space.siteSpacesCount).toBe(1);
  expect(sample.sections[0].siteSpaces[0].space.urls.published).toBe(sample.sections[0].siteSpaces[0].urls.published);
  expect(sample.sections.filter((s: any) => s.default)).toHaveLength(1);
  const rest = await server.request('GET', `/v1/orgs/${large}/sites/${sample.id}/structure`, { token: graph.token });
  expect(rest.status).toBe(200);
  expect(sample.sections.map((s: any) => s.id)).toEqual(rest.body.structure.map((s: any) => s.id));
  expect(sample.sections.map((s: any) => s.siteSpaces.map((x: any) => x.id))).toEqual(
    rest.body.structure.map((s: any) => s.siteSpaces.map((x: any) => x.id)),
  );
  // Not insertion order: the seeded positions are shuffled.
  expect(sample.sections.map((s: any) => s.path)).not.toEqual(['section-0', 'section-1', 'section-2', 'section-3', 'section-4']);
}

describe('the nested site graph', () => {
  it('costs the same statements for N and 2N sites (8 and 16 sites, 400 and 800 site spaces), in the order of the REST structure', async () => {
    await nestedGraphCosts(8, 10);
  });

  // The size of the issue: 20 sites x 5 sections x 10 site spaces (1,000 spaces), and 40.
  it('costs the same statements for 20 and 40 sites (1,000 and 2,000 site spaces)', async () => {
    await nestedGraphCosts(20, 10);
  });

  it('serves the REST structure of a site in the same statements whatever its size', async () => {
    const small = await seed(1, 5);
    const large = await seed(1, 50);
    const siteOf = async (org: string) => (await server.request('GET', `/v1/orgs/${org}/sites`, { token: graph.token })).body.items[0].id as string;
    const [smallSite, largeSite] = [await siteOf(small), await siteOf(large)];
    const get = (org: string, site: string) => server.request('GET', `/v1/orgs/${org}/sites/${site}/structure`, { token: graph.token });
    await get(small, smallSite);
    const a = await server.countStatements(() => get(small, smallSite));
    const b = await server.countStatements(() => get(large, largeSite));
    expect(a.result.status).toBe(200);
    expect(b.result.body.structure.flatMap((s: any) => s.siteSpaces)).toHaveLength(5 * 50);
    expect(b.statements).toBe(a.statements);
    const p = await server.countStatements(() => server.request('GET', `/v1/orgs/${large}/sites/${largeSite}/published`, { token: graph.token }));
    expect(p.result.status).toBe(200);
    console.log(`REST structure: ${a.statements} statements for 25 site spaces, ${b.statements} for 250; published profile: ${p.statements}`);
  });

  it('has the reverse edges and counts, and marks the deprecated move', async () => {
    const org = await seed(1, 3);
    const siteId = (await server.request('GET', `/v1/orgs/${org}/sites`, { token: graph.token })).body.items[0].id;
    const query = `query($org: ID!, $site: ID!) {
      site(organizationId: $org, id: $site) {
        id sectionsCount siteSpacesCount siteSpaces { id } sectionGroups { id }
        structure { type structure { __typename ... on SiteSection { id } } }
        sections {
          id site { id } siteSpacesCount
          siteSpaces { id site { id } section { id } space { id siteSpacesCount siteSpaces { id site { id } } } }
        }
      }
      __type(name: "Mutation") { fields(includeDeprecated: true) { name isDeprecated deprecationReason } }
    }`;
    const res = await server.graphql(query, { token: graph.token, variables: { org, site: siteId } });
    expect(res.body.errors).toBeUndefined();
    const site = res.body.data.site;
    expect(site).toMatchObject({ sectionsCount: 5, siteSpaces: [], sectionGroups: [], structure: { type: 'sections' } });
    expect(site.structure.structure.map((i: any) => i.id)).toEqual(site.sections.map((s: any) => s.id));
    for (const section of site.sections) {
      expect(section.site.id).toBe(siteId);
      expect(section.siteSpacesCount).toBe(3);
      for (const siteSpace of section.siteSpaces) {
        expect(siteSpace).toMatchObject({ site: { id: siteId }, section: { id: section.id } });
        expect(siteSpace.space.siteSpaces).toEqual([{ id: siteSpace.id, site: { id: siteId } }]);
      }
    }
    const move = res.body.data.__type.fields.find((f: any) => f.name === 'moveSiteSection');
    expect(move).toMatchObject({ isDeprecated: true, deprecationReason: 'Use sortSiteStructure' });
  });
});

/**
 * The structure of a site costs one SQL statement per level that has rows
 * (src/schema/site-structure/tree.ts), none for an empty level, whatever the
 * size of the site: pinned here for GET .../structure and GET .../published,
 * for a site with sections, section groups and site spaces and for one with
 * root site spaces only; and, in GraphQL, for the structures of a list of
 * sites and for section groups read outside a structure.
 */
import { describe, expect, it } from 'vitest';
import { newId } from '../../src/ids.ts';
import { useTestServer } from '../helpers/server.ts';

const { server, tree } = useTestServer({ users: ['Tree'] });

async function createOrg(): Promise<string> {
  return server.createOrg(tree, 'Tree org');
}

/**
 * A published site of `org`: top-level sections A and D, group G holding
 * section B and group H (holding section C), and an empty group E; each
 * section has `perSection` site spaces on spaces of their own, plus a hidden
 * one in A and one whose space is in the bin in C. With `groups: false`, only
 * sections A and D.
 */
async function seedSectionedSite(org: string, perSection: number, options: { groups?: boolean } = {}) {
  const db = server.app.db;
  const siteId = newId();
  const [a, b, c, d] = [newId(), newId(), newId(), newId()];
  const [g, h, e] = [newId(), newId(), newId()];
  const groups = options.groups ?? true;
  await db.site.create({ data: { id: siteId, organizationId: org, title: 'Tree', basename: `tree-${siteId}`, published: true, defaultSectionId: a } });
  if (groups) {
    await db.siteSectionGroup.createMany({
      data: [
        { id: g, siteId, title: 'G', position: 2 },
        { id: h, siteId, title: 'H', position: 2, parentGroupId: g },
        { id: e, siteId, title: 'E', position: 4 },
      ],
    });
  }
  const sections = groups
    ? [
        { id: a, position: 1, sectionGroupId: null },
        { id: b, position: 1, sectionGroupId: g },
        { id: c, position: 1, sectionGroupId: h },
        { id: d, position: 3, sectionGroupId: null },
      ]
    : [
        { id: a, position: 1, sectionGroupId: null },
        { id: d, position: 3, sectionGroupId: null },
      ];
  await db.siteSection.createMany({ data: sections.map((s, i) => ({ ...s, siteId, title: `Section ${i}`, path: `section-${i}` })) });
  const spaces = [];
  const siteSpaces = [];
  for (const section of sections) {
    const extra = section.id === a ? [{ hidden: true }] : section.id === c ? [{ deleted: true }] : [];
    for (const [k, flags] of [...Array.from({ length: perSection }, () => ({})), ...extra].entries()) {
      const spaceId = newId();
      const f = flags as { hidden?: boolean; deleted?: boolean };
      spaces.push({ id: spaceId, organizationId: org, title: `Space ${k}`, revisionId: newId(), deletedAt: f.deleted ? new Date() : null });
      siteSpaces.push({ id: newId(), siteId, sectionId: section.id, spaceId, path: `space-${k}`, position: k + 1, isDefault: k === 0, hidden: f.hidden ?? false });
    }
  }
  await db.space.createMany({ data: spaces });
  await db.siteSpace.createMany({ data: siteSpaces });
  return siteId;
}

/** A published site of `org` with `n` root site spaces (and a hidden one), no sections. */
async function seedRootSite(org: string, n: number) {
  const db = server.app.db;
  const siteId = newId();
  await db.site.create({ data: { id: siteId, organizationId: org, title: 'Root', basename: `root-${siteId}`, published: true } });
  const spaces = Array.from({ length: n + 1 }, (_, k) => ({ id: newId(), organizationId: org, title: `Space ${k}`, revisionId: newId() }));
  await db.space.createMany({ data: spaces });
  await db.siteSpace.createMany({
    data: spaces.map((space, k) => ({ id: newId(), siteId, spaceId: space.id, path: `space-${k}`, position: k + 1, isDefault: k === 0, hidden: k === n })),
  });
  return siteId;
}

async function rest(org: string, site: string, what: 'structure' | 'published') {
  const res = await server.request('GET', `/v1/orgs/${org}/sites/${site}/${what}`, { token: tree.token });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body;
}

/** Statements of GET .../structure and .../published for a small and a large site of the same shape; both must agree. */
async function restCosts(seedSmall: (org: string) => Promise<string>, seedLarge: (org: string) => Promise<string>) {
  const org = await createOrg();
  const [small, large] = [await seedSmall(org), await seedLarge(org)];
  await rest(org, small, 'structure'); // warm up (statement caches)
  const costs = { structure: [0, 0], published: [0, 0] };
  for (const what of ['structure', 'published'] as const) {
    for (const [i, site] of [small, large].entries()) costs[what][i] = (await server.countStatements(() => rest(org, site, what))).statements;
  }
  expect(costs.structure[1]).toBe(costs.structure[0]);
  expect(costs.published[1]).toBe(costs.published[0]);
  return { org, small, large, structure: costs.structure[0]!, published: costs.published[0]! };
}

describe('the structure of a site over REST', () => {
  it('with sections, groups and site spaces: one statement per level, the same for 2 and 20 site spaces per section', async () => {
    const costs = await restCosts(
      (org) => seedSectionedSite(org, 2),
      (org) => seedSectionedSite(org, 20),
    );
    // The site (with its section and group counts); sections; their site spaces; the spaces;
    // groups; the spaces' facts: change requests counted by status with their published places
    // (their `urls.published`) in one statement. The viewer is kept from the warm-up.
    expect(costs.structure).toBe(6);
    // The same, with the site spaces visitors see read with the site for their customizations.
    expect(costs.published).toBe(7);
    console.log(`site with groups: structure ${costs.structure} statements, published ${costs.published}`);

    const tree = await rest(costs.org, costs.large, 'structure');
    expect(tree.type).toBe('sections');
    const shape = (items: any[]): unknown[] => items.map((i) => (i.object === 'site-section-group' ? [i.title, ...shape(i.children)] : i.siteSpaces.length));
    expect(shape(tree.structure)).toEqual([21, ['G', 20, ['H', 21]], 20, ['E']]);
    const visible = await rest(costs.org, costs.large, 'published');
    expect(shape(visible.structure.structure)).toEqual([20, ['G', 20, ['H', 20]], 20]);
    expect(Object.keys(visible.customizations.siteSpaces)).toHaveLength(4 * 20);
  });

  it('with sections and no groups: no statement for groups', async () => {
    const costs = await restCosts(
      (org) => seedSectionedSite(org, 2, { groups: false }),
      (org) => seedSectionedSite(org, 20, { groups: false }),
    );
    expect(costs.structure).toBe(5);
    expect(costs.published).toBe(6);
  });

  it('with root site spaces only: the site spaces and their spaces, nothing for sections or groups', async () => {
    const costs = await restCosts(
      (org) => seedRootSite(org, 2),
      (org) => seedRootSite(org, 40),
    );
    // The site; its root site spaces; their spaces; their facts with their published places.
    expect(costs.structure).toBe(4);
    expect(costs.published).toBe(5);
    console.log(`site of root site spaces: structure ${costs.structure} statements, published ${costs.published}`);
    expect((await rest(costs.org, costs.large, 'structure')).structure).toHaveLength(41);
    expect((await rest(costs.org, costs.large, 'published')).structure.structure).toHaveLength(40);
  });
});

// Within graphql-armor's depth limit: spaces in full at the top, their ids deeper.
const NESTED_SECTION = `__typename ... on SiteSection { id siteSpaces { id spaceId } }`;
const sitesQuery = `query($id: ID!) {
  organization(id: $id) {
    sites(limit: 100) {
      items {
        id
        structure {
          type
          structure {
            __typename
            ... on SiteSpace { id space { id title } }
            ... on SiteSection { id siteSpaces { id space { id title } } }
            ... on SiteSectionGroup { id sections { id } children { ${NESTED_SECTION} ... on SiteSectionGroup { id children { ${NESTED_SECTION} } } } }
          }
        }
      }
    }
  }
}`;

describe('the structure of sites in GraphQL', () => {
  it('costs the same statements for the structures of N and 2N sites, and answers as the REST structure', async () => {
    const seedOrg = async (n: number) => {
      const org = await createOrg();
      for (let i = 0; i < n; i++) await (i % 3 === 2 ? seedRootSite(org, 3) : seedSectionedSite(org, 2, { groups: i % 3 === 0 }));
      return org;
    };
    const [small, large] = [await seedOrg(4), await seedOrg(8)];
    const run = async (org: string) => {
      const res = await server.graphql(sitesQuery, { token: tree.token, variables: { id: org } });
      expect(res.body.errors?.[0]).toBeUndefined();
      return res.body.data.organization.sites.items as any[];
    };
    await run(small);
    const a = await server.countStatements(() => run(small));
    const b = await server.countStatements(() => run(large));
    expect(b.result).toHaveLength(8);
    expect(b.statements).toBe(a.statements);
    console.log(`structures of ${a.result.length} and ${b.result.length} sites: ${a.statements} and ${b.statements} statements`);
    // The viewer; the organization; the page of sites and its count; sections; their site spaces;
    // their spaces; groups; root site spaces; their spaces.
    expect(b.statements).toBeLessThanOrEqual(10);

    // Ids, depth first: [group, ...children], [section, ...its spaces], [site space, its space].
    const ids = (items: any[]): unknown[] =>
      items.map((i) =>
        i.children ? [i.id, ...ids(i.children)] : [i.id, ...(i.siteSpaces ?? [i]).map((x: any) => x.spaceId ?? x.space.id)],
      );
    for (const site of b.result) {
      const body = await rest(large, site.id, 'structure');
      expect(site.structure.type).toBe(body.type);
      expect(ids(site.structure.structure)).toEqual(ids(body.structure));
    }
  });

  it('reads the items of groups outside a structure, batched for every group of a site', async () => {
    const org = await createOrg();
    const siteId = await seedSectionedSite(org, 3);
    const query = `query($org: ID!, $site: ID!) {
      site(organizationId: $org, id: $site) {
        sectionGroups {
          id
          sections { id siteSpaces { id } }
          children { __typename ... on SiteSection { id siteSpaces { id } } ... on SiteSectionGroup { id } }
          visible: children(onlyVisible: true) { ... on SiteSection { id siteSpaces(onlyVisible: true) { id } } ... on SiteSectionGroup { id } }
        }
        structure { structure { ... on SiteSectionGroup { id sections { id } children { ... on SiteSection { id } ... on SiteSectionGroup { id sections { id } children { ... on SiteSection { id } } } } } } }
      }
    }`;
    const run = () => server.graphql(query, { token: tree.token, variables: { org, site: siteId } });
    await run();
    const { statements, result } = await server.countStatements(run);
    expect(result.body.errors?.[0]).toBeUndefined();
    const { sectionGroups, structure } = result.body.data.site;
    expect(sectionGroups).toHaveLength(3);
    // Every group answers as in the structure: the same sections and children, in the same order.
    const inTree = new Map<string, any>();
    const walk = (items: any[]) => items.filter((i) => i.children).forEach((i) => (inTree.set(i.id, i), walk(i.children)));
    walk(structure.structure);
    expect(inTree.size).toBe(3);
    for (const group of sectionGroups) {
      const tree = inTree.get(group.id);
      expect(group.children.map((c: any) => c.id)).toEqual(tree.children.map((c: any) => c.id));
      expect(group.sections.map((c: any) => c.id)).toEqual(tree.sections.map((c: any) => c.id));
    }
    // Visible: the empty group has nothing; G keeps B and H, H keeps C without the space in the bin.
    expect(sectionGroups.map((x: any) => x.visible.length).sort()).toEqual([0, 1, 2]);
    expect(sectionGroups.flatMap((x: any) => x.visible.flatMap((i: any) => i.siteSpaces ?? []))).toHaveLength(2 * 3);
    expect(sectionGroups.flatMap((x: any) => x.children.flatMap((i: any) => i.siteSpaces ?? []))).toHaveLength(2 * 3 + 1);
    // Two reads of the site's sections and groups (all, then only visible ones) serve the three groups.
    expect(statements).toBeLessThanOrEqual(14);
    console.log(`section groups read outside a structure: ${statements} statements`);
  });
});

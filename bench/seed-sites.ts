/**
 * Seeds the site graph of issue 5 into a fresh, migrated database:
 * bench/seed.ts's user, token, organization and spaces (1,000 by default),
 * then SITES docs sites (20), each with SECTIONS sections (5) of
 * SITE_SPACES site spaces (10). Site space k (counting across all sites, in
 * structure order) publishes space k of the organization's spaces (modulo
 * their number), so at the default size each of the 1,000 spaces is on
 * exactly one site.
 *
 * Rows are written with the app's Prisma client (createDb), as the app's
 * mutations would leave them: positions 1, 2, ... in each parent, the first
 * section of a site its default section, the first site space of a section
 * its default site space, every site published.
 */
import { createDb } from '../src/db/client.ts';
import { newId } from '../src/ids.ts';
import type { Endpoint } from './harness.ts';
import { seed, type Seed } from './seed.ts';
import { SITE_GRAPH_QUERY, SITES_LIMIT } from './site-graph-query.ts';

export { SITE_GRAPH_QUERY, SITES_LIMIT };

/** The endpoints of the site graph benchmarks (bench/site-graph.ts, bench/site-graph-floor.ts, bench/ab.ts). */
export function siteGraphEndpoints(data: { organizationId: string; sites: Array<{ id: string }> }): { graph: Endpoint; structure: Endpoint } {
  return {
    graph: {
      key: 'graphql-site-graph',
      label: `POST /graphql: organization { sites(limit: ${SITES_LIMIT}) { items { sections { siteSpaces { space } } } } }`,
      paths: ['/graphql'],
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({ query: SITE_GRAPH_QUERY, variables: { organizationId: data.organizationId, limit: SITES_LIMIT }, operationName: 'SiteGraph' }),
      sameSize: true,
    },
    structure: {
      key: 'rest-site-structure',
      label: 'GET /v1/orgs/{organizationId}/sites/{siteId}/structure',
      paths: data.sites.map((s) => `/v1/orgs/${data.organizationId}/sites/${s.id}/structure`),
    },
  };
}

export interface SiteGraphShape {
  spaces: number;
  sites: number;
  sectionsPerSite: number;
  siteSpacesPerSection: number;
}

export const DEFAULT_SHAPE: SiteGraphShape = { spaces: 1000, sites: 20, sectionsPerSite: 5, siteSpacesPerSection: 10 };

export interface SeededSiteSpace {
  id: string;
  path: string;
  spaceId: string;
}
export interface SeededSection {
  id: string;
  title: string;
  path: string;
  siteSpaces: SeededSiteSpace[];
}
export interface SeededSite {
  id: string;
  title: string;
  basename: string;
  sections: SeededSection[];
}

export interface SiteSeed extends Seed {
  shape: SiteGraphShape;
  /** The sites in list order (createdAt, id), each with its sections and site spaces in structure order. */
  sites: SeededSite[];
  /** Title of every space by id. */
  spaceTitles: Map<string, string>;
}

export async function seedSites(name: string, shape: Partial<SiteGraphShape> = {}, options: { inCollection?: number } = {}): Promise<SiteSeed> {
  const s: SiteGraphShape = { ...DEFAULT_SHAPE, ...shape };
  const base = await seed(name, { spaces: s.spaces, inCollection: options.inCollection ?? 5 });
  const db = createDb(base.database.config);
  try {
    const spaces = await db.space.findMany({ where: { organizationId: base.organizationId }, select: { id: true, title: true } });
    const spaceTitles = new Map(spaces.map((sp) => [sp.id, sp.title]));

    const start = Date.UTC(2025, 6, 1);
    const sites: SeededSite[] = [];
    const siteRows = [];
    const sectionRows = [];
    const siteSpaceRows = [];
    let k = 0;
    for (let i = 0; i < s.sites; i++) {
      const number = String(i + 1).padStart(2, '0');
      const site: SeededSite = { id: newId(), title: `Site ${number}`, basename: `site-${number}`, sections: [] };
      for (let j = 0; j < s.sectionsPerSite; j++) {
        const section: SeededSection = { id: newId(), title: `Section ${j + 1}`, path: `section-${j + 1}`, siteSpaces: [] };
        for (let v = 0; v < s.siteSpacesPerSection; v++, k++) {
          const spaceId = base.spaceIds[k % base.spaceIds.length]!;
          const siteSpace: SeededSiteSpace = { id: newId(), path: `variant-${v + 1}`, spaceId };
          section.siteSpaces.push(siteSpace);
          siteSpaceRows.push({
            id: siteSpace.id,
            siteId: site.id,
            sectionId: section.id,
            spaceId,
            path: siteSpace.path,
            isDefault: v === 0,
            position: v + 1,
            createdAt: new Date(start + k * 1000),
            updatedAt: new Date(start + k * 1000),
          });
        }
        site.sections.push(section);
        sectionRows.push({
          id: section.id,
          siteId: site.id,
          title: section.title,
          path: section.path,
          position: j + 1,
          defaultSiteSpaceId: section.siteSpaces[0]?.id ?? null,
          createdAt: new Date(start + (i * s.sectionsPerSite + j) * 1000),
          updatedAt: new Date(start + (i * s.sectionsPerSite + j) * 1000),
        });
      }
      sites.push(site);
      const at = new Date(start + i * 60_000);
      siteRows.push({
        id: site.id,
        organizationId: base.organizationId,
        title: site.title,
        basename: site.basename,
        visibility: 'public',
        published: true,
        publishedAt: at,
        defaultSectionId: site.sections[0]?.id ?? null,
        createdAt: at,
        updatedAt: at,
      });
    }
    await db.site.createMany({ data: siteRows });
    await db.siteSection.createMany({ data: sectionRows });
    await db.siteSpace.createMany({ data: siteSpaceRows });
    return { ...base, shape: s, sites, spaceTitles };
  } catch (error) {
    await base.drop();
    throw error;
  } finally {
    await db.$disconnect();
  }
}

// By hand: seed and print the database URL and token, keep the database.
if (import.meta.url === `file://${process.argv[1]}`) {
  const data = await seedSites('sites');
  console.log(JSON.stringify({ databaseUrl: data.database.url, token: data.token, organizationId: data.organizationId, siteIds: data.sites.map((x) => x.id) }));
}

/**
 * The benchmarks' hand-written servers answer what the app answers, as the benchmarks check
 * before measuring: bench/raw-ceiling.ts the same bytes for GET /v1/spaces/{spaceId} and the space
 * list, bench/raw-site-graph.ts the same JSON (key order aside) for the site graph query and a
 * site's structure. A field the app gains must reach them too, or `npm run bench` stops at that
 * check: it stopped at the site graph for a day when sections and site spaces gained `draft` and
 * spaces `urls.public` (0e7e4e1). Same database, same token.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRawServer } from '../../bench/raw-ceiling.ts';
import type { RawServer } from '../../bench/raw-common.ts';
import { createRawSiteGraphServer } from '../../bench/raw-site-graph.ts';
import { SITE_GRAPH_QUERY, SITES_LIMIT } from '../../bench/site-graph-query.ts';
import { useTestServer } from '../helpers/server.ts';

const { server, ada } = useTestServer({ users: ['Ada'] });

/** The REST benchmark's kind of data (no sites): a space in a collection and one at the top. */
let org: string;
let spaces: string[];
/** The site graph's: a published public site of two sections, three site spaces. */
let siteOrg: string;
let site: string;
let ceiling: RawServer;
let siteGraph: RawServer;
let ceilingUrl: string;
let siteGraphUrl: string;

beforeAll(async () => {
  org = await server.createOrg(ada, 'Baselines');
  const collection = await server.createCollection(ada, org, { title: 'Guides' });
  spaces = [(await server.createSpace(ada, org, { title: 'In the collection', parent: collection.id })).id, (await server.createSpace(ada, org, { title: 'At the top' })).id];

  siteOrg = await server.createOrg(ada, 'Baseline sites');
  const [a, b, c] = await Promise.all(['Guides', 'Reference', 'API'].map((title) => server.createSpace(ada, siteOrg, { title })));
  site = (await server.createSite(ada, siteOrg, { title: 'Docs', visibility: 'public' })).id;
  const add = async (path: string, body: Record<string, unknown>) => {
    const res = await server.request('POST', `/v1/orgs/${siteOrg}/sites/${site}/${path}`, { token: ada.token, body });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body;
  };
  await add('sections', { spaceId: a.id, title: 'Guides' });
  const reference = await add('sections', { spaceId: b.id, title: 'Reference' });
  await add('site-spaces', { spaceId: c.id, sectionId: reference.id });
  await server.publishSite(ada, siteOrg, site);

  const urls = { databaseUrl: server.database.url, publicUrl: server.app.config.publicUrl, appUrl: server.app.config.appUrl, sitesUrl: server.app.config.sitesUrl };
  ceiling = createRawServer(urls);
  siteGraph = createRawSiteGraphServer(urls);
  [ceilingUrl, siteGraphUrl] = await Promise.all([ceiling.listen(), siteGraph.listen()]);
});

afterAll(async () => {
  await Promise.all([ceiling?.close(), siteGraph?.close()]);
});

async function get(base: string, path: string): Promise<{ status: number; text: string }> {
  const res = await fetch(base + path, { headers: { authorization: `Bearer ${ada.token}` } });
  return { status: res.status, text: await res.text() };
}

describe('bench/raw-ceiling.ts', () => {
  it('answers GET /v1/spaces/{spaceId} with the app\'s bytes, in a collection and at the top', async () => {
    for (const id of spaces) {
      const app = await get(server.baseUrl, `/v1/spaces/${id}`);
      expect(app.status).toBe(200);
      expect(await get(ceilingUrl, `/v1/spaces/${id}`)).toEqual(app);
    }
  });

  it("answers the space list with the app's bytes", async () => {
    const app = await get(server.baseUrl, `/v1/orgs/${org}/spaces?limit=100`);
    expect(app.status).toBe(200);
    expect(await get(ceilingUrl, `/v1/orgs/${org}/spaces?limit=100`)).toEqual(app);
  });
});

describe('bench/raw-site-graph.ts', () => {
  it("answers the site graph query with the app's JSON", async () => {
    const body = JSON.stringify({ query: SITE_GRAPH_QUERY, variables: { organizationId: siteOrg, limit: SITES_LIMIT }, operationName: 'SiteGraph' });
    const post = async (base: string) => {
      const res = await fetch(`${base}/graphql`, { method: 'POST', headers: { authorization: `Bearer ${ada.token}`, 'content-type': 'application/json' }, body });
      return { status: res.status, body: await res.json() };
    };
    const app = await post(server.baseUrl);
    expect(app.status).toBe(200);
    expect(app.body.errors).toBeUndefined();
    expect(app.body.data.organization.sites.items[0].sections).toHaveLength(2);
    expect(await post(siteGraphUrl)).toEqual(app);
  });

  it("answers a site's structure with the app's JSON", async () => {
    const app = await get(server.baseUrl, `/v1/orgs/${siteOrg}/sites/${site}/structure`);
    expect(app.status).toBe(200);
    const raw = await get(siteGraphUrl, `/v1/orgs/${siteOrg}/sites/${site}/structure`);
    expect(raw.status).toBe(200);
    expect(JSON.parse(raw.text)).toEqual(JSON.parse(app.text));
  });
});

/**
 * Searching a site (POST /v1/orgs/{organizationId}/sites/{siteId}/search):
 * only the spaces the site publishes, chosen by `scope` (each section's
 * default, plus the current site space; specific site spaces; all) or the
 * deprecated `mode`; for the site's members and for share-link visitors with
 * the key; bad scopes and unknown site spaces refused with a 400. Bodies are
 * validated against @gitbook/api 0.146.0.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { assertMatchesSpec } from '../helpers/openapi.ts';
import { expectError, shareKeyIn, useTestServer } from '../helpers/server.ts';

const { server, ada, bob } = useTestServer({ users: ['Ada', 'Bob'] });
let org: string;
let sites: string;
const spaces: Record<string, string> = {};
const siteSpaces: Record<string, string> = {};

async function ok(method: string, path: string, body?: unknown, token = ada.token) {
  const res = await server.request(method, path, { token, body });
  expect(res.status, `${method} ${path}: ${JSON.stringify(res.body)}`).toBeLessThan(300);
  return res.body;
}

async function spaceWith(title: string, text: string): Promise<string> {
  const space = (await server.createSpace(ada, org, { title })).id;
  const cr = (await ok('POST', `/v1/spaces/${space}/change-requests`, { subject: 'Text' })).id;
  await ok('POST', `/v1/spaces/${space}/change-requests/${cr}/content`, { changes: [{ operation: 'insert_page', title: `${title} page`, document: { markdown: `${text}\n` } }] });
  await ok('PATCH', `/v1/spaces/${space}/change-requests/${cr}`, { status: 'open' });
  await ok('POST', `/v1/spaces/${space}/change-requests/${cr}/merge`);
  return space;
}

beforeAll(async () => {
  org = await server.createOrg(ada);
  for (const name of ['guides', 'api', 'api-v1', 'elsewhere']) spaces[name] = await spaceWith(name, 'Look for the needle here.');
  const site = await server.createSite(ada, org, { title: 'Docs', visibility: 'share-link' });
  sites = `/v1/orgs/${org}/sites/${site.id}`;
  siteSpaces.guides = (await ok('POST', `${sites}/sections`, { spaceId: spaces.guides, title: 'Guides' })).siteSpaces[0].id;
  const api = await ok('POST', `${sites}/sections`, { spaceId: spaces.api, title: 'API' });
  siteSpaces.api = api.siteSpaces[0].id;
  siteSpaces['api-v1'] = (await ok('POST', `${sites}/site-spaces`, { spaceId: spaces['api-v1'], sectionId: api.id })).id;
  await ok('POST', `${sites}/publish`);
});

const search = async (body: unknown, token = ada.token, query = '') => {
  const res = await server.request('POST', `${sites}/search${query}`, { token, body });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  assertMatchesSpec('searchSiteContent', 200, res.body);
  return (res.body.items as { id: string }[]).map((i) => Object.entries(spaces).find(([, id]) => id === i.id)![0]).sort();
};

describe('site search', () => {
  it("searches each section's default site space, and the current one when given", async () => {
    expect(await search({ query: 'needle' })).toEqual(['api', 'guides']);
    expect(await search({ query: 'needle', scope: { mode: 'default' } })).toEqual(['api', 'guides']);
    expect(await search({ query: 'needle', scope: { mode: 'default', currentSiteSpace: siteSpaces['api-v1'] } })).toEqual(['api', 'api-v1', 'guides']);
    expect(await search({ query: 'needle', mode: 'current', siteSpaceId: siteSpaces['api-v1'] })).toEqual(['api', 'api-v1', 'guides']);
  });

  it('searches the site spaces asked for, or all of them; never a space the site does not publish', async () => {
    expect(await search({ query: 'needle', scope: { mode: 'specific', siteSpaceIds: [siteSpaces['api-v1']] } })).toEqual(['api-v1']);
    expect(await search({ query: 'needle', siteSpaceIds: [siteSpaces.guides] })).toEqual(['guides']);
    expect(await search({ query: 'needle', scope: { mode: 'all' } })).toEqual(['api', 'api-v1', 'guides']);
    expect(await search({ query: 'needle', mode: 'all' }, ada.token, '?limit=1')).toHaveLength(1);
    expect(await search({ query: 'nothing-matches-this', scope: { mode: 'all' } })).toEqual([]);
  });

  it('answers share-link visitors with the key, and no one else', async () => {
    const link = await ok('POST', `${sites}/share-links`, { name: 'Bob' });
    const key = shareKeyIn(link.urls.published, server.app.config.sitesUrl);
    const res = await server.request('POST', `${sites}/search?shareKey=${key}`, { token: bob.token, body: { query: 'needle', scope: { mode: 'all' } } });
    expect(res.status).toBe(200);
    expect(res.body.items).toHaveLength(3);
    expect((await server.request('POST', `${sites}/search`, { token: bob.token, body: { query: 'needle' } })).status).toBe(404);
  });

  it("answers 0.202.0's relevance: scores from the index, ranks in score order across result pages, page descriptions", async () => {
    // Three more pages in the guides: one titled with the word (the title weighs most), one describing it, one mentioning it once.
    const cr = (await ok('POST', `/v1/spaces/${spaces.guides}/change-requests`, { subject: 'Ranking' })).id;
    await ok('POST', `/v1/spaces/${spaces.guides}/change-requests/${cr}/content`, {
      changes: [
        { operation: 'insert_page', title: 'Haystack', document: { markdown: 'A haystack hides a haystack.\n' } },
        { operation: 'insert_page', title: 'Farming', description: 'Where the haystack goes', document: { markdown: 'Fields and barns.\n' } },
        { operation: 'insert_page', title: 'Barns', document: { markdown: 'Barns, tools, animals, tractors, fences and once a haystack among many other things.\n' } },
      ],
    });
    await ok('PATCH', `/v1/spaces/${spaces.guides}/change-requests/${cr}`, { status: 'open' });
    await ok('POST', `/v1/spaces/${spaces.guides}/change-requests/${cr}/merge`);
    const res = await server.request('POST', `${sites}/search`, { token: ada.token, body: { query: 'haystack', scope: { mode: 'all' } } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    assertMatchesSpec('searchSiteContent', 200, res.body, 'next');
    const [guides] = res.body.items;
    expect(res.body.items).toHaveLength(1);
    expect(guides).toMatchObject({ type: 'space', id: spaces.guides });
    const pages = guides.pages as Array<{ title: string; description: string; score: number; rank: number; sections: Array<{ score: number }> }>;
    expect(pages.map((p) => p.title)).toEqual(['Haystack', 'Farming', 'Barns']);
    expect(pages.map((p) => p.rank)).toEqual([1, 2, 3]);
    for (const [i, page] of pages.entries()) {
      expect(page.score).toBeGreaterThan(0);
      if (i > 0) expect(page.score).toBeLessThan(pages[i - 1]!.score);
      // A page scores its best section; the space its best page.
      if (page.sections.length) expect(page.score).toBeGreaterThanOrEqual(Math.max(...page.sections.map((s) => s.score)));
    }
    expect(guides.score).toBe(pages[0]!.score);
    expect(pages.map((p) => p.description)).toEqual(['', 'Where the haystack goes', '']);

    // The space of the next result page continues the ranks of this one's pages.
    const first = await server.request('POST', `${sites}/search?limit=1`, { token: ada.token, body: { query: 'needle', scope: { mode: 'all' } } });
    const firstRanks = first.body.items.flatMap((item: any) => item.pages.map((p: any) => p.rank));
    const second = await server.request('POST', `${sites}/search?limit=1&page=${first.body.next.page}`, { token: ada.token, body: { query: 'needle', scope: { mode: 'all' } } });
    assertMatchesSpec('searchSiteContent', 200, second.body, 'next');
    expect(firstRanks).toEqual([1]);
    expect(second.body.items[0].pages.map((p: any) => p.rank)).toEqual([2]);
  });

  it('refuses a bad scope, an unknown site space and an empty query with a 400', async () => {
    const bad = async (body: unknown, message: RegExp) => expectError(await server.request('POST', `${sites}/search`, { token: ada.token, body }), 400, message);
    await bad({ query: 'needle', scope: { mode: 'everywhere' } }, /scope: mode: must be default, specific or all/);
    await bad({ query: 'needle', scope: { mode: 'specific', siteSpaceIds: [] } }, /scope: siteSpaceIds: must be a list of site space ids, at least one/);
    await bad({ query: 'needle', scope: { mode: 'specific', siteSpaceIds: ['nope'] } }, /siteSpaceIds: no site space nope on this site/);
    await bad({ query: 'needle', mode: 'current' }, /siteSpaceId: required with mode current/);
    await bad({ query: ' ' }, /query: must not be empty/);
  });
});

/**
 * GET /v1/spaces/{spaceId}/links over HTTP: every link of the space's current
 * revision, one per target with the pages it is found on, its status (ok,
 * broken, in-app), the stats, the status filter and pagination, and a cost in
 * SQL statements that does not grow with pages or links. Every 200 body is
 * validated against @gitbook/api's OpenAPI document.
 */
import { ContentReferenceStatus, GitBookAPI } from '@gitbook/api';
import { beforeAll, describe, expect, it } from 'vitest';
import { assertMatchesSpec } from '../helpers/openapi.ts';
import { expectError, useTestServer, type TestUser } from '../helpers/server.ts';

const { server, ada, rita, bob } = useTestServer({ users: ['Ada', 'Rita', 'Bob'] }); // admin, reader, another organization
let org: string;

beforeAll(async () => {
  org = await server.createOrg(ada);
  await server.addMember(org, rita, 'read');
  await server.createOrg(bob, 'Bob org');
});

async function ok(method: string, path: string, body?: unknown) {
  const res = await server.request(method, path, { token: ada.token, body });
  expect(res.status, `${method} ${path}: ${JSON.stringify(res.body)}`).toBeLessThan(300);
  return res.body;
}

/** GET the links of a space as `user`, expecting 200 and a body of the wire contract. */
async function links(space: string, query = '', user: TestUser = ada) {
  const res = await server.request('GET', `/v1/spaces/${space}/links${query}`, { token: user.token });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  assertMatchesSpec('listSpaceLinks', 200, res.body);
  return res.body;
}

/** Applies `changes` to the space through a change request, merged. */
async function mergeChanges(space: string, changes: unknown[]) {
  const cr = await ok('POST', `/v1/spaces/${space}/change-requests`, { subject: 'Edits' });
  await ok('POST', `/v1/spaces/${space}/change-requests/${cr.id}/content`, { changes });
  await ok('PATCH', `/v1/spaces/${space}/change-requests/${cr.id}`, { status: 'open' });
  expect((await ok('POST', `/v1/spaces/${space}/change-requests/${cr.id}/merge`)).result).toBe('merge');
}

/** Page ids by title, and file ids by name, of the space's current content. */
async function contentIds(space: string) {
  const flatten = (pages: any[]): any[] => pages.flatMap((p) => [p, ...flatten(p.pages ?? [])]);
  const pages = flatten((await ok('GET', `/v1/spaces/${space}/content/pages`)).pages);
  const files = (await ok('GET', `/v1/spaces/${space}/content/files`)).items as any[];
  return {
    page: Object.fromEntries(pages.map((p) => [p.title, p.id])) as Record<string, string>,
    file: Object.fromEntries(files.map((f) => [f.name, f.id])) as Record<string, string>,
  };
}

/** A link item as [status, target, location page ids]. */
type LinkSummary = [status: string, target: string | null, locations: string[]];

function summary(item: any): LinkSummary {
  const target = item.targetReference;
  const id = target ? `${target.kind}:${target.page?.id ?? target.file?.id ?? target.url}` : null;
  return [item.status, id, item.locationReferences.map((l: any) => `${l.kind}:${l.page.id}`)];
}

const PNG_1X1 = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4z8AAAAMBAQDJ/pLvAAAAAElFTkSuQmCC';

describe('GET /v1/spaces/{spaceId}/links', () => {
  let space: string;
  let ids: Awaited<ReturnType<typeof contentIds>>;
  let inApp: string;

  beforeAll(async () => {
    space = (await server.createSpace(ada, org, { title: 'Linked' })).id;
    inApp = `${server.baseUrl}/o/${org}/s/${space}/guide`;
    await mergeChanges(space, [
      {
        operation: 'insert_page',
        ref: 'home',
        document: {
          markdown: `# Home\n\nRead [the guide](./guide.md), [the old page](./old.md), [the docs](https://example.com/docs) and [the app](${inApp}).\n\n![Diagram](./diagram.png)\n`,
        },
      },
      { operation: 'insert_page', ref: 'guide', document: { markdown: '# Guide\n\nBack [home](./home.md), or see [the docs](https://example.com/docs).\n' } },
      { operation: 'insert_page', ref: 'old', document: { markdown: '# Old\n\nGoing away.\n' } },
      { operation: 'insert_page', title: 'Plain', document: { markdown: 'No links here.\n' } },
      { operation: 'insert_files', files: [{ ref: 'diagram.png', name: 'diagram.png', contentType: 'image/png', base64: PNG_1X1 }] },
    ]);
    const before = await contentIds(space);
    // Deleting a page leaves the links to it broken.
    await mergeChanges(space, [{ operation: 'delete_page', page: before.page.Old }]);
    ids = before;
  });

  it('answers every link, one per target with every page it is found on, sorted by target', async () => {
    const body = await links(space);
    const { Home, Guide, Old } = ids.page;
    const pageLinks = [
      ['ok', `page:${Guide}`, [`page:${Home}`]],
      ['ok', `page:${Home}`, [`page:${Guide}`]],
      ['broken', null, [`page:${Home}`]],
    ].sort((a, b) => ((a[1] ?? `page:${Old}`) < (b[1] ?? `page:${Old}`) ? -1 : 1));
    expect(body.items.map(summary)).toEqual([
      ['ok', `file:${ids.file['diagram.png']}`, [`page:${Home}`]],
      ...pageLinks,
      ['in-app', `url:${inApp}`, [`page:${Home}`]],
      ['ok', 'url:https://example.com/docs', [`page:${Home}`, `page:${Guide}`]],
    ]);
    expect(body.items.every((i: any) => i.relation === 'reference')).toBe(true);
    expect(body.count).toBe(6);
    expect(body.stats).toEqual({ total: 6, broken: { total: 1, changeRequest: 0 } });
    expect(body.next).toBeUndefined();
    // Locations carry their page (with its document, as the wire contract requires), space and organization.
    const home = body.items[0].locationReferences[0];
    expect(home).toMatchObject({ kind: 'page', page: { id: Home, title: 'Home', document: { object: 'document' } }, space: { id: space }, organization: { id: org } });
    expect(body.items[0].targetReference).toMatchObject({ kind: 'file', file: { name: 'diagram.png' }, space: { id: space } });
  });

  it('agrees with the links of each page', async () => {
    const all: LinkSummary[] = (await links(space)).items.map(summary);
    for (const pageId of Object.values(ids.page).filter((id) => id !== ids.page.Old)) {
      const res = await server.request('GET', `/v1/spaces/${space}/content/page/${pageId}/links`, { token: ada.token });
      expect(res.status).toBe(200);
      assertMatchesSpec('listPageLinksInSpace', 200, res.body);
      const ofPage = all.filter(([, , locations]) => locations.includes(`page:${pageId}`)).map(([status, target]) => [status, target]);
      expect(res.body.items.map(summary).map(([status, target]: any) => [status, target])).toEqual(ofPage);
    }
  });

  it('filters by status; stats stay over every link', async () => {
    const broken = await links(space, '?status=broken');
    expect(broken.items.map(summary)).toEqual([['broken', null, [`page:${ids.page.Home}`]]]);
    expect(broken.items[0].targetReference).toBeUndefined();
    expect(broken.count).toBe(1);
    expect(broken.stats).toEqual({ total: 6, broken: { total: 1, changeRequest: 0 } });
    const inAppLinks = await links(space, '?status=in-app');
    expect(inAppLinks.items.map(summary)).toEqual([['in-app', `url:${inApp}`, [`page:${ids.page.Home}`]]]);
    expect((await links(space, '?status=ok')).count).toBe(4);
    expectError(await server.request('GET', `/v1/spaces/${space}/links?status=bogus`, { token: ada.token }), 400, /status/);
  });

  it('pages through with a small limit', async () => {
    const all: LinkSummary[] = (await links(space)).items.map(summary);
    const seen: unknown[] = [];
    let query = '?limit=4';
    for (let round = 0; round < 5; round++) {
      const body = await links(space, query);
      expect(body.count).toBe(6);
      expect(body.stats.total).toBe(6);
      seen.push(...body.items.map(summary));
      if (!body.next) break;
      query = `?limit=4&page=${encodeURIComponent(body.next.page)}`;
    }
    expect(seen).toEqual(all);
    const filtered = await links(space, '?status=ok&limit=3');
    const rest = await links(space, `?status=ok&limit=3&page=${encodeURIComponent(filtered.next.page)}`);
    expect([...filtered.items, ...rest.items].map(summary)).toEqual(all.filter(([status]) => status === 'ok'));
    expect(rest.next).toBeUndefined();
  });

  it('answers 400 for a limit out of 1..1000 and for a cursor it did not make', async () => {
    for (const query of ['?limit=0', '?limit=1001', '?limit=-1', '?limit=abc']) {
      expectError(await server.request('GET', `/v1/spaces/${space}/links${query}`, { token: ada.token }), 400, /limit/);
    }
    for (const page of ['nonsense', Buffer.from('12').toString('base64url'), Buffer.from('{"after":3}').toString('base64url')]) {
      expectError(await server.request('GET', `/v1/spaces/${space}/links?page=${page}`, { token: ada.token }), 400, /page/);
    }
    expect((await links(space, '?limit=1000')).count).toBe(6);
  });

  it('lets a reader read; another organization, or an unknown space, is 404', async () => {
    expect((await links(space, '', rita)).stats.total).toBe(6);
    expectError(await server.request('GET', `/v1/spaces/${space}/links`, { token: bob.token }), 404);
    expectError(await server.request('GET', '/v1/spaces/no-such-space/links', { token: ada.token }), 404);
    expectError(await server.request('GET', `/v1/spaces/${space}/links`), 401);
  });

  it('answers GitBook’s client', async () => {
    const api = new GitBookAPI({ authToken: ada.token, endpoint: server.baseUrl });
    const res = await api.spaces.listSpaceLinks(space, { status: ContentReferenceStatus.Broken, limit: 10 });
    expect(res.status).toBe(200);
    assertMatchesSpec('listSpaceLinks', 200, res.data);
    expect(res.data.items).toHaveLength(1);
    expect(res.data.items[0]).toMatchObject({ status: 'broken', relation: 'reference' });
    expect(res.data.stats).toEqual({ total: 6, broken: { total: 1, changeRequest: 0 } });
  });
});

describe('a cursor across a change of content', () => {
  it('continues after the last link served when links are added before it', async () => {
    const space = (await server.createSpace(ada, org, { title: 'Moving' })).id;
    await mergeChanges(space, [{ operation: 'insert_page', title: 'Links', document: { markdown: '[c](https://c.example/) [d](https://d.example/) [e](https://e.example/)\n' } }]);
    const first = await links(space, '?limit=2');
    expect(first.items.map((i: any) => i.targetReference.url)).toEqual(['https://c.example/', 'https://d.example/']);
    // A link sorting before the cursor arrives between the two requests.
    await mergeChanges(space, [{ operation: 'insert_page', title: 'More', document: { markdown: '[a](https://a.example/)\n' } }]);
    const second = await links(space, `?limit=2&page=${encodeURIComponent(first.next.page)}`);
    expect(second.items.map((i: any) => i.targetReference.url)).toEqual(['https://e.example/']);
    expect(second.count).toBe(4);
  });
});

describe('statement count', () => {
  /** A space of `n` pages, each linking to the next `fanOut` pages, to a URL of its own, to a shared URL and to an image. */
  async function seedSpace(n: number, fanOut: number): Promise<string> {
    const space = (await server.createSpace(ada, org, { title: `${n} pages` })).id;
    const pages = Array.from({ length: n }, (_, i) => {
      const next = Array.from({ length: fanOut }, (_, k) => `[next ${k}](./p${(i + k + 1) % n}.md)`).join(' ');
      return {
        operation: 'insert_page',
        ref: `p${i}`,
        title: `Page ${i}`,
        document: { markdown: `${next} [own](https://example.com/${i}) [shared](https://example.com/shared)\n\n![image](./image.png)\n` },
      };
    });
    await mergeChanges(space, [...pages, { operation: 'insert_files', files: [{ ref: 'image.png', name: 'image.png', contentType: 'image/png', base64: PNG_1X1 }] }]);
    return space;
  }

  const graphql = `query($id: ID!) {
    organization(id: $id) {
      spaces(limit: 100) {
        items { id links(limit: 1000) { count stats { total broken { total } } items { status targetReference { kind url page { id } file { id } } locationReferences { page { id title document } } } } }
      }
    }
  }`;

  it('does not grow with the number of pages and links (REST), nor with the number of spaces (GraphQL)', async () => {
    const small = await seedSpace(3, 1);
    const large = await seedSpace(40, 5);

    const rest = async (space: string) => (await links(space, '?limit=1000')).count as number;
    await rest(small); // warm: the measured requests are alike
    const { statements: forSmall, result: smallCount } = await server.countStatements(() => rest(small));
    const { statements: forLarge, result: largeCount } = await server.countStatements(() => rest(large));
    // 3 pages: 3 page targets, 3 own URLs, the shared URL, the image; 40 pages: 40 + 40 + 1 + 1.
    expect([smallCount, largeCount]).toEqual([8, 82]);
    expect(forLarge).toBe(forSmall);
    expect(forSmall).toBeLessThanOrEqual(12);

    // Several spaces' links in one GraphQL request: the references of all their revisions load together.
    const spacesOrg = async (n: number) => {
      const id = await server.createOrg(ada, `Org of ${n}`);
      for (let i = 0; i < n; i++) {
        const space = (await server.createSpace(ada, id, { title: `S${i}` })).id;
        await mergeChanges(space, [{ operation: 'insert_page', title: 'Only', document: { markdown: `[x](https://example.com/${i}) [self](/pages/nowhere-${i})\n` } }]);
      }
      return id;
    };
    const two = await spacesOrg(2);
    const five = await spacesOrg(5);
    const gql = async (id: string) => {
      const res = await server.graphql(graphql, { token: ada.token, variables: { id } });
      expect(res.body.errors, JSON.stringify(res.body.errors)).toBeUndefined();
      return res.body.data.organization.spaces.items.map((s: any) => s.links.stats);
    };
    await gql(two);
    const { statements: forTwo } = await server.countStatements(() => gql(two));
    const { statements: forFive, result: stats } = await server.countStatements(() => gql(five));
    expect(stats).toEqual(Array.from({ length: 5 }, () => ({ total: 2, broken: { total: 1 } })));
    expect(forFive).toBe(forTwo);
    console.log(`statements for the links of a space: REST ${forLarge}, GraphQL for several spaces ${forFive}`);
  });
});

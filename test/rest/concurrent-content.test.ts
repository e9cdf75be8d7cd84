/**
 * Concurrent writes to one space's content over real HTTP, on SQLite and on PostgreSQL: merges of
 * change requests that touch different pages all succeed, and so do concurrent batches of edits
 * to one change request; changes to the same page still conflict as they do one after another.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { useTestServer } from '../helpers/server.ts';

const { server, ada } = useTestServer({ users: ['Ada'] });
let org: string;

beforeAll(async () => {
  org = await server.createOrg(ada);
});

const CONCURRENT = 20;

async function call(method: string, path: string, body?: unknown) {
  const res = await server.request(method, path, { token: ada.token, body });
  return res;
}

async function ok(method: string, path: string, body?: unknown) {
  const res = await call(method, path, body);
  expect(res.status, `${method} ${path}: ${JSON.stringify(res.body)}`).toBeLessThan(300);
  return res.body as any;
}

const cr = (space: string, id = '') => `/v1/spaces/${space}/change-requests${id ? `/${id}` : ''}`;

/** A space with `count` merged pages, P0..P(count-1); their ids by title. */
async function spaceWithPages(count: number) {
  const space = (await server.createSpace(ada, org, { title: 'Concurrency' })).id as string;
  const first = await ok('POST', cr(space), { subject: 'pages' });
  const changes = Array.from({ length: count }, (_, i) => ({ operation: 'insert_page', title: `P${i}`, document: { markdown: `Text of page ${i}.\n` } }));
  await ok('POST', `${cr(space, first.id)}/content`, { changes });
  await ok('POST', `${cr(space, first.id)}/merge`);
  const pages = (await ok('GET', `/v1/spaces/${space}/content/pages`)).pages as { id: string; title: string }[];
  return { space, pages: Object.fromEntries(pages.map((p) => [p.title, p.id])) as Record<string, string> };
}

async function markdownOf(space: string, pageId: string): Promise<string> {
  return (await ok('GET', `/v1/spaces/${space}/content/page/${pageId}?format=markdown`)).markdown;
}

describe('concurrent content writes', () => {
  it(`merges ${CONCURRENT} change requests touching different pages at once, all of them`, async () => {
    const { space, pages } = await spaceWithPages(CONCURRENT);
    const requests = [];
    for (let i = 0; i < CONCURRENT; i++) {
      const request = await ok('POST', cr(space), { subject: `edit ${i}` });
      await ok('POST', `${cr(space, request.id)}/content`, {
        changes: [{ operation: 'update_page', page: pages[`P${i}`], document: { markdown: `Text of page ${i}, edited by request ${i}.\n` } }],
      });
      requests.push(request.id as string);
    }
    const answers = await Promise.all(requests.map((id) => call('POST', `${cr(space, id)}/merge`)));
    expect(answers.map((a) => [a.status, (a.body as any).result])).toEqual(requests.map(() => [200, 'merge']));
    for (let i = 0; i < CONCURRENT; i++) expect(await markdownOf(space, pages[`P${i}`]!)).toContain(`edited by request ${i}`);
    const merged = await ok('GET', `${cr(space)}?status=merged&limit=100`);
    expect(merged.items.length).toBe(CONCURRENT + 1);
  });

  it(`applies ${CONCURRENT} concurrent batches of edits to one change request, all of them`, async () => {
    const { space } = await spaceWithPages(1);
    const request = await ok('POST', cr(space), { subject: 'many hands' });
    const answers = await Promise.all(
      Array.from({ length: CONCURRENT }, (_, i) =>
        call('POST', `${cr(space, request.id)}/content`, { changes: [{ operation: 'insert_page', title: `New ${i}`, document: { markdown: `New page ${i}.\n` } }] }),
      ),
    );
    expect(answers.map((a) => a.status)).toEqual(answers.map(() => 200));
    const titles = ((await ok('GET', `${cr(space, request.id)}/content/pages`)).pages as { title: string }[]).map((p) => p.title);
    expect(titles.filter((t) => t.startsWith('New ')).sort()).toEqual(Array.from({ length: CONCURRENT }, (_, i) => `New ${i}`).sort());
  });

  it('still gives conflicts to concurrent merges that changed the same page: one merges, the others conflict', async () => {
    const { space, pages } = await spaceWithPages(1);
    const requests = [];
    for (let i = 0; i < 5; i++) {
      const request = await ok('POST', cr(space), { subject: `same page ${i}` });
      await ok('POST', `${cr(space, request.id)}/content`, {
        changes: [{ operation: 'update_page', page: pages.P0, document: { markdown: `Rewritten by ${i}.\n` } }],
      });
      requests.push(request.id as string);
    }
    const answers = await Promise.all(requests.map((id) => call('POST', `${cr(space, id)}/merge`)));
    const results = answers.map((a) => [a.status, (a.body as any).result]);
    expect(results.filter(([, r]) => r === 'merge')).toHaveLength(1);
    expect(results.filter(([s, r]) => s === 200 && r === 'conflicts')).toHaveLength(4);
  });
});

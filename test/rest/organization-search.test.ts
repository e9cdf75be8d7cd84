/**
 * GET /v1/orgs/{organizationId}/search over real HTTP, validated against the OpenAPI document:
 * the organization's spaces whose content matches, best first, each with its best pages; spaces
 * in the bin and other organizations' spaces are never results; paging, limits and access.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { assertMatchesSpec } from '../helpers/openapi.ts';
import { useTestServer, type TestUser } from '../helpers/server.ts';

let org: string;
let otherOrg: string;
const spaces: Record<string, string> = {};

async function ok(method: string, path: string, operationId: string, options: { token?: string; body?: unknown; status?: number } = {}) {
  const res = await server.request(method, path, { token: options.token ?? ada.token, body: options.body });
  expect(res.status, `${method} ${path}: ${JSON.stringify(res.body)}`).toBe(options.status ?? 200);
  if (res.status !== 204) assertMatchesSpec(operationId, res.status, res.body);
  return res.body;
}

/** `changes` made to `space` through a change request of `user`'s, merged. */
async function merge(user: TestUser, space: string, changes: unknown[]): Promise<void> {
  const changeRequest = await ok('POST', `/v1/spaces/${space}/change-requests`, 'createChangeRequest', { token: user.token, body: { subject: 'Edit' }, status: 201 });
  const edited = await server.request('POST', `/v1/spaces/${space}/change-requests/${changeRequest.id}/content`, { token: user.token, body: { changes } });
  expect(edited.status, JSON.stringify(edited.body)).toBe(200);
  await ok('POST', `/v1/spaces/${space}/change-requests/${changeRequest.id}/merge`, 'mergeChangeRequest', { token: user.token });
}

/** A space of `organization` holding `pages` (markdown), merged through a change request. */
async function spaceWith(user: TestUser, organization: string, title: string, pages: string[]): Promise<string> {
  const space = (await server.createSpace(user, organization, { title })).id as string;
  await merge(user, space, pages.map((markdown) => ({ operation: 'insert_page', document: { markdown } })));
  return space;
}

const search = (query: string, options: { token?: string; extra?: string; organization?: string } = {}) =>
  server.request('GET', `/v1/orgs/${options.organization ?? org}/search?query=${encodeURIComponent(query)}${options.extra ?? ''}`, { token: options.token ?? ada.token });

const { server, ada, rita, mallory } = useTestServer({ users: ['Ada', 'Rita', 'Mallory'] });

beforeAll(async () => {
  org = await server.createOrg(ada);
  await server.addMember(org, rita, 'read');
  otherOrg = await server.createOrg(mallory);

  spaces.manual = await spaceWith(ada, org, 'Installer manual', [
    '# Installer\n\nThe installer installs the installer service.\n\n## Running the installer\n\nStart the installer from a terminal.',
    '# Upgrades\n\nRun the installer again to upgrade.',
    '# Glossary\n\nWords used in this manual.',
  ]);
  spaces.faq = await spaceWith(ada, org, 'FAQ', ['# Questions\n\nWhere is the installer? In the downloads.', '# Billing\n\nInvoices are monthly.']);
  spaces.unrelated = await spaceWith(ada, org, 'Cooking', ['# Bread\n\nFlour, water, salt.']);
  spaces.binned = await spaceWith(ada, org, 'Old installer notes', ['# Installer notes\n\nThe old installer.']);
  expect((await server.request('DELETE', `/v1/spaces/${spaces.binned}`, { token: ada.token })).status).toBe(205);
  spaces.theirs = await spaceWith(mallory, otherOrg, 'Their installer', ['# Installer\n\nAnother organization’s installer.']);
});

describe('GET /v1/orgs/{organizationId}/search', () => {
  it('answers the spaces with matching pages, the best first, each with its pages and their sections', async () => {
    const res = await search('installer');
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    assertMatchesSpec('searchOrganizationContent', 200, res.body);
    // Not the binned space, not the other organization's, not the space without the word.
    expect(res.body.items.map((i: any) => [i.id, i.title])).toEqual([
      [spaces.manual, 'Installer manual'],
      [spaces.faq, 'FAQ'],
    ]);
    expect(res.body.next).toBeUndefined();
    const manual = res.body.items[0];
    expect(manual.pages.map((p: any) => p.title)).toEqual(['Installer', 'Upgrades']);
    expect(manual.pages[0]).toMatchObject({ path: 'installer', urls: { app: expect.stringContaining(`/s/${spaces.manual}/installer`) } });
    expect(manual.pages[0].sections.map((s: any) => s.title)).toContain('Running the installer');
    expect(res.body.items[1].pages.map((p: any) => p.title)).toEqual(['Questions']);
  });

  it("names each page's parents, the top one first, as they are now (a renamed parent needs no reindexing)", async () => {
    const space = (await server.createSpace(ada, org, { title: 'Observatory' })).id as string;
    await merge(ada, space, [
      { operation: 'insert_page', ref: 'guide', title: 'Guide', document: { markdown: '# Guide\n\nStart here.' } },
      { operation: 'insert_page', ref: 'setup', into: 'guide', title: 'Setup', document: { markdown: '# Setup\n\nBefore the night.' } },
      { operation: 'insert_page', ref: 'lenses', into: 'setup', title: 'Lenses', description: 'Collimation tips', document: { markdown: '# Lenses\n\nClean the telescope lenses.' } },
    ]);
    const found = await search('telescope');
    expect(found.status, JSON.stringify(found.body)).toBe(200);
    assertMatchesSpec('searchOrganizationContent', 200, found.body);
    const [page] = found.body.items.find((i: any) => i.id === space).pages;
    expect(page).toMatchObject({ title: 'Lenses', path: 'guide/setup/lenses' });
    expect(page.ancestors.map((a: any) => a.title)).toEqual(['Guide', 'Setup']);
    // Found by its description too.
    const byDescription = await search('collimation');
    expect(byDescription.body.items.map((i: any) => [i.id, i.pages.map((p: any) => p.title)])).toEqual([[space, ['Lenses']]]);

    const guide = page.ancestors[0].id;
    await merge(ada, space, [{ operation: 'update_page', page: guide, title: 'Handbook' }]);
    const inSpace = await server.request('GET', `/v1/spaces/${space}/search?query=telescope`, { token: ada.token });
    expect(inSpace.status).toBe(200);
    assertMatchesSpec('searchSpaceContent', 200, inSpace.body);
    expect(inSpace.body.items[0].ancestors).toEqual([
      { id: guide, title: 'Handbook' },
      { id: page.ancestors[1].id, title: 'Setup' },
    ]);
  });

  it('leaves out pages set to noIndex (search and ask), and finds them again once unset; noRobotsIndex is kept for the renderer', async () => {
    const space = (await server.createSpace(ada, org, { title: 'Hangar' })).id as string;
    const inSpace = async (query: string) => {
      const res = await server.request('GET', `/v1/spaces/${space}/search?query=${query}`, { token: ada.token });
      expect(res.status).toBe(200);
      return res.body.items.map((i: any) => i.title);
    };
    // Markdown frontmatter sets them as the change's own fields do.
    await merge(ada, space, [
      { operation: 'insert_page', ref: 'open', document: { markdown: '# Airships\n\nAirship maintenance.' } },
      { operation: 'insert_page', ref: 'internal', document: { markdown: '---\nnoIndex: true\nnoRobotsIndex: true\n---\n# Airship drafts\n\nAirship notes.' } },
    ]);
    expect(await inSpace('airship')).toEqual(['Airships']);
    const content = await ok('GET', `/v1/spaces/${space}/content`, 'getCurrentRevision');
    const drafts = content.pages.find((p: any) => p.title === 'Airship drafts');
    expect(drafts).toMatchObject({ noIndex: true, noRobotsIndex: true });
    expect(content.pages.find((p: any) => p.title === 'Airships')).toMatchObject({ noIndex: false, noRobotsIndex: false });
    const page = await ok('GET', `/v1/spaces/${space}/content/page/${drafts.id}`, 'getPageById');
    expect(page).toMatchObject({ noIndex: true, noRobotsIndex: true });

    await merge(ada, space, [{ operation: 'update_page', page: drafts.id, noIndex: false }]);
    expect((await inSpace('airship')).sort()).toEqual(['Airship drafts', 'Airships']);
    expect(await ok('GET', `/v1/spaces/${space}/content/page/${drafts.id}`, 'getPageById')).toMatchObject({ noIndex: false, noRobotsIndex: true });
  });

  it("stems a space's words with its language on PostgreSQL, and again when the language changes (SQLite: English Porter for every space)", async () => {
    const created = await server.request('POST', `/v1/orgs/${org}/spaces`, { token: ada.token, body: { title: 'Écurie', language: 'fr' } });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const space = created.body.id as string;
    await merge(ada, space, [{ operation: 'insert_page', document: { markdown: '# Écurie\n\nLes chevaux mangent du foin.' } }]);
    const found = async (query: string) => {
      const res = await server.request('GET', `/v1/spaces/${space}/search?query=${encodeURIComponent(query)}`, { token: ada.token });
      expect(res.status).toBe(200);
      return res.body.items.length > 0;
    };
    const inOrganization = async (query: string) => ((await search(query)).body.items as Array<{ id: string }>).some((i) => i.id === space);
    const french = server.app.provider === 'postgresql';
    // French stems "chevaux" as "cheval"; English Porter leaves it, and "cheval" is not its prefix.
    expect([await found('cheval'), await inOrganization('cheval')]).toEqual([french, french]);
    expect(await found('chevaux')).toBe(true);

    const patch = (language: string) => server.request('PATCH', `/v1/spaces/${space}`, { token: ada.token, body: { language } });
    expect((await patch('en')).status).toBe(200);
    expect([await found('cheval'), await found('chevaux')]).toEqual([false, true]);
    expect((await patch('fr')).status).toBe(200);
    expect([await found('cheval'), await inOrganization('cheval')]).toEqual([french, french]);
  });

  it('pages through the spaces with limit and next.page', async () => {
    const first = await search('installer', { extra: '&limit=1' });
    expect(first.status).toBe(200);
    assertMatchesSpec('searchOrganizationContent', 200, first.body);
    expect(first.body.items.map((i: any) => i.id)).toEqual([spaces.manual]);
    expect(first.body.next?.page).toEqual(expect.any(String));
    const second = await search('installer', { extra: `&limit=1&page=${encodeURIComponent(first.body.next.page)}` });
    expect(second.status).toBe(200);
    expect(second.body.items.map((i: any) => i.id)).toEqual([spaces.faq]);
    expect(second.body.next).toBeUndefined();
  });

  it('finds nothing for words no space holds', async () => {
    const none = await search('zeppelin');
    expect(none.status).toBe(200);
    expect(none.body.items).toEqual([]);
  });

  it('is open to every member, whatever their role, and to nobody else', async () => {
    const asReader = await search('installer', { token: rita.token });
    expect(asReader.status).toBe(200);
    expect(asReader.body.items).toHaveLength(2);
    const asStranger = await search('installer', { token: mallory.token });
    expect(asStranger.status).toBe(404);
    expect(asStranger.body).toEqual({ error: { code: 404, message: expect.any(String) } });
    // Mallory's own organization: only its own space.
    const own = await search('installer', { token: mallory.token, organization: otherOrg });
    expect(own.body.items.map((i: any) => i.id)).toEqual([spaces.theirs]);
  });

  it('refuses a missing, empty or too long query, and a bad page cursor, with 400', async () => {
    const missing = await server.request('GET', `/v1/orgs/${org}/search`, { token: ada.token });
    expect(missing.status, JSON.stringify(missing.body)).toBe(400);
    for (const query of ['   ', 'x'.repeat(513)]) {
      const res = await search(query);
      expect(res.status, JSON.stringify(res.body)).toBe(400);
      expect(res.body.error.message).toMatch(/query/);
    }
    const cursor = await search('installer', { extra: '&page=nonsense' });
    expect(cursor.status).toBe(400);
    expect(cursor.body.error.message).toMatch(/page/);
  });
});

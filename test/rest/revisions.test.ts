/**
 * Reading a space's revisions by id over HTTP (the renderer pins the revision
 * it started with): the revision, its pages, files, one file, one page, a
 * page's document, a page by path (or through a redirect), a page's meta
 * links, reusable contents and their documents; evaluated and dereferenced as
 * page reads are. An older revision answers its own content; another space's
 * revision, or an unknown one, is a 404; a change request's draft revision is
 * for those who may read change requests. Every 200 body is validated against
 * the OpenAPI document (0.146.0, and 0.202.0 for meta links).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { assertMatchesSpec } from '../helpers/openapi.ts';
import { validateSemanticChange, validateSchema } from '../helpers/openapi-schema.ts';
import { expectError, useTestServer } from '../helpers/server.ts';

const { server, ada, bob } = useTestServer({ users: ['Ada', 'Bob'] });
let org: string;
let space: string;
let other: string;
/** The space's revisions: after the first merge, after the second. */
let first: string;
let second: string;
let draft: string;
let guide: string;
let install: string;
let snippet: string;
let file: string;

async function ok(method: string, path: string, body?: unknown, token = ada.token) {
  const res = await server.request(method, path, { token, body });
  expect(res.status, `${method} ${path}: ${JSON.stringify(res.body)}`).toBeLessThan(300);
  return res.body;
}

async function merged(changes: unknown[]): Promise<string> {
  const cr = (await ok('POST', `/v1/spaces/${space}/change-requests`, { subject: 'Edit' })).id;
  await ok('POST', `/v1/spaces/${space}/change-requests/${cr}/content`, { changes });
  await ok('PATCH', `/v1/spaces/${space}/change-requests/${cr}`, { status: 'open' });
  return (await ok('POST', `/v1/spaces/${space}/change-requests/${cr}/merge`)).revision;
}

const PNG_1X1 = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4z8AAAAMBAQDJ/pLvAAAAAElFTkSuQmCC';

beforeAll(async () => {
  org = await server.createOrg(ada);
  space = (await server.createSpace(ada, org, { title: 'Revisions' })).id;
  other = (await server.createSpace(ada, org, { title: 'Other' })).id;
  first = await merged([
    { operation: 'set_variables', variables: { product: 'Acme' } },
    { operation: 'insert_files', files: [{ ref: 'logo.png', name: 'logo.png', contentType: 'image/png', base64: PNG_1X1 }] },
    { operation: 'insert_reusable_content', ref: 'snippet', title: 'Snippet', document: { markdown: 'Made by <code class="expression">space.vars.product</code>.\n' } },
    { operation: 'insert_page', ref: 'guide', title: 'Guide', document: { markdown: '---\nmetaLinks:\n  canonical: https://example.com/guide\n---\n\nRead on.\n' } },
    {
      operation: 'insert_page',
      ref: 'install',
      title: 'Install',
      into: 'guide',
      document: { markdown: 'Install <code class="expression">space.vars.product</code>.\n\n{% include "./snippet" %}\n' },
    },
    { operation: 'set_redirects', redirects: { 'old/setup': 'install' } },
  ]);
  const pages = (await ok('GET', `/v1/spaces/${space}/content/pages`)).pages;
  guide = pages[0].id;
  install = pages[0].pages[0].id;
  snippet = (await ok('GET', `/v1/spaces/${space}/content`)).reusableContents[0].id;
  file = (await ok('GET', `/v1/spaces/${space}/content/files`)).items[0].id;
  second = await merged([{ operation: 'update_page', page: guide, title: 'Guide, renamed' }]);
  draft = (await ok('POST', `/v1/spaces/${space}/change-requests`, { subject: 'Draft' })).id;
  draft = (await ok('POST', `/v1/spaces/${space}/change-requests/${draft}/content`, { changes: [{ operation: 'update_page', page: guide, title: 'Draft title' }] })).revision;
});

const base = (revision: string) => `/v1/spaces/${space}/revisions/${revision}`;

describe('revisions by id', () => {
  it('answers any revision of the space as it was: the revision, its pages, files and one file', async () => {
    const old = await ok('GET', base(first));
    assertMatchesSpec('getRevisionById', 200, old);
    expect(old).toMatchObject({ object: 'revision', id: first, variables: { product: 'Acme' } });
    expect(old.pages[0].title).toBe('Guide');
    const now = await ok('GET', base(second));
    expect(now.pages[0].title).toBe('Guide, renamed');
    expect(now.parents).toContain(first);

    const pages = await ok('GET', `${base(first)}/pages`);
    assertMatchesSpec('listPagesInRevisionById', 200, pages);
    expect(pages.pages.map((p: any) => [p.title, p.pages.map((c: any) => c.title)])).toEqual([['Guide', ['Install']]]);

    const files = await ok('GET', `${base(first)}/files?limit=1`);
    assertMatchesSpec('listFilesInRevisionById', 200, files);
    expect(files.items.map((f: any) => f.name)).toEqual(['logo.png']);
    const one = await ok('GET', `${base(first)}/files/${file}`);
    assertMatchesSpec('getFileInRevisionById', 200, one);
    expect(one).toMatchObject({ id: file, name: 'logo.png', contentType: 'image/png' });
  });

  it('answers a page, its document evaluated and dereferenced on request, and its meta links', async () => {
    const page = await ok('GET', `${base(first)}/page/${install}?evaluated=true&dereferenced=true&format=markdown`);
    assertMatchesSpec('getPageInRevisionById', 200, page);
    expect(page.markdown).toContain('Install Acme.');
    expect(page.markdown).toContain('Made by Acme.');

    const document = await ok('GET', `${base(first)}/page/${install}/document?evaluated=true`);
    assertMatchesSpec('getPageDocumentInRevisionById', 200, document);
    expect(JSON.stringify(document)).toContain('"Install "');
    expect(document.nodes.map((n: any) => n.type)).toEqual(['paragraph', 'reusable-content']);
    const inlined = await ok('GET', `${base(first)}/page/${install}/document?dereferenced=reusable-contents`);
    expect(inlined.nodes.map((n: any) => n.type)).toEqual(['paragraph', 'paragraph']);

    const links = await ok('GET', `${base(first)}/page/${guide}/meta-links`);
    assertMatchesSpec('listRevisionPageMetaLinks', 200, links, 'next');
    expect(links).toEqual({ canonical: { kind: 'url', url: 'https://example.com/guide' } });
    expect(await ok('GET', `${base(first)}/page/${install}/meta-links`)).toEqual({});
  });

  it('finds a page by its path, or through a redirect of the revision', async () => {
    const byPath = await ok('GET', `${base(first)}/path/${encodeURIComponent('guide/install')}`);
    assertMatchesSpec('getPageInRevisionByPath', 200, byPath);
    expect(byPath).toMatchObject({ id: install, title: 'Install', path: 'guide/install' });
    const redirected = await ok('GET', `${base(first)}/path/${encodeURIComponent('old/setup')}`);
    expect(redirected.id).toBe(install);
    expectError(await server.request('GET', `${base(first)}/path/nowhere`, { token: ada.token }), 404, /nowhere/);
  });

  it('answers a reusable content and its document, evaluated on request', async () => {
    const content = await ok('GET', `${base(first)}/reusable-contents/${snippet}`);
    assertMatchesSpec('getReusableContentInRevisionById', 200, content);
    expect(content).toMatchObject({ id: snippet, title: 'Snippet' });
    const document = await ok('GET', `${base(first)}/reusable-contents/${snippet}/document?evaluated=true`);
    assertMatchesSpec('getReusableContentDocumentInRevisionById', 200, document);
    expect(JSON.stringify(document)).toContain('Made by ');
    expect(JSON.stringify(document)).toContain('Acme');
    expectError(await server.request('GET', `${base(first)}/reusable-contents/nope`, { token: ada.token }), 404, /nope/);
  });

  it("is a 404 for an unknown revision or another space's, and for an unknown page or file", async () => {
    const others = (await ok('GET', `/v1/spaces/${other}/content`)).id;
    for (const path of [base('no-such-revision'), `/v1/spaces/${space}/revisions/${others}`, `${base(first)}/page/nope`, `${base(first)}/files/nope`]) {
      expectError(await server.request('GET', path, { token: ada.token }), 404, /./);
    }
    // Someone who may not read the space: 404 whatever the revision.
    const outsider = await server.request('GET', base(first), { token: bob.token });
    expect(outsider.status).toBe(404);
  });

  it('says what a revision changed against its parent, with the change request a merge came from', async () => {
    const renamed = await ok('GET', `${base(second)}/changes`);
    validateSchema('ChangeRequest', renamed.mergedFrom);
    renamed.changes.forEach((change: any) => validateSemanticChange(change));
    expect(renamed.changes).toEqual([{ type: 'page_edited', page: { id: guide, type: 'document', title: 'Guide, renamed', path: 'guide' }, attributes: { title: { before: 'Guide', after: 'Guide, renamed' } } }]);
    expect(renamed.mergedFrom).toMatchObject({ object: 'change-request', subject: 'Edit' });

    // The first merge made everything; two changes at a time, the rest counted.
    const created = await ok('GET', `${base(first)}/changes?limit=2`);
    assertMatchesSpec('getRevisionSemanticChanges', 200, created);
    expect(created.changes.map((c: any) => c.type)).toEqual(['page_created', 'page_created']);
    expect(created.more).toBe(3);
    const all = await ok('GET', `${base(first)}/changes?limit=100`);
    expect(all.changes.map((c: any) => c.type)).toEqual(['page_created', 'page_created', 'file_created', 'variables_edited', 'reusable_content_created']);
    expect(all.more).toBeUndefined();
    expectError(await server.request('GET', `${base(first)}/changes?limit=0`, { token: ada.token }), 400, /limit: must be a whole number from 1 to 1000/);
  });

  it('says what a change request changes against the content it is based on', async () => {
    const crs = await ok('GET', `/v1/spaces/${space}/change-requests?status=draft`);
    const cr = crs.items.find((c: any) => c.subject === 'Draft').id;
    const changes = await ok('GET', `/v1/spaces/${space}/change-requests/${cr}/changes`);
    changes.changes.forEach((change: any) => validateSemanticChange(change));
    expect(changes.mergedFrom).toBeUndefined();
    expect(changes.changes).toEqual([{ type: 'page_edited', page: { id: guide, type: 'document', title: 'Draft title', path: 'guide' }, attributes: { title: { before: 'Guide, renamed', after: 'Draft title' } } }]);
  });

  it("answers a document by its id when the space's current content has it", async () => {
    const content = await ok('GET', `/v1/spaces/${space}/content`);
    const shared = await ok('GET', `/v1/spaces/${space}/documents/${content.reusableContents[0].document}?schema=current`);
    assertMatchesSpec('getDocumentById', 200, shared);
    expect(JSON.stringify(shared)).toContain('Made by ');
    // A page answers the id of its document, which reads it; a draft's page is read through its revision, not by document id.
    const current = await ok('GET', `/v1/spaces/${space}/content/page/${install}`);
    expect(current.documentId).toMatch(/^[0-9a-f]{64}$/);
    expect(await ok('GET', `/v1/spaces/${space}/documents/${current.documentId}`)).toEqual(current.document);
    const draftCr = await ok('POST', `/v1/spaces/${space}/change-requests`, { subject: 'Unmerged text' });
    await ok('POST', `/v1/spaces/${space}/change-requests/${draftCr.id}/content`, { changes: [{ operation: 'update_page', page: install, document: { markdown: 'Not merged yet.\n' } }] });
    const unmerged = await ok('GET', `/v1/spaces/${space}/change-requests/${draftCr.id}/content/page/${install}`);
    expectError(await server.request('GET', `/v1/spaces/${space}/documents/${unmerged.documentId}`, { token: ada.token }), 404, /Document/);
    // Another space's document is not this space's, whoever asks.
    const otherCr = (await ok('POST', `/v1/spaces/${other}/change-requests`, { subject: 'Elsewhere' })).id;
    await ok('POST', `/v1/spaces/${other}/change-requests/${otherCr}/content`, { changes: [{ operation: 'insert_page', title: 'Theirs', document: { markdown: 'Only in the other space.\n' } }] });
    await ok('PATCH', `/v1/spaces/${other}/change-requests/${otherCr}`, { status: 'open' });
    await ok('POST', `/v1/spaces/${other}/change-requests/${otherCr}/merge`);
    const theirs = (await ok('GET', `/v1/spaces/${other}/content/pages`)).pages[0];
    expect((await ok('GET', `/v1/spaces/${other}/documents/${theirs.documentId}`)).nodes).toHaveLength(1);
    expectError(await server.request('GET', `/v1/spaces/${space}/documents/${theirs.documentId}`, { token: ada.token }), 404, /Document/);
    expectError(await server.request('GET', `/v1/spaces/${space}/documents/${'0'.repeat(64)}`, { token: ada.token }), 404, /Document/);
    expectError(await server.request('GET', `/v1/spaces/${space}/documents/${content.reusableContents[0].document}?schema=old`, { token: ada.token }), 400, /schema: must be current or next/);
  });

  it("answers a change request's draft revision to those who may read change requests", async () => {
    const body = await ok('GET', base(draft));
    expect(body.pages[0].title).toBe('Draft title');
    const bad = await server.request('GET', `${base(first)}/page/${install}?evaluated=sometimes`, { token: ada.token });
    expectError(bad, 400, /evaluated: must be true, false or deterministic-only/);
    const dereferenced = await server.request('GET', `${base(first)}/page/${install}/document?dereferenced=always`, { token: ada.token });
    expectError(dereferenced, 400, /dereferenced: must be true, false or reusable-contents/);
  });
});

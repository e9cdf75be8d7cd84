/**
 * Change requests and space content over real HTTP: write a change request
 * (Markdown pages, a nested tree, an image), merge it, read it back as a
 * document and as Markdown, links and backlinks, conflicts, update, PDF,
 * templates, and the bad inputs that must change nothing. Every 2xx body is
 * validated against @gitbook/api's OpenAPI document.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { markdownToDocument } from '../../src/content/document/markdown-parse.ts';
import { assertMatchesSpec } from '../helpers/openapi.ts';
import { png } from '../helpers/png.ts';
import { expectError, startTestServer, useTestServer } from '../helpers/server.ts';

const { server, ada, eve, rita } = useTestServer({ users: ['Ada', 'Eve', 'Rita'] });
let org: string;

beforeAll(async () => {
  org = await server.createOrg(ada);
  await server.addMember(org, eve, 'edit');
  await server.addMember(org, rita, 'read');
});

async function ok(method: string, path: string, operationId: string, options: { token?: string; body?: unknown; status?: number; version?: 'current' | 'next' } = {}) {
  const res = await server.request(method, path, { token: options.token ?? ada.token, body: options.body });
  expect(res.status, `${method} ${path}: ${JSON.stringify(res.body)}`).toBe(options.status ?? 200);
  if (res.status !== 204) assertMatchesSpec(operationId, res.status, res.body, options.version ?? 'current');
  return res.body;
}

/** A 2x1 PNG: red, blue. */
const tinyPng = () => png(2, 1, { pixel: (x) => (x === 0 ? [255, 0, 0] : [0, 0, 255]) });

const cr = (space: string, id: string | number = '') => `/v1/spaces/${space}/change-requests${id === '' ? '' : `/${id}`}`;

async function newSpace(title = 'Docs') {
  return (await server.createSpace(ada, org, { title })).id as string;
}

async function newChangeRequest(space: string, subject = 'Edits', user = ada) {
  return ok('POST', cr(space), 'createChangeRequest', { token: user.token, body: { subject }, status: 201 });
}

async function edit(space: string, id: string, changes: unknown[], user = ada) {
  return ok('POST', `${cr(space, id)}/content`, 'updateChangeRequestContent', { token: user.token, body: { changes }, version: 'next' });
}

async function pagesOf(path: string, operationId: string) {
  return (await ok('GET', path, operationId)).pages as any[];
}

function flatten(pages: any[]): any[] {
  return pages.flatMap((p) => [p, ...flatten(p.pages ?? [])]);
}

const GUIDE = `---
description: How to use the product
---

# Guide

Welcome to the **guide**. Read [Install](./install.md) first and look at the diagram:

![Architecture diagram](./diagram.png)

## Configuration

Set the \`PORT\` variable. See [the website](https://example.com/docs).

- one
- two
  - nested

\`\`\`js
console.log("hello");
\`\`\`

{% hint style="warning" %}
Back up first.
{% endhint %}
`;

const INSTALL = `# Install

Run the installer → then continue with [the guide](./guide.md). Установка.
`;

/** The change request of GUIDE and INSTALL (nested), a Reference page and an image, applied in one batch. */
const guideChanges = () => [
  { operation: 'insert_page', ref: 'guide', document: { markdown: GUIDE } },
  { operation: 'insert_page', ref: 'install', into: 'guide', document: { markdown: INSTALL } },
  { operation: 'insert_page', title: 'Reference', document: { markdown: 'All the **options**.\n' } },
  { operation: 'insert_files', files: [{ ref: 'diagram.png', name: 'diagram.png', contentType: 'image/png', base64: tinyPng().toString('base64') }] },
];

/** A new space with a draft change request holding guideChanges(). */
async function spaceWithGuideDraft(title: string) {
  const space = await newSpace(title);
  const changeRequest = await newChangeRequest(space, 'First content');
  await edit(space, changeRequest.id, guideChanges());
  return { space, changeRequest };
}

/** Opens and merges a change request; the merge's answer. */
async function merge(space: string, id: string) {
  await ok('PATCH', cr(space, id), 'updateChangeRequestById', { body: { status: 'open' } });
  return ok('POST', `${cr(space, id)}/merge`, 'mergeChangeRequest');
}

describe('writing change requests', () => {
  it('creates a draft change request numbered within the space', async () => {
    const space = await newSpace('Numbered');
    const changeRequest = await newChangeRequest(space, 'First content');
    expect(changeRequest).toMatchObject({ object: 'change-request', number: 1, status: 'draft', subject: 'First content', space });
    const spaceBody = await ok('GET', `/v1/spaces/${space}`, 'getSpaceById');
    expect(changeRequest.revision).toBe(spaceBody.revision);
    expect(changeRequest.revisionInitial).toBe(spaceBody.revision);
    expect(changeRequest.outdated).toBe(false);
    const byNumber = await ok('GET', cr(space, 1), 'getChangeRequestById');
    expect(byNumber.id).toBe(changeRequest.id);
    expect(spaceBody.changeRequestsDraft).toBe(1);
  });

  it('applies markdown pages, a nested tree and an image file in one batch (refs in any order)', async () => {
    const space = await newSpace('Batch');
    const changeRequest = await newChangeRequest(space);
    const updated = await edit(space, changeRequest.id, guideChanges());
    expect(updated.id).toBe(changeRequest.id);
    expect(updated.revision).not.toBe(changeRequest.revision);
    const pages = await pagesOf(`${cr(space, changeRequest.id)}/content/pages`, 'listPagesInChangeRequest');
    expect(pages.map((p) => p.title)).toEqual(['Guide', 'Reference']);
    expect(pages[0]).toMatchObject({ type: 'document', slug: 'guide', path: 'guide', description: 'How to use the product' });
    expect(pages[0].pages.map((p: any) => [p.title, p.path])).toEqual([['Install', 'guide/install']]);
    const files = await ok('GET', `${cr(space, changeRequest.id)}/content/files`, 'listFilesInChangeRequestById');
    expect(files.items).toHaveLength(1);
    expect(files.items[0]).toMatchObject({ name: 'diagram.png', contentType: 'image/png', size: tinyPng().length, dimensions: { width: 2, height: 1 } });
    const download = await fetch(files.items[0].downloadURL);
    expect(download.status).toBe(200);
    expect(Buffer.from(await download.arrayBuffer()).equals(tinyPng())).toBe(true);
  });

  it('compat=false answers what happened to each page, with the ids of refs, and the inserted files', async () => {
    const space = await newSpace('Compat');
    const other = await newChangeRequest(space, 'compat');
    const res = await server.request('POST', `${cr(space, other.id)}/content?compat=false`, {
      token: ada.token,
      body: {
        changes: [
          { operation: 'insert_page', ref: 'child', into: 'parent', document: { markdown: '# Child\n' } },
          { operation: 'insert_page', ref: 'parent', document: { markdown: '# Parent\n\nSee [the child](./child.md).' } },
          { operation: 'insert_files', files: [{ name: 'notes.txt', contentType: 'text/plain', base64: Buffer.from('hello').toString('base64') }] },
        ],
      },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(400); // `into` names a ref inserted later in the batch: not yet a page
    const ok2 = await server.request('POST', `${cr(space, other.id)}/content?compat=false`, {
      token: ada.token,
      body: {
        changes: [
          { operation: 'insert_page', ref: 'parent', document: { markdown: '# Parent\n\nSee [the child](./child.md).' } },
          { operation: 'insert_page', ref: 'child', into: 'parent', document: { markdown: '# Child\n' } },
          { operation: 'insert_files', files: [{ name: 'notes.txt', contentType: 'text/plain', base64: Buffer.from('hello').toString('base64') }] },
        ],
      },
    });
    expect(ok2.status, JSON.stringify(ok2.body)).toBe(200);
    assertMatchesSpec('updateChangeRequestContent', 200, ok2.body, 'next');
    expect(ok2.body.changeRequest.id).toBe(other.id);
    expect(ok2.body.changes.map((c: any) => [c.object, c.ref])).toEqual([
      ['created_page', 'parent'],
      ['created_page', 'child'],
    ]);
    expect(ok2.body.insertedFiles).toMatchObject([{ name: 'notes.txt', contentType: 'text/plain', size: 5 }]);
    const childId = ok2.body.changes[1].page.id;
    const page = await ok('GET', ok2.body.changes[0].page.urls.location.replace(server.baseUrl, '') + '?format=markdown', 'getPageInChangeRequestById');
    expect(page.markdown).toContain(`/pages/${childId}`);
    expect(page.pages.map((p: any) => p.id)).toEqual([childId]);
  });

  it('a creation answers its location', async () => {
    const space = await newSpace('Located');
    const res = await server.request('POST', cr(space), { token: ada.token, body: { subject: 'located' } });
    expect(res.status).toBe(201);
    expect(res.headers.get('location')).toBe(res.body.urls.location);
  });

  it('shows nothing in the space until the merge', async () => {
    const { space } = await spaceWithGuideDraft('Unmerged');
    expect(await pagesOf(`/v1/spaces/${space}/content/pages`, 'listPages')).toEqual([]);
  });

  it('merges into the space content', async () => {
    const { space, changeRequest } = await spaceWithGuideDraft('Merged');
    const files = await ok('GET', `${cr(space, changeRequest.id)}/content/files`, 'listFilesInChangeRequestById');
    const merged = await merge(space, changeRequest.id);
    expect(merged.result).toBe('merge');
    const spaceBody = await ok('GET', `/v1/spaces/${space}`, 'getSpaceById');
    expect(spaceBody.revision).toBe(merged.revision);
    const after = await ok('GET', cr(space, changeRequest.id), 'getChangeRequestById');
    expect(after).toMatchObject({ status: 'merged', revisionMerged: merged.revision });
    const revision = await ok('GET', `/v1/spaces/${space}/content`, 'getCurrentRevision');
    expect(revision).toMatchObject({ object: 'revision', id: merged.revision, type: 'merge' });
    expect(revision.mergedFrom.id).toBe(changeRequest.id);
    expect(revision.parents).toHaveLength(2);
    expect(flatten(revision.pages).map((p: any) => p.title)).toEqual(['Guide', 'Install', 'Reference']);
    expect(revision.files.map((f: any) => f.id)).toEqual(files.items.map((f: any) => f.id));
  });
});

describe('Markdown through the API', () => {
  /** The document of a change request's page, as REST answers it (`format=markdown`: its Markdown). */
  const pageIn = async (space: string, changeRequest: string, page: string, format = 'document') =>
    ok('GET', `${cr(space, changeRequest)}/content/page/${page}?format=${format}`, 'getPageInChangeRequestById');

  it('reads GitHub alerts as hints, in insert_page and update_page', async () => {
    const space = await newSpace('Alerts');
    const changeRequest = (await newChangeRequest(space)).id as string;
    const inserted = await server.request('POST', `${cr(space, changeRequest)}/content?compat=false`, {
      token: ada.token,
      body: { changes: [{ operation: 'insert_page', title: 'Alerts', document: { markdown: '> [!IMPORTANT]\n> Read this.\n\n> Just a quote.\n' } }] },
    });
    expect(inserted.status, JSON.stringify(inserted.body)).toBe(200);
    const page = inserted.body.changes[0].page.id as string;
    const styles = (document: any) => document.nodes.map((n: any) => [n.type, n.data.style ?? null]);
    expect(styles((await pageIn(space, changeRequest, page)).document)).toEqual([
      ['hint', 'warning'],
      ['blockquote', null],
    ]);
    await edit(space, changeRequest, [{ operation: 'update_page', page, document: { markdown: '> [!CAUTION]\n> Deletes everything.\n' } }]);
    expect(styles((await pageIn(space, changeRequest, page)).document)).toEqual([['hint', 'danger']]);
    expect((await pageIn(space, changeRequest, page, 'markdown')).markdown).toBe('{% hint style="danger" %}\nDeletes everything.\n{% endhint %}\n');
  });

  it("resolves relative links from the page's own file, as Git export lays the content out; what names no page stays a URL", async () => {
    const space = await newSpace('Relative links');
    const first = (await newChangeRequest(space)).id as string;
    // README.md (Introduction), getting-started/README.md, getting-started/install.md, getting-started/configure.md, faq.md.
    await edit(space, first, [
      // Install comes later in the batch, without a ref: its path is known once the batch made it.
      { operation: 'insert_page', title: 'Introduction', document: { markdown: 'Welcome. See [Install](getting-started/install.md#linux) and [nothing](nothing.md).\n' } },
      { operation: 'insert_page', ref: 'gs', title: 'Getting Started', document: { markdown: 'Start here.\n' } },
      { operation: 'insert_page', ref: 'install', title: 'Install', into: 'gs', document: { markdown: 'Run it.\n' } },
      { operation: 'insert_page', ref: 'configure', title: 'Configure', into: 'gs', document: { markdown: 'Set it.\n' } },
      { operation: 'insert_page', ref: 'faq', title: 'FAQ', document: { markdown: '## Why?\n\nBecause.\n' } },
    ]);
    await merge(space, first);
    const ids = Object.fromEntries(flatten(await pagesOf(`/v1/spaces/${space}/content/pages`, 'listPages')).map((p: any) => [p.path, p.id]));
    const welcome = await ok('GET', `/v1/spaces/${space}/content/page/${ids.introduction}`, 'getPageById');
    expect(welcome.document.nodes[0].nodes.filter((n: any) => n.type === 'link').map((n: any) => n.data.ref)).toEqual([
      { kind: 'anchor', anchor: 'linux', page: ids['getting-started/install'] },
      { kind: 'url', url: 'nothing.md' },
    ]);
    const changeRequest = (await newChangeRequest(space)).id as string;
    const install = [
      '[a](configure.md) [b](./configure) [c](../faq.md#why) [d](README.md) [e](../README.md) [f](/faq)',
      '[g](getting-started/install.md) [h](missing.md) [i](../../faq.md) [j](https://example.com/configure.md)',
    ].join('\n');
    const result = await server.request('POST', `${cr(space, changeRequest)}/content?compat=false`, {
      token: ada.token,
      body: {
        changes: [
          { operation: 'update_page', page: ids['getting-started/install'], document: { markdown: install } },
          { operation: 'update_page', page: ids.introduction, document: { markdown: '[Install](getting-started/install.md) [FAQ](faq) [Start](getting-started/)' } },
          // A new page under Getting Started: its file is getting-started/upgrade.md.
          { operation: 'insert_page', title: 'Upgrade', into: ids['getting-started'], document: { markdown: '[Install](install.md) and [the FAQ](../faq.md).' } },
          // Moved under FAQ (which becomes faq/README.md), written for its new place.
          { operation: 'update_page', page: ids['getting-started/configure'], into: ids.faq, document: { markdown: '[FAQ](README.md) [Install](../getting-started/install.md)' } },
        ],
      },
    });
    expect(result.status, JSON.stringify(result.body)).toBe(200);
    const upgrade = result.body.changes.find((c: any) => c.object === 'created_page').page.id as string;
    const refs = async (page: string) => {
      const found: unknown[] = [];
      const walk = (nodes: any[]) => nodes?.forEach((n) => (n.type === 'link' ? found.push(n.data.ref) : walk(n.nodes)));
      walk((await pageIn(space, changeRequest, page)).document.nodes);
      return found;
    };
    const to = (path: string) => ({ kind: 'page', page: ids[path] });
    expect(await refs(ids['getting-started/install'])).toEqual([
      to('getting-started/configure'),
      to('getting-started/configure'),
      { kind: 'anchor', anchor: 'why', page: ids.faq },
      to('getting-started'),
      to('introduction'),
      to('faq'),
      // A plain path naming nothing from the folder names the page at that path from the top.
      to('getting-started/install'),
      { kind: 'url', url: 'missing.md' },
      { kind: 'url', url: '../../faq.md' },
      { kind: 'url', url: 'https://example.com/configure.md' },
    ]);
    expect(await refs(ids.introduction)).toEqual([to('getting-started/install'), to('faq'), to('getting-started')]);
    expect(await refs(upgrade)).toEqual([to('getting-started/install'), to('faq')]);
    expect(await refs(ids['getting-started/configure'])).toEqual([to('faq'), to('getting-started/install')]);
  });
});

describe('reading merged content', () => {
  /** A space whose content is guideChanges(), merged, and a draft change request "Print" on it. */
  let space: string;
  let pageIds: Record<string, string>;
  let fileId: string;
  let printDraft: string;

  beforeAll(async () => {
    const draft = await spaceWithGuideDraft('Product docs');
    space = draft.space;
    await merge(space, draft.changeRequest.id);
    const revision = await ok('GET', `/v1/spaces/${space}/content`, 'getCurrentRevision');
    pageIds = Object.fromEntries(flatten(revision.pages).map((p: any) => [p.title, p.id]));
    fileId = revision.files[0].id;
    printDraft = (await newChangeRequest(space, 'Print')).id;
  });

  it('reads a page as a document and as markdown; the round trip keeps text and structure', async () => {
    const asDocument = await ok('GET', `/v1/spaces/${space}/content/page/${pageIds.Guide}`, 'getPageById');
    expect(asDocument.document.object).toBe('document');
    const types = asDocument.document.nodes.map((n: any) => n.type);
    expect(types).toEqual(expect.arrayContaining(['paragraph', 'heading-2', 'list-unordered', 'code', 'hint']));
    const asMarkdown = await ok('GET', `/v1/spaces/${space}/content/page/${pageIds.Guide}?format=markdown`, 'getPageById');
    expect(asMarkdown.document).toBeUndefined();
    expect(asMarkdown.markdown).toContain('## Configuration');
    expect(asMarkdown.markdown).toContain(`/pages/${pageIds.Install}`);
    expect(asMarkdown.markdown).toContain(`/files/${fileId}`);
    expect(markdownToDocument(asMarkdown.markdown).document).toEqual(asDocument.document);
  });

  it('serves the links and backlinks of pages and files, which agree', async () => {
    const links = await ok('GET', `/v1/spaces/${space}/content/page/${pageIds.Guide}/links`, 'listPageLinksInSpace');
    const targets = links.items.map((l: any) => [l.status, l.targetReference.kind, l.targetReference.page?.id ?? l.targetReference.file?.id ?? l.targetReference.url]);
    expect(targets).toEqual(
      expect.arrayContaining([
        ['ok', 'page', pageIds.Install],
        ['ok', 'file', fileId],
        ['ok', 'url', 'https://example.com/docs'],
      ]),
    );
    expect(links.stats).toEqual({ total: 3, broken: { total: 0, changeRequest: 0 } });
    const pageBacklinks = await ok('GET', `/v1/spaces/${space}/content/page/${pageIds.Install}/backlinks`, 'listSpacePageBacklinks');
    expect(pageBacklinks.items.map((l: any) => l.page.id)).toEqual([pageIds.Guide]);
    const guideBacklinks = await ok('GET', `/v1/spaces/${space}/content/page/${pageIds.Guide}/backlinks`, 'listSpacePageBacklinks');
    expect(guideBacklinks.items.map((l: any) => l.page.id)).toEqual([pageIds.Install]);
    const fileBacklinks = await ok('GET', `/v1/spaces/${space}/content/files/${fileId}/backlinks`, 'listSpaceFileBacklinks');
    expect(fileBacklinks.items.map((l: any) => l.page.id)).toEqual([pageIds.Guide]);
    const file = await ok('GET', `/v1/spaces/${space}/content/files/${fileId}`, 'getFileById');
    expect(file.name).toBe('diagram.png');
  });

  it('finds words of the merged pages, the best page first', async () => {
    const res = await ok('GET', `/v1/spaces/${space}/search?query=installer`, 'searchSpaceContent');
    expect(res.items[0]).toMatchObject({ id: pageIds.Install, title: 'Install', path: 'guide/install' });
    // Its parents' titles, for a result's breadcrumbs.
    expect(res.items[0].ancestors).toEqual([{ id: pageIds.Guide, title: 'Guide' }]);
    const config = await ok('GET', `/v1/spaces/${space}/search?query=configuration`, 'searchSpaceContent');
    expect(config.items[0].id).toBe(pageIds.Guide);
    expect(config.items[0].ancestors).toEqual([]);
    expect(config.items[0].sections.some((s: any) => s.title === 'Configuration')).toBe(true);
  });

  it('renders a PDF whose text holds the page titles', async () => {
    const { url } = await ok('GET', `${cr(space, printDraft)}/pdf`, 'getChangeRequestPDF');
    const res = await fetch(url);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/pdf');
    const bytes = new Uint8Array(await res.arrayBuffer());
    const pdfjs = await import('pdfjs-dist/legacy/build/pdf.mjs');
    const pdf = await pdfjs.getDocument({ data: bytes, useSystemFonts: false, disableFontFace: true }).promise;
    let text = '';
    for (let i = 1; i <= pdf.numPages; i++) {
      const content = await (await pdf.getPage(i)).getTextContent();
      text += content.items.map((item: any) => item.str ?? '').join(' ');
    }
    for (const title of ['Guide', 'Install', 'Reference', 'Back up first', 'installer → then', 'Установка']) expect(text).toContain(title);
    const only = await ok('GET', `${cr(space, printDraft)}/pdf?page=${pageIds.Install}&only=true`, 'getChangeRequestPDF');
    expect(only.url).not.toBe(url);
  });
});

describe('merging two change requests', () => {
  /** A new space holding the pages Alpha and Beta, merged; their ids by title. */
  async function spaceWithAlphaAndBeta() {
    const space = await newSpace('Merges');
    const first = await newChangeRequest(space);
    await edit(space, first.id, [
      { operation: 'insert_page', title: 'Alpha', document: { markdown: '# Alpha\n\nFirst paragraph.\n\nSecond paragraph.\n' } },
      { operation: 'insert_page', title: 'Beta', document: { markdown: '# Beta\n\nBeta text.\n' } },
    ]);
    await ok('POST', `${cr(space, first.id)}/merge`, 'mergeChangeRequest');
    const list = await pagesOf(`/v1/spaces/${space}/content/pages`, 'listPages');
    return { space, pages: Object.fromEntries(list.map((p) => [p.title, p.id])) as Record<string, string> };
  }

  it('gives conflicts when both changed the same page, merges pages changed on one side only, and loses nothing', async () => {
    const { space, pages } = await spaceWithAlphaAndBeta();
    const one = await newChangeRequest(space, 'one');
    const two = await newChangeRequest(space, 'two');
    const three = await newChangeRequest(space, 'three');
    await edit(space, one.id, [{ operation: 'update_page', page: pages.Alpha, document: { markdown: 'First paragraph, edited by one.\n\nSecond paragraph.\n' } }]);
    await edit(space, two.id, [{ operation: 'update_page', page: pages.Alpha, document: { markdown: 'First paragraph, edited by two.\n\nSecond paragraph.\n' } }]);
    await edit(space, three.id, [{ operation: 'update_page', page: pages.Beta, title: 'Beta (renamed)' }]);

    expect((await ok('POST', `${cr(space, one.id)}/merge`, 'mergeChangeRequest')).result).toBe('merge');
    const twoBefore = await ok('GET', cr(space, two.id), 'getChangeRequestById');
    expect(twoBefore.outdated).toBe(true);
    const conflict = await ok('POST', `${cr(space, two.id)}/merge`, 'mergeChangeRequest');
    expect(conflict).toEqual({ result: 'conflicts', revision: twoBefore.revision });
    const twoAfter = await ok('GET', cr(space, two.id), 'getChangeRequestById');
    expect(twoAfter).toMatchObject({ status: 'draft', revision: twoBefore.revision });
    const alpha = await ok('GET', `/v1/spaces/${space}/content/page/${pages.Alpha}?format=markdown`, 'getPageById');
    expect(alpha.markdown).toContain('edited by one');

    const merged = await ok('POST', `${cr(space, three.id)}/merge`, 'mergeChangeRequest');
    expect(merged.result).toBe('merge');
    const titles = (await pagesOf(`/v1/spaces/${space}/content/pages`, 'listPages')).map((p) => p.title);
    expect(titles).toEqual(['Alpha', 'Beta (renamed)']);
    const alphaAfter = await ok('GET', `/v1/spaces/${space}/content/page/${pages.Alpha}?format=markdown`, 'getPageById');
    expect(alphaAfter.markdown).toContain('edited by one');
  });

  it('update brings a change request up to date after another merge, then it merges cleanly', async () => {
    const { space, pages } = await spaceWithAlphaAndBeta();
    const late = await newChangeRequest(space, 'late');
    const early = await newChangeRequest(space, 'early');
    await edit(space, late.id, [{ operation: 'update_page', page: pages.Alpha, document: { markdown: 'First paragraph.\n\nSecond paragraph, edited late.\n' } }]);
    await edit(space, early.id, [{ operation: 'insert_page', title: 'Gamma', document: { markdown: 'Gamma text.\n' } }]);
    await ok('POST', `${cr(space, early.id)}/merge`, 'mergeChangeRequest');
    const updated = await ok('POST', `${cr(space, late.id)}/update`, 'updateChangeRequest');
    expect(updated.result).toBe('update');
    const lateNow = await ok('GET', cr(space, late.id), 'getChangeRequestById');
    expect(lateNow.outdated).toBe(false);
    expect(lateNow.revision).toBe(updated.revision);
    const lateTitles = (await pagesOf(`${cr(space, late.id)}/content/pages`, 'listPagesInChangeRequest')).map((p) => p.title);
    expect(lateTitles).toEqual(['Alpha', 'Beta', 'Gamma']);
    expect((await ok('POST', `${cr(space, late.id)}/merge`, 'mergeChangeRequest')).result).toBe('merge');
    const alpha = await ok('GET', `/v1/spaces/${space}/content/page/${pages.Alpha}?format=markdown`, 'getPageById');
    expect(alpha.markdown).toContain('edited late');
  });

  it('a merged change request cannot merge or change again', async () => {
    const { space, pages } = await spaceWithAlphaAndBeta();
    const done = (await ok('GET', `${cr(space)}?status=merged`, 'listChangeRequestsForSpace')).items[0];
    expectError(await server.request('POST', `${cr(space, done.id)}/merge`, { token: ada.token }), 409);
    expectError(await server.request('POST', `${cr(space, done.id)}/content`, { token: ada.token, body: { changes: [{ operation: 'delete_page', page: pages.Alpha }] } }), 409);
  });
});

describe('bad input changes nothing', () => {
  let space: string;
  let id: string;
  let revision: string;
  let pageId: string;

  beforeAll(async () => {
    space = await newSpace('Bad input');
    const created = await newChangeRequest(space);
    id = created.id;
    const updated = await edit(space, id, [{ operation: 'insert_page', title: 'Only', document: { markdown: 'Text.\n' } }]);
    revision = updated.revision;
    pageId = (await pagesOf(`${cr(space, id)}/content/pages`, 'listPagesInChangeRequest'))[0].id;
  });

  async function expectUnchanged() {
    expect((await ok('GET', cr(space, id), 'getChangeRequestById')).revision).toBe(revision);
  }

  it('an unknown page id is a 400 and the whole batch is refused', async () => {
    const res = await server.request('POST', `${cr(space, id)}/content`, {
      token: ada.token,
      body: { changes: [{ operation: 'insert_page', title: 'New', document: { markdown: 'x' } }, { operation: 'update_page', page: 'nope', title: 'x' }] },
    });
    expectError(res, 400, /changes\[1\].*nope/);
    await expectUnchanged();
  });

  it('51 changes are a 400', async () => {
    const changes = Array.from({ length: 51 }, (_, i) => ({ operation: 'insert_page', title: `P${i}`, document: { markdown: 'x' } }));
    expectError(await server.request('POST', `${cr(space, id)}/content`, { token: ada.token, body: { changes } }), 400, /50/);
    await expectUnchanged();
  });

  it('bad base64, a missing content type and a private-address URL are 400s', async () => {
    const file = (f: Record<string, unknown>) => ({ changes: [{ operation: 'insert_files', files: [{ name: 'a.png', ...f }] }] });
    expectError(await server.request('POST', `${cr(space, id)}/content`, { token: ada.token, body: file({ contentType: 'image/png', base64: '%%%not base64' }) }), 400, /base64/);
    expectError(await server.request('POST', `${cr(space, id)}/content`, { token: ada.token, body: file({ base64: 'aGVsbG8=' }) }), 400, /contentType/);
    expectError(await server.request('POST', `${cr(space, id)}/content`, { token: ada.token, body: file({ url: `${server.baseUrl}/healthz` }) }), 400, /url.*FETCH_ALLOW_PRIVATE_ADDRESSES/);
    await expectUnchanged();
  });

  it('moving a page into itself, a duplicate slug and an unknown operation are 400s', async () => {
    expectError(await server.request('POST', `${cr(space, id)}/content`, { token: ada.token, body: { changes: [{ operation: 'update_page', page: pageId, into: pageId }] } }), 400);
    expectError(
      await server.request('POST', `${cr(space, id)}/content`, { token: ada.token, body: { changes: [{ operation: 'insert_page', slug: 'only', document: { markdown: 'x' } }] } }),
      400,
      /slug/,
    );
    expectError(await server.request('POST', `${cr(space, id)}/content`, { token: ada.token, body: { changes: [{ operation: 'rename_everything' }] } }), 400);
    await expectUnchanged();
  });

  it('a page that does not exist is a 404', async () => {
    expectError(await server.request('GET', `/v1/spaces/${space}/content/page/missing`, { token: ada.token }), 404);
    expectError(await server.request('GET', `${cr(space, 999)}`, { token: ada.token }), 404);
  });
});

describe('roles and organizations', () => {
  it('read cannot create, edit cannot merge, a locked space refuses edits, another organization sees nothing', async () => {
    const space = await newSpace('Roles');
    expectError(await server.request('POST', cr(space), { token: rita.token, body: { subject: 'x' } }), 403);
    const mine = await newChangeRequest(space, 'by eve', eve);
    await edit(space, mine.id, [{ operation: 'insert_page', title: 'Eve', document: { markdown: 'x' } }], eve);
    expectError(await server.request('POST', `${cr(space, mine.id)}/merge`, { token: eve.token }), 403);
    await ok('GET', cr(space, mine.id), 'getChangeRequestById', { token: rita.token });

    await server.request('PATCH', `/v1/spaces/${space}`, { token: ada.token, body: { editMode: 'locked' } });
    expectError(await server.request('POST', `${cr(space, mine.id)}/content`, { token: eve.token, body: { changes: [{ operation: 'delete_page', page: 'x' }] } }), 403);
    await server.request('PATCH', `/v1/spaces/${space}`, { token: ada.token, body: { editMode: 'live' } });

    const mallory = await server.createUser('Mallory');
    const otherOrg = await server.createOrg(mallory);
    expectError(await server.request('GET', cr(space, mine.id), { token: mallory.token }), 404);
    expectError(await server.request('GET', `/v1/spaces/${space}/content`, { token: mallory.token }), 404);
    const theirs = await ok('GET', `/v1/orgs/${otherOrg}/change-requests?status=draft`, 'listChangeRequestsForOrganization', { token: mallory.token });
    expect(theirs.items).toEqual([]);
    const ours = await ok('GET', `/v1/orgs/${org}/change-requests?status=draft`, 'listChangeRequestsForOrganization');
    expect(ours.items.map((c: any) => c.id)).toContain(mine.id);
    const byEve = await ok('GET', `${cr(space)}?status=draft&contributor=${eve.id}`, 'listChangeRequestsForSpace');
    expect(byEve.items.map((c: any) => c.id)).toEqual([mine.id]);
  });

  it('the merge rules of the space decide: a required reviewer must approve first', async () => {
    const space = await newSpace('Rules');
    await server.request('PATCH', `/v1/spaces/${space}`, { token: ada.token, body: { mergeRules: { type: 'rules', rules: [{ rule: 'require_specific_reviewers', users: [eve.id] }] } } });
    const change = await newChangeRequest(space, 'needs review');
    await edit(space, change.id, [{ operation: 'insert_page', title: 'Reviewed', document: { markdown: 'x' } }]);
    expectError(await server.request('POST', `${cr(space, change.id)}/merge`, { token: ada.token }), 412, new RegExp(eve.id));
  });
});

describe('templates', () => {
  it('applies the getting-started template as real pages, and blank adds one page', async () => {
    const space = await newSpace('Template');
    const res = await server.request('POST', `/v1/spaces/${space}/content/template`, { token: ada.token, body: { id: 'getting-started' } });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body === '' || res.body === null || res.body === undefined).toBe(true);
    const pages = await pagesOf(`/v1/spaces/${space}/content/pages`, 'listPages');
    expect(flatten(pages).map((p) => p.title)).toEqual(['Welcome', 'Quick start', 'Guides', 'Writing content', 'Publishing']);
    const welcome = flatten(pages)[0];
    const links = await ok('GET', `/v1/spaces/${space}/content/page/${welcome.id}/links`, 'listPageLinksInSpace');
    expect(links.items[0]).toMatchObject({ status: 'ok', targetReference: { kind: 'page' } });
    const blank = await server.request('POST', `/v1/spaces/${space}/content/template`, { token: ada.token, body: { id: 'blank' } });
    expect(blank.status).toBe(201);
    expect((await pagesOf(`/v1/spaces/${space}/content/pages`, 'listPages')).map((p) => p.title)).toEqual(['Welcome', 'Quick start', 'Guides', 'Untitled']);
    expectError(await server.request('POST', `/v1/spaces/${space}/content/template`, { token: ada.token, body: { id: 'nope' } }), 400);

    // A duplicate starts with the same content, searchable on its own.
    const copy = await ok('POST', `/v1/spaces/${space}/duplicate`, 'duplicateSpace', { status: 201 });
    const copied = await pagesOf(`/v1/spaces/${copy.id}/content/pages`, 'listPages');
    expect(flatten(copied).map((p) => [p.id, p.title])).toEqual(flatten(await pagesOf(`/v1/spaces/${space}/content/pages`, 'listPages')).map((p) => [p.id, p.title]));
    const found = await ok('GET', `/v1/spaces/${copy.id}/search?query=client`, 'searchSpaceContent');
    expect(found.items.map((p: any) => p.title)).toEqual(['Quick start']);
  });
});

describe('files from a URL', () => {
  it('fetches, stores and measures an image when the operator allows local addresses', async () => {
    const http = await import('node:http');
    const image = tinyPng();
    const origin = http.createServer((req, res) => {
      if (req.url === '/diagram.png') {
        res.writeHead(200, { 'content-type': 'image/png', 'content-length': image.length });
        res.end(image);
      } else {
        res.writeHead(404).end();
      }
    });
    await new Promise<void>((resolve) => origin.listen(0, '127.0.0.1', resolve));
    const { port } = origin.address() as { port: number };
    const local = await startTestServer({ FETCH_ALLOW_PRIVATE_ADDRESSES: 'true' });
    try {
      const user = await local.createUser('Fetcher');
      const orgId = await local.createOrg(user);
      const space = (await local.createSpace(user, orgId, { title: 'Fetched' })).id;
      const created = (await local.request('POST', `/v1/spaces/${space}/change-requests`, { token: user.token, body: {} })).body;
      const res = await local.request('POST', `/v1/spaces/${space}/change-requests/${created.id}/content?compat=false`, {
        token: user.token,
        body: { changes: [{ operation: 'insert_files', files: [{ name: 'diagram.png', url: `http://127.0.0.1:${port}/diagram.png` }] }] },
      });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body.insertedFiles).toMatchObject([{ name: 'diagram.png', contentType: 'image/png', size: image.length, dimensions: { width: 2, height: 1 } }]);
      const missing = await local.request('POST', `/v1/spaces/${space}/change-requests/${created.id}/content`, {
        token: user.token,
        body: { changes: [{ operation: 'insert_files', files: [{ name: 'gone.png', url: `http://127.0.0.1:${port}/gone.png` }] }] },
      });
      expectError(missing, 400, /url/);
    } finally {
      await local.close();
      origin.close();
    }
  });
});

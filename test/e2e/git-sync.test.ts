/**
 * Git Sync end to end, over real HTTP and WebSocket, against real Git
 * repositories served over HTTP by the test (git http-backend): import a
 * repository of 50 pages with nested folders and images while following the
 * job over graphql-ws, read the pages through REST and GraphQL, export to
 * another repository (followed over SSE) and check its files and commit with
 * git, import the export again (round trip), a subscriber of another
 * organization sees nothing, and a job whose server died finishes once after
 * a restart.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase } from '../helpers/database.ts';
import { startGitServer, type GitServer } from '../helpers/git-server.ts';
import { follow, useWsClients } from '../helpers/graphql-ws.ts';
import { assertMatchesSpec } from '../helpers/openapi.ts';
import { png } from '../helpers/png.ts';
import { startTestServer, useTestServer } from '../helpers/server.ts';
import { followSse } from '../helpers/sse.ts';

const SERVER_ENV = { FETCH_ALLOW_PRIVATE_ADDRESSES: 'true', JOB_POLL_MS: '100', JOB_LEASE_MS: '1500' };
const { server, ada } = useTestServer({ users: ['Ada'], env: SERVER_ENV });
const wsClient = useWsClients(() => server.baseUrl);
let git: GitServer;
let org: string;

/** A 1x1 PNG whose colour differs by `seed`. */
const pngOf = (seed: number) => png(1, 1, { pixel: () => [seed % 256, 100, 200] });

/** 50 pages: README, 5 chapters (folders with a README) of 8 pages each, 4 loose pages; images in two folders. */
function repositoryFiles(): Record<string, string | Uint8Array> {
  const files: Record<string, string | Uint8Array> = {};
  const summary = ['# Table of contents', '', '* [Home](README.md)'];
  files['README.md'] = '# Home\n\nWelcome to the **product** docs. Start with [chapter 1](chapter-1/README.md).\n\n![Logo](.gitbook/assets/logo.png)\n';
  files['.gitbook/assets/logo.png'] = pngOf(1);
  for (let c = 1; c <= 5; c++) {
    summary.push(`* [Chapter ${c}](chapter-${c}/README.md)`);
    files[`chapter-${c}/README.md`] = `---\ndescription: About chapter ${c}\n---\n\n# Chapter ${c}\n\nThis chapter explains topic${c}.\n`;
    files[`chapter-${c}/images/diagram.png`] = pngOf(c + 10);
    for (let p = 1; p <= 8; p++) {
      summary.push(`  * [Page ${c}.${p}](chapter-${c}/page-${p}.md)`);
      const image = p === 1 ? `\n![Diagram ${c}](images/diagram.png)\n` : '';
      const link = p > 1 ? `See [the previous page](page-${p - 1}.md).` : 'First page of the chapter.';
      files[`chapter-${c}/page-${p}.md`] = `# Page ${c}.${p}\n\nContent of page ${c}.${p} about keyword${c}x${p}. ${link}\n${image}`;
    }
  }
  for (let l = 1; l <= 4; l++) {
    summary.push(`* [Loose ${l}](loose-${l}.md)`);
    files[`loose-${l}.md`] = `# Loose ${l}\n\nA page at the top, number ${l}.\n`;
  }
  files['SUMMARY.md'] = `${summary.join('\n')}\n`;
  return files;
}

/** Git's blob id of `content` (what `git hash-object` prints). */
function blobOid(content: string | Uint8Array): string {
  const bytes = typeof content === 'string' ? Buffer.from(content) : Buffer.from(content);
  return createHash('sha1').update(`blob ${bytes.length}\0`).update(bytes).digest('hex');
}

const GIT_SYNC = `subscription($spaceId: ID!) { gitSync(spaceId: $spaceId) { id kind state step percent result error sequence } }`;
const JOB_UPDATED = `subscription($id: ID!) { jobUpdated(id: $id) { id kind state step percent result error sequence } }`;

async function api(method: string, path: string, body?: unknown, token = ada.token) {
  return server.request(method, path, { token, body });
}

const newSpace = async (title: string): Promise<string> => (await server.createSpace(ada, org, { title })).id;

/**
 * Imports the main branch of `repository` into `space`, following the job over graphql-ws
 * until it ends. The job's Git requests wait until the subscriber has its first event, so
 * the import cannot end before the subscription started, whenever that is: what it
 * missed of the job by then, it replays.
 */
async function importFollowed(space: string, repository: string) {
  const followed = follow(wsClient(ada.token), GIT_SYNC, { spaceId: space }, 'gitSync');
  git.hold = followed.first;
  try {
    const started = await api('POST', `/v1/spaces/${space}/git/import`, { url: git.url(repository), ref: 'refs/heads/main' });
    expect(started.status, JSON.stringify(started.body)).toBe(204);
    await followed.done;
  } finally {
    git.hold = null;
  }
  followed.unsubscribe();
  expect(followed.events.map((e) => e.sequence)).toEqual(followed.events.map((_e, i) => i + 1)); // the whole job, in order
  return followed;
}

beforeAll(async () => {
  git = await startGitServer();
  org = await server.createOrg(ada);
});
afterAll(async () => {
  await git?.close();
});

describe('Git Sync', () => {
  let headCommit: string;
  /** A space holding the import of `docs`, with the events of that import; tests that import again use spaces of their own. */
  let imported: { space: string } & Awaited<ReturnType<typeof importFollowed>>;

  beforeAll(async () => {
    await git.createBareRepository('docs', repositoryFiles());
    headCommit = (await git.lastCommit('docs', 'main')).oid;
    const space = await newSpace('Imported');
    imported = { space, ...(await importFollowed(space, 'docs')) };
  });

  it('imports a repository of 50 pages, nested folders and images; the subscriber sees every step in order', () => {
    expect(imported.errors).toEqual([]);
    const states = imported.events.map((e) => e.state);
    expect(states[0]).toBe('queued');
    expect(states.at(-1)).toBe('succeeded');
    expect(states.slice(1, -1).every((s) => s === 'running')).toBe(true);
    const steps = imported.events.filter((e) => e.state === 'running').map((e) => e.step);
    expect(steps).toEqual(expect.arrayContaining(['starting', 'cloning', 'reading pages', 'writing the revision']));
    const percents = imported.events.map((e) => e.percent);
    expect([...percents].sort((a, b) => a - b)).toEqual(percents);
    expect(imported.events.at(-1)!.result).toMatchObject({ commit: headCommit, pages: 50, files: 6 });
  });

  it('serves the imported pages through REST and GraphQL', async () => {
    const { space } = imported;
    const pages = await api('GET', `/v1/spaces/${space}/content/pages`);
    expect(pages.status).toBe(200);
    assertMatchesSpec('listPages', 200, pages.body);
    const flat = (list: any[]): any[] => list.flatMap((p) => [p, ...flat(p.pages ?? [])]);
    const all = flat(pages.body.pages);
    expect(all).toHaveLength(50);
    expect(pages.body.pages.map((p: any) => p.title)).toEqual(['Home', 'Chapter 1', 'Chapter 2', 'Chapter 3', 'Chapter 4', 'Chapter 5', 'Loose 1', 'Loose 2', 'Loose 3', 'Loose 4']);
    const chapter2 = pages.body.pages[2];
    expect(chapter2).toMatchObject({ description: 'About chapter 2', path: 'chapter-2' });
    expect(chapter2.pages.map((p: any) => p.path)).toEqual(Array.from({ length: 8 }, (_, i) => `chapter-2/page-${i + 1}`));

    const page = all.find((p) => p.title === 'Page 3.2');
    const links = await api('GET', `/v1/spaces/${space}/content/page/${page.id}/links`);
    expect(links.body.items.map((l: any) => [l.status, l.targetReference.page?.title])).toEqual([['ok', 'Page 3.1']]);
    const files = await api('GET', `/v1/spaces/${space}/content/files`);
    expect(files.body.items).toHaveLength(6);
    expect(files.body.items.every((f: any) => f.contentType === 'image/png' && f.dimensions?.width === 1)).toBe(true);

    const graph = await server.graphql(`query($id: ID!) { space(id: $id) { revision { pagesCount pages { title pages { title } } files { name } } } }`, {
      token: ada.token,
      variables: { id: space },
    });
    expect(graph.body.errors).toBeUndefined();
    expect(graph.body.data.space.revision.pagesCount).toBe(50);
    expect(graph.body.data.space.revision.pages[1].pages).toHaveLength(8);

    const info = await api('GET', `/v1/spaces/${space}/git/info`);
    expect(info.status).toBe(200);
    assertMatchesSpec('getSpaceGitInfo', 200, info.body);
    expect(info.body).toMatchObject({ url: git.url('docs'), branch: 'main', lastCommit: headCommit, lastSync: { kind: 'import', status: 'succeeded' } });
  });

  it('carries Git metadata: the commit on the revision, each page and file its path and blob; metadata=false leaves it out', async () => {
    const { space } = imported;
    const source = repositoryFiles();
    const revision = await api('GET', `/v1/spaces/${space}/content`);
    assertMatchesSpec('getCurrentRevision', 200, revision.body);
    expect(revision.body.git).toEqual({ oid: headCommit, message: 'Initial content\n', createdByService: false, createdByGitBook: false, ref: 'refs/heads/main' });
    const flat = (list: any[]): any[] => list.flatMap((p) => [p, ...flat(p.pages ?? [])]);
    const pages = flat(revision.body.pages);
    expect(pages.find((p) => p.title === 'Page 2.3').git).toEqual({ path: 'chapter-2/page-3.md', oid: blobOid(source['chapter-2/page-3.md']!) });
    expect(pages.find((p) => p.title === 'Home').git).toEqual({ path: 'README.md', oid: blobOid(source['README.md']!) });
    const logo = revision.body.files.find((f: any) => f.name === 'logo.png');
    expect(logo.git).toEqual({ path: '.gitbook/assets/logo.png', oid: blobOid(source['.gitbook/assets/logo.png']!) });
    const page = await api('GET', `/v1/spaces/${space}/content/page/${pages[1].id}`);
    assertMatchesSpec('getPageById', 200, page.body);
    expect(page.body.git).toEqual({ path: 'chapter-1/README.md', oid: blobOid(source['chapter-1/README.md']!) });

    const bare = await api('GET', `/v1/spaces/${space}/content?metadata=false`);
    assertMatchesSpec('getCurrentRevision', 200, bare.body);
    expect(bare.body.git).toBeUndefined();
    expect(flat(bare.body.pages).some((p) => p.git)).toBe(false);
    expect(bare.body.files.some((f: any) => f.git)).toBe(false);
    expect((await api('GET', `/v1/spaces/${space}/content/page/${pages[1].id}?metadata=false`)).body.git).toBeUndefined();
    expect((await api('GET', `/v1/spaces/${space}/content/files/${logo.id}?metadata=false`)).body.git).toBeUndefined();
  });

  it('importing the same commit again changes nothing, and asks the server for the branch tip only', async () => {
    const space = await newSpace('Imported twice');
    await importFollowed(space, 'docs');
    const before = (await api('GET', `/v1/spaces/${space}`)).body.revision;
    const requestsBefore = git.requests.length;
    const again = await importFollowed(space, 'docs');
    expect(again.events.at(-1), JSON.stringify(again.events.at(-1))).toMatchObject({
      state: 'succeeded',
      result: { unchanged: true, commit: headCommit, revision: before, pages: 50, files: 6 },
    });
    expect((await api('GET', `/v1/spaces/${space}`)).body.revision).toBe(before);
    // The branch is where the last import left it: no clone, no pages read.
    const steps = again.events.map((e) => e.step).filter(Boolean);
    expect(steps).toContain('checking the branch');
    expect(steps).not.toContain('cloning');
    expect(steps).not.toContain('reading pages');
    // ls-refs: the ref advertisement and one upload-pack exchange, no pack fetched.
    expect(git.requests.slice(requestsBefore).map((r) => `${r.method} ${r.path}`)).toEqual(['GET /docs.git/info/refs', 'POST /docs.git/git-upload-pack']);
  });

  it('imports in full when the server cannot tell the branch tip on its own', async () => {
    const space = await newSpace('Imported in full');
    await importFollowed(space, 'docs');
    const before = (await api('GET', `/v1/spaces/${space}`)).body.revision;
    let failed = 0;
    git.beforeRequest = async () => {
      if (failed++ === 0) throw new Error('ref listing unavailable');
    };
    try {
      const again = await importFollowed(space, 'docs');
      // The shortcut failed (a 500 from the server), the import did not: it cloned, read and found nothing to change.
      expect(again.events.at(-1), JSON.stringify(again.events.at(-1))).toMatchObject({ state: 'succeeded', result: { unchanged: true, commit: headCommit } });
      const steps = again.events.map((e) => e.step);
      expect(steps).toContain('checking the branch');
      expect(steps).toContain('cloning');
      expect((await api('GET', `/v1/spaces/${space}`)).body.revision).toBe(before);
    } finally {
      git.beforeRequest = null;
    }
  });

  it('the same commit is imported again once the space has changed since', async () => {
    const space = await newSpace('Changed since');
    await importFollowed(space, 'docs');
    const importedRevision = (await api('GET', `/v1/spaces/${space}`)).body.revision;
    const changeRequest = await api('POST', `/v1/spaces/${space}/change-requests`, { subject: 'Local edit' });
    expect(changeRequest.status, JSON.stringify(changeRequest.body)).toBe(201);
    const edited = await api('POST', `/v1/spaces/${space}/change-requests/${changeRequest.body.id}/content`, {
      changes: [{ operation: 'insert_page', document: { markdown: '# Local page\n\nWritten in the app.' } }],
    });
    expect(edited.status, JSON.stringify(edited.body)).toBe(200);
    const merged = await api('POST', `/v1/spaces/${space}/change-requests/${changeRequest.body.id}/merge`);
    expect(merged.status, JSON.stringify(merged.body)).toBe(200);
    const local = (await api('GET', `/v1/spaces/${space}`)).body.revision;
    expect(local).not.toBe(importedRevision);

    const again = await importFollowed(space, 'docs');
    // The repository wins: the local page is gone, in a new revision.
    expect(again.events.at(-1), JSON.stringify(again.events.at(-1))).toMatchObject({ state: 'succeeded', result: { unchanged: false, commit: headCommit, pages: 50 } });
    expect(again.events.map((e) => e.step)).toContain('reading pages');
    const after = (await api('GET', `/v1/spaces/${space}`)).body.revision;
    expect(after).not.toBe(local);
    const titles = JSON.stringify((await api('GET', `/v1/spaces/${space}/content/pages`)).body);
    expect(titles).not.toContain('Local page');
  });

  it('exports to another repository (followed over SSE): files and commit checked with git; importing it back gives the same content', async () => {
    const space = await newSpace('Exported');
    await importFollowed(space, 'docs');
    await git.createBareRepository('export');
    const graphqlStart = await server.graphql(`mutation($id: ID!, $input: ExportToGitRepositoryInput!) { exportToGitRepository(spaceId: $id, input: $input) { id state } }`, {
      token: ada.token,
      variables: { id: space, input: { url: git.url('export'), ref: 'refs/heads/main', commitMessage: 'Export from the docs API' } },
    });
    expect(graphqlStart.body.errors).toBeUndefined();
    const jobId = graphqlStart.body.data.exportToGitRepository.id;
    const followed = followSse(server.baseUrl, JOB_UPDATED, { id: jobId }, 'jobUpdated', { token: ada.token });
    expect(await followed.response).toEqual({ status: 200, contentType: expect.stringContaining('text/event-stream') });
    await followed.ended;
    expect(followed.errors).toEqual([]);
    expect(followed.events.at(-1)).toMatchObject({ state: 'succeeded', result: { changed: true } });
    // Each message's id is its event's sequence number (what an EventSource sends back as Last-Event-ID).
    expect(followed.ids).toEqual(followed.events.map((e) => String(e.sequence)));

    const files = await git.readBareRepository('export', 'main');
    expect([...files.keys()]).toEqual(expect.arrayContaining(['.gitbook.yaml', 'README.md', 'SUMMARY.md', 'chapter-1/README.md', 'chapter-1/page-1.md', 'loose-4.md']));
    expect([...files.keys()].filter((p) => p.startsWith('.gitbook/assets/'))).toHaveLength(6);
    expect(files.get('chapter-3/page-2.md')!.toString('utf8')).toContain('[the previous page](page-1.md)');
    const commit = await git.lastCommit('export', 'main');
    expect(commit).toMatchObject({ message: 'Export from the docs API', authorName: 'Ada', authorEmail: ada.email });
    // The exported revision now names the commit the export wrote, and where each page went.
    const exported = (await api('GET', `/v1/spaces/${space}/content`)).body;
    expect(exported.git).toMatchObject({ oid: commit.oid, message: 'Export from the docs API\n', createdByService: true, createdByGitBook: true, ref: 'refs/heads/main' });
    const page32 = (exported.pages as any[]).flatMap((p) => [p, ...(p.pages ?? [])]).find((p) => p.title === 'Page 3.2');
    expect(page32.git).toEqual({ path: 'chapter-3/page-2.md', oid: blobOid(files.get('chapter-3/page-2.md')!) });

    const copy = await newSpace('Round trip');
    expect((await importFollowed(copy, 'export')).events.at(-1)!.state).toBe('succeeded');
    const shape = async (id: string) => {
      const body = (await api('GET', `/v1/spaces/${id}/content/pages`)).body;
      const walk = (list: any[]): any[] => list.map((p) => ({ title: p.title, path: p.path, description: p.description, pages: walk(p.pages ?? []) }));
      return walk(body.pages);
    };
    expect(await shape(copy)).toEqual(await shape(space));

    // The exported branch holds this space's content: importing it into the space finds nothing to do.
    const back = await importFollowed(space, 'export');
    expect(back.events.at(-1), JSON.stringify(back.events.at(-1))).toMatchObject({ state: 'succeeded', result: { unchanged: true, commit: commit.oid } });
    expect(back.events.map((e) => e.step)).not.toContain('cloning');
  });

  it('round trip of a repository in GitBook\'s layout: import, edit through a change request, merge, export gives the same files plus the edit', async () => {
    const original: Record<string, string | Uint8Array> = {
      '.gitbook.yaml': 'root: ./\nstructure:\n  readme: README.md\n  summary: SUMMARY.md\nredirects:\n  help/install: guide/install.md\n',
      '.gitbook/vars.yaml': 'product: Acme\nversion: "2.1"\n',
      '.gitbook/tags.yaml': '- tag: beta\n  label: Beta\n  emoji: 🎉\n- tag: new\n  label: New\n  icon: sparkle\n- tag: cli\n  label: CLI\n  color: purple\n',
      '.gitbook/includes/support.md': '---\ntitle: Support\n---\n\nAsk the support team about <code class="expression">space.vars.product</code>.\n',
      '.gitbook/assets/banner.png': pngOf(77),
      'README.md': '---\ndescription: Start here\n---\n\n# Welcome\n\nThis is <code class="expression">space.vars.product</code>.\n',
      'SUMMARY.md': [
        '# Table of contents',
        '',
        '* [Welcome](README.md)',
        '* [Guide](guide/README.md)',
        '  * [Install](guide/install.md)',
        '',
        '## 🛠️ Tools <a href="#tooling" id="tooling"></a>',
        '',
        '* [CLI](tooling/cli.md)',
        '* [<i class="fa-github">:github:</i> Source](https://github.com/acme/cli)',
        '',
        '***',
        '',
        '* [Status](https://status.example.com)',
        '',
      ].join('\n'),
      'tooling/cli.md': '---\ntags:\n  - cli\n  - tag: new\n    primary: true\n---\n\n# CLI\n\nType `acme`.\n',
      'guide/README.md':
        '---\ncover: ../.gitbook/assets/banner.png\ncoverY: 0\nvars:\n  audience: admins\nlayout:\n  width: wide\n---\n\n# Guide\n\nRead [install](install.md).\n\n{% include "../.gitbook/includes/support.md" %}\n',
      'guide/install.md': '---\nicon: download\nhidden: true\nnoIndex: true\n---\n\n# Install\n\nRun the installer.\n',
    };
    await git.createBareRepository('gitbook-layout', original);
    const space = await newSpace('GitBook layout');
    expect((await importFollowed(space, 'gitbook-layout')).events.at(-1)).toMatchObject({ state: 'succeeded', result: { warnings: [] } });

    // What came in: covers, variables, tags, includes, link pages, a group with its emoji and slug, pages after it, redirects, front matter.
    const content = (await api('GET', `/v1/spaces/${space}/content`)).body;
    assertMatchesSpec('getCurrentRevision', 200, content);
    expect(content.variables).toEqual({ product: 'Acme', version: '2.1' });
    expect(content.tags).toEqual([
      { slug: 'beta', label: 'Beta', color: 'default', emoji: '1f389' },
      { slug: 'new', label: 'New', color: 'default', icon: 'sparkle' },
      { slug: 'cli', label: 'CLI', color: 'purple' },
    ]);
    expect(content.reusableContents.map((c: any) => [c.title, c.git.path])).toEqual([['Support', '.gitbook/includes/support.md']]);
    const [welcome, guide, tools, status] = content.pages;
    expect(status).toMatchObject({ type: 'link', title: 'Status', href: 'https://status.example.com' });
    expect(tools).toMatchObject({ type: 'group', title: 'Tools', emoji: '1f6e0-fe0f', slug: 'tooling' });
    expect(tools.pages.map((p: any) => [p.type, p.title, p.icon ?? null])).toEqual([
      ['document', 'CLI', null],
      ['link', 'Source', 'github'],
    ]);
    expect(tools.pages[0].tags).toEqual([{ tag: { kind: 'tag', tag: 'cli' } }, { tag: { kind: 'tag', tag: 'new' }, primary: true }]);
    expect(welcome.tags).toEqual([]);
    const redirects = await server.graphql('query($space: ID!) { revisionContent(spaceId: $space) { redirects { source page } } }', { token: ada.token, variables: { space } });
    expect(redirects.body.data.revisionContent.redirects).toEqual([{ source: 'help/install', page: guide.pages[0].id }]);
    const banner = content.files.find((f: any) => f.name === 'banner.png');
    expect(guide).toMatchObject({ cover: { ref: { kind: 'file', file: banner.id }, yPos: 0 }, variables: { audience: 'admins' }, layout: { width: 'wide' } });
    const install = guide.pages[0];
    expect(install).toMatchObject({ title: 'Install', icon: 'download', hidden: true, noIndex: true });
    const read = await api('GET', `/v1/spaces/${space}/content/page/${guide.id}?dereference=true&evaluated=true&format=markdown`);
    expect(read.body.markdown).toContain('Ask the support team about Acme.');
    expect(welcome.description).toBe('Start here');

    // One edit, through a change request.
    const cr = (await api('POST', `/v1/spaces/${space}/change-requests`, { subject: 'Restart' })).body.id;
    expect((await api('POST', `/v1/spaces/${space}/change-requests/${cr}/content`, { changes: [{ operation: 'update_page', page: install.id, document: { markdown: 'Run the installer, then restart.\n' } }] })).status).toBe(200);
    await api('PATCH', `/v1/spaces/${space}/change-requests/${cr}`, { status: 'open' });
    expect((await api('POST', `/v1/spaces/${space}/change-requests/${cr}/merge`)).body.result).toBe('merge');

    await git.createBareRepository('gitbook-layout-out');
    const started = await api('POST', `/v1/spaces/${space}/git/export`, { url: git.url('gitbook-layout-out'), ref: 'refs/heads/main', commitMessage: 'Export' });
    expect(started.status, JSON.stringify(started.body)).toBe(204);
    await expect.poll(async () => (await api('GET', `/v1/spaces/${space}/git/info`)).body.lastSync?.status, { timeout: 20_000 }).toBe('succeeded');

    const exported = await git.readBareRepository('gitbook-layout-out', 'main');
    const expected = { ...original, 'guide/install.md': '---\nicon: download\nhidden: true\nnoIndex: true\n---\n\n# Install\n\nRun the installer, then restart.\n' };
    expect([...exported.keys()].sort()).toEqual(Object.keys(expected).sort());
    for (const [path, content] of Object.entries(expected)) {
      expect(exported.get(path)!.equals(Buffer.from(content)), `${path}:\n${exported.get(path)!.toString('utf8')}`).toBe(true);
    }
  });

  it('a subscriber of another organization receives nothing, and cannot follow this space', async () => {
    await git.createBareRepository('watched', { 'README.md': '# Watched\n\nFollowed by its organization only.\n', 'SUMMARY.md': '* [Watched](README.md)\n' });
    const space = await newSpace('Watched');
    const mallory = await server.createUser('Mallory');
    const malloryOrg = await server.createOrg(mallory);
    const theirs = follow(wsClient(mallory.token), `subscription($id: ID!) { organizationJobs(organizationId: $id) { id state } }`, { id: malloryOrg }, 'organizationJobs');
    const forbidden = follow(wsClient(mallory.token), GIT_SYNC, { spaceId: space }, 'gitSync');
    await forbidden.done;
    expect(JSON.stringify(forbidden.errors)).toMatch(/not found|404/i);
    expect((await importFollowed(space, 'watched')).events.at(-1)!.state).toBe('succeeded');
    // Their subscription runs (it replays what it missed, and sees its own organization's job), and got nothing of ours.
    const own = await server.app.jobs.start({ organizationId: malloryOrg, kind: 'git-import', input: {} });
    await theirs.first;
    theirs.unsubscribe();
    expect([...new Set(theirs.events.map((e) => e.id))]).toEqual([own.id]);
  });

  it('bad input is a 400 and starts nothing', async () => {
    const space = await newSpace('Bad input');
    const bad = await api('POST', `/v1/spaces/${space}/git/import`, { url: 'ftp://example.com/x.git', ref: 'refs/heads/main' });
    expect(bad.status).toBe(400);
    const badRef = await api('POST', `/v1/spaces/${space}/git/import`, { url: git.url('docs'), ref: 'refs/tags/v1' });
    expect(badRef.status).toBe(400);
    const missing = await api('POST', `/v1/spaces/${space}/git/export`, { url: git.url('docs'), ref: 'refs/heads/main' });
    expect(missing.status).toBe(400); // commitMessage is required
    expect(await server.app.db.job.count({ where: { spaceId: space } })).toBe(0);
  });

  it('a job whose server died mid-import finishes once after a restart', async () => {
    await git.createBareRepository('slow', repositoryFiles());
    // Two servers, one after the other, on a database of their own: the file's server takes no part.
    const shared = { database: await createTestDatabase(), storageDir: fs.mkdtempSync(path.join(os.tmpdir(), 'docs-api-files-')) };
    // Hold the clone until the first server is gone.
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    try {
      let seen!: () => void;
      const reached = new Promise<void>((r) => (seen = r));
      git.beforeRequest = async (request) => {
        if (request.path.includes('slow.git')) {
          seen();
          await held;
        }
      };
      const first = await startTestServer({ ...SERVER_ENV, JOB_CONCURRENCY: '1' }, shared);
      const owner = await first.createUser('Owner');
      const target = (await first.createSpace(owner, await first.createOrg(owner), { title: 'Restarted' })).id;
      const started = await first.request('POST', `/v1/spaces/${target}/git/import`, { token: owner.token, body: { url: git.url('slow'), ref: 'refs/heads/main' } });
      expect(started.status).toBe(204);
      await reached;
      await first.close(); // the process dies: its job stays "running" with a lease nobody renews
      git.beforeRequest = null;
      release();

      const second = await startTestServer(SERVER_ENV, shared);
      try {
        const jobs = async () => second.app.db.job.findMany({ where: { spaceId: target } });
        while ((await jobs())[0]?.state !== 'succeeded') {
          expect((await jobs())[0]?.state, JSON.stringify(await jobs())).not.toBe('failed');
          await new Promise((r) => setTimeout(r, 100));
        }
        const [job] = await jobs();
        expect(job!.attempts).toBe(2);
        const revisions = await second.app.db.revision.count({ where: { spaceId: target } });
        expect(revisions).toBe(2); // the empty first revision and one import: nothing twice
        const pages = await second.request('GET', `/v1/spaces/${target}/content/pages`, { token: owner.token });
        expect(pages.body.pages).toHaveLength(10);
      } finally {
        await second.close();
      }
    } finally {
      git.beforeRequest = null;
      release();
      await shared.database.drop();
      await fs.promises.rm(shared.storageDir, { recursive: true, force: true });
    }
  });
});

/**
 * The Git client against real smart-HTTP servers (`git http-backend` behind
 * test/helpers/git-server.ts) on 127.0.0.1; repositories are set up and
 * checked with system git, the client itself uses none.
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { GitSyncError } from '../../src/errors/external.ts';
import {
  readRepository,
  splitCredentials,
  writeRepository,
  type RemotePolicy,
  type WriteRepositoryInput,
} from '../../src/git-sync/git-client.ts';
import { KeptClones } from '../../src/git-sync/kept-clones.ts';
import { startGitServer, type GitServer } from '../helpers/git-server.ts';

const LOCAL: RemotePolicy = { allowPrivateAddresses: true, timeoutMs: 10_000 };
const AUTHOR = { name: 'Docs Bot', email: 'docs-bot@example.com' };
const SECRET = 's3cret-t0ken-value';
const USER = 'alice-the-user';

/** 0..255 twice, with a NUL and invalid UTF-8: survives only a byte-exact round trip. */
const BINARY = new Uint8Array([...Array.from({ length: 256 }, (_, i) => i), ...Array.from({ length: 256 }, (_, i) => 255 - i)]);

async function failure(promise: Promise<unknown>): Promise<GitSyncError> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(GitSyncError);
  return error as GitSyncError;
}

function expectNoSecrets(error: Error) {
  for (const text of [error.message, String(error), error.stack ?? '', JSON.stringify(error)]) {
    expect(text).not.toContain(SECRET);
    expect(text).not.toContain(USER);
  }
}

function text(bytes: Uint8Array | undefined): string {
  return Buffer.from(bytes ?? new Uint8Array()).toString('utf8');
}

let repoCount = 0;
const uniqueName = (prefix: string) => `${prefix}-${++repoCount}`;

describe('git client', () => {
  let server: GitServer;
  let authServer: GitServer;

  beforeAll(async () => {
    [server, authServer] = await Promise.all([startGitServer(), startGitServer({ auth: { username: USER, password: SECRET } })]);
  });
  afterAll(async () => {
    await Promise.all([server?.close(), authServer?.close()]);
  });
  beforeEach(() => {
    server.beforeRequest = null;
  });

  describe('readRepository', () => {
    const files = {
      'README.md': '# Top\n',
      'docs/README.md': '# Docs\n',
      'docs/guide/install.md': 'Install it.\n',
      'docs/guide/deep/er/page.md': 'Deep.\n',
      'docs/images/logo.bin': BINARY,
      'src/index.ts': 'export {};\n',
    };

    it('reads nested folders and binary files at the tip of the branch', async () => {
      const url = await server.createBareRepository('read-all', files);
      const expected = await server.lastCommit('read-all', 'main');
      const progress: string[] = [];

      const snapshot = await readRepository({ url, ref: 'main', policy: LOCAL, onProgress: (p) => progress.push(p.phase) });

      expect(snapshot.commit).toBe(expected.oid);
      expect([...snapshot.files.keys()].sort()).toEqual(Object.keys(files).sort());
      expect(text(snapshot.files.get('docs/guide/deep/er/page.md'))).toBe('Deep.\n');
      expect(Buffer.from(snapshot.files.get('docs/images/logo.bin')!).equals(Buffer.from(BINARY))).toBe(true);
      expect(progress).toContain('Reading files');
    });

    it('reads only the project directory, with paths relative to it', async () => {
      const url = await server.createBareRepository('read-project', files, 'trunk');

      const snapshot = await readRepository({ url, ref: 'refs/heads/trunk', projectDirectory: '/docs/', policy: LOCAL });

      expect([...snapshot.files.keys()].sort()).toEqual(['README.md', 'guide/deep/er/page.md', 'guide/install.md', 'images/logo.bin']);
      expect(text(snapshot.files.get('README.md'))).toBe('# Docs\n');
    });

    it('fetches one commit only (depth 1)', async () => {
      const url = await server.createBareRepository('read-shallow', { 'a.md': 'one' });
      await server.commit('read-shallow', 'main', { 'a.md': 'two' });
      await server.commit('read-shallow', 'main', { 'a.md': 'three' });

      const snapshot = await readRepository({ url, ref: 'main', policy: LOCAL });

      expect(text(snapshot.files.get('a.md'))).toBe('three');
      const upload = server.requests.filter((r) => r.path === '/read-shallow.git/git-upload-pack');
      expect(upload).toHaveLength(1);
    });

    describe('with a kept clone', () => {
      const many = Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`pages/p${i}.md`, `# Page ${i}\n\n${randomBytes(600).toString('hex')}\n`]));
      /** The same read without a kept clone: what a kept read must answer. */
      const fresh = (url: string) => readRepository({ url, ref: 'main', policy: LOCAL });
      const same = (a: Awaited<ReturnType<typeof fresh>>, b: Awaited<ReturnType<typeof fresh>>) => {
        expect(a.commit).toBe(b.commit);
        expect([...a.files.keys()]).toEqual([...b.files.keys()]);
        for (const [path, bytes] of b.files) expect(Buffer.from(a.files.get(path)!).equals(Buffer.from(bytes)), path).toBe(true);
        expect([...a.blobs]).toEqual([...b.blobs]);
      };
      const packSizes = (gitdir: string) =>
        fs
          .readdirSync(`${gitdir}/objects/pack`)
          .filter((f) => f.endsWith('.pack'))
          .map((f) => fs.statSync(`${gitdir}/objects/pack/${f}`).size)
          .sort((a, b) => a - b);

      it('fetches only the objects of the new commit, and reads the same files as a fresh clone', async () => {
        const clones = new KeptClones(64 * 1024 * 1024);
        try {
          const url = await server.createBareRepository('kept-next', { ...many, 'docs/a.md': 'one' });
          const kept = { clones, key: 'space-1' };
          same(await readRepository({ url, ref: 'main', policy: LOCAL, kept }), await fresh(url));
          await server.commit('kept-next', 'main', { 'docs/a.md': 'two', 'docs/new/b.md': 'new', 'pages/p3.md': null });

          const second = await readRepository({ url, ref: 'main', policy: LOCAL, kept });

          same(second, await fresh(url));
          expect(text(second.files.get('docs/a.md'))).toBe('two');
          const clone = clones.take('space-1')!;
          expect(clone.fetches).toBe(2);
          // The second pack holds the new commit, its trees and two blobs: not the 40 pages again.
          const [small, large] = packSizes(clone.gitdir);
          expect(small! * 20).toBeLessThan(large!);
        } finally {
          await clones.close();
        }
      });

      it('reads a rewritten branch as a fresh clone does, also when its history is larger than a clone', async () => {
        const clones = new KeptClones(64 * 1024 * 1024);
        try {
          const url = await server.createBareRepository('kept-rewritten', { 'a.md': 'a' });
          const kept = { clones, key: 'space-2' };
          await readRepository({ url, ref: 'main', policy: LOCAL, kept });
          // Another history, of several commits of incompressible bytes, force-pushed over the branch.
          await server.createBareRepository('kept-other', { 'b.bin': randomBytes(20_000) });
          for (let i = 0; i < 3; i++) await server.commit('kept-other', 'main', { 'b.bin': randomBytes(20_000), [`c${i}.md`]: `c${i}` });
          execFileSync('git', ['--git-dir', `${server.root}/kept-other.git`, 'push', '--quiet', '--force', `${server.root}/kept-rewritten.git`, 'main:main']);

          same(await readRepository({ url, ref: 'main', policy: LOCAL, kept }), await fresh(url));
          // And once more from what that read kept.
          await server.commit('kept-rewritten', 'main', { 'c0.md': 'changed' });
          same(await readRepository({ url, ref: 'main', policy: LOCAL, kept }), await fresh(url));
        } finally {
          await clones.close();
        }
      });

      it('keeps nothing beyond its budget, and removes its directories when closed', async () => {
        const clones = new KeptClones(1000);
        const url = await server.createBareRepository('kept-budget', many);
        await readRepository({ url, ref: 'main', policy: LOCAL, kept: { clones, key: 'space-3' } });
        expect(clones.take('space-3')).toBeNull();

        const roomy = new KeptClones(64 * 1024 * 1024);
        await readRepository({ url, ref: 'main', policy: LOCAL, kept: { clones: roomy, key: 'space-3' } });
        const clone = roomy.take('space-3')!;
        await roomy.give('space-3', clone);
        expect(fs.existsSync(clone.gitdir)).toBe(true);
        await roomy.close();
        expect(fs.existsSync(clone.gitdir)).toBe(false);
      });
    });

    it('reports a missing branch', async () => {
      const url = await server.createBareRepository('read-branch', { 'a.md': 'a' });
      const error = await failure(readRepository({ url, ref: 'refs/heads/nope', policy: LOCAL }));
      expect(error.reason).toBe('branch-not-found');
      expect(error.message).toBe('branch refs/heads/nope not found');
    });

    it('reports the branch of an empty repository as missing', async () => {
      const url = await server.createBareRepository('read-empty');
      const error = await failure(readRepository({ url, ref: 'main', policy: LOCAL }));
      expect(error.reason).toBe('branch-not-found');
      expect(error.message).toMatch(/^branch refs\/heads\/main not found/);
    });

    it('reports a missing project directory', async () => {
      const url = await server.createBareRepository('read-nodir', { 'a.md': 'a' });
      const error = await failure(readRepository({ url, ref: 'main', projectDirectory: 'docs', policy: LOCAL }));
      expect(error.reason).toBe('directory-not-found');
    });

    it('reports a missing repository', async () => {
      const error = await failure(readRepository({ url: server.url('does-not-exist'), ref: 'main', policy: LOCAL }));
      expect(error.reason).toBe('not-found');
      expect(error.message).toBe('repository not found');
    });

    it('refuses more files than maxFiles, a download larger than maxRepositoryBytes, and files adding up to more', async () => {
      const url = await server.createBareRepository('read-limits', {
        'a.md': 'a',
        'b.md': 'b',
        'c.md': 'c',
        'random.bin': randomBytes(20_000),
      });

      const files = await failure(readRepository({ url, ref: 'main', policy: { ...LOCAL, maxFiles: 2 } }));
      expect(files.reason).toBe('too-large');
      expect(files.message).toMatch(/more than 2 files/);

      const download = await failure(readRepository({ url, ref: 'main', policy: { ...LOCAL, maxRepositoryBytes: 5_000 } }));
      expect(download.reason).toBe('too-large');
      expect(download.message).toMatch(/larger than the 5000 bytes allowed/);

      // 300 kB of zeros packs into a few hundred bytes: the limit also holds for the unpacked files.
      const zerosUrl = await server.createBareRepository('read-zeros', { 'zeros.bin': new Uint8Array(300_000) });
      const unpacked = await failure(readRepository({ url: zerosUrl, ref: 'main', policy: { ...LOCAL, maxRepositoryBytes: 50_000 } }));
      expect(unpacked.reason).toBe('too-large');
      expect(unpacked.message).toMatch(/files take more than the 50000 bytes allowed/);
    });

    it('refuses invalid URLs and refs before any request', async () => {
      const before = server.requests.length;
      expect((await failure(readRepository({ url: 'ftp://127.0.0.1/x.git', ref: 'main', policy: LOCAL }))).reason).toBe('invalid-input');
      expect((await failure(readRepository({ url: `not a url ${SECRET}`, ref: 'main', policy: LOCAL }))).message).not.toContain(SECRET);
      expect((await failure(readRepository({ url: server.url('x'), ref: 'refs/tags/v1', policy: LOCAL }))).reason).toBe('invalid-input');
      expect((await failure(readRepository({ url: server.url('x'), ref: 'a..b', policy: LOCAL }))).reason).toBe('invalid-input');
      expect((await failure(readRepository({ url: server.url('x'), ref: 'main', projectDirectory: '../up', policy: LOCAL }))).reason).toBe(
        'invalid-input',
      );
      expect(server.requests.length).toBe(before);
    });

    it('gives up on a server that does not answer within timeoutMs', async () => {
      const silent = http.createServer(() => undefined);
      await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
      try {
        const url = `http://127.0.0.1:${(silent.address() as AddressInfo).port}/x.git`;
        const error = await failure(readRepository({ url, ref: 'main', policy: { ...LOCAL, timeoutMs: 300 } }));
        expect(error.reason).toBe('timeout');
        expect(error.message).toMatch(/did not answer within 300 ms/);
      } finally {
        silent.closeAllConnections();
        silent.close();
      }
    });

    it('removes its temporary repository, also after a failure', async () => {
      const url = await server.createBareRepository('read-cleanup', { 'a.md': 'a' });
      const mkdtemp = vi.spyOn(fs.promises, 'mkdtemp');
      try {
        await readRepository({ url, ref: 'main', policy: LOCAL });
        await failure(readRepository({ url, ref: 'missing', policy: LOCAL }));
        const created = await Promise.all(mkdtemp.mock.results.map((r) => r.value as Promise<string>));
        expect(created).toHaveLength(2);
        for (const dir of created) expect(fs.existsSync(dir)).toBe(false);
      } finally {
        mkdtemp.mockRestore();
      }
    });

    it('stops when the caller aborts', async () => {
      const url = await server.createBareRepository('read-abort', { 'a.md': 'a' });
      const controller = new AbortController();
      controller.abort();
      const error = await failure(readRepository({ url, ref: 'main', policy: LOCAL, signal: controller.signal }));
      expect(error.reason).toBe('aborted');
    });
  });

  describe('basic auth', () => {
    let url: string;
    beforeAll(async () => {
      url = await authServer.createBareRepository('private', { 'README.md': 'secret docs' });
    });

    it('reads with the right credentials, given apart or in the URL', async () => {
      const apart = await readRepository({ url, ref: 'main', credentials: { username: USER, password: SECRET }, policy: LOCAL });
      expect(text(apart.files.get('README.md'))).toBe('secret docs');

      const inUrl = url.replace('http://', `http://${USER}:${SECRET}@`);
      const fromUrl = await readRepository({ url: inUrl, ref: 'main', policy: LOCAL });
      expect(fromUrl.commit).toBe(apart.commit);
    });

    it('reports wrong credentials, without repeating them', async () => {
      const inUrl = url.replace('http://', `http://${USER}:${SECRET}-wrong@`);
      const error = await failure(readRepository({ url: inUrl, ref: 'main', policy: LOCAL }));
      expect(error.reason).toBe('auth');
      expect(error.message).toMatch(/^authentication failed \(401\)/);
      expectNoSecrets(error);
    });

    it('reports missing credentials', async () => {
      const error = await failure(readRepository({ url, ref: 'main', policy: LOCAL }));
      expect(error.reason).toBe('auth');
      expect(error.message).toMatch(/^authentication failed \(401\)/);
    });

    it('writes with credentials', async () => {
      const result = await writeRepository({
        url,
        ref: 'main',
        credentials: { username: USER, password: SECRET },
        files: new Map([['README.md', Buffer.from('new secret docs')]]),
        message: 'Update from the docs',
        author: AUTHOR,
        policy: LOCAL,
      });
      expect(result.changed).toBe(true);
      expect((await authServer.lastCommit('private', 'main')).oid).toBe(result.commit);
    });
  });

  describe('writeRepository', () => {
    const write = (url: string, files: Record<string, string | Uint8Array>, extra: Partial<WriteRepositoryInput> = {}) =>
      writeRepository({
        url,
        ref: 'main',
        files: new Map(Object.entries(files).map(([k, v]) => [k, typeof v === 'string' ? Buffer.from(v) : v])),
        message: 'Sync from the docs',
        author: AUTHOR,
        policy: LOCAL,
        ...extra,
      });

    it('starts the branch in an empty repository, then modifies and deletes files', async () => {
      const name = uniqueName('write');
      const url = await server.createBareRepository(name);

      const first = await write(url, { 'README.md': '# Hello\n', 'guide/a.md': 'A', 'guide/b.md': 'B', 'logo.bin': BINARY }, { message: 'First sync' });
      expect(first.changed).toBe(true);
      const files = await server.readBareRepository(name, 'main');
      expect([...files.keys()].sort()).toEqual(['README.md', 'guide/a.md', 'guide/b.md', 'logo.bin']);
      expect(files.get('logo.bin')!.equals(Buffer.from(BINARY))).toBe(true);
      expect(await server.lastCommit(name, 'main')).toEqual({
        oid: first.commit,
        message: 'First sync',
        authorName: AUTHOR.name,
        authorEmail: AUTHOR.email,
      });

      const second = await write(url, { 'README.md': '# Hello again\n', 'guide/a.md': 'A' }, { message: 'Second sync\n\nWith a body.' });
      expect(second.changed).toBe(true);
      const after = await server.readBareRepository(name, 'main');
      expect([...after.keys()].sort()).toEqual(['README.md', 'guide/a.md']);
      expect(after.get('README.md')!.toString()).toBe('# Hello again\n');
      const last = await server.lastCommit(name, 'main');
      expect(last).toMatchObject({ oid: second.commit, message: 'Second sync\n\nWith a body.', authorName: AUTHOR.name });
      expect(await server.commitCount(name, 'main')).toBe(2);
    });

    it('creates a missing branch next to existing ones', async () => {
      const name = uniqueName('write');
      const url = await server.createBareRepository(name, { 'README.md': 'main content' });
      const result = await write(url, { 'README.md': 'draft content' }, { ref: 'refs/heads/drafts' });
      expect(result.changed).toBe(true);
      expect((await server.readBareRepository(name, 'drafts')).get('README.md')!.toString()).toBe('draft content');
      expect((await server.readBareRepository(name, 'main')).get('README.md')!.toString()).toBe('main content');
      expect(await server.commitCount(name, 'drafts')).toBe(1);
    });

    it('makes no commit when nothing changed', async () => {
      const name = uniqueName('write');
      const url = await server.createBareRepository(name, { 'docs/README.md': 'same', 'docs/x/y.md': 'y', 'other.txt': 'o' });
      const before = await server.lastCommit(name, 'main');
      const requestsBefore = server.requests.length;

      const result = await write(url, { 'README.md': 'same', 'x/y.md': 'y' }, { projectDirectory: 'docs' });

      // The branch's commit, its message, and the blob id git gives each file written.
      expect(result).toEqual({ commit: before.oid, message: 'Initial content\n', changed: false, blobs: new Map([['README.md', await gitBlobOid('same')], ['x/y.md', await gitBlobOid('y')]]) });
      expect((await server.lastCommit(name, 'main')).oid).toBe(before.oid);
      expect(server.requests.slice(requestsBefore).some((r) => r.query.includes('receive-pack') || r.path.endsWith('receive-pack'))).toBe(false);
    });

    it('leaves files outside the project directory untouched', async () => {
      const name = uniqueName('write');
      const url = await server.createBareRepository(name, {
        'package.json': '{}',
        'packages/api/README.md': 'api',
        'packages/docs/README.md': 'old docs',
        'packages/docs/old.md': 'old page',
        'packages/docsite/keep.md': 'a sibling whose name starts the same',
      });

      const result = await write(url, { 'README.md': 'new docs', 'new/page.md': 'new page' }, { projectDirectory: 'packages/docs' });

      expect(result.changed).toBe(true);
      const files = await server.readBareRepository(name, 'main');
      expect(Object.fromEntries([...files].map(([k, v]) => [k, v.toString()]))).toEqual({
        'package.json': '{}',
        'packages/api/README.md': 'api',
        'packages/docs/README.md': 'new docs',
        'packages/docs/new/page.md': 'new page',
        'packages/docsite/keep.md': 'a sibling whose name starts the same',
      });
    });

    it('refuses to push when the branch moved after the fetch (non-fast-forward), forcing nothing', async () => {
      const name = uniqueName('write');
      const url = await server.createBareRepository(name, { 'README.md': 'v1' });
      let concurrent = '';
      server.beforeRequest = async (request) => {
        // Another writer pushes between our fetch and our push.
        if (!concurrent && request.query === 'service=git-receive-pack') {
          concurrent = await server.commit(name, 'main', { 'theirs.md': 'theirs' }, 'Their change');
        }
      };

      const error = await failure(write(url, { 'README.md': 'ours' }));

      expect(error.reason).toBe('non-fast-forward');
      expect(error.message).toBe('push rejected: the branch moved (non-fast-forward)');
      expect((await server.lastCommit(name, 'main')).oid).toBe(concurrent);
      const files = await server.readBareRepository(name, 'main');
      expect(files.get('README.md')!.toString()).toBe('v1');
      expect(files.has('theirs.md')).toBe(true);
    });

    it('refuses the push when the branch moves while the pack is on its way (the server compares the old value)', async () => {
      const name = uniqueName('write');
      const url = await server.createBareRepository(name, { 'README.md': 'v1' });
      let concurrent = '';
      server.beforeRequest = async (request) => {
        if (!concurrent && request.method === 'POST' && request.path.endsWith('/git-receive-pack')) {
          concurrent = await server.commit(name, 'main', { 'theirs.md': 'theirs' }, 'Their change');
        }
      };

      const error = await failure(write(url, { 'README.md': 'ours' }));

      expect(error.reason).toBe('non-fast-forward');
      expect((await server.lastCommit(name, 'main')).oid).toBe(concurrent);
      expect((await server.readBareRepository(name, 'main')).get('README.md')!.toString()).toBe('v1');
    });

    it('refuses unsafe file paths', async () => {
      const url = server.url('never-created');
      for (const path of ['../escape.md', '/abs.md', '.git/config', 'a//b.md', 'docs/./x.md', '']) {
        expect((await failure(write(url, { [path]: 'x' }))).reason).toBe('invalid-input');
      }
      expect((await failure(write(url, { a: 'file', 'a/b.md': 'inside a file' }))).reason).toBe('invalid-input');
    });
  });

  describe('address policy', () => {
    it('refuses a repository on 127.0.0.1 before any connection', async () => {
      const url = await server.createBareRepository('policy', { 'README.md': 'x' });
      const before = server.requests.length;
      const policy = { allowPrivateAddresses: false, timeoutMs: 5000 };
      const credentialed = url.replace('http://', `http://${USER}:${SECRET}@`);

      const read = await failure(readRepository({ url: credentialed, ref: 'main', policy }));
      const write = await failure(
        writeRepository({ url, ref: 'main', files: new Map(), message: 'x', author: AUTHOR, policy, credentials: { username: USER, password: SECRET } }),
      );

      for (const error of [read, write]) {
        expect(error.reason).toBe('address');
        expect(error.message).toMatch(/non-public address \(loopback\)/);
        expect(error.message).toMatch(/FETCH_ALLOW_PRIVATE_ADDRESSES=true/);
        expectNoSecrets(error);
      }
      expect(server.requests.length).toBe(before);
    });

    describe('redirects', () => {
      let redirector: http.Server;
      let redirectorUrl: string;
      let seen: string[];
      let target: GitServer;

      beforeAll(async () => {
        redirector = http.createServer((req, res) => {
          seen.push(`${req.method} ${req.url}`);
          const to = new URL(req.url!.replace('/moved/', '/'), target.baseUrl);
          res.writeHead(301, { location: to.href }).end();
        });
        await new Promise<void>((resolve) => redirector.listen(0, '127.0.0.1', resolve));
        redirectorUrl = `http://127.0.0.1:${(redirector.address() as AddressInfo).port}`;
      });
      afterAll(() => {
        redirector.closeAllConnections();
        redirector.close();
      });
      beforeEach(() => {
        seen = [];
      });

      it('follows a redirect of the discovery request and sends later requests to the new location', async () => {
        target = server;
        await server.createBareRepository('redirected', { 'README.md': 'found me' });
        const snapshot = await readRepository({ url: `${redirectorUrl}/moved/redirected.git`, ref: 'main', policy: LOCAL });
        expect(text(snapshot.files.get('README.md'))).toBe('found me');
        expect(seen).toEqual(['GET /moved/redirected.git/info/refs?service=git-upload-pack']);
      });

      it('sends credentials to the URL’s own host only', async () => {
        target = authServer;
        const start = authServer.requests.length;
        const error = await failure(
          readRepository({ url: `${redirectorUrl}/moved/private.git`, ref: 'main', credentials: { username: USER, password: SECRET }, policy: LOCAL }),
        );
        expect(error.reason).toBe('auth');
        expectNoSecrets(error);
        const received = authServer.requests.slice(start);
        expect(received.length).toBeGreaterThan(0);
        expect(received.every((r) => r.authorization === null)).toBe(true);
      });
    });
  });

  describe('splitCredentials', () => {
    it('splits user info off the URL', () => {
      expect(splitCredentials(`https://${USER}:${encodeURIComponent('p@ss/word')}@git.example.com/org/repo.git/`)).toEqual({
        url: 'https://git.example.com/org/repo.git',
        credentials: { username: USER, password: 'p@ss/word' },
      });
      expect(splitCredentials('https://token@git.example.com/repo.git')).toEqual({
        url: 'https://git.example.com/repo.git',
        credentials: { username: 'token', password: '' },
      });
      expect(splitCredentials('http://git.example.com:8080/repo#x')).toEqual({ url: 'http://git.example.com:8080/repo', credentials: null });
    });

    it('refuses other schemes and query strings', () => {
      expect(() => splitCredentials('ssh://git@example.com/repo.git')).toThrow(GitSyncError);
      expect(() => splitCredentials('file:///etc/repo')).toThrow(/only http and https/);
      expect(() => splitCredentials('https://example.com/repo.git?x=1')).toThrow(/query string/);
    });
  });
});

/** What `git hash-object` prints for `text`. */
async function gitBlobOid(text: string): Promise<string> {
  const { createHash } = await import('node:crypto');
  const bytes = Buffer.from(text);
  return createHash('sha1').update(`blob ${bytes.length}\0`).update(bytes).digest('hex');
}

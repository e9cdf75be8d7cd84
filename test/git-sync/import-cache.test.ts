/**
 * The import cache (src/git-sync/import-cache.ts): a re-import converts only the page files that
 * changed, and never serves a stale document: a page whose file did not change but whose link
 * target was renamed, moved or changed its bytes is converted again. First on the layout alone
 * (counted by its `stats`), then through the import job on the test database (SQLite, or
 * PostgreSQL with TEST_DATABASE_URL): the cache is stored with the revision, and unchanged pages
 * share their stored document and chunk with the previous revision.
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { extractReferences } from '../../src/content/document/references.ts';
import { pagePaths } from '../../src/content/page-tree.ts';
import { loadSnapshot } from '../../src/content/revision-store.ts';
import type { RevisionSnapshot } from '../../src/content/snapshot.ts';
import { importRepository, type ImportRepositoryResult, type StoredFile } from '../../src/git-sync/layout.ts';
import { startGitServer } from '../helpers/git-server.ts';
import { png } from '../helpers/png.ts';
import { useTestServer } from '../helpers/server.ts';

const encoder = new TextEncoder();
const T1 = new Date('2026-01-01T00:00:00Z');
const T2 = new Date('2026-02-01T00:00:00Z');

async function storeFile(bytes: Uint8Array, name: string): Promise<StoredFile> {
  const storageKey = createHash('sha256').update(bytes).digest('hex');
  return { storageKey, size: bytes.byteLength, contentType: name.endsWith('.png') ? 'image/png' : 'application/octet-stream', width: null, height: null };
}

/** README, a guide of `pages` pages each linking to the next, a page linking to the guide's first page, one with an image. */
function files(pages = 12): Record<string, string | Uint8Array> {
  const out: Record<string, string | Uint8Array> = {};
  const summary = ['# Summary', '', '* [Home](README.md)', '* [Guide](guide/README.md)'];
  out['README.md'] = '# Home\n\nStart with [the guide](guide/README.md).\n';
  out['guide/README.md'] = '# Guide\n\nThe guide.\n';
  for (let i = 1; i <= pages; i++) {
    summary.push(`  * [Page ${i}](guide/page-${i}.md)`);
    out[`guide/page-${i}.md`] = `# Page ${i}\n\nText of page ${i}. Next: [page ${i + 1}](page-${i + 1}.md).\n`;
  }
  summary.push('* [Pointer](pointer.md)', '* [Picture](picture.md)');
  out['pointer.md'] = '# Pointer\n\nSee [the first page](guide/page-1.md).\n';
  out['picture.md'] = '# Picture\n\n![A diagram](images/diagram.png)\n';
  out['images/diagram.png'] = png(2, 2, { pixel: () => [10, 20, 30] });
  out['SUMMARY.md'] = `${summary.join('\n')}\n`;
  return out;
}

const repository = (entries: Record<string, string | Uint8Array | null>) =>
  new Map(Object.entries(entries).flatMap(([path, content]) => (content === null ? [] : [[path, typeof content === 'string' ? encoder.encode(content) : content] as const])));

const pathOf = (snapshot: RevisionSnapshot) => {
  const paths = pagePaths(snapshot.pages);
  return (path: string) => {
    const found = [...paths].find(([, p]) => p === path);
    if (!found) throw new Error(`no page at ${path}: ${[...paths.values()].join(', ')}`);
    return snapshot.pages.get(found[0])!;
  };
};

/** The pages and files a page's document references. */
function referencesOf(snapshot: RevisionSnapshot, path: string) {
  const page = pathOf(snapshot)(path);
  return extractReferences(snapshot.documents.get(page.documentHash!)!).map(({ ref }) => ref);
}

describe('the import cache, on the layout', () => {
  const reimport = (first: ImportRepositoryResult, entries: Record<string, string | Uint8Array | null>) =>
    importRepository(repository(entries), { storeFile, now: T2, previous: first.snapshot, cache: structuredClone(first.cache) });

  it('converts only the pages whose file changed; the others keep their document', async () => {
    const base = files();
    const first = await importRepository(repository(base), { storeFile, now: T1 });
    expect(first.stats).toEqual({ converted: 16, reused: 0 });
    const changed = { ...base, 'guide/page-3.md': '# Page 3\n\nRewritten. Next: [page 4](page-4.md).\n', 'guide/page-7.md': '# Page 7\n\nRewritten too.\n' };
    const second = await reimport(first, changed);
    expect(second.stats).toEqual({ converted: 2, reused: 14 });
    const before = pathOf(first.snapshot);
    const after = pathOf(second.snapshot);
    for (const path of ['guide', 'guide/page-1', 'guide/page-12', 'pointer', 'picture']) {
      expect(after(path).documentHash, path).toBe(before(path).documentHash);
      expect(after(path).updatedAt, path).toEqual(T1);
    }
    expect(after('guide/page-3').documentHash).not.toBe(before('guide/page-3').documentHash);
    expect(second.warnings).toEqual(first.warnings);
    // The same import again reuses every page.
    expect((await reimport(second, changed)).stats).toEqual({ converted: 0, reused: 16 });
  });

  it('never serves a stale document: a page whose file is unchanged is converted again when its link target was renamed or moved', async () => {
    const base = files();
    const first = await importRepository(repository(base), { storeFile, now: T1 });
    const page1 = pathOf(first.snapshot)('guide/page-1');
    expect(referencesOf(first.snapshot, 'pointer')).toEqual([{ kind: 'page', page: page1.id }]);

    // guide/page-1.md renamed to guide/start.md (SUMMARY.md and page-1's own file follow); pointer.md is untouched and now points at nothing.
    const renamed = {
      ...base,
      'guide/page-1.md': null,
      'guide/start.md': base['guide/page-1.md']!,
      'SUMMARY.md': (base['SUMMARY.md'] as string).replace('guide/page-1.md', 'guide/start.md'),
    };
    const second = await reimport(first, renamed);
    expect(referencesOf(second.snapshot, 'pointer')).toEqual([{ kind: 'url', url: 'guide/page-1.md' }]);
    expect(second.warnings).toContain('pointer.md: link to "guide/page-1.md" points to a missing file; kept as a URL');
    // Converted: pointer.md (its link changed) and guide/start.md (a new file); every other page reused.
    expect(second.stats).toEqual({ converted: 2, reused: 14 });

    // The page moves to the top of the tree, its file where it was: a new path, so a new page id, which pointer.md's unchanged link must follow.
    const moved = {
      ...base,
      'SUMMARY.md': (base['SUMMARY.md'] as string).replace('  * [Page 1](guide/page-1.md)\n', '').replace('* [Pointer]', '* [Page 1](guide/page-1.md)\n* [Pointer]'),
    };
    const third = await reimport(second, moved);
    const movedPage = pathOf(third.snapshot)('page-1');
    expect(movedPage.id).not.toBe(page1.id);
    expect(referencesOf(third.snapshot, 'pointer')).toEqual([{ kind: 'page', page: movedPage.id }]);
    const fourth = await reimport(third, moved);
    expect(fourth.stats.converted).toBe(0);
    expect(referencesOf(fourth.snapshot, 'pointer')).toEqual([{ kind: 'page', page: movedPage.id }]);
  });

  it('converts a page again when an image it shows changed its bytes (another space file)', async () => {
    const base = files();
    const first = await importRepository(repository(base), { storeFile, now: T1 });
    const [before] = referencesOf(first.snapshot, 'picture');
    const second = await reimport(first, { ...base, 'images/diagram.png': png(3, 3, { pixel: () => [200, 20, 30] }) });
    const [after] = referencesOf(second.snapshot, 'picture');
    expect(after).toMatchObject({ kind: 'file' });
    expect(after).not.toEqual(before);
    expect(second.snapshot.files.has((after as { file: string }).file)).toBe(true);
    expect(second.stats).toEqual({ converted: 1, reused: 15 });
  });

  it('is not used by another conversion version or other Markdown limits', async () => {
    const base = files();
    const first = await importRepository(repository(base), { storeFile, now: T1 });
    const again = await importRepository(repository(base), { storeFile, now: T2, previous: first.snapshot, cache: { ...first.cache, key: 'another version' } });
    expect(again.stats).toEqual({ converted: 16, reused: 0 });
  });
});

describe('the import cache, through the import job', () => {
  const { server, ada } = useTestServer({ users: ['Ada'], env: { FETCH_ALLOW_PRIVATE_ADDRESSES: 'true' } });

  async function importInto(space: string, url: string): Promise<Record<string, any>> {
    const started = await server.request('POST', `/v1/spaces/${space}/git/import`, { token: ada.token, body: { url, ref: 'refs/heads/main' } });
    expect(started.status, JSON.stringify(started.body)).toBe(204);
    for (let i = 0; i < 600; i++) {
      const job = await server.app.db.job.findFirst({ where: { spaceId: space, kind: 'git-import' }, orderBy: { createdAt: 'desc' } });
      if (job && (job.state === 'succeeded' || job.state === 'failed')) {
        expect(job.state, JSON.stringify(job.error)).toBe('succeeded');
        return job.result as Record<string, any>;
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new Error('the import did not finish');
  }

  it('converts only the changed pages and the page whose link target was renamed; unchanged pages share their stored document and chunks', async () => {
    const git = await startGitServer();
    try {
      const base = files(300);
      const url = await git.createBareRepository('cached', base);
      const org = await server.createOrg(ada);
      const space = (await server.createSpace(ada, org, { title: 'Cached' })).id as string;
      const first = await importInto(space, url);
      expect(first).toMatchObject({ pages: 304, converted: 304, reused: 0 });
      const firstSnapshot = await loadSnapshot(server.app.db, first.revision, { documents: true });

      await git.commit('cached', 'main', {
        'guide/page-5.md': '# Page 5\n\nRewritten. Next: [page 6](page-6.md).\n',
        'guide/page-20.md': '# Page 20\n\nRewritten too.\n',
        'guide/page-1.md': null,
        'guide/start.md': base['guide/page-1.md']!,
        'SUMMARY.md': (base['SUMMARY.md'] as string).replace('guide/page-1.md', 'guide/start.md'),
      });
      const second = await importInto(space, url);
      // page-5, page-20, start.md (new), pointer.md (its link target is gone); 300 reused.
      expect(second).toMatchObject({ pages: 304, unchanged: false, converted: 4, reused: 300 });
      const secondSnapshot = await loadSnapshot(server.app.db, second.revision, { documents: true });
      expect(referencesOf(secondSnapshot, 'pointer')).toEqual([{ kind: 'url', url: 'guide/page-1.md' }]);
      const before = pathOf(firstSnapshot);
      const after = pathOf(secondSnapshot);
      for (const path of ['guide', 'guide/page-2', 'guide/page-300', 'picture']) expect(after(path).documentHash, path).toBe(before(path).documentHash);
      // Runs of unchanged pages keep their stored chunks (about 19 chunks of 16 pages; 6 pages changed, came or went).
      const shared = secondSnapshot.storedLists!.pageChunks.filter((hash) => firstSnapshot.storedLists!.pageChunks.includes(hash));
      expect(shared.length).toBeGreaterThan(0);
      const stored = await server.app.db.gitImportCache.findUniqueOrThrow({ where: { spaceId: space } });
      expect(Object.keys((stored.entries as { files: object }).files)).toHaveLength(304);
    } finally {
      await git.close();
    }
  });
});

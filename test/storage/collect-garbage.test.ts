/**
 * Storage garbage collection over the objects a running service stores: files
 * of merged revisions and of change requests are kept, those of a purged
 * space, of a refused batch and a PDF go once they are past the grace period,
 * anything stored within it stays, and a put of bytes racing with the
 * collector keeps them. After every run, every file any revision refers to
 * is still readable. Also `cli storage:gc`.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { chunkList } from '../../src/db/revision-chunks.ts';
import { SPACE_RETENTION_MS } from '../../src/services/space.ts';
import { purgeDeletedSpaces } from '../../src/services/space-purge.ts';
import { collectGarbage } from '../../src/storage/collect-garbage.ts';
import { LocalStorage, storageKey } from '../../src/storage/local-storage.ts';
import { ROOT } from '../helpers/process.ts';
import { useTestServer } from '../helpers/server.ts';

const { server, ada } = useTestServer({ users: ['Ada'] });
const DAY = 24 * 60 * 60 * 1000;
let org: string;
let storage: LocalStorage;

beforeAll(async () => {
  org = await server.createOrg(ada);
  storage = new LocalStorage(server.storageDir);
});

async function ok(method: string, route: string, body?: unknown) {
  const res = await server.request(method, route, { token: ada.token, body });
  expect(res.status, `${method} ${route}: ${JSON.stringify(res.body)}`).toBeLessThan(300);
  return res.body;
}

const file = (name: string, text: string) => ({ name, contentType: 'text/plain', base64: Buffer.from(text).toString('base64') });

/** A space with `texts` as files, through a change request: merged, or left open. */
async function spaceWithFiles(title: string, texts: string[], merge: boolean) {
  const space = (await server.createSpace(ada, org, { title })).id;
  const cr = (await ok('POST', `/v1/spaces/${space}/change-requests`, { subject: title })).id;
  await ok('POST', `/v1/spaces/${space}/change-requests/${cr}/content`, {
    changes: [{ operation: 'insert_files', files: texts.map((t, i) => file(`f${i}.txt`, t)) }, { operation: 'insert_page', title: 'Page', document: { markdown: 'Text.\n' } }],
  });
  if (merge) {
    await ok('PATCH', `/v1/spaces/${space}/change-requests/${cr}`, { status: 'open' });
    expect((await ok('POST', `/v1/spaces/${space}/change-requests/${cr}/merge`)).result).toBe('merge');
  }
  return { space, cr };
}

/** Every storage key a revision chunk refers to. */
async function referencedKeys(): Promise<Set<string>> {
  const revisions = await server.app.db.revision.findMany({ select: { fileChunks: true } });
  const hashes = revisions.flatMap((r) => chunkList(r.fileChunks));
  const chunks = await server.app.db.revisionChunk.findMany({ where: { hash: { in: hashes } }, select: { entries: true } });
  return new Set(chunks.flatMap((c) => (c.entries as { storageKey: string }[]).map((e) => e.storageKey)));
}

/** Makes every stored object look stored `ms` ago (and the chunks too). */
async function age(ms: number) {
  const then = new Date(Date.now() - ms);
  for await (const { key } of storage.list()) fs.utimesSync(storage.pathOf(key), then, then);
  await server.app.db.revisionChunk.updateMany({ data: { createdAt: then } });
}

const keyOf = (text: string) => storageKey(Buffer.from(text));

describe('storage garbage collection', () => {
  it('keeps what revisions refer to and what is new; deletes the rest once past the grace period', async () => {
    const merged = await spaceWithFiles('Merged', ['merged one', 'merged two'], true);
    await spaceWithFiles('Open change request', ['only in a change request'], false);
    const purged = await spaceWithFiles('Purged', ['of a purged space'], true);
    // A refused batch stored its bytes before the bad change refused it.
    const refused = (await server.createSpace(ada, org, { title: 'Refused' })).id;
    const cr = (await ok('POST', `/v1/spaces/${refused}/change-requests`, { subject: 'Refused' })).id;
    const res = await server.request('POST', `/v1/spaces/${refused}/change-requests/${cr}/content`, {
      token: ada.token,
      body: { changes: [{ operation: 'insert_files', files: [file('x.txt', 'of a refused batch')] }, { operation: 'delete_page', page: 'no-such-page' }] },
    });
    expect(res.status).toBe(400);
    // A PDF: stored, reached by a signed link only.
    const pdfSpace = await spaceWithFiles('Printed', ['printed'], false);
    await ok('GET', `/v1/spaces/${pdfSpace.space}/change-requests/${pdfSpace.cr}/pdf`);

    await ok('DELETE', `/v1/spaces/${purged.space}`);
    await purgeDeletedSpaces(server.app.db, server.app.provider, new Date(Date.now() + SPACE_RETENTION_MS + 60_000));
    const before = await collectObjects();
    expect(before).toEqual(expect.arrayContaining([keyOf('merged one'), keyOf('only in a change request'), keyOf('of a purged space'), keyOf('of a refused batch')]));

    // Within the grace period nothing goes, referenced or not.
    expect(await collectGarbage({ db: server.app.db, storage, graceMs: DAY })).toMatchObject({ deleted: 0, chunks: 0 });
    expect(await collectObjects()).toEqual(before);

    await age(2 * DAY);
    const result = await collectGarbage({ db: server.app.db, storage, graceMs: DAY });
    const after = await collectObjects();
    const referenced = await referencedKeys();
    for (const key of referenced) expect(after, `referenced ${key} was deleted`).toContain(key);
    expect(after).toEqual(expect.arrayContaining([keyOf('merged one'), keyOf('merged two'), keyOf('only in a change request'), keyOf('printed')]));
    for (const gone of ['of a purged space', 'of a refused batch']) expect(after).not.toContain(keyOf(gone));
    // The PDF is the one other object that went.
    expect(result.deleted).toBe(before.length - after.length);
    expect(before.filter((k) => !after.includes(k))).toHaveLength(3);
    expect(result.chunks).toBeGreaterThan(0); // the purged space's chunks
    // Files of the content still download.
    const files = (await ok('GET', `/v1/spaces/${merged.space}/content/files`)).items as { downloadURL: string }[];
    expect(files).toHaveLength(2);
    for (const f of files) expect((await fetch(f.downloadURL)).status).toBe(200);
  });

  it('keeps bytes put again while the collector runs, whichever comes first', async () => {
    const bytes = Buffer.from('put again by an upload');
    const { key } = await storage.put(bytes);
    const then = new Date(Date.now() - 2 * DAY);
    fs.utimesSync(storage.pathOf(key), then, then);
    const storedBefore = new Date(Date.now() - DAY);
    // Listed as old, then put again (an upload of the same bytes) before the collector reaches it.
    expect((await collectObjectsWithTimes()).get(key)!.getTime()).toBeLessThan(storedBefore.getTime());
    await storage.put(bytes);
    expect(await storage.collect(key, storedBefore)).toBe(false);
    expect(await storage.has(key)).toBe(true);
    // Not put again: collected; then put again after: stored anew.
    fs.utimesSync(storage.pathOf(key), then, then);
    expect(await storage.collect(key, storedBefore)).toBe(true);
    expect(await storage.has(key)).toBe(false);
    await storage.put(bytes);
    expect(await storage.get(key)).toEqual(new Uint8Array(bytes));
    // No set-aside copies are left behind.
    const shard = path.dirname(storage.pathOf(key));
    expect(fs.readdirSync(shard).filter((name) => name.startsWith('.'))).toEqual([]);
  });

  it('cli storage:gc runs it once and prints what it did', async () => {
    await storage.put(Buffer.from('an orphan for the command'));
    await age(2 * DAY);
    const out = execFileSync(process.execPath, [path.join(ROOT, 'dist/cli.js'), 'storage:gc'], {
      cwd: ROOT,
      env: { ...process.env, DATABASE_URL: server.database.url, STORAGE_DIR: server.storageDir, STORAGE_GC_GRACE_SECONDS: String(24 * 60 * 60) },
      encoding: 'utf8',
    });
    // This orphan and the bytes the previous test put, nothing else.
    expect(JSON.parse(out)).toMatchObject({ deleted: 2 });
    expect(await storage.has(keyOf('an orphan for the command'))).toBe(false);
    for (const key of await referencedKeys()) expect(await storage.has(key)).toBe(true);
  }, 60_000);
});

async function collectObjects(): Promise<string[]> {
  return [...(await collectObjectsWithTimes()).keys()].sort();
}

async function collectObjectsWithTimes(): Promise<Map<string, Date>> {
  const out = new Map<string, Date>();
  for await (const { key, storedAt } of storage.list()) out.set(key, storedAt);
  return out;
}

/** The disk ObjectStorage: content addressing, idempotence, key validation and atomic writes. */
import { createHash } from 'node:crypto';
import { mkdtemp, readdir, rm, writeFile, mkdir, stat, utimes } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { InvalidInputError } from '../../src/errors/index.ts';
import { LocalStorage, TEMP_PREFIX } from '../../src/storage/local-storage.ts';
import { createStorage } from '../../src/storage/storage.ts';

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

async function listFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries.filter((e) => e.isFile()).map((e) => path.relative(dir, path.join(e.parentPath, e.name))).sort();
}

describe('LocalStorage', () => {
  let dir: string;
  let storage: LocalStorage;

  beforeEach(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'storage-'));
    storage = new LocalStorage(dir);
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  it('stores bytes under their sha-256 in <dir>/<first 2 hex>/<key> and reads them back', async () => {
    const bytes = new TextEncoder().encode('hello, files');
    const { key, size } = await storage.put(bytes);
    expect(key).toBe(sha256(bytes));
    expect(size).toBe(bytes.byteLength);
    expect(await listFiles(dir)).toEqual([path.join(key.slice(0, 2), key)]);
    expect(Buffer.from((await storage.get(key))!)).toEqual(Buffer.from(bytes));
    expect(await storage.has(key)).toBe(true);
  });

  it('stores empty content too', async () => {
    const { key, size } = await storage.put(new Uint8Array());
    expect(size).toBe(0);
    expect((await storage.get(key))!.byteLength).toBe(0);
  });

  it('is idempotent: the same bytes twice keep one object, never rewritten, its stored time refreshed', async () => {
    const bytes = new Uint8Array([1, 2, 3, 4]);
    const first = await storage.put(bytes);
    const file = path.join(dir, first.key.slice(0, 2), first.key);
    const long = new Date(Date.now() - 86_400_000);
    await utimes(file, long, long);
    const before = await stat(file);
    const second = await storage.put(Uint8Array.from(bytes));
    expect(second).toEqual(first);
    const after = await stat(file);
    expect(after.ino).toBe(before.ino); // the same file, not written again
    expect(after.mtimeMs).toBeGreaterThan(before.mtimeMs); // stored again, as the garbage collector sees it
    expect(await listFiles(dir)).toHaveLength(1);
  });

  it('answers null / false for a key it does not hold', async () => {
    const key = sha256(new TextEncoder().encode('never stored'));
    expect(await storage.get(key)).toBeNull();
    expect(await storage.has(key)).toBe(false);
  });

  it.each([
    ['a path', '../../etc/passwd'],
    ['upper-case hex', 'A'.repeat(64)],
    ['63 digits', 'a'.repeat(63)],
    ['65 digits', 'a'.repeat(65)],
    ['a key with a path after it', `${'a'.repeat(64)}/../../x`],
    ['a key with a path before it', `../${'a'.repeat(64)}`],
    ['the empty string', ''],
    ['the secret file', '.url-secret'],
  ])('refuses %s as a key', async (_label, key) => {
    await expect(storage.get(key)).rejects.toBeInstanceOf(InvalidInputError);
    await expect(storage.has(key)).rejects.toBeInstanceOf(InvalidInputError);
  });

  it('leaves no temporary files, also when the same bytes are stored concurrently', async () => {
    const payloads = Array.from({ length: 5 }, (_, i) => new TextEncoder().encode(`file ${i} `.repeat(10_000)));
    const results = await Promise.all(payloads.flatMap((bytes) => Array.from({ length: 4 }, () => storage.put(bytes))));
    const keys = [...new Set(results.map((r) => r.key))].sort();
    expect(keys).toEqual(payloads.map(sha256).sort());
    const files = await listFiles(dir);
    expect(files).toEqual(keys.map((k) => path.join(k.slice(0, 2), k)).sort());
    expect(files.some((f) => path.basename(f).startsWith(TEMP_PREFIX))).toBe(false);
    for (const [i, bytes] of payloads.entries()) {
      expect(Buffer.from((await storage.get(sha256(bytes)))!).equals(Buffer.from(bytes)), `payload ${i}`).toBe(true);
    }
  });

  it('never shows a write cut short by a crash (a stray temp file) as the object', async () => {
    const bytes = new TextEncoder().encode('the whole file');
    const key = sha256(bytes);
    await mkdir(path.join(dir, key.slice(0, 2)), { recursive: true });
    await writeFile(path.join(dir, key.slice(0, 2), `${TEMP_PREFIX}${key}-deadbeef0000`), bytes.slice(0, 4));
    expect(await storage.has(key)).toBe(false);
    expect(await storage.get(key)).toBeNull();
    await storage.put(bytes);
    expect(Buffer.from((await storage.get(key))!).toString()).toBe('the whole file');
  });

  it('is what createStorage makes for a directory', async () => {
    const made = createStorage({ dir });
    const { key } = await made.put(new Uint8Array([9]));
    expect(await storage.has(key)).toBe(true);
  });
});

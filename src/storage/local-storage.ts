/**
 * ObjectStorage on the local disk: `<dir>/<first 2 hex>/<key>`. Objects are
 * written to a temporary file beside their final path, flushed, then renamed
 * into place, so a crash leaves either the whole object or no object (at worst
 * a stray `.tmp-*` file, which is never read). Keys are checked against
 * 64 lowercase hex digits before they touch a path, so none can leave `dir`.
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdir, open, opendir, readFile, rename, stat, unlink, utimes } from 'node:fs/promises';
import path from 'node:path';
import { InvalidInputError } from '../errors/index.ts';
import { type ObjectStorage } from './object-storage.ts';

/** A storage key: the SHA-256 of an object's bytes, 64 lowercase hex digits. */
export const STORAGE_KEY_PATTERN = /^[0-9a-f]{64}$/;

export function isStorageKey(key: unknown): key is string {
  return typeof key === 'string' && STORAGE_KEY_PATTERN.test(key);
}

/** The key `bytes` are stored under. */
export function storageKey(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** Prefix of in-progress writes; such files are never a key. */
export const TEMP_PREFIX = '.tmp-';
/** Prefix of an object the collector set aside to delete (./object-storage.ts, `collect`). */
const COLLECTING_PREFIX = '.gc-';
const SHARD = /^[0-9a-f]{2}$/;

function isMissing(error: unknown): boolean {
  return (error as NodeJS.ErrnoException)?.code === 'ENOENT';
}

export class LocalStorage implements ObjectStorage {
  readonly dir: string;

  constructor(dir: string) {
    this.dir = path.resolve(dir);
  }

  /** The object's path; throws for anything but 64 lowercase hex digits. */
  pathOf(key: string): string {
    if (!isStorageKey(key)) throw new InvalidInputError('Invalid storage key: expected 64 lowercase hexadecimal digits');
    return path.join(this.dir, key.slice(0, 2), key);
  }

  async put(bytes: Uint8Array): Promise<{ key: string; size: number }> {
    const key = storageKey(bytes);
    const target = this.pathOf(key);
    // Content-addressed: an existing object already holds these bytes. Touched, so the collector
    // sees it as stored now (whoever put it is about to refer to it); gone meanwhile: written again.
    if (await this.touch(target)) return { key, size: bytes.byteLength };

    const shard = path.dirname(target);
    await mkdir(shard, { recursive: true });
    const temp = path.join(shard, `${TEMP_PREFIX}${key}-${randomBytes(6).toString('hex')}`);
    try {
      const file = await open(temp, 'wx', 0o644);
      try {
        await file.writeFile(bytes);
        // Flushed before the rename, or a crash could leave the final name on a short file.
        await file.sync();
      } finally {
        await file.close();
      }
      // Atomic on one file system; a concurrent put of the same bytes renames identical content.
      await rename(temp, target);
    } catch (error) {
      await unlink(temp).catch(() => undefined);
      throw error;
    }
    return { key, size: bytes.byteLength };
  }

  async get(key: string): Promise<Uint8Array | null> {
    const file = this.pathOf(key);
    try {
      const buffer = await readFile(file);
      return new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.byteLength);
    } catch (error) {
      if (isMissing(error)) return null;
      throw error;
    }
  }

  async has(key: string): Promise<boolean> {
    return this.exists(this.pathOf(key));
  }

  async *list(): AsyncIterable<{ key: string; storedAt: Date }> {
    let top;
    try {
      top = await opendir(this.dir);
    } catch (error) {
      if (isMissing(error)) return;
      throw error;
    }
    for await (const shard of top) {
      if (!shard.isDirectory() || !SHARD.test(shard.name)) continue;
      for await (const entry of await opendir(path.join(this.dir, shard.name))) {
        if (!entry.isFile() || !isStorageKey(entry.name) || !entry.name.startsWith(shard.name)) continue;
        const info = await stat(path.join(this.dir, shard.name, entry.name)).catch((error: unknown) => (isMissing(error) ? null : Promise.reject(error)));
        if (info) yield { key: entry.name, storedAt: info.mtime };
      }
    }
  }

  /**
   * Renames the object aside first (atomic), then looks at when it was stored: a `put` that touched
   * it before the rename left a fresh time, and it goes back; one after the rename found nothing and
   * wrote the bytes again. Only then is the set-aside copy deleted.
   */
  async collect(key: string, storedBefore: Date): Promise<boolean> {
    const target = this.pathOf(key);
    const aside = path.join(path.dirname(target), `${COLLECTING_PREFIX}${key}-${randomBytes(6).toString('hex')}`);
    try {
      await rename(target, aside);
    } catch (error) {
      if (isMissing(error)) return false;
      throw error;
    }
    if ((await stat(aside)).mtime.getTime() >= storedBefore.getTime()) {
      // Stored again since it was listed: back in place (a put after the rename may have written it already, the same bytes).
      if (await this.exists(target)) await unlink(aside);
      else await rename(aside, target);
      return false;
    }
    await unlink(aside);
    return true;
  }

  /** Marks an existing object as stored now; false when there is none. */
  private async touch(file: string): Promise<boolean> {
    const now = new Date();
    try {
      await utimes(file, now, now);
      return true;
    } catch (error) {
      if (isMissing(error)) return false;
      throw error;
    }
  }

  private async exists(file: string): Promise<boolean> {
    try {
      return (await stat(file)).isFile();
    } catch (error) {
      if (isMissing(error)) return false;
      throw error;
    }
  }
}

/**
 * Bare clones kept between Git imports of the same space, so that the next import fetches only
 * the objects of the new commit and reads only the files that changed (./git-client.ts,
 * `readRepository`'s `kept`). Without one, an import after a commit changing 10 of 1,000 pages
 * fetched and read every object of the branch again: half its time (docs/decisions.md, "Git
 * import cache").
 *
 * What is kept per repository: its bare directory (objects only, never checked out), and what the
 * last read found: the files under each tree it read (by tree id) and each file's bytes (by blob
 * id). Git ids name their content, so a tree or blob of the same id is the same files and bytes:
 * nothing kept can be stale. Keys name the space and the repository (URL without credentials,
 * branch), so a space never reads another's objects.
 *
 * Kept in this process only (a job run by another process clones in full), in a temporary folder
 * of its own removed when the app closes; the least recently used clones go first beyond
 * GIT_KEPT_CLONES_MB (bytes of files held in memory; 0: nothing kept). No module state: the app
 * makes one and hands it to the import job's handler. This module loads no Git code, so making one
 * at start costs nothing (docs/decisions.md, "Restart").
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** One kept repository. */
export interface KeptClone {
  /** The bare repository's directory. */
  gitdir: string;
  /** Fetches made into it: each adds a pack, and every object read looks through the packs, so after MAX_FETCHES it starts over. */
  fetches: number;
  /** Every regular file under each tree the last read walked, by tree id: paths relative to that tree, in read order, with their blob ids. */
  trees: Map<string, Array<[path: string, blob: string]>>;
  /** The bytes of each file the last read returned, by blob id. */
  blobs: Map<string, Uint8Array>;
  /** The total of `blobs`' sizes. */
  bytes: number;
}

/** After this many fetches into one clone, the next read starts a new one (the packs accumulate). */
export const MAX_FETCHES = 20;

export class KeptClones {
  private readonly clones = new Map<string, KeptClone>();
  private root: string | null = null;
  private closed = false;

  /** `maxBytes`: bytes of files kept in memory at most, over every clone (0: nothing is kept). */
  constructor(private readonly maxBytes: number) {}

  get enabled(): boolean {
    return this.maxBytes > 0 && !this.closed;
  }

  /** The key of a space's repository and branch (the URL without its credentials). */
  static key(spaceId: string, url: string, ref: string): string {
    return createHash('sha256').update(JSON.stringify([spaceId, url, ref])).digest('hex');
  }

  /**
   * The clone kept under `key`, taken out: the caller has it alone until it gives it back (two
   * imports of one space at once: the second clones afresh). Null when none is kept.
   */
  take(key: string): KeptClone | null {
    const clone = this.clones.get(key) ?? null;
    this.clones.delete(key);
    return clone;
  }

  /** A new, empty directory for a clone. */
  async directory(): Promise<string> {
    this.root ??= await fs.promises.mkdtemp(path.join(os.tmpdir(), 'git-kept-'));
    return fs.promises.mkdtemp(path.join(this.root, 'clone-'));
  }

  /** Keeps `clone` under `key` for the next read; the least recently used beyond the budget are removed. */
  async give(key: string, clone: KeptClone): Promise<void> {
    const previous = this.clones.get(key);
    if (previous && previous !== clone) await this.discard(previous);
    if (!this.enabled || clone.bytes > this.maxBytes || clone.fetches >= MAX_FETCHES) {
      await this.discard(clone);
      return;
    }
    this.clones.delete(key);
    this.clones.set(key, clone);
    let total = 0;
    for (const kept of this.clones.values()) total += kept.bytes;
    // A Map iterates in insertion order: the first is the least recently given back.
    for (const [oldKey, kept] of this.clones) {
      if (total <= this.maxBytes) break;
      this.clones.delete(oldKey);
      total -= kept.bytes;
      await this.discard(kept);
    }
  }

  /** Removes a clone's directory (one taken and not given back: a failed read, an evicted one). */
  async discard(clone: Pick<KeptClone, 'gitdir'>): Promise<void> {
    await fs.promises.rm(clone.gitdir, { recursive: true, force: true });
  }

  /** Removes every kept clone; nothing is kept afterwards. */
  async close(): Promise<void> {
    this.closed = true;
    this.clones.clear();
    if (this.root) await fs.promises.rm(this.root, { recursive: true, force: true });
    this.root = null;
  }
}

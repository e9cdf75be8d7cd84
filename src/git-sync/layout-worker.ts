/**
 * The Git layout on a worker thread (src/worker-pool.ts): a repository's
 * files to content (every page's Markdown converted) and content to files.
 * The thread reads and writes stored files itself, through a storage of the
 * same settings; src/git-sync/layout-tasks.ts runs these tasks.
 */
import mime from 'mime-types';
import { type MarkdownLimits } from '../content/document/markdown-limits.ts';
import type { RevisionSnapshot } from '../content/snapshot.ts';
import { imageDimensions } from '../storage/image-dimensions.ts';
import { createStorage, type StorageConfig } from '../storage/storage.ts';
import { workerTask } from '../worker-pool.ts';
import type { ImportCache } from './import-cache.ts';
import { exportRepositoryWithPaths, importRepository, type ImportRepositoryResult, type RepositoryPaths } from './layout.ts';

export interface ImportLayoutInput {
  files: ReadonlyMap<string, Uint8Array>;
  projectDirectory: string | null;
  previous: RevisionSnapshot | null;
  /** What the space's last import made of each page file (./import-cache.ts). */
  cache: ImportCache | null;
  now: Date;
  markdownLimits: MarkdownLimits;
  storage: StorageConfig;
}

export const importRepositoryTask = workerTask(async (input: ImportLayoutInput): Promise<ImportRepositoryResult> => {
  const storage = createStorage(input.storage);
  return importRepository(input.files, {
    projectDirectory: input.projectDirectory,
    previous: input.previous,
    cache: input.cache,
    now: input.now,
    markdownLimits: input.markdownLimits,
    storeFile: async (bytes, name) => {
      const { key, size } = await storage.put(bytes);
      const contentType = mime.lookup(name) || 'application/octet-stream';
      const dimensions = contentType.startsWith('image/') ? imageDimensions(bytes, contentType) : null;
      return { storageKey: key, size, contentType, width: dimensions?.width ?? null, height: dimensions?.height ?? null };
    },
  });
});

export interface ExportLayoutInput {
  snapshot: RevisionSnapshot;
  storage: StorageConfig;
}

export const exportRepositoryTask = workerTask(async (input: ExportLayoutInput): Promise<{ files: Map<string, Uint8Array>; paths: RepositoryPaths }> => {
  const storage = createStorage(input.storage);
  return exportRepositoryWithPaths(input.snapshot, {
    readFile: async (key) => {
      const bytes = await storage.get(key);
      if (!bytes) throw new Error(`A file of the space is missing from storage (${key})`);
      return bytes;
    },
  });
});

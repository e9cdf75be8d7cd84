/**
 * The configured object storage (./object-storage.ts): today the disk.
 */
import { LocalStorage } from './local-storage.ts';
import type { ObjectStorage } from './object-storage.ts';

/** Settings for `createStorage`; `AppConfig['storage']` fits. */
export interface StorageConfig {
  /** Absolute directory the disk implementation keeps objects under. */
  dir: string;
}

/** The configured storage: today always the disk under `config.dir`. */
export function createStorage(config: StorageConfig): ObjectStorage {
  return new LocalStorage(config.dir);
}

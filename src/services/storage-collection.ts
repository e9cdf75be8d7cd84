/** Storage garbage collection (src/storage/collect-garbage.ts) as a periodic task and an operator command. */
import type { Logger } from 'pino';
import type { Db } from '../db/client.ts';
import { collectGarbage } from '../storage/collect-garbage.ts';
import type { ObjectStorage } from '../storage/object-storage.ts';
import type { PeriodicTask } from './periodic.ts';

export function storageCollectionTask(options: { db: Db; storage: ObjectStorage; log: Logger; intervalSeconds: number; graceSeconds: number }): PeriodicTask {
  return {
    name: 'storage garbage collection',
    intervalSeconds: options.intervalSeconds,
    run: async () => {
      const result = await collectGarbage({ db: options.db, storage: options.storage, graceMs: options.graceSeconds * 1000 });
      if (result.deleted) options.log.info(result, 'storage: deleted objects nothing refers to');
    },
  };
}

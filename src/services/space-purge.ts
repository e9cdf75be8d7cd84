/** The periodic sweep that removes spaces whose 7 days in the bin are over. */
import type { Logger } from 'pino';
import type { Db } from '../db/client.ts';
import { type Provider } from '../db/provider/config.ts';
import { deleteSpaceIndex } from '../search/search-index.ts';
import { dropGrantsOn } from './content-grant.ts';
import type { PeriodicTask } from './periodic.ts';
import { SPACE_RETENTION_MS } from './space.ts';

/** Deletes, for good, every space deleted before `now - 7 days` (with its search index); returns how many. */
export async function purgeDeletedSpaces(db: Db, provider: Provider, now = new Date()): Promise<number> {
  const expired = { deletedAt: { lt: new Date(now.getTime() - SPACE_RETENTION_MS) } };
  const spaces = await db.space.findMany({ where: expired, select: { id: true } });
  let count = 0;
  for (const { id } of spaces) {
    await db.$transaction(async (tx) => {
      await deleteSpaceIndex(tx, provider, id);
      const deleted = (await tx.space.deleteMany({ where: { id, ...expired } })).count;
      // The roles held on the space go with it.
      if (deleted) await dropGrantsOn(tx, { spaceIds: [id] });
      count += deleted;
    });
  }
  return count;
}

/** The sweep as a periodic task (./periodic.ts). */
export function spacePurgeTask(options: { db: Db; provider: Provider; log: Logger; intervalSeconds: number }): PeriodicTask {
  return {
    name: 'space purge',
    intervalSeconds: options.intervalSeconds,
    run: async () => {
      const count = await purgeDeletedSpaces(options.db, options.provider);
      if (count) options.log.info({ count }, 'purged spaces deleted more than 7 days ago');
    },
  };
}

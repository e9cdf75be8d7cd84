/** The periodic sweep that removes spaces whose 7 days in the bin are over. */
import type { Logger } from 'pino';
import type { Db } from '../db/client.ts';
import { SPACE_RETENTION_MS } from '../schema/space/queries.ts';

/** Deletes, for good, every space deleted before `now - 7 days`; returns how many. */
export async function purgeDeletedSpaces(db: Db, now = new Date()): Promise<number> {
  const { count } = await db.space.deleteMany({ where: { deletedAt: { lt: new Date(now.getTime() - SPACE_RETENTION_MS) } } });
  return count;
}

/** Runs the sweep every `intervalSeconds` (first one after one interval); returns a stop function. */
export function startSpacePurge(options: { db: Db; log: Logger; intervalSeconds: number }): () => void {
  const run = () =>
    purgeDeletedSpaces(options.db)
      .then((count) => count && options.log.info({ count }, 'purged spaces deleted more than 7 days ago'))
      .catch((error: unknown) => options.log.error({ err: error }, 'space purge failed'));
  const timer = setInterval(run, options.intervalSeconds * 1000);
  timer.unref();
  return () => clearInterval(timer);
}

/**
 * `ApiToken.lastUsedAt`, kept without a write per request: a token's use is
 * written only when the stored time is a minute old or more, and the UPDATE
 * repeats that condition, so concurrent requests and other processes write it
 * at most once a minute between them.
 */
import type { Db } from '../db/client.ts';

/** How stale `lastUsedAt` may get before a request writes it again. */
export const LAST_USED_WRITE_INTERVAL_MS = 60_000;

/** Whether a `lastUsedAt` (as a request read it) is old enough to be written again at `now`. */
export function isUseStale(lastUsedAt: Date | null, now: Date): boolean {
  return !lastUsedAt || lastUsedAt.getTime() <= now.getTime() - LAST_USED_WRITE_INTERVAL_MS;
}

/**
 * Records that the token was used at `now`, unless `lastUsedAt` (as the
 * request read it) is more recent than the interval. A failed write is
 * ignored: the request does not depend on it, and the next one retries.
 */
export async function noteTokenUse(db: Db, token: { id: string; lastUsedAt: Date | null }, now: Date): Promise<boolean> {
  if (!isUseStale(token.lastUsedAt, now)) return false;
  const threshold = new Date(now.getTime() - LAST_USED_WRITE_INTERVAL_MS);
  try {
    const { count } = await db.apiToken.updateMany({
      where: { id: token.id, OR: [{ lastUsedAt: null }, { lastUsedAt: { lte: threshold } }] },
      data: { lastUsedAt: now },
    });
    return count > 0;
  } catch {
    return false;
  }
}

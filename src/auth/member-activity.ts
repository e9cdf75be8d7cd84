/**
 * `Member.lastSeenAt`, kept from real use without a write per request (as
 * `ApiToken.lastUsedAt` is, ./token-usage.ts): a request that touched an
 * organization (Access noted it) writes the caller's `lastSeenAt` there only
 * when the stored time is a minute old or more, and the UPDATE repeats that
 * condition, so concurrent requests and other processes write it at most once
 * a minute per member between them. All the organizations of one request are
 * one statement.
 */
import type { Db } from '../db/client.ts';

/** How stale `lastSeenAt` may get before a request writes it again. */
export const LAST_SEEN_WRITE_INTERVAL_MS = 60_000;

/** Whether a `lastSeenAt` (as a request read it) is old enough to be written again at `now`. */
export function isSeenStale(lastSeenAt: Date | null | undefined, now: Date): boolean {
  return !lastSeenAt || lastSeenAt.getTime() <= now.getTime() - LAST_SEEN_WRITE_INTERVAL_MS;
}

/**
 * Records that the user was seen at `now` in each of `organizationIds` where
 * they are an enabled member whose `lastSeenAt` is a minute old or more. The
 * number of memberships written. A failed write is ignored: the request does
 * not depend on it, and the next one retries.
 */
export async function noteMemberSeen(db: Pick<Db, 'member'>, userId: string, organizationIds: readonly string[], now: Date): Promise<number> {
  if (organizationIds.length === 0) return 0;
  const threshold = new Date(now.getTime() - LAST_SEEN_WRITE_INTERVAL_MS);
  try {
    const { count } = await db.member.updateMany({
      where: {
        userId,
        organizationId: { in: [...organizationIds] },
        disabled: false,
        OR: [{ lastSeenAt: null }, { lastSeenAt: { lte: threshold } }],
      },
      data: { lastSeenAt: now },
    });
    return count;
  } catch {
    return 0;
  }
}

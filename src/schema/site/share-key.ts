/**
 * Share keys: the secret of a site share link. Only a hash is stored (the key
 * is shown once, when the link is created); a caller presenting the key as
 * `shareKey` reads the published site (structure, sections, site spaces and
 * their spaces) as a visitor would, even without being a member, and gets
 * published URLs that carry the key.
 */
import { randomBytes, createHash } from 'node:crypto';
import type { Context } from '../../context.ts';

/** The query parameter a published URL carries the key in. */
export const SHARE_KEY_PARAM = 'share';

export function generateShareKey(): { key: string; hash: string } {
  const key = randomBytes(24).toString('base64url');
  return { key, hash: hashShareKey(key) };
}

export function hashShareKey(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

/** A published URL opened with a share key. */
export function withShareKey(url: string, key: string | null | undefined): string {
  if (!key) return url;
  const u = new URL(url);
  u.searchParams.set(SHARE_KEY_PARAM, key);
  return u.toString();
}

/**
 * The site a share key opens, or null: the key must belong to an active share
 * link of a published site whose visibility is `share-link`. Batched and
 * cached per request (ctx.loaders.siteIdByShareKey).
 */
export async function siteIdForShareKey(ctx: Context, key: string | null | undefined): Promise<string | null> {
  return key ? ctx.loaders.siteIdByShareKey.load(key) : null;
}

/**
 * Share keys: the secret of a site share link. Only a hash is stored (the key
 * is shown once, when the link is created); a caller presenting the key as
 * `shareKey` reads the published site (structure, sections, site spaces and
 * their spaces) as a visitor would, even without being a member, and gets
 * published URLs that carry the key (src/services/published-urls.ts).
 */
import { randomBytes, createHash } from 'node:crypto';

export function generateShareKey(): { key: string; hash: string } {
  const key = randomBytes(24).toString('base64url');
  return { key, hash: hashShareKey(key) };
}

export function hashShareKey(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

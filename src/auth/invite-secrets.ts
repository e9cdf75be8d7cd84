/**
 * Invite link secrets. A link has a public id (for the admins who manage it)
 * and a secret, shown once when the link is made; only the secret's SHA-256
 * hash is stored, as for share keys (./share-keys.ts). Joining takes the
 * secret (`POST /v1/orgs/{organizationId}/invites/{secret}`): the link's id is
 * never enough. Secrets start with `inv_`, so a path value tells which of the
 * two it is.
 */
import { createHash, randomBytes } from 'node:crypto';

export const INVITE_SECRET_PREFIX = 'inv_';

/** A new secret (32 random bytes) and the hash that is stored. */
export function generateInviteSecret(): { secret: string; hash: string } {
  const secret = INVITE_SECRET_PREFIX + randomBytes(32).toString('base64url');
  return { secret, hash: hashInviteSecret(secret) };
}

export function hashInviteSecret(secret: string): string {
  return createHash('sha256').update(secret).digest('hex');
}

/** Whether a path value is written as a secret (rather than a link id). */
export function isInviteSecret(value: string): boolean {
  return value.startsWith(INVITE_SECRET_PREFIX);
}

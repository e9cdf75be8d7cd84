import { createHash, randomBytes } from 'node:crypto';
import type { Db } from '../db/client.ts';
import { UnauthenticatedError } from '../errors/index.ts';
import { isMemberRole, type RoleOrGuest } from './roles.ts';

/** Who is calling: a user, authenticated by a token, and their memberships. */
export interface Viewer {
  readonly userId: string;
  readonly tokenId: string;
  /** organization id -> the viewer's own role there (null: guest). Absent: not a member. */
  readonly memberships: Map<string, RoleOrGuest>;
}

const TOKEN_PREFIX = 'gb_api_';

/** A new secret token; only its hash is ever stored. */
export function generateToken(): { token: string; hash: string } {
  const token = TOKEN_PREFIX + randomBytes(24).toString('base64url');
  return { token, hash: hashToken(token) };
}

export function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

/** Parses an `Authorization` header value; null when there is none. */
export function bearerToken(header: string | null | undefined): string | null {
  if (!header) return null;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  if (!match) throw new UnauthenticatedError('The Authorization header must be "Bearer <token>"');
  return match[1]!;
}

/** Resolves a token to its viewer in one query; throws on an unknown token. */
export async function loadViewer(db: Db, token: string): Promise<Viewer> {
  const row = await db.apiToken.findUnique({
    where: { tokenHash: hashToken(token) },
    select: { id: true, userId: true, user: { select: { memberships: { select: { organizationId: true, role: true } } } } },
  });
  if (!row) throw new UnauthenticatedError('The API token is invalid or has been revoked');
  const memberships = new Map<string, RoleOrGuest>();
  for (const m of row.user.memberships) memberships.set(m.organizationId, isMemberRole(m.role) ? m.role : null);
  return { userId: row.userId, tokenId: row.id, memberships };
}

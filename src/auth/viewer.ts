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

/** One row per membership of the token's user (a single row with null organization when there is none). */
interface ViewerRow {
  tokenId: string;
  userId: string;
  organizationId: string | null;
  role: string | null;
}

/**
 * Resolves a token to its viewer in one SQL statement; throws on an unknown
 * token. Raw SQL because every request pays for it: the equivalent nested
 * `findUnique` sends three statements (token, user, memberships) and costs a
 * third of a GET by id (bench/results/2026-11-23-rest.md). Quoted identifiers
 * read the same on SQLite and PostgreSQL.
 */
export async function loadViewer(db: Db, token: string): Promise<Viewer> {
  const rows = await db.$queryRaw<ViewerRow[]>`
    SELECT t."id" AS "tokenId", t."userId" AS "userId", m."organizationId" AS "organizationId", m."role" AS "role"
    FROM "ApiToken" t LEFT JOIN "Member" m ON m."userId" = t."userId"
    WHERE t."tokenHash" = ${hashToken(token)}`;
  const first = rows[0];
  if (!first) throw new UnauthenticatedError('The API token is invalid or has been revoked');
  const memberships = new Map<string, RoleOrGuest>();
  for (const m of rows) {
    if (m.organizationId !== null) memberships.set(m.organizationId, isMemberRole(m.role) ? m.role : null);
  }
  return { userId: first.userId, tokenId: first.tokenId, memberships };
}

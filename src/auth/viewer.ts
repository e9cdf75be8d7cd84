import { createHash, randomBytes } from 'node:crypto';
import type { Db } from '../db/client.ts';
import { UnauthenticatedError } from '../errors/index.ts';
import { isOneOf, TOKEN_SCOPES, type TokenScope } from '../db/value-sets.ts';
import { isMemberRole, type RoleOrGuest } from './roles.ts';

/** Who is calling: a user, authenticated by a token, and their memberships. */
export interface Viewer {
  readonly userId: string;
  readonly tokenId: string;
  /** organization id -> the viewer's own role there (null: guest). Absent: not a member. */
  readonly memberships: Map<string, RoleOrGuest>;
  /** The organizations whose admins disabled the viewer's membership: refused there until re-enabled. */
  readonly disabledIn: ReadonlySet<string>;
  /** The organizations where the viewer, or a team of theirs, holds a grant (only there are grants read). */
  readonly grantsIn: Set<string>;
  /** organization id -> when the viewer was last seen there (`Member.lastSeenAt`, null: never), as the request read it. */
  readonly lastSeenIn: Map<string, Date | null>;
  /** The scopes the token is limited to; null: none, it acts with its user's roles. */
  readonly scopes: ReadonlySet<TokenScope> | null;
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

/**
 * One row per membership of the token's user (kind `m`; a single row with null
 * organization when there is none), one per scope of the token (kind `s`), and
 * one per organization where the user or a team of theirs holds a grant (kind `g`).
 */
interface ViewerRow {
  tokenId: string;
  userId: string;
  expiresAt: Date | string | number | null;
  lastUsedAt: Date | string | number | null;
  kind: 'm' | 's' | 'g';
  /** kind m and g: the organization; kind s: the scope. */
  value: string | null;
  role: string | null;
  /** kind m: whether the membership is disabled (the driver's boolean: true/false, or 1/0 on SQLite). */
  disabled: boolean | number | null;
  /** kind m: `Member.lastSeenAt`. */
  seenAt: Date | string | number | null;
}

/** Raw rows give a DateTime as the driver reads it (a Date, an ISO text or epoch milliseconds). */
const toDate = (value: Date | string | number | null): Date | null => (value === null ? null : new Date(value));

/**
 * The viewer of a token's hash, with the token's expiry and last use, in one
 * SQL statement; null for an unknown or revoked (deleted) token. Requests get
 * theirs through the ViewerCache (./viewer-cache.ts), which reads with this only
 * what it does not keep, and refuses an expired token. Raw SQL because it is on
 * the path of every request that is not served from the cache: the equivalent nested `findUnique` sends three statements
 * (token, user, memberships; bench/results/2026-11-23-rest.md). Memberships
 * and scopes come as two halves of a UNION ALL, so that neither multiplies the
 * other's rows. Quoted identifiers read the same on SQLite and PostgreSQL.
 */
export async function readViewer(db: Db, hash: string): Promise<{ viewer: Viewer; expiresAt: Date | null; lastUsedAt: Date | null } | null> {
  const rows = await db.$queryRaw<ViewerRow[]>`
    SELECT t."id" AS "tokenId", t."userId" AS "userId", t."expiresAt" AS "expiresAt", t."lastUsedAt" AS "lastUsedAt",
      'm' AS "kind", m."organizationId" AS "value", m."role" AS "role", m."disabled" AS "disabled", m."lastSeenAt" AS "seenAt"
    FROM "ApiToken" t LEFT JOIN "Member" m ON m."userId" = t."userId"
    WHERE t."tokenHash" = ${hash}
    UNION ALL
    SELECT t."id", t."userId", t."expiresAt", t."lastUsedAt", 's', s."scope", CAST(NULL AS TEXT), CAST(NULL AS BOOLEAN), CAST(NULL AS TIMESTAMP)
    FROM "ApiToken" t JOIN "ApiTokenScope" s ON s."tokenId" = t."id"
    WHERE t."tokenHash" = ${hash}
    UNION ALL
    SELECT DISTINCT t."id", t."userId", t."expiresAt", t."lastUsedAt", 'g', g."organizationId", CAST(NULL AS TEXT), CAST(NULL AS BOOLEAN), CAST(NULL AS TIMESTAMP)
    FROM "ApiToken" t JOIN "ContentGrant" g
      ON (g."granteeKind" = 'user' AND g."granteeId" = t."userId")
      OR (g."granteeKind" = 'team' AND g."granteeId" IN (SELECT tm."teamId" FROM "TeamMember" tm WHERE tm."userId" = t."userId"))
    WHERE t."tokenHash" = ${hash}`;
  const first = rows[0];
  if (!first) return null;
  const memberships = new Map<string, RoleOrGuest>();
  const disabledIn = new Set<string>();
  const lastSeenIn = new Map<string, Date | null>();
  const grantsIn = new Set<string>();
  const scopes = new Set<TokenScope>();
  for (const row of rows) {
    if (row.kind === 'g') {
      if (row.value !== null) grantsIn.add(row.value);
    } else if (row.kind === 's') {
      // A scope this version no longer knows grants nothing (the CHECK constraint keeps the column to TOKEN_SCOPES).
      if (isOneOf(TOKEN_SCOPES, row.value)) scopes.add(row.value);
    } else if (row.value !== null) {
      memberships.set(row.value, isMemberRole(row.role) ? row.role : null);
      if (row.disabled === true || row.disabled === 1) disabledIn.add(row.value);
      lastSeenIn.set(row.value, toDate(row.seenAt));
    }
  }
  // A token whose every scope is unknown keeps a scope nobody has, rather than acting unscoped.
  const scoped = rows.some((row) => row.kind === 's');
  return {
    viewer: { userId: first.userId, tokenId: first.tokenId, memberships, disabledIn, grantsIn, lastSeenIn, scopes: scoped ? scopes : null },
    expiresAt: toDate(first.expiresAt),
    lastUsedAt: toDate(first.lastUsedAt),
  };
}

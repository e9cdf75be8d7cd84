/**
 * Personal API tokens: issuing one (with a label, an expiry and scopes),
 * listing a user's, revoking one. The secret is returned once, at creation;
 * only its SHA-256 hash is stored, and nothing here ever returns it again.
 * Used by the CLI and by the GraphQL mutations (src/schema/api-token/).
 */
import type { Db } from '../db/client.ts';
import { isOneOf, TOKEN_SCOPES, type TokenScope } from '../db/value-sets.ts';
import { InvalidInputError, NotFoundError } from '../errors/index.ts';
import { newId } from '../ids.ts';
import { generateToken } from './viewer.ts';

/** A token as its owner sees it: never the secret or its hash. */
export interface ApiTokenView {
  id: string;
  label: string | null;
  /** Empty: the token acts with its user's roles. */
  scopes: TokenScope[];
  createdAt: Date;
  expiresAt: Date | null;
  lastUsedAt: Date | null;
}

export interface IssueTokenInput {
  label?: string | null;
  expiresAt?: Date | null;
  scopes?: readonly string[] | null;
}

const LABEL_MAX_LENGTH = 200;

const tokenSelect = {
  id: true,
  label: true,
  createdAt: true,
  expiresAt: true,
  lastUsedAt: true,
  scopes: { select: { scope: true }, orderBy: { scope: 'asc' } },
} as const;

type TokenRow = { id: string; label: string | null; createdAt: Date; expiresAt: Date | null; lastUsedAt: Date | null; scopes: { scope: string }[] };

function present(row: TokenRow): ApiTokenView {
  const scopes = row.scopes.map((s) => s.scope).filter((s): s is TokenScope => isOneOf(TOKEN_SCOPES, s));
  return { id: row.id, label: row.label, scopes, createdAt: row.createdAt, expiresAt: row.expiresAt, lastUsedAt: row.lastUsedAt };
}

/** The scopes named, checked against TOKEN_SCOPES (duplicates dropped); a 400 naming any unknown one. */
export function parseScopes(names: readonly string[], field = 'scopes'): TokenScope[] {
  const unknown = names.filter((name) => !isOneOf(TOKEN_SCOPES, name));
  if (unknown.length) {
    throw new InvalidInputError(
      `${field}: unknown scope${unknown.length > 1 ? 's' : ''} ${unknown.map((s) => JSON.stringify(s)).join(', ')}; the scopes are ${TOKEN_SCOPES.join(', ')}`,
    );
  }
  return [...new Set(names as TokenScope[])];
}

const DURATION_UNITS_MS = { m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 } as const;

/**
 * An expiry as an operator writes it: a duration from `now` (`30d`, `12h`,
 * `90m`, `2w`) or an ISO 8601 date (`2027-01-31`, `2027-01-31T12:00:00Z`).
 * It must lie in the future.
 */
export function parseExpiry(value: string, now = new Date(), field = 'expires-in'): Date {
  const text = value.trim();
  const duration = /^(\d+)\s*([mhdw])$/i.exec(text);
  let date: Date;
  if (duration) {
    const amount = Number(duration[1]);
    if (amount <= 0) throw new InvalidInputError(`${field}: a duration must be more than zero`);
    date = new Date(now.getTime() + amount * DURATION_UNITS_MS[duration[2]!.toLowerCase() as keyof typeof DURATION_UNITS_MS]);
  } else if (/^\d{4}-\d{2}-\d{2}([T ][\d:.]+(Z|[+-]\d{2}:?\d{2})?)?$/.test(text)) {
    date = new Date(text);
  } else {
    date = new Date(NaN);
  }
  if (Number.isNaN(date.getTime())) {
    throw new InvalidInputError(`${field}: ${JSON.stringify(value)} is neither a duration (30d, 12h, 90m, 2w) nor an ISO 8601 date (2027-01-31)`);
  }
  assertFuture(date, now, field);
  return date;
}

function assertFuture(date: Date, now: Date, field: string) {
  if (date <= now) throw new InvalidInputError(`${field}: ${date.toISOString()} is not in the future`);
}

/** Issues a token for a user; returns the secret (shown once) and the token as listed. `db` may be a transaction's. */
export async function issueApiToken(db: Pick<Db, 'apiToken'>, userId: string, input: IssueTokenInput = {}, now = new Date()): Promise<{ token: string; apiToken: ApiTokenView }> {
  const label = input.label?.trim() || null;
  if (label && label.length > LABEL_MAX_LENGTH) throw new InvalidInputError(`label: must be at most ${LABEL_MAX_LENGTH} characters`);
  if (input.expiresAt) assertFuture(input.expiresAt, now, 'expiresAt');
  const scopes = parseScopes(input.scopes ?? []);
  const { token, hash } = generateToken();
  const row = await db.apiToken.create({
    data: {
      id: newId(),
      userId,
      tokenHash: hash,
      label,
      expiresAt: input.expiresAt ?? null,
      scopes: { create: scopes.map((scope) => ({ scope })) },
    },
    select: tokenSelect,
  });
  return { token, apiToken: present(row) };
}

/** A user's tokens, newest first. */
export async function listApiTokens(db: Db, userId: string): Promise<ApiTokenView[]> {
  const rows = await db.apiToken.findMany({ where: { userId }, select: tokenSelect, orderBy: [{ createdAt: 'desc' }, { id: 'desc' }] });
  return rows.map(present);
}

/**
 * Revokes one of a user's tokens: the row goes, so the next request with it
 * is 401 in every process (tokens are looked up per request, never cached).
 * Another user's token is "not found", as an unknown one.
 */
export async function revokeApiToken(db: Db, userId: string, tokenId: string): Promise<ApiTokenView> {
  const row = await db.apiToken.findFirst({ where: { id: tokenId, userId }, select: tokenSelect });
  if (!row) throw new NotFoundError('API token', tokenId);
  await db.apiToken.deleteMany({ where: { id: tokenId, userId } });
  return present(row);
}

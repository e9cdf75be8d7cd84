/**
 * Site tokens: the short-lived `apiToken` that `POST /v1/urls/published` hands a site renderer.
 * It reads exactly one published site: the site, and the spaces it publishes while it publishes
 * them (Access opens them as a share key does); every other call with it is 401 or 404.
 *
 * Shape: GitBook's SiteAPIToken (`kind: site`, `organization`, `spaces`, `site`, `siteSection`,
 * `siteSpace`, `space`, `claims`, `visitorType`; `shareKey` for a share-link site, and
 * `authenticated` when a visitor token vouched for the claims: a token opens its site only while
 * it would still be given, src/context.ts), a JWT signed HS256 with a secret derived
 * (HKDF-SHA256) from the organization's signing key (./visitor-claims.ts): rotating the keys
 * (`keys:rotate`) signs new tokens with the new key, a deleted key's tokens stop verifying, and
 * `kid` names the key. HMAC rather than the key's ES256: the same claims signed on the same day
 * give the same token, so the renderer's cache, keyed by token, lasts the day; ECDSA signatures
 * differ at every signing. Only this service verifies the token (the renderer only decodes it).
 *
 * Tokens are minted per UTC day: issued at midnight, valid until 00:05 the next day, as GitBook's
 * are (the renderer refreshes a token two minutes before it expires).
 */
import { hkdfSync } from 'node:crypto';
import { base64url, decodeProtectedHeader, jwtVerify, SignJWT, type JWK, type JWTPayload } from 'jose';
import type { Db } from '../db/client.ts';
import { UnauthenticatedError } from '../errors/index.ts';
import { signingKey, signingKeyById, type KeySealer } from './visitor-claims.ts';

export const SITE_TOKEN_ALGORITHM = 'HS256';
const DAY_MS = 24 * 60 * 60 * 1000;
/** How long a day's token stays valid into the next day, so that a render started at midnight ends. */
const OVERLAP_MS = 5 * 60 * 1000;

export type VisitorType = 'human' | 'agent';

/** Who holds a site token: a visitor of one site, and what they were resolved to. */
export interface SiteVisitor {
  organizationId: string;
  siteId: string;
  siteSectionId: string | null;
  siteSpaceId: string;
  spaceId: string;
  /** Whether a visitor token of the organization vouched for the claims (what a visitor-auth site needs). */
  authenticated: boolean;
  /** The key of the share link the URL carried (share-link sites): the token opens the site while that link does. */
  shareKey: string | null;
  /** The visitor's claims (signed by a visitor token, and the unsigned ones the site's schema admits): `visitor.claims`. */
  claims: Record<string, unknown>;
  visitorType: VisitorType;
  expiresAt: Date;
}

type KeysDb = Parameters<typeof signingKey>[0];

/** The HMAC secret of an organization key: derived from its private half, never stored. */
function tokenSecret(key: { id: string; privateJwk: JWK }): Uint8Array {
  if (typeof key.privateJwk.d !== 'string') throw new Error(`Signing key ${key.id} has no private half`);
  return new Uint8Array(hkdfSync('sha256', base64url.decode(key.privateJwk.d), key.id, 'site-api-token', 32));
}

/** Whether a bearer token has the form of a site token (a JWT) rather than of an API token. */
export function isSiteToken(token: string): boolean {
  return /^[\w-]+\.[\w-]+\.[\w-]+$/.test(token);
}

/** The day's validity of a token minted at `now`: issued at that UTC midnight, until 00:05 the next day. */
export function siteTokenPeriod(now: Date): { issuedAt: Date; expiresAt: Date } {
  const day = Math.floor(now.getTime() / DAY_MS) * DAY_MS;
  return { issuedAt: new Date(day), expiresAt: new Date(day + DAY_MS + OVERLAP_MS) };
}

/** Signs the site token of a visitor (see the module comment); `issuer` is the organization's API URL. */
export async function signSiteToken(
  db: KeysDb,
  sealer: KeySealer,
  input: Omit<SiteVisitor, 'expiresAt'> & { issuer: string; now?: Date },
): Promise<string> {
  const now = input.now ?? new Date();
  const key = await signingKey(db, sealer, input.organizationId, now);
  const { issuedAt, expiresAt } = siteTokenPeriod(now);
  return new SignJWT({
    kind: 'site',
    organization: input.organizationId,
    spaces: [input.spaceId],
    site: input.siteId,
    ...(input.siteSectionId ? { siteSection: input.siteSectionId } : {}),
    siteSpace: input.siteSpaceId,
    space: input.spaceId,
    visitorType: input.visitorType,
    claims: input.claims,
    ...(input.shareKey ? { shareKey: input.shareKey } : {}),
    ...(input.authenticated ? { authenticated: true } : {}),
  })
    .setProtectedHeader({ alg: SITE_TOKEN_ALGORITHM, kid: key.id, typ: 'JWT' })
    .setIssuer(input.issuer)
    .setIssuedAt(Math.floor(issuedAt.getTime() / 1000))
    .setExpirationTime(Math.floor(expiresAt.getTime() / 1000))
    .sign(tokenSecret(key));
}

const invalid = () => new UnauthenticatedError('The site token is invalid: resolve the URL again (POST /v1/urls/published) for a new one');

const text = (value: unknown): value is string => typeof value === 'string' && value !== '';

/** The visitor a site token names, verified (signature, key, expiry, shape); 401 otherwise. */
export async function verifySiteToken(db: Pick<Db, 'organizationSigningKey'>, sealer: KeySealer, token: string, now = new Date()): Promise<SiteVisitor> {
  let kid: string | undefined;
  try {
    const header = decodeProtectedHeader(token);
    if (header.alg === SITE_TOKEN_ALGORITHM) kid = header.kid;
  } catch {
    throw invalid();
  }
  const key = kid ? await signingKeyById(db, sealer, kid) : null;
  if (!key) throw invalid();
  let payload: JWTPayload;
  try {
    ({ payload } = await jwtVerify(token, tokenSecret(key), { algorithms: [SITE_TOKEN_ALGORITHM], currentDate: now, requiredClaims: ['exp'] }));
  } catch (error) {
    if ((error as { code?: string }).code === 'ERR_JWT_EXPIRED') {
      throw new UnauthenticatedError('The site token expired: resolve the URL again (POST /v1/urls/published) for a new one');
    }
    throw invalid();
  }
  const { kind, organization, site, siteSection, siteSpace, space, claims, visitorType, shareKey, authenticated } = payload;
  if (kind !== 'site' || organization !== key.organizationId || !text(site) || !text(siteSpace) || !text(space)) throw invalid();
  return {
    organizationId: organization,
    siteId: site,
    siteSectionId: text(siteSection) ? siteSection : null,
    siteSpaceId: siteSpace,
    spaceId: space,
    claims: claims && typeof claims === 'object' && !Array.isArray(claims) ? (claims as Record<string, unknown>) : {},
    visitorType: visitorType === 'agent' ? 'agent' : 'human',
    shareKey: text(shareKey) ? shareKey : null,
    authenticated: authenticated === true,
    expiresAt: new Date(payload.exp! * 1000),
  };
}

/**
 * Visitor claims: a JWT the ping endpoint hands a member, which a site renderer
 * of a `visitor-auth` site verifies with the organization's public keys (a JWKS
 * served without a token, see src/plugins/use-visitor-keys.ts).
 *
 * Each organization signs with keys of its own (OrganizationSigningKey rows):
 * ES256 (P-256), made with `jose` on first use. The newest key that is not
 * retired signs; rotating (the CLI's `keys:rotate`) makes a new one and retires
 * the others, which stay published (so tokens they signed keep verifying until
 * they expire) until an operator deletes them (`keys:delete`). The key id
 * (`kid`) is the key's RFC 7638 thumbprint. The private half is kept sealed
 * (`KeySealer`: the service's secrets key, as Git credentials are); a key that
 * can no longer be opened (the secrets key changed) is retired and replaced at
 * its next use.
 */
import { calculateJwkThumbprint, createLocalJWKSet, exportJWK, generateKeyPair, importJWK, jwtVerify, SignJWT, type JWK, type JWTPayload } from 'jose';
import type { Db } from '../db/client.ts';
import { ConflictError, NotFoundError } from '../errors/index.ts';

/** The JWS algorithm of every organization key. */
export const VISITOR_CLAIMS_ALGORITHM = 'ES256';
/** How long a token of visitor claims is valid. */
export const VISITOR_CLAIMS_TTL_SECONDS = 60 * 60;
/** Where an organization's public keys are served (GET, no token): `{organizationId}` replaced. */
export const JWKS_PATH = '/.well-known/jwks/{organizationId}.json';

/** The path of an organization's JWKS. */
export function jwksPath(organizationId: string): string {
  return JWKS_PATH.replace('{organizationId}', encodeURIComponent(organizationId));
}

type KeysDb = Pick<Db, 'organizationSigningKey' | '$transaction'>;

/** Seals a private key for the database, and opens it again (null: it cannot be read). */
export interface KeySealer {
  seal(text: string): string;
  open(text: string): string | null;
}

/** A signing key as an operator sees it: never the private half. */
export interface SigningKeyView {
  kid: string;
  algorithm: string;
  createdAt: Date;
  retiredAt: Date | null;
}

const keyView = (row: { id: string; algorithm: string; createdAt: Date; retiredAt: Date | null }): SigningKeyView => ({
  kid: row.id,
  algorithm: row.algorithm,
  createdAt: row.createdAt,
  retiredAt: row.retiredAt,
});

/** A new ES256 key pair as the row that stores it. */
async function newKeyRow(sealer: KeySealer, organizationId: string, now: Date) {
  const { publicKey, privateKey } = await generateKeyPair(VISITOR_CLAIMS_ALGORITHM, { extractable: true });
  const publicJwk = await exportJWK(publicKey);
  const privateJwk = await exportJWK(privateKey);
  const kid = await calculateJwkThumbprint(publicJwk);
  return {
    id: kid,
    organizationId,
    algorithm: VISITOR_CLAIMS_ALGORITHM,
    publicJwk: JSON.stringify(publicJwk),
    privateJwk: sealer.seal(JSON.stringify(privateJwk)),
    createdAt: now,
  };
}

/**
 * The key that signs for the organization, with its private half: the newest one not retired,
 * made now when there is none (or when it can no longer be opened: it is retired then).
 */
export async function signingKey(db: KeysDb, sealer: KeySealer, organizationId: string, now: Date): Promise<{ id: string; algorithm: string; privateJwk: JWK }> {
  const current = await db.organizationSigningKey.findFirst({
    where: { organizationId, retiredAt: null },
    orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
  });
  const opened = current && sealer.open(current.privateJwk);
  if (current && opened) return { id: current.id, algorithm: current.algorithm, privateJwk: JSON.parse(opened) as JWK };
  // Two first uses at once each make a key: both are published, the newer signs from then on.
  const data = await newKeyRow(sealer, organizationId, now);
  if (current) await rotateWith(db, organizationId, data, now);
  else await db.organizationSigningKey.create({ data });
  return { id: data.id, algorithm: data.algorithm, privateJwk: JSON.parse(sealer.open(data.privateJwk)!) as JWK };
}

/** Retires the organization's keys and stores `data` as the one that signs, in one transaction. */
function rotateWith(db: KeysDb, organizationId: string, data: Awaited<ReturnType<typeof newKeyRow>>, now: Date) {
  return db.$transaction(async (tx) => {
    const active = await tx.organizationSigningKey.findMany({ where: { organizationId, retiredAt: null }, orderBy: { createdAt: 'asc' } });
    await tx.organizationSigningKey.updateMany({ where: { organizationId, retiredAt: null }, data: { retiredAt: now } });
    const created = await tx.organizationSigningKey.create({ data });
    return { key: keyView(created), retired: active.map((row) => keyView({ ...row, retiredAt: now })) };
  });
}

/**
 * Makes a new signing key for the organization and retires the ones that signed until now (they
 * stay published until deleted). The new key, and the keys retired.
 */
export async function rotateSigningKey(
  db: KeysDb,
  sealer: KeySealer,
  organizationId: string,
  now = new Date(),
): Promise<{ key: SigningKeyView; retired: SigningKeyView[] }> {
  return rotateWith(db, organizationId, await newKeyRow(sealer, organizationId, now), now);
}

/** The organization's keys, newest first (the private halves never leave this module). */
export async function listSigningKeys(db: KeysDb, organizationId: string): Promise<SigningKeyView[]> {
  const rows = await db.organizationSigningKey.findMany({ where: { organizationId }, orderBy: [{ createdAt: 'desc' }, { id: 'desc' }] });
  return rows.map(keyView);
}

/**
 * A key of any organization by its id (`kid`), with its private half: what verifies a token this
 * service signed (retired keys included, until deleted). null for an unknown key or one that can
 * no longer be opened.
 */
export async function signingKeyById(db: Pick<Db, 'organizationSigningKey'>, sealer: KeySealer, kid: string): Promise<{ id: string; organizationId: string; privateJwk: JWK } | null> {
  const row = await db.organizationSigningKey.findUnique({ where: { id: kid }, select: { id: true, organizationId: true, privateJwk: true } });
  const opened = row && sealer.open(row.privateJwk);
  return row && opened ? { id: row.id, organizationId: row.organizationId, privateJwk: JSON.parse(opened) as JWK } : null;
}

/**
 * Deletes a retired key: it is no longer published, so tokens it signed stop verifying. The key
 * that signs now cannot be deleted (409: rotate first); another organization's or an unknown key is 404.
 */
export async function deleteSigningKey(db: KeysDb, organizationId: string, kid: string): Promise<SigningKeyView> {
  const row = await db.organizationSigningKey.findFirst({ where: { id: kid, organizationId } });
  if (!row) throw new NotFoundError('Signing key', kid);
  if (!row.retiredAt) throw new ConflictError(`Key ${kid} signs the organization's visitor claims: rotate the keys first, then delete the retired one`);
  await db.organizationSigningKey.deleteMany({ where: { id: kid, organizationId } });
  return keyView(row);
}

/** A JSON Web Key Set of the organization's public keys (the signing one and the retired ones), newest first. */
export async function organizationJwks(db: Pick<Db, 'organizationSigningKey'>, organizationId: string): Promise<{ keys: JWK[] }> {
  const rows = await db.organizationSigningKey.findMany({
    where: { organizationId },
    select: { id: true, algorithm: true, publicJwk: true },
    orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
  });
  return { keys: rows.map((row) => ({ ...(JSON.parse(row.publicJwk) as JWK), kid: row.id, alg: row.algorithm, use: 'sig' })) };
}

/** The claims a visitor token carries about a member, besides the registered ones. */
export interface VisitorClaims {
  /** The organization's id. */
  organization: string;
  email: string;
  name: string;
  /** The member's organization role; null: a guest. */
  role: string | null;
}

/**
 * Signs the visitor claims of a member with the organization's key (made on first use): a
 * compact JWS, header `{alg: ES256, kid, typ: JWT}`, registered claims `iss` (the organization's
 * API URL), `sub` (the user id), `iat` and `exp` (VISITOR_CLAIMS_TTL_SECONDS later).
 */
export async function signVisitorClaims(
  db: KeysDb,
  sealer: KeySealer,
  organizationId: string,
  input: { issuer: string; subject: string; claims: VisitorClaims; now?: Date },
): Promise<string> {
  const now = input.now ?? new Date();
  const key = await signingKey(db, sealer, organizationId, now);
  const privateKey = await importJWK(key.privateJwk, key.algorithm);
  const issuedAt = Math.floor(now.getTime() / 1000);
  return new SignJWT({ ...input.claims })
    .setProtectedHeader({ alg: key.algorithm, kid: key.id, typ: 'JWT' })
    .setIssuer(input.issuer)
    .setSubject(input.subject)
    .setIssuedAt(issuedAt)
    .setExpirationTime(issuedAt + VISITOR_CLAIMS_TTL_SECONDS)
    .sign(privateKey);
}

/**
 * The claims of a visitor token (`signVisitorClaims`) of the organization, verified against its
 * published keys (signature, expiry, `organization`); null when the token does not verify. The
 * registered claims (`iss`, `sub`, `iat`, `exp`, ...) are left out: what remains is what adaptive
 * content reads as `visitor.claims`.
 */
export async function verifyVisitorClaims(
  db: Pick<Db, 'organizationSigningKey'>,
  organizationId: string,
  token: string,
  now = new Date(),
): Promise<Record<string, unknown> | null> {
  const jwks = createLocalJWKSet(await organizationJwks(db, organizationId));
  let payload: JWTPayload;
  try {
    ({ payload } = await jwtVerify(token, jwks, { algorithms: [VISITOR_CLAIMS_ALGORITHM], currentDate: now }));
  } catch {
    return null;
  }
  if (payload.organization !== organizationId) return null;
  const { iss: _iss, sub: _sub, aud: _aud, iat: _iat, exp: _exp, nbf: _nbf, jti: _jti, ...claims } = payload;
  return claims;
}

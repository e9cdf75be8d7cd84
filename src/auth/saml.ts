/**
 * SAML 2.0, this service as a service provider, on @node-saml/node-saml: the
 * identity provider certificate check made when a provider is saved, the
 * library's client for one provider (AuthnRequests over HTTP-Redirect, responses
 * over HTTP-POST), the database-backed store of the AuthnRequests sent, and the
 * facts of a verified assertion the sign-in reads. What the library checks, and
 * what is checked here besides, is in docs/decisions.md ("SAML sign-in").
 *
 * Everything read from a response comes from what the library verified: its
 * `profile` is made of the signed assertion only (the signed response's, or the
 * signed assertion's own XML), never of unsigned parts; the one exception is the
 * response's `Destination`, which is read from the response as posted and
 * checked against the ACS URL (the signed assertion's `Recipient` is checked too).
 */
import { X509Certificate } from 'node:crypto';
import { SAML, ValidateInResponseTo, generateServiceProviderMetadata, type CacheProvider, type Profile } from '@node-saml/node-saml';
import { DOMParser } from '@xmldom/xmldom';
import { z } from 'zod';
import type { Db } from '../db/client.ts';
import { InvalidInputError } from '../errors/index.ts';

/** How far the identity provider's clock may be from ours when NotBefore and NotOnOrAfter are checked. */
export const SAML_CLOCK_SKEW_MS = 60_000;
/** How long an AuthnRequest may be answered (the time a person has to sign in at the identity provider). */
export const SAML_REQUEST_TTL_MS = 10 * 60_000;
/** The NameID format asked for: the e-mail address a user is matched by. */
const NAME_ID_EMAIL = 'urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress';

/** A provider's identity provider settings, as stored (complete: `active`). */
export interface IdentityProvider {
  id: string;
  ssoURL: string;
  entityID: string;
  certificate: string;
}

/** This service as the service provider of one identity provider (src/urls.ts makes them). */
export interface ServiceProvider {
  entityID: string;
  acsURL: string;
}

const PEM_BLOCK = /-----BEGIN ([A-Z0-9 ]+)-----([\s\S]*?)-----END \1-----/g;

/**
 * The identity provider certificate of a provider, checked as it is saved: one
 * PEM block, an X.509 certificate (parsed by Node's OpenSSL binding), an RSA key
 * (the signatures xml-crypto verifies), valid now. The normalized PEM, or a 400
 * naming the field.
 */
export function checkCertificate(text: string, now = new Date(), field = 'certificate'): string {
  const blocks = [...text.trim().matchAll(PEM_BLOCK)];
  if (blocks.length === 0) throw new InvalidInputError(`${field}: not PEM: expected a certificate between -----BEGIN CERTIFICATE----- and -----END CERTIFICATE-----`);
  if (blocks.length > 1) throw new InvalidInputError(`${field}: one certificate only (the identity provider's signing certificate), found ${blocks.length} PEM blocks`);
  const [block] = blocks;
  if (block![1] !== 'CERTIFICATE') throw new InvalidInputError(`${field}: a PEM ${block![1]}, not an X.509 certificate`);
  let certificate: X509Certificate;
  try {
    certificate = new X509Certificate(block![0]);
  } catch (error) {
    throw new InvalidInputError(`${field}: not a valid X.509 certificate (${error instanceof Error ? error.message : String(error)})`);
  }
  const validFrom = new Date(certificate.validFrom);
  const validTo = new Date(certificate.validTo);
  if (validTo <= now) throw new InvalidInputError(`${field}: the certificate expired on ${validTo.toISOString()}`);
  if (validFrom > now) throw new InvalidInputError(`${field}: the certificate is not valid before ${validFrom.toISOString()}`);
  const keyType = certificate.publicKey.asymmetricKeyType;
  if (keyType !== 'rsa') throw new InvalidInputError(`${field}: the certificate's key is ${keyType ?? 'of an unknown type'}; SAML signatures are verified with RSA keys`);
  return certificate.toString();
}

/**
 * The AuthnRequests sent to a provider's identity provider, in the database
 * (SamlRequest), so that any server process can check a response's
 * InResponseTo. The library saves each request it makes and reads it back when
 * the response comes; it does not remove it here: the sign-in consumes it
 * (`consumeRequest`), atomically and in the transaction of what it writes,
 * which the library's own removal is not (and it skips it on some paths).
 */
export function requestStore(db: Db, providerId: string, now: () => Date = () => new Date()): CacheProvider {
  return {
    async saveAsync(key, value) {
      const createdAt = now();
      await db.samlRequest.create({ data: { id: key, providerId, createdAt, expiresAt: new Date(createdAt.getTime() + SAML_REQUEST_TTL_MS) } });
      return { value, createdAt: createdAt.getTime() };
    },
    async getAsync(key) {
      const row = await db.samlRequest.findFirst({ where: { id: key, providerId, expiresAt: { gt: now() } }, select: { createdAt: true } });
      return row ? row.createdAt.toISOString() : null;
    },
    async removeAsync() {
      return null;
    },
  };
}

/**
 * Marks the AuthnRequest a response answers as used: true when this call did
 * (it existed for this provider, unexpired, unused), false otherwise. One
 * conditional DELETE, so two responses to one request cannot both succeed.
 */
export async function consumeRequest(db: Pick<Db, 'samlRequest'>, providerId: string, requestId: string, now = new Date()): Promise<boolean> {
  const { count } = await db.samlRequest.deleteMany({ where: { id: requestId, providerId, expiresAt: { gt: now } } });
  return count === 1;
}

/** The library's client for one identity provider. */
export function samlClient(idp: IdentityProvider, sp: ServiceProvider, requests: CacheProvider): SAML {
  return new SAML({
    entryPoint: idp.ssoURL,
    idpCert: idp.certificate,
    issuer: sp.entityID,
    audience: sp.entityID,
    callbackUrl: sp.acsURL,
    // A signature over the whole response or over the assertion: either covers the assertion read.
    wantAuthnResponseSigned: false,
    wantAssertionsSigned: false,
    acceptedClockSkewMs: SAML_CLOCK_SKEW_MS,
    // Only answers to our own AuthnRequests (no IdP-initiated sign-in).
    validateInResponseTo: ValidateInResponseTo.always,
    requestIdExpirationPeriodMs: SAML_REQUEST_TTL_MS,
    cacheProvider: requests,
    identifierFormat: NAME_ID_EMAIL,
    // Whichever way the identity provider signs people in (password, MFA, ...) is its business.
    disableRequestedAuthnContext: true,
  });
}

/** The service provider metadata of one provider (what an identity provider is configured with), served at its entity ID. */
export function serviceProviderMetadata(sp: ServiceProvider): string {
  return generateServiceProviderMetadata({ issuer: sp.entityID, callbackUrl: sp.acsURL, identifierFormat: NAME_ID_EMAIL, wantAssertionsSigned: true });
}

/** What the sign-in reads of a verified assertion. */
export interface AssertionFacts {
  assertionId: string;
  /** The assertion's Issuer (must be the provider's entity ID). */
  issuer: string | null;
  /** The AuthnRequest it answers (the response's InResponseTo, which the library matched with the assertion's). */
  inResponseTo: string | null;
  /** The posted response's Destination attribute. */
  destination: string | null;
  /** The Recipient of each SubjectConfirmationData of the assertion. */
  recipients: string[];
  /** Until when the assertion may be used (the earliest NotOnOrAfter it states); the replay cache keeps it that long. */
  expiresAt: Date | null;
  /** The e-mail address: the NameID when it is one, else an e-mail attribute. Lower case. */
  email: string | null;
  displayName: string | null;
}

type XmlJs = Record<string, unknown> & { $?: Record<string, string> };

const first = (value: unknown): XmlJs | undefined => (Array.isArray(value) ? (value[0] as XmlJs | undefined) : undefined);
const list = (value: unknown): XmlJs[] => (Array.isArray(value) ? (value as XmlJs[]) : []);
const emailSchema = z.email();

/** The first non-empty string of an attribute value (attributes may be multi-valued). */
function attribute(profile: Profile, names: readonly string[]): string | null {
  for (const name of names) {
    const values = ([] as unknown[]).concat(profile[name] ?? []);
    for (const value of values) if (typeof value === 'string' && value.trim()) return value.trim();
  }
  return null;
}

const EMAIL_ATTRIBUTES = ['email', 'mail', 'urn:oid:0.9.2342.19200300.100.1.3', 'http://schemas.xmlsoap.org/ws/2005/05/identity/claims/emailaddress', 'emailAddress'] as const;
const DISPLAY_NAME_ATTRIBUTES = ['displayName', 'urn:oid:2.16.840.1.113730.3.1.241', 'http://schemas.microsoft.com/identity/claims/displayname', 'name'] as const;
const GIVEN_NAME_ATTRIBUTES = ['givenName', 'urn:oid:2.5.4.42', 'http://schemas.xmlsoap.org/ws/2005/05/identity/claims/givenname'] as const;
const SURNAME_ATTRIBUTES = ['sn', 'surname', 'urn:oid:2.5.4.4', 'http://schemas.xmlsoap.org/ws/2005/05/identity/claims/surname'] as const;

function emailOf(profile: Profile): string | null {
  const nameId = typeof profile.nameID === 'string' ? profile.nameID.trim() : '';
  if (nameId && emailSchema.safeParse(nameId).success) return nameId.toLowerCase();
  const fromAttribute = attribute(profile, EMAIL_ATTRIBUTES);
  return fromAttribute && emailSchema.safeParse(fromAttribute).success ? fromAttribute.toLowerCase() : null;
}

function displayNameOf(profile: Profile): string | null {
  const name = attribute(profile, DISPLAY_NAME_ATTRIBUTES);
  if (name) return name;
  const parts = [attribute(profile, GIVEN_NAME_ATTRIBUTES), attribute(profile, SURNAME_ATTRIBUTES)].filter(Boolean);
  return parts.length ? parts.join(' ') : null;
}

/** The response's Destination, read from the response as posted (the library does not check it). */
function destinationOf(responseXml: string): string | null {
  const document = new DOMParser({ errorHandler: () => undefined }).parseFromString(responseXml, 'text/xml');
  const root = document?.documentElement;
  if (!root || root.localName !== 'Response') return null;
  return root.getAttribute('Destination') || null;
}

/** The facts of the assertion the library verified (`profile`: validatePostResponseAsync's). */
export function assertionFacts(profile: Profile): AssertionFacts {
  const assertion = (profile.getAssertion?.() as { Assertion?: XmlJs } | undefined)?.Assertion;
  const subjectData = list(first(assertion?.Subject)?.SubjectConfirmation).map((confirmation) => first(confirmation.SubjectConfirmationData)?.$ ?? {});
  const expiries = [first(assertion?.Conditions)?.$?.NotOnOrAfter, ...subjectData.map((data) => data.NotOnOrAfter)]
    .filter((value): value is string => typeof value === 'string')
    .map((value) => new Date(value))
    .filter((date) => !Number.isNaN(date.getTime()));
  return {
    assertionId: assertion?.$?.ID ?? '',
    issuer: typeof profile.issuer === 'string' ? profile.issuer : null,
    inResponseTo: typeof profile.inResponseTo === 'string' ? profile.inResponseTo : null,
    destination: destinationOf(profile.getSamlResponseXml?.() ?? ''),
    recipients: subjectData.map((data) => data.Recipient).filter((value): value is string => typeof value === 'string'),
    expiresAt: expiries.length ? new Date(Math.min(...expiries.map((date) => date.getTime()))) : null,
    email: emailOf(profile),
    displayName: displayNameOf(profile),
  };
}

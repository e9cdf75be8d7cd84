/**
 * A test SAML identity provider: a key pair made here (Node's crypto) and a
 * self-signed X.509 certificate of it (node-forge); SAMLResponses written as an
 * identity provider writes them and signed with xml-crypto (node-saml's own
 * signature library), over the assertion or the whole response; and the
 * AuthnRequest a service provider's start URL redirects to, read back.
 */
import { generateKeyPairSync, randomUUID } from 'node:crypto';
import { inflateRawSync } from 'node:zlib';
import forge from 'node-forge';
import { SignedXml } from 'xml-crypto';

export interface TestIdentityProvider {
  entityID: string;
  ssoURL: string;
  /** PEM of the signing certificate (what a SAML provider is configured with). */
  certificate: string;
  /** PEM (PKCS#1) of the signing key. */
  privateKey: string;
}

const DAY = 86_400_000;

/**
 * RSA key pairs by the name of the identity provider they belong to, made once per test process:
 * a 2048-bit key takes 0.2 to 0.5 s to make, and the REST fixture, built for each route of some
 * tables, makes an identity provider every time. Providers of different names never share a key
 * (a response signed by "another key" is another provider's).
 */
const keyPairs = new Map<string, { publicKey: string; privateKey: string }>();

function keyPairOf(name: string | undefined): { publicKey: string; privateKey: string } {
  const made = name === undefined ? undefined : keyPairs.get(name);
  if (made) return made;
  const pair = generateKeyPairSync('rsa', {
    modulusLength: 2048,
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs1', format: 'pem' },
  });
  if (name !== undefined) keyPairs.set(name, pair);
  return pair;
}

/**
 * A self-signed certificate, valid from yesterday to next year unless told otherwise, of the key of
 * identity provider `keyName`, or of a new RSA key.
 */
export function createCertificate(options: { notBefore?: Date; notAfter?: Date; commonName?: string; keyName?: string } = {}): { certificate: string; privateKey: string } {
  const { publicKey, privateKey } = keyPairOf(options.keyName);
  const cert = forge.pki.createCertificate();
  cert.publicKey = forge.pki.publicKeyFromPem(publicKey);
  cert.serialNumber = `01${randomUUID().replace(/-/g, '').slice(0, 16)}`;
  cert.validity.notBefore = options.notBefore ?? new Date(Date.now() - DAY);
  cert.validity.notAfter = options.notAfter ?? new Date(Date.now() + 365 * DAY);
  const name = [{ name: 'commonName', value: options.commonName ?? 'Test identity provider' }];
  cert.setSubject(name);
  cert.setIssuer(name);
  cert.sign(forge.pki.privateKeyFromPem(privateKey), forge.md.sha256.create());
  return { certificate: forge.pki.certificateToPem(cert), privateKey };
}

let counter = 0;

/** A new identity provider with a certificate of its own, of the key every provider named `name` has. */
export function createIdentityProvider(name = 'idp'): TestIdentityProvider {
  counter += 1;
  const host = `${name}-${process.pid}-${counter}.idp.example.com`;
  return { entityID: `https://${host}/metadata`, ssoURL: `https://${host}/sso`, ...createCertificate({ commonName: host, keyName: name }) };
}

/** What an AuthnRequest carried in a start URL's redirect says. */
export interface AuthnRequest {
  id: string;
  issuer: string;
  destination: string;
  acsURL: string;
  relayState: string | null;
  /** The identity provider URL without the query. */
  target: string;
}

/** Reads the AuthnRequest of an HTTP-Redirect binding URL (SAMLRequest: deflated, base64). */
export function readAuthnRequest(location: string): AuthnRequest {
  const url = new URL(location);
  const encoded = url.searchParams.get('SAMLRequest');
  if (!encoded) throw new Error(`No SAMLRequest in ${location}`);
  const xml = inflateRawSync(Buffer.from(encoded, 'base64')).toString('utf8');
  const attribute = (name: string) => new RegExp(`\\s${name}="([^"]*)"`).exec(xml)?.[1] ?? '';
  return {
    id: attribute('ID'),
    destination: attribute('Destination'),
    acsURL: attribute('AssertionConsumerServiceURL'),
    issuer: /<saml:Issuer[^>]*>([^<]*)<\/saml:Issuer>/.exec(xml)?.[1] ?? '',
    relayState: url.searchParams.get('RelayState'),
    target: `${url.origin}${url.pathname}`,
  };
}

export interface ResponseOptions {
  /** The AuthnRequest answered (InResponseTo); null leaves it out. */
  inResponseTo: string | null;
  /** Where the response is posted (Destination and Recipient). */
  acsURL: string;
  /** The service provider's entity ID (the Audience). */
  audience: string;
  email: string;
  /** Put the e-mail in an attribute and a persistent id in the NameID. */
  emailAsAttribute?: boolean;
  displayName?: string;
  assertionId?: string;
  /** Overrides Destination (Recipient keeps acsURL unless `recipient` says otherwise). */
  destination?: string | null;
  recipient?: string;
  issuer?: string;
  /** The assertion's validity window; by default from a minute ago to five minutes from now. */
  notBefore?: Date;
  notOnOrAfter?: Date;
  issueInstant?: Date;
}

const iso = (date: Date) => date.toISOString();
const escape = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/"/g, '&quot;');

/** A SAMLResponse as an identity provider writes it (unsigned). */
export function buildResponse(idp: Pick<TestIdentityProvider, 'entityID'>, options: ResponseOptions): string {
  const now = options.issueInstant ?? new Date();
  const notBefore = options.notBefore ?? new Date(now.getTime() - 60_000);
  const notOnOrAfter = options.notOnOrAfter ?? new Date(now.getTime() + 5 * 60_000);
  const issuer = escape(options.issuer ?? idp.entityID);
  const assertionId = options.assertionId ?? `_a${randomUUID().replace(/-/g, '')}`;
  const inResponseTo = options.inResponseTo === null ? '' : ` InResponseTo="${escape(options.inResponseTo)}"`;
  const destination = options.destination === null ? '' : ` Destination="${escape(options.destination ?? options.acsURL)}"`;
  const nameId = options.emailAsAttribute
    ? `<saml:NameID Format="urn:oasis:names:tc:SAML:2.0:nameid-format:persistent">${randomUUID()}</saml:NameID>`
    : `<saml:NameID Format="urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress">${escape(options.email)}</saml:NameID>`;
  const attributes = [
    ...(options.emailAsAttribute ? [['email', options.email]] : []),
    ...(options.displayName ? [['displayName', options.displayName]] : []),
  ]
    .map(([name, value]) => `<saml:Attribute Name="${name}"><saml:AttributeValue>${escape(value!)}</saml:AttributeValue></saml:Attribute>`)
    .join('');
  return (
    `<samlp:Response xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol" xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion" ID="_r${randomUUID().replace(/-/g, '')}" Version="2.0" IssueInstant="${iso(now)}"${destination}${inResponseTo}>` +
    `<saml:Issuer>${issuer}</saml:Issuer>` +
    `<samlp:Status><samlp:StatusCode Value="urn:oasis:names:tc:SAML:2.0:status:Success"/></samlp:Status>` +
    `<saml:Assertion ID="${assertionId}" Version="2.0" IssueInstant="${iso(now)}">` +
    `<saml:Issuer>${issuer}</saml:Issuer>` +
    `<saml:Subject>${nameId}<saml:SubjectConfirmation Method="urn:oasis:names:tc:SAML:2.0:cm:bearer">` +
    `<saml:SubjectConfirmationData${inResponseTo} Recipient="${escape(options.recipient ?? options.acsURL)}" NotOnOrAfter="${iso(notOnOrAfter)}"/>` +
    `</saml:SubjectConfirmation></saml:Subject>` +
    `<saml:Conditions NotBefore="${iso(notBefore)}" NotOnOrAfter="${iso(notOnOrAfter)}"><saml:AudienceRestriction><saml:Audience>${escape(options.audience)}</saml:Audience></saml:AudienceRestriction></saml:Conditions>` +
    `<saml:AuthnStatement AuthnInstant="${iso(now)}" SessionIndex="${assertionId}"><saml:AuthnContext><saml:AuthnContextClassRef>urn:oasis:names:tc:SAML:2.0:ac:classes:PasswordProtectedTransport</saml:AuthnContextClassRef></saml:AuthnContext></saml:AuthnStatement>` +
    (attributes ? `<saml:AttributeStatement>${attributes}</saml:AttributeStatement>` : '') +
    `</saml:Assertion></samlp:Response>`
  );
}

/** Signs the assertion (default) or the whole response with `key`, enveloped, RSA-SHA256, exclusive C14N. */
export function signResponse(xml: string, key: Pick<TestIdentityProvider, 'privateKey' | 'certificate'>, target: 'assertion' | 'response' = 'assertion'): string {
  const element = target === 'assertion' ? 'Assertion' : 'Response';
  const signature = new SignedXml({
    privateKey: key.privateKey,
    publicCert: key.certificate,
    signatureAlgorithm: 'http://www.w3.org/2001/04/xmldsig-more#rsa-sha256',
    canonicalizationAlgorithm: 'http://www.w3.org/2001/10/xml-exc-c14n#',
  });
  signature.addReference({
    xpath: `/*[local-name(.)='Response']${target === 'assertion' ? "/*[local-name(.)='Assertion']" : ''}`,
    transforms: ['http://www.w3.org/2000/09/xmldsig#enveloped-signature', 'http://www.w3.org/2001/10/xml-exc-c14n#'],
    digestAlgorithm: 'http://www.w3.org/2001/04/xmlenc#sha256',
  });
  signature.computeSignature(xml, { location: { reference: `//*[local-name(.)='${element}']/*[local-name(.)='Issuer']`, action: 'after' } });
  return signature.getSignedXml();
}

/** The form body an identity provider has the browser post to the ACS URL. */
export function acsForm(xml: string, relayState?: string): string {
  const form = new URLSearchParams({ SAMLResponse: Buffer.from(xml, 'utf8').toString('base64') });
  if (relayState !== undefined) form.set('RelayState', relayState);
  return form.toString();
}

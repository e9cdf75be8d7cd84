/**
 * Signing in through SAML over real HTTP, against a test identity provider
 * whose key and certificate are made here: the start URL redirects with a real
 * AuthnRequest, the ACS takes a signed response to it, and the user comes out a
 * member (default role and team) with a working API token. Then every way a
 * response can be wrong (another key, tampered, replayed, expired, another
 * audience, Destination or Recipient, unknown or no InResponseTo, unsigned),
 * each refused with nothing written.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { SAML_CLOCK_SKEW_MS, SAML_REQUEST_TTL_MS } from '../../src/auth/saml.ts';
import { newId } from '../../src/ids.ts';
import { SAML_TOKEN_TTL_MS } from '../../src/services/saml-sign-in.ts';
import { databaseFingerprint } from '../helpers/rest-fixture.ts';
import { assertMatchesSpec } from '../helpers/openapi.ts';
import { acsForm, buildResponse, createIdentityProvider, readAuthnRequest, signResponse, type AuthnRequest, type ResponseOptions, type TestIdentityProvider } from '../helpers/saml-idp.ts';
import { expectError, useTestServer } from '../helpers/server.ts';

const { server, ada, grace } = useTestServer({ users: ['Ada', 'Grace'] });

interface Provider {
  id: string;
  service: { acsURL: string; startURL: string; entityID: string };
}

let org: string;
let teamId: string;
let idp: TestIdentityProvider;
let provider: Provider;

/** Creates an active provider of `organizationId` for `identity` over the API. */
async function createProvider(organizationId: string, identity: TestIdentityProvider, extra: Record<string, unknown> = {}): Promise<Provider> {
  const res = await server.request('POST', `/v1/orgs/${organizationId}/saml`, {
    token: ada.token,
    body: { label: 'Test IdP', ssoURL: identity.ssoURL, entityID: identity.entityID, certificate: identity.certificate, ...extra },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  assertMatchesSpec('createOrganizationSAMLProvider', 201, res.body);
  expect(res.body.status).toBe('active');
  return res.body;
}

/** Follows a start URL (without going on to the identity provider): the AuthnRequest it carries. */
async function start(target: Provider, relayState?: string): Promise<AuthnRequest> {
  const url = new URL(target.service.startURL);
  if (relayState !== undefined) url.searchParams.set('RelayState', relayState);
  const res = await fetch(url, { redirect: 'manual' });
  expect(res.status, await res.clone().text()).toBe(302);
  expect(res.headers.get('cache-control')).toBe('no-store');
  return readAuthnRequest(res.headers.get('location')!);
}

/** POSTs a response to a provider's ACS as a browser does. */
async function post(target: Provider, xml: string, relayState?: string) {
  const res = await fetch(target.service.acsURL, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: acsForm(xml, relayState),
    redirect: 'manual',
  });
  const text = await res.text();
  let json: any = null;
  try {
    json = JSON.parse(text);
  } catch {
    // the token page
  }
  return { status: res.status, headers: res.headers, text, body: json };
}

/** A response to `request` for `email`, as `identity` writes it. */
function responseTo(request: AuthnRequest | null, email: string, options: Partial<ResponseOptions> = {}, target = provider, identity = idp): string {
  return buildResponse(identity, { inResponseTo: request?.id ?? null, acsURL: target.service.acsURL, audience: target.service.entityID, email, ...options });
}

/** The token shown on the page an ACS answers without RelayState. */
function tokenOnPage(html: string): string {
  const token = /<code id="token">([^<]+)<\/code>/.exec(html)?.[1];
  if (!token) throw new Error(`No token on the page: ${html.slice(0, 500)}`);
  return token;
}

let emails = 0;
const newEmail = (name: string) => `${name}-${process.pid}-${++emails}@corp.example.com`;

beforeAll(async () => {
  org = await server.createOrg(ada, 'SSO org');
  teamId = newId();
  await server.app.db.team.create({ data: { id: teamId, organizationId: org, title: 'Newcomers' } });
  idp = createIdentityProvider('main');
  provider = await createProvider(org, idp, { defaultRole: 'edit', defaultTeam: teamId });
});

describe('the start URL', () => {
  it("redirects to the identity provider's ssoURL with a real AuthnRequest, whose ID is stored until it expires", async () => {
    const before = Date.now();
    const request = await start(provider);
    expect(request.target).toBe(idp.ssoURL);
    expect(request.destination).toBe(idp.ssoURL);
    expect(request.issuer).toBe(provider.service.entityID);
    expect(request.acsURL).toBe(provider.service.acsURL);
    expect(request.id).toMatch(/^_[0-9a-f]+$/);
    const stored = await server.app.db.samlRequest.findUniqueOrThrow({ where: { id: request.id } });
    expect(stored.providerId).toBe(provider.id);
    expect(stored.expiresAt.getTime()).toBeGreaterThanOrEqual(before + SAML_REQUEST_TTL_MS - 1000);
    expect(stored.expiresAt.getTime()).toBeLessThanOrEqual(Date.now() + SAML_REQUEST_TTL_MS);
  });

  it('carries a RelayState that is a path of the web app, and refuses any other', async () => {
    expect((await start(provider, '/o/docs?tab=1')).relayState).toBe('/o/docs?tab=1');
    for (const relayState of ['//evil.example.com/x', 'https://evil.example.com/', '/\\evil.example.com', 'docs', '/a#b']) {
      const url = new URL(provider.service.startURL);
      url.searchParams.set('RelayState', relayState);
      const res = await fetch(url, { redirect: 'manual' });
      expect(res.status, relayState).toBe(400);
      expect(((await res.json()) as { error: { message: string } }).error.message).toMatch(/^RelayState: /);
    }
  });

  it('answers 404 for an unknown provider and 409 for a pending one', async () => {
    const unknown = await fetch(`${server.baseUrl}/saml/nope/start`, { redirect: 'manual' });
    expect(unknown.status).toBe(404);
    const pending = await server.request('POST', `/v1/orgs/${org}/saml`, { token: ada.token, body: { label: 'Half done', ssoURL: idp.ssoURL } });
    expect(pending.body.status).toBe('pending');
    const res = await fetch(pending.body.service.startURL, { redirect: 'manual' });
    expect(res.status).toBe(409);
    expect(((await res.json()) as { error: { message: string } }).error.message).toMatch(/not configured yet/);
  });

  it('serves the service provider metadata at its entity ID', async () => {
    const res = await fetch(provider.service.entityID);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/samlmetadata\+xml/);
    const xml = await res.text();
    expect(xml).toContain(`entityID="${provider.service.entityID}"`);
    expect(xml).toContain(`Location="${provider.service.acsURL}"`);
  });

  it('answers 405 for another method and 404 for another path under /saml', async () => {
    expect((await fetch(provider.service.startURL, { method: 'POST' })).status).toBe(405);
    expect((await fetch(provider.service.acsURL)).status).toBe(405);
    expect((await fetch(`${server.baseUrl}/saml/${provider.id}/other`)).status).toBe(404);
  });
});

describe('a valid response', () => {
  it('signs a new user in: created, an SSO member with the default role and team, with a token that works (signed assertion, token page)', async () => {
    const email = newEmail('new');
    const request = await start(provider);
    const res = await post(provider, signResponse(responseTo(request, email, { displayName: 'Nora New' }), idp));
    expect(res.status, res.text).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.headers.get('content-security-policy')).toContain("default-src 'none'");
    const token = tokenOnPage(res.text);

    const user = await server.app.db.user.findUniqueOrThrow({ where: { email } });
    expect(user.displayName).toBe('Nora New');
    const member = await server.app.db.member.findUniqueOrThrow({ where: { organizationId_userId: { organizationId: org, userId: user.id } } });
    expect(member).toMatchObject({ role: 'edit', sso: true, disabled: false });
    expect(await server.app.db.teamMember.findUnique({ where: { teamId_userId: { teamId, userId: user.id } } })).toMatchObject({ role: 'member' });
    const apiToken = await server.app.db.apiToken.findFirstOrThrow({ where: { userId: user.id } });
    expect(apiToken.label).toBe('SAML sign-in: Test IdP');
    expect(Math.abs(apiToken.expiresAt!.getTime() - (Date.now() + SAML_TOKEN_TTL_MS))).toBeLessThan(60_000);
    // The request is used up.
    expect(await server.app.db.samlRequest.findUnique({ where: { id: request.id } })).toBeNull();

    const me = await server.request('GET', '/v1/user', { token });
    expect(me.status).toBe(200);
    expect(me.body.email).toBe(email);
    const asMember = await server.request('GET', `/v1/orgs/${org}/members/${user.id}`, { token });
    expect(asMember.status).toBe(200);
    assertMatchesSpec('getMemberInOrganizationById', 200, asMember.body);
    expect(asMember.body).toMatchObject({ role: 'edit', sso: true, teams: 1 });
  });

  it('matches an existing user by e-mail, case-insensitively (signed response, RelayState: 303 with the token in the fragment)', async () => {
    const existing = await server.createUser('Lone');
    const request = await start(provider, '/o/welcome');
    const res = await post(provider, signResponse(responseTo(request, existing.email.toUpperCase()), idp, 'response'), '/o/welcome');
    expect(res.status, res.text).toBe(303);
    const location = new URL(res.headers.get('location')!);
    expect(`${location.origin}${location.pathname}`).toBe(`${server.app.config.appUrl}/o/welcome`);
    const fragment = new URLSearchParams(location.hash.slice(1));
    expect(fragment.get('organization')).toBe(org);
    const token = fragment.get('token')!;
    expect((await server.request('GET', `/v1/orgs/${org}`, { token })).status).toBe(200);
    const me = await server.request('GET', '/v1/user', { token });
    expect(me.body.id).toBe(existing.id);
    expect(await server.app.db.user.count({ where: { email: existing.email } })).toBe(1);
    const member = await server.app.db.member.findUniqueOrThrow({ where: { organizationId_userId: { organizationId: org, userId: existing.id } } });
    expect(member).toMatchObject({ role: 'edit', sso: true });
  });

  it('reads the e-mail from an attribute when the NameID is not one', async () => {
    const email = newEmail('attr');
    const request = await start(provider);
    const res = await post(provider, signResponse(responseTo(request, email, { emailAsAttribute: true }), idp));
    expect(res.status, res.text).toBe(200);
    expect(await server.app.db.user.findUnique({ where: { email } })).not.toBeNull();
  });

  it('signs an existing member in with their own role: no default team, and they become an SSO member', async () => {
    const member = await server.createUser('Member');
    await server.addMember(org, member, 'admin');
    const request = await start(provider);
    const res = await post(provider, signResponse(responseTo(request, member.email), idp));
    expect(res.status, res.text).toBe(200);
    expect(await server.app.db.member.findUniqueOrThrow({ where: { organizationId_userId: { organizationId: org, userId: member.id } } })).toMatchObject({ role: 'admin', sso: true });
    expect(await server.app.db.teamMember.findUnique({ where: { teamId_userId: { teamId, userId: member.id } } })).toBeNull();
    // Their earlier token keeps working.
    expect((await server.request('GET', `/v1/orgs/${org}`, { token: member.token })).status).toBe(200);
  });

  it('accepts a response within the documented clock skew', async () => {
    const request = await start(provider);
    const now = Date.now();
    const xml = responseTo(request, newEmail('skew'), { notBefore: new Date(now + SAML_CLOCK_SKEW_MS / 2), notOnOrAfter: new Date(now + 5 * 60_000) });
    expect((await post(provider, signResponse(xml, idp))).status).toBe(200);
    const late = await start(provider);
    const lateXml = responseTo(late, newEmail('skew'), { issueInstant: new Date(now - 10 * 60_000), notOnOrAfter: new Date(now - SAML_CLOCK_SKEW_MS / 2) });
    expect((await post(provider, signResponse(lateXml, idp))).status).toBe(200);
  });
});

describe('refused responses: 4xx, and nothing written', () => {
  /** Posts `xml` and expects `status` with `message`, and no row of any table added or changed. */
  async function expectRefused(xml: string, message: RegExp, status = 403) {
    const before = await databaseFingerprint(server);
    const res = await post(provider, xml);
    expectError(res as never, status, message);
    expect(await databaseFingerprint(server)).toEqual(before);
  }

  it('refuses a response signed by another key', async () => {
    const request = await start(provider);
    const other = createIdentityProvider('impostor');
    await expectRefused(signResponse(responseTo(request, newEmail('x')), other), /^SAML response refused: Invalid signature/);
    await expectRefused(signResponse(responseTo(request, newEmail('x')), other, 'response'), /^SAML response refused: Invalid signature/);
  });

  it('refuses an assertion changed after it was signed', async () => {
    const request = await start(provider);
    const email = newEmail('victim');
    const signed = signResponse(responseTo(request, newEmail('attacker')), idp);
    const tampered = signed.replace(/(<saml:NameID[^>]*>)[^<]+/, `$1${email}`);
    expect(tampered).not.toBe(signed);
    await expectRefused(tampered, /^SAML response refused: Invalid signature/);
    // A signed response whose assertion is changed (its role-giving attributes, here its audience window).
    const signedResponse = signResponse(responseTo(request, newEmail('attacker')), idp, 'response');
    await expectRefused(signedResponse.replace(/NotOnOrAfter="[^"]+"/g, 'NotOnOrAfter="2999-01-01T00:00:00.000Z"'), /^SAML response refused: Invalid signature/);
  });

  it('refuses an unsigned response', async () => {
    const request = await start(provider);
    await expectRefused(responseTo(request, newEmail('x')), /^SAML response refused: Invalid signature/);
  });

  it('refuses a response replayed, and an assertion replayed in answer to another request', async () => {
    const request = await start(provider);
    const assertionId = `_replay${newId()}`;
    const xml = signResponse(responseTo(request, newEmail('once'), { assertionId }), idp);
    expect((await post(provider, xml)).status).toBe(200);
    await expectRefused(xml, /^SAML response refused: InResponseTo is not valid/);
    // The same assertion ID, re-signed as an answer to a new request: the replay cache has it.
    const second = await start(provider);
    await expectRefused(signResponse(responseTo(second, newEmail('twice'), { assertionId }), idp), /^SAML response refused: assertion "_replay\w+" was already used \(replay\)/);
    // The refused attempt did not use up the request.
    expect(await server.app.db.samlRequest.findUnique({ where: { id: second.id } })).not.toBeNull();
  });

  it('refuses an expired assertion, and one not yet valid, beyond the clock skew', async () => {
    const request = await start(provider);
    const now = Date.now();
    const expired = responseTo(request, newEmail('x'), { issueInstant: new Date(now - 3_600_000), notOnOrAfter: new Date(now - 2 * SAML_CLOCK_SKEW_MS) });
    await expectRefused(signResponse(expired, idp), /^SAML response refused: .*(expired|subject confirmation)/i);
    const early = responseTo(request, newEmail('x'), { notBefore: new Date(now + 2 * SAML_CLOCK_SKEW_MS) });
    await expectRefused(signResponse(early, idp), /^SAML response refused: SAML assertion not yet valid/);
  });

  it('refuses a response for another audience', async () => {
    const request = await start(provider);
    await expectRefused(signResponse(responseTo(request, newEmail('x'), { audience: 'https://other.example.com/sp' }), idp), /^SAML response refused: SAML assertion audience mismatch/);
  });

  it('refuses a response for another Destination or Recipient, or without a Destination', async () => {
    const request = await start(provider);
    const elsewhere = 'https://other.example.com/acs';
    await expectRefused(signResponse(responseTo(request, newEmail('x'), { destination: elsewhere }), idp, 'response'), /^SAML response refused: its Destination "https:\/\/other.example.com\/acs" is not this provider's ACS URL/);
    await expectRefused(signResponse(responseTo(request, newEmail('x'), { destination: null }), idp, 'response'), /^SAML response refused: its Destination null/);
    await expectRefused(signResponse(responseTo(request, newEmail('x'), { recipient: elsewhere }), idp), /^SAML response refused: its Recipient "https:\/\/other.example.com\/acs"/);
  });

  it('refuses an unknown InResponseTo, none, an expired request and another provider\'s request', async () => {
    await expectRefused(signResponse(responseTo({ id: '_unknown' } as AuthnRequest, newEmail('x')), idp), /^SAML response refused: InResponseTo is not valid/);
    await expectRefused(signResponse(responseTo(null, newEmail('x')), idp), /^SAML response refused: InResponseTo is missing/);
    const request = await start(provider);
    await server.app.db.samlRequest.update({ where: { id: request.id }, data: { expiresAt: new Date(Date.now() - 1000) } });
    await expectRefused(signResponse(responseTo(request, newEmail('x')), idp), /^SAML response refused: InResponseTo is not valid/);
    const otherProvider = await createProvider(org, idp);
    const otherRequest = await start(otherProvider);
    await expectRefused(signResponse(responseTo(otherRequest, newEmail('x')), idp), /^SAML response refused: InResponseTo is not valid/);
  });

  it("refuses an assertion whose issuer is not the provider's entity ID", async () => {
    const request = await start(provider);
    await expectRefused(signResponse(responseTo(request, newEmail('x'), { issuer: 'https://other-idp.example.com' }), idp), /^SAML response refused: its issuer "https:\/\/other-idp.example.com"/);
  });

  it('refuses a form without a SAMLResponse (400) and a body that is not a form (415)', async () => {
    const empty = await fetch(provider.service.acsURL, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'RelayState=%2F' });
    expect(empty.status).toBe(400);
    expect(((await empty.json()) as { error: { message: string } }).error.message).toMatch(/^SAMLResponse: missing/);
    const json = await fetch(provider.service.acsURL, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(json.status).toBe(415);
    const garbage = await post(provider, 'not xml at all');
    expect(garbage.status).toBe(403);
  });

  it('does not send the token to a RelayState that is not a path of the web app', async () => {
    const request = await start(provider);
    const res = await post(provider, signResponse(responseTo(request, newEmail('relay')), idp), 'https://evil.example.com/steal');
    expect(res.status).toBe(200);
    expect(res.headers.get('location')).toBeNull();
    tokenOnPage(res.text);
  });
});

describe('accounts the identity provider may not sign in', () => {
  it('refuses a disabled member, with nothing written', async () => {
    const disabled = await server.createUser('Disabled');
    await server.app.db.member.create({ data: { id: newId(), organizationId: org, userId: disabled.id, role: 'read', disabled: true, sso: true } });
    const request = await start(provider);
    const before = await databaseFingerprint(server);
    const res = await post(provider, signResponse(responseTo(request, disabled.email), idp));
    expectError(res as never, 403, /is disabled/);
    expect(await databaseFingerprint(server)).toEqual(before);
  });

  it('refuses an account of other organizations until an admin marks it as an SSO member here', async () => {
    const elsewhere = await server.createOrg(grace, 'Grace org');
    expect(elsewhere).toBeTruthy();
    const request = await start(provider);
    const before = await databaseFingerprint(server);
    const refused = await post(provider, signResponse(responseTo(request, grace.email), idp));
    expectError(refused as never, 403, /belongs to other organizations: an admin of this organization makes it an SSO member first/);
    expect(await databaseFingerprint(server)).toEqual(before);

    // An admin adds Grace, and marks her as an SSO member: then she signs in through the provider.
    await server.addMember(org, grace, 'review');
    const marked = await server.request('POST', `/v1/orgs/${org}/members/${grace.id}/sso`, { token: ada.token });
    expect(marked.status).toBe(200);
    const again = await start(provider);
    const res = await post(provider, signResponse(responseTo(again, grace.email), idp));
    expect(res.status, res.text).toBe(200);
    const token = tokenOnPage(res.text);
    expect((await server.request('GET', `/v1/orgs/${org}`, { token })).status).toBe(200);
    expect(await server.app.db.member.findUniqueOrThrow({ where: { organizationId_userId: { organizationId: org, userId: grace.id } } })).toMatchObject({ role: 'review', sso: true });
  });
});

describe('Organization.sso', () => {
  it('lets new members join only through SAML; existing members keep their tokens', async () => {
    const enforced = await server.createOrg(ada, 'Enforced');
    const reader = await server.createUser('Reader');
    await server.addMember(enforced, reader, 'read');
    const patched = await server.request('PATCH', `/v1/orgs/${enforced}`, { token: ada.token, body: { sso: true, emailDomains: ['example.com'] } });
    expect(patched.status).toBe(200);

    const joiner = await server.createUser('Joiner');
    const join = await server.request('POST', `/v1/orgs/${enforced}/join`, { token: joiner.token });
    expectError(join, 403, /requires single sign-on/);
    expect(await server.app.db.member.count({ where: { organizationId: enforced, userId: joiner.id } })).toBe(0);
    expect((await server.request('GET', `/v1/orgs/${enforced}`, { token: reader.token })).status).toBe(200);

    const enforcedIdp = createIdentityProvider('enforced');
    const enforcedProvider = await createProvider(enforced, enforcedIdp);
    const email = newEmail('joiner');
    const request = await start(enforcedProvider);
    const res = await post(enforcedProvider, signResponse(responseTo(request, email, {}, enforcedProvider, enforcedIdp), enforcedIdp));
    expect(res.status, res.text).toBe(200);
    const user = await server.app.db.user.findUniqueOrThrow({ where: { email } });
    expect(await server.app.db.member.findUniqueOrThrow({ where: { organizationId_userId: { organizationId: enforced, userId: user.id } } })).toMatchObject({ role: 'read', sso: true });
  });

  it("refuses a response for one provider posted to another provider's ACS", async () => {
    const otherOrg = await server.createOrg(ada, 'Other SSO org');
    const otherIdp = createIdentityProvider('other');
    const other = await createProvider(otherOrg, otherIdp);
    const request = await start(other);
    // Signed by the other identity provider, for the other provider, posted to ours.
    const xml = signResponse(responseTo(request, newEmail('x'), {}, other, otherIdp), otherIdp);
    const before = await databaseFingerprint(server);
    expectError((await post(provider, xml)) as never, 403);
    expect(await databaseFingerprint(server)).toEqual(before);
  });
});

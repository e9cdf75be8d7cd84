/**
 * SAML providers over REST (list, create, get, update, delete), the SSO
 * listing and setUserAsSSOMember: answers validated against the OpenAPI
 * document, the certificate checked when saved, default teams of the
 * organization only, admins only, and nothing for another organization's token.
 * Once through GitBook's client; the GraphQL side with nested queries.
 */
import { GitBookAPI, MemberRole } from '@gitbook/api';
import { beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../src/ids.ts';
import { assertMatchesSpec } from '../helpers/openapi.ts';
import { databaseFingerprint } from '../helpers/rest-fixture.ts';
import { createCertificate, createIdentityProvider, type TestIdentityProvider } from '../helpers/saml-idp.ts';
import { expectError, useTestServer } from '../helpers/server.ts';

const { server, ada, rita, bob } = useTestServer({ users: ['Ada', 'Rita', 'Bob'] }); // admin, reader, another organization's admin

let org: string;
let bobOrg: string;
let team: { id: string; title: string };
let bobTeam: string;
let idp: TestIdentityProvider;

beforeAll(async () => {
  org = await server.createOrg(ada, 'SAML org');
  await server.addMember(org, rita, 'read');
  bobOrg = await server.createOrg(bob, 'Bob org');
  team = { id: newId(), title: 'Engineering' };
  await server.app.db.team.create({ data: { ...team, organizationId: org } });
  bobTeam = newId();
  await server.app.db.team.create({ data: { id: bobTeam, organizationId: bobOrg, title: 'Bob team' } });
  idp = createIdentityProvider('crud');
});

const base = () => `/v1/orgs/${org}/saml`;

async function create(body: Record<string, unknown>, token = ada.token) {
  const res = await server.request('POST', base(), { token, body });
  // A pending provider lacks ssoURL, entityID or certificate, which the contract requires (docs/decisions.md).
  if (res.status === 201 && res.body.status === 'active') assertMatchesSpec('createOrganizationSAMLProvider', 201, res.body);
  return res;
}

describe('POST and GET /v1/orgs/{organizationId}/saml[/{samlProviderId}]', () => {
  it('creates an active provider: this service as its service provider, the default team as a Team, Location', async () => {
    const res = await create({ label: 'Okta', ssoURL: idp.ssoURL, entityID: idp.entityID, certificate: idp.certificate, defaultRole: 'edit', defaultTeam: team.id });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const id = res.body.id as string;
    expect(res.body).toMatchObject({
      object: 'saml-provider',
      label: 'Okta',
      ssoURL: idp.ssoURL,
      entityID: idp.entityID,
      defaultRole: 'edit',
      status: 'active',
      defaultTeam: { object: 'team', id: team.id, title: team.title, members: 0, spaces: 0, permissions: { admin: true, view: true } },
      service: {
        acsURL: `${server.baseUrl}/saml/${id}/acs`,
        startURL: `${server.baseUrl}/saml/${id}/start`,
        entityID: `${server.baseUrl}/saml/${id}/metadata`,
      },
      urls: { location: `${server.baseUrl}/v1/orgs/${org}/saml/${id}` },
    });
    expect(res.body.certificate).toContain('-----BEGIN CERTIFICATE-----');
    expect(res.headers.get('location')).toBe(res.body.urls.location);

    const got = await server.request('GET', `${base()}/${id}`, { token: ada.token });
    expect(got.status).toBe(200);
    assertMatchesSpec('getOrganizationSAMLProviderById', 200, got.body);
    expect(got.body).toEqual(res.body);
  });

  it('creates a pending provider from a label alone (default role read), active once ssoURL, entityID and certificate are set', async () => {
    const res = await server.request('POST', base(), { token: ada.token, body: { label: 'Later' } });
    expect(res.status).toBe(201);
    // The contract requires ssoURL, entityID and certificate: a pending provider has none yet (docs/decisions.md).
    expect(res.body).toMatchObject({ status: 'pending', defaultRole: 'read' });
    for (const field of ['ssoURL', 'entityID', 'certificate', 'defaultTeam']) expect(res.body).not.toHaveProperty(field);
    assertMatchesSpec('createOrganizationSAMLProvider', 201, { ...res.body, ssoURL: idp.ssoURL, entityID: idp.entityID, certificate: idp.certificate });
    const id = res.body.id;
    const steps: Array<[Record<string, unknown>, string]> = [
      [{ ssoURL: idp.ssoURL }, 'pending'],
      [{ entityID: idp.entityID }, 'pending'],
      [{ certificate: idp.certificate }, 'active'],
      [{ certificate: null }, 'pending'],
    ];
    for (const [body, status] of steps) {
      const patched = await server.request('PATCH', `${base()}/${id}`, { token: ada.token, body });
      expect(patched.status, JSON.stringify(patched.body)).toBe(200);
      expect(patched.body.status, JSON.stringify(body)).toBe(status);
      if (status === 'active') assertMatchesSpec('updateOrganizationSAMLProvider', 200, patched.body);
    }
  });

  it('updates the label, role (null: guests) and default team, and clears the team with null', async () => {
    const id = (await create({ label: 'Azure', ssoURL: idp.ssoURL, entityID: idp.entityID, certificate: idp.certificate })).body.id;
    const patched = await server.request('PATCH', `${base()}/${id}`, { token: ada.token, body: { label: '  Azure AD ', defaultRole: null, defaultTeam: team.id } });
    expect(patched.status).toBe(200);
    assertMatchesSpec('updateOrganizationSAMLProvider', 200, patched.body);
    expect(patched.body).toMatchObject({ label: 'Azure AD', defaultRole: null, defaultTeam: { id: team.id } });
    const cleared = await server.request('PATCH', `${base()}/${id}`, { token: ada.token, body: { defaultTeam: null } });
    expect(cleared.body).not.toHaveProperty('defaultTeam');
    expect(cleared.body.label).toBe('Azure AD');
    expectError(await server.request('PATCH', `${base()}/${id}`, { token: ada.token, body: { label: null } }), 400, /^label: /);
  });

  it('lists the providers oldest first, paged', async () => {
    const listed = await server.request('GET', base(), { token: ada.token });
    expect(listed.status).toBe(200);
    const active = { ...listed.body, items: listed.body.items.filter((p: { status: string }) => p.status === 'active') };
    assertMatchesSpec('listSAMLProvidersInOrganizationById', 200, active);
    const rows = await server.app.db.samlProvider.findMany({ where: { organizationId: org }, orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] });
    expect(listed.body.items.map((p: { id: string }) => p.id)).toEqual(rows.map((r) => r.id));
    expect(listed.body.count).toBe(rows.length);
    const page = await server.request('GET', `${base()}?limit=1`, { token: ada.token });
    expect(page.body.items).toHaveLength(1);
    expect(page.body.next.page).toEqual(expect.any(String));
    const second = await server.request('GET', `${base()}?limit=1&page=${encodeURIComponent(page.body.next.page)}`, { token: ada.token });
    expect(second.body.items[0].id).toBe(rows[1]!.id);
  });

  it('deletes a provider (205), then answers 204; its requests go with it', async () => {
    const id = (await create({ label: 'Gone', ssoURL: idp.ssoURL, entityID: idp.entityID, certificate: idp.certificate })).body.id;
    await server.app.db.samlRequest.create({ data: { id: `_${newId()}`, providerId: id, expiresAt: new Date(Date.now() + 60_000) } });
    const deleted = await server.request('DELETE', `${base()}/${id}`, { token: ada.token });
    expect(deleted.status).toBe(205);
    assertMatchesSpec('deleteOrganizationSAMLProvider', 205, deleted.body);
    expect(await server.app.db.samlRequest.count({ where: { providerId: id } })).toBe(0);
    expect((await server.request('DELETE', `${base()}/${id}`, { token: ada.token })).status).toBe(204);
    expectError(await server.request('GET', `${base()}/${id}`, { token: ada.token }), 404, /SAML provider/);
  });
});

describe('certificates', () => {
  const inner = (pem: string) => pem.replace(/-----[A-Z ]+-----/g, '').replace(/\s+/g, '');

  it('refuses what is not a PEM X.509 certificate with an RSA key, valid now: 400 naming the field, nothing written', async () => {
    const expired = createCertificate({ notBefore: new Date(Date.now() - 3 * 86_400_000), notAfter: new Date(Date.now() - 86_400_000) });
    const future = createCertificate({ notBefore: new Date(Date.now() + 86_400_000), notAfter: new Date(Date.now() + 2 * 86_400_000) });
    const cases: Array<[string, RegExp]> = [
      ['hello', /^certificate: not PEM/],
      [inner(idp.certificate), /^certificate: not PEM/],
      [idp.privateKey, /^certificate: a PEM RSA PRIVATE KEY, not an X.509 certificate/],
      ['-----BEGIN CERTIFICATE-----\nbm90IGEgY2VydGlmaWNhdGU=\n-----END CERTIFICATE-----', /^certificate: not a valid X.509 certificate/],
      [`${idp.certificate}\n${idp.certificate}`, /^certificate: one certificate only/],
      [expired.certificate, /^certificate: the certificate expired on /],
      [future.certificate, /^certificate: the certificate is not valid before /],
    ];
    const id = (await create({ label: 'Checked' })).body.id;
    for (const [certificate, message] of cases) {
      const before = await databaseFingerprint(server);
      expectError(await server.request('POST', base(), { token: ada.token, body: { label: 'Bad', certificate } }), 400, message);
      expectError(await server.request('PATCH', `${base()}/${id}`, { token: ada.token, body: { certificate } }), 400, message);
      expect(await databaseFingerprint(server)).toEqual(before);
    }
  });

  it('stores the certificate normalized (surrounding blank lines and CRLF line ends accepted)', async () => {
    const res = await create({ label: 'Spaced', certificate: `\n\n${idp.certificate.replace(/\n/g, '\r\n')}\n` });
    expect(res.status).toBe(201);
    expect(inner(res.body.certificate)).toBe(inner(idp.certificate));
    expect(res.body.certificate.startsWith('-----BEGIN CERTIFICATE-----\n')).toBe(true);
  });

  it('refuses an ssoURL that is not an http(s) URL, and out-of-contract lengths', async () => {
    expectError(await server.request('POST', base(), { token: ada.token, body: { label: 'x', ssoURL: 'javascript:alert(1)' } }), 400, /^ssoURL: /);
    expectError(await server.request('POST', base(), { token: ada.token, body: { label: 'x'.repeat(31) } }), 400, /^label: /);
    expectError(await server.request('POST', base(), { token: ada.token, body: { label: ' ' } }), 400, /^label: /);
    expectError(await server.request('POST', base(), { token: ada.token, body: { label: 'x', defaultRole: 'owner' } }), 400, /defaultRole/);
  });
});

describe('default teams', () => {
  it("answers 404 for a team of another organization or an unknown one, and writes nothing", async () => {
    const before = await databaseFingerprint(server);
    expectError(await server.request('POST', base(), { token: ada.token, body: { label: 'x', defaultTeam: bobTeam } }), 404, /^Team /);
    expectError(await server.request('POST', base(), { token: ada.token, body: { label: 'x', defaultTeam: 'no-such-team' } }), 404, /^Team /);
    const id = (await server.app.db.samlProvider.findFirstOrThrow({ where: { organizationId: org } })).id;
    expectError(await server.request('PATCH', `${base()}/${id}`, { token: ada.token, body: { defaultTeam: bobTeam } }), 404, /^Team /);
    expect(await databaseFingerprint(server)).toEqual(before);
  });
});

describe('who may', () => {
  let providerId: string;
  beforeAll(async () => {
    providerId = (await create({ label: 'Shared', ssoURL: idp.ssoURL, entityID: idp.entityID, certificate: idp.certificate })).body.id;
  });

  const routes = () =>
    [
      ['GET', base(), undefined],
      ['POST', base(), { label: 'x' }],
      ['GET', `${base()}/${providerId}`, undefined],
      ['PATCH', `${base()}/${providerId}`, { label: 'x' }],
      ['DELETE', `${base()}/${providerId}`, undefined],
    ] as const;

  it('refuses a member who is not an admin (403), and lists the SSO logins for them', async () => {
    await server.expectErrors(routes(), rita.token, 403);
    const logins = await server.request('GET', `/v1/orgs/${org}/sso`, { token: rita.token });
    expect(logins.status).toBe(200);
    assertMatchesSpec('listSSOProviderLoginsInOrganization', 200, logins.body);
    const active = await server.app.db.samlProvider.findMany({
      where: { organizationId: org, ssoURL: { not: null }, entityID: { not: null }, certificate: { not: null } },
      orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
    });
    expect(logins.body.items).toEqual(active.map((p) => ({ id: p.id, label: p.label, startURL: `${server.baseUrl}/saml/${p.id}/start` })));
    expect(logins.body.items.length).toBeGreaterThan(0);
    expectError(await server.request('POST', `/v1/orgs/${org}/members/${rita.id}/sso`, { token: rita.token }), 403);
  });

  it("never gives another organization's token a 2xx: 404 on every route, nothing written", async () => {
    const before = await databaseFingerprint(server);
    await server.expectErrors(
      [...routes(), ['GET', `/v1/orgs/${org}/sso`, undefined], ['POST', `/v1/orgs/${org}/members/${rita.id}/sso`, undefined]],
      bob.token,
      404,
    );
    // Bob's own organization does not open Ada's providers either.
    await server.expectErrors(
      [
        ['GET', `/v1/orgs/${bobOrg}/saml/${providerId}`, undefined],
        ['PATCH', `/v1/orgs/${bobOrg}/saml/${providerId}`, { label: 'x' }],
      ],
      bob.token,
      404,
    );
    expect((await server.request('DELETE', `/v1/orgs/${bobOrg}/saml/${providerId}`, { token: bob.token })).status).toBe(204);
    expect(await databaseFingerprint(server)).toEqual(before);
    expect(await server.app.db.samlProvider.count({ where: { id: providerId } })).toBe(1);
  });

  it('answers 401 without a token', async () => {
    await server.expectErrors([...routes(), ['GET', `/v1/orgs/${org}/sso`, undefined]], undefined, 401);
  });
});

describe('POST /v1/orgs/{organizationId}/members/{userId}/sso', () => {
  it('marks a member as an SSO member (200 Member), and answers 404 for a user who is not one', async () => {
    const carol = await server.createUser('Carol');
    await server.addMember(org, carol, 'comment');
    const res = await server.request('POST', `/v1/orgs/${org}/members/${carol.id}/sso`, { token: ada.token });
    expect(res.status).toBe(200);
    assertMatchesSpec('setUserAsSSOMemberForOrganization', 200, res.body);
    expect(res.body).toMatchObject({ object: 'member', id: carol.id, role: 'comment', sso: true });
    // Again: nothing changes.
    expect((await server.request('POST', `/v1/orgs/${org}/members/${carol.id}/sso`, { token: ada.token })).body.sso).toBe(true);
    expectError(await server.request('POST', `/v1/orgs/${org}/members/${bob.id}/sso`, { token: ada.token }), 404, /Member/);
  });
});

describe("GitBook's client", () => {
  it('creates, lists, gets, updates and deletes a provider, lists the SSO logins and marks an SSO member', async () => {
    const api = new GitBookAPI({ authToken: ada.token, endpoint: server.baseUrl });
    const created = await api.orgs.createOrganizationSamlProvider(org, { label: 'Client', ssoURL: idp.ssoURL, entityID: idp.entityID, certificate: idp.certificate, defaultTeam: team.id });
    expect(created.status).toBe(201);
    assertMatchesSpec('createOrganizationSAMLProvider', 201, created.data);
    const id = created.data.id;
    const listed = await api.orgs.listSamlProvidersInOrganizationById(org, { limit: 1000 });
    expect(listed.data.items.map((p) => p.id)).toContain(id);
    const got = await api.orgs.getOrganizationSamlProviderById(org, id);
    expect(got.data.service.startURL).toBe(`${server.baseUrl}/saml/${id}/start`);
    const updated = await api.orgs.updateOrganizationSamlProvider(org, id, { label: 'Client 2', defaultRole: MemberRole.Review });
    assertMatchesSpec('updateOrganizationSAMLProvider', 200, updated.data);
    expect(updated.data).toMatchObject({ label: 'Client 2', defaultRole: 'review', defaultTeam: { id: team.id } });
    const logins = await api.orgs.listSsoProviderLoginsInOrganization(org);
    expect(logins.data.items).toContainEqual({ id, label: 'Client 2', startURL: `${server.baseUrl}/saml/${id}/start` });
    const member = await api.orgs.setUserAsSsoMemberForOrganization(org, rita.id);
    expect(member.data).toMatchObject({ id: rita.id, sso: true });
    const deleted = await api.orgs.deleteOrganizationSamlProvider(org, id);
    expect(deleted.status).toBe(205);
  });
});

describe('GraphQL', () => {
  it('reads providers, their default team and service, and the SSO logins, nested in the organization', async () => {
    const res = await server.graphql(
      `query($org: ID!) { organization(id: $org) {
        samlProviders(limit: 100) { count items { id label status defaultRole defaultTeam { id title members } service { acsURL startURL entityID } } }
        ssoLogins { items { id label startURL } }
      } }`,
      { token: ada.token, variables: { org } },
    );
    expect(res.body.errors).toBeUndefined();
    const { samlProviders, ssoLogins } = res.body.data.organization;
    const withTeam = samlProviders.items.find((p: { defaultTeam: unknown }) => p.defaultTeam);
    expect(withTeam.defaultTeam).toEqual({ id: team.id, title: team.title, members: 0 });
    expect(ssoLogins.items.map((l: { id: string }) => l.id)).toEqual(samlProviders.items.filter((p: { status: string }) => p.status === 'active').map((p: { id: string }) => p.id));
    const one = await server.graphql(`query($org: ID!, $id: ID!) { samlProvider(organizationId: $org, samlProviderId: $id) { id label } }`, {
      token: bob.token,
      variables: { org, id: withTeam.id },
    });
    expect(one.body.errors?.[0]?.extensions?.code).toBe('NOT_FOUND');
  });
});

/**
 * POST /v1/orgs/{organizationId}/ping over real HTTP: it records `lastSeenAt`
 * (at most once a minute, like any real use of the organization, which the
 * `lastSeenAt` member sort then reads) and answers the member's visitor claims,
 * a JWT signed with the organization's ES256 key. A verifier that knows only the
 * organization's JWKS (GET /.well-known/jwks/{organizationId}.json, no token)
 * accepts it and rejects a tampered one; keys rotate with the CLI, retired keys
 * stay published until deleted.
 */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { GitBookAPI } from '@gitbook/api';
import { createLocalJWKSet, createRemoteJWKSet, decodeProtectedHeader, jwtVerify, type JWTPayload } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import { assertMatchesSpec } from '../helpers/openapi.ts';
import { expectError, useTestServer, type TestUser } from '../helpers/server.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const { server, ada, gus, bob } = useTestServer({ users: ['Ada', 'Gus', 'Bob'] }); // admin, guest, another organization's admin
let org: string;
let otherOrg: string;

beforeAll(async () => {
  org = await server.createOrg(ada, 'Visitors');
  otherOrg = await server.createOrg(bob, 'Elsewhere');
  await server.addMember(org, gus, null);
});

const jwksUrl = (organizationId: string) => `${server.baseUrl}/.well-known/jwks/${organizationId}.json`;
const issuer = (organizationId: string) => `${server.baseUrl}/v1/orgs/${organizationId}`;

async function ping(user: TestUser, organizationId = org): Promise<string> {
  const res = await server.request('POST', `/v1/orgs/${organizationId}/ping`, { token: user.token });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  assertMatchesSpec('updateOrganizationMemberLastSeenAt', 200, res.body);
  expect(res.body.serviceVisitorClaims).toBe(res.body.gitbookVisitorClaims);
  return res.body.gitbookVisitorClaims;
}

/** Verifies `token` as a site renderer would: with the organization's JWKS fetched over HTTP, nothing else. */
async function verify(token: string, organizationId = org): Promise<JWTPayload> {
  const keys = createRemoteJWKSet(new URL(jwksUrl(organizationId)), { cacheMaxAge: 0, cooldownDuration: 0 });
  return (await jwtVerify(token, keys, { issuer: issuer(organizationId), algorithms: ['ES256'] })).payload;
}

async function jwks(organizationId = org) {
  const res = await fetch(jwksUrl(organizationId));
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toBe('application/jwk-set+json');
  return (await res.json()) as { keys: Array<Record<string, string>> };
}

const lastSeenAt = async (userId: string, organizationId = org) =>
  (await server.app.db.member.findUniqueOrThrow({ where: { organizationId_userId: { organizationId, userId } } })).lastSeenAt;
/**
 * Moves a member's lastSeenAt by hand, as time passing would. Activity writes do not make the
 * process forget the callers it keeps (they change nobody's rights), and it keeps what it last
 * wrote: told to forget, it reads the moved time.
 */
async function setLastSeenAt(userId: string, value: Date | null, organizationId = org) {
  await server.app.db.member.update({ where: { organizationId_userId: { organizationId, userId } }, data: { lastSeenAt: value } });
  server.app.viewers.forget();
}

function cli(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      'npm',
      ['run', '--silent', 'cli', '--', ...args],
      // The server's environment: its database, and its files (where the secrets key is kept without SECRETS_KEY).
      { cwd: root, env: { ...process.env, DATABASE_URL: server.database.url, STORAGE_DIR: server.storageDir, LOG_LEVEL: 'silent' }, timeout: 60_000 },
      (error, stdout, stderr) => resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

describe('POST /v1/orgs/{organizationId}/ping', () => {
  it("answers the member's visitor claims, signed with a key made on first use, verifiable with the JWKS alone", async () => {
    expect((await jwks()).keys).toEqual([]);
    const token = await ping(ada);
    const header = decodeProtectedHeader(token);
    expect(header).toMatchObject({ alg: 'ES256', typ: 'JWT', kid: expect.any(String) });
    const published = await jwks();
    expect(published.keys).toHaveLength(1);
    expect(published.keys[0]).toMatchObject({ kty: 'EC', crv: 'P-256', alg: 'ES256', use: 'sig', kid: header.kid });
    expect(published.keys[0]).not.toHaveProperty('d');
    const claims = await verify(token);
    expect(claims).toMatchObject({ iss: issuer(org), sub: ada.id, organization: org, email: ada.email, name: 'Ada', role: 'admin' });
    expect(claims.exp! - claims.iat!).toBe(3600);
    expect(Math.abs(claims.iat! - Date.now() / 1000)).toBeLessThan(60);
    // A guest gets claims too (role null), signed with the same key.
    const guestClaims = await verify(await ping(gus));
    expect(guestClaims).toMatchObject({ sub: gus.id, role: null });
    expect(decodeProtectedHeader(await ping(gus)).kid).toBe(header.kid);
    // The private half is stored sealed with the service's secrets key, never as a plain JWK.
    const stored = await server.app.db.organizationSigningKey.findUniqueOrThrow({ where: { id: header.kid! } });
    expect(stored.privateJwk).toMatch(/^v1\./);
    expect(stored.privateJwk).not.toContain('"d"');
  });

  it('replaces a key it can no longer open (the secrets key changed): the old one is retired, still published', async () => {
    const organization = await server.createOrg(ada, 'Resealed');
    const before = decodeProtectedHeader(await ping(ada, organization)).kid!;
    await server.app.db.organizationSigningKey.update({ where: { id: before }, data: { privateJwk: 'v1.sealed.under.another-key' } });
    const token = await ping(ada, organization);
    const after = decodeProtectedHeader(token).kid!;
    expect(after).not.toBe(before);
    expect((await jwks(organization)).keys.map((k) => k.kid)).toEqual([after, before]);
    expect((await server.app.db.organizationSigningKey.findUniqueOrThrow({ where: { id: before } })).retiredAt).not.toBeNull();
    expect((await verify(token, organization)).sub).toBe(ada.id);
  });

  it('is rejected when tampered with, or checked against another organization', async () => {
    const token = await ping(gus);
    const [head, payload, signature] = token.split('.');
    const claims = JSON.parse(Buffer.from(payload!, 'base64url').toString());
    const forged = `${head}.${Buffer.from(JSON.stringify({ ...claims, role: 'admin' })).toString('base64url')}.${signature}`;
    await expect(verify(forged)).rejects.toMatchObject({ code: 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED' });
    const flipped = `${head}.${payload}.${signature!.slice(0, -4)}${signature!.slice(-4) === 'AAAA' ? 'BBBB' : 'AAAA'}`;
    await expect(verify(flipped)).rejects.toThrow();
    // Bob's organization has keys of its own: its JWKS does not verify Ada's organization's tokens.
    await ping(bob, otherOrg);
    const keys = createLocalJWKSet(await jwks(otherOrg));
    await expect(jwtVerify(token, keys)).rejects.toMatchObject({ code: 'ERR_JWKS_NO_MATCHING_KEY' });
  });

  it('records lastSeenAt, at most once a minute', async () => {
    await setLastSeenAt(gus.id, new Date(Date.now() - 5 * 60_000));
    const before = Date.now();
    await ping(gus);
    const seen = (await lastSeenAt(gus.id))!;
    expect(seen.getTime()).toBeGreaterThanOrEqual(before - 1000);
    await ping(gus);
    expect((await lastSeenAt(gus.id))!.getTime()).toBe(seen.getTime());
  });

  it('is refused to disabled members (403), non-members (404) and without a token (401)', async () => {
    const dis = await server.createUser('Dis');
    await server.addMember(org, dis, 'read');
    await server.app.db.member.update({ where: { organizationId_userId: { organizationId: org, userId: dis.id } }, data: { disabled: true } });
    expectError(await server.request('POST', `/v1/orgs/${org}/ping`, { token: dis.token }), 403, /is disabled/);
    expectError(await server.request('POST', `/v1/orgs/${org}/ping`, { token: bob.token }), 404);
    expectError(await server.request('POST', `/v1/orgs/${org}/ping`), 401);
    expectError(await server.request('POST', '/v1/orgs/no-such-org/ping', { token: ada.token }), 404);
  });

  it("works through GitBook's client", async () => {
    const api = new GitBookAPI({ authToken: gus.token, endpoint: server.baseUrl });
    const res = await api.orgs.updateOrganizationMemberLastSeenAt(org);
    expect(res.status).toBe(200);
    assertMatchesSpec('updateOrganizationMemberLastSeenAt', 200, res.data);
    expect((await verify(res.data.gitbookVisitorClaims!)).sub).toBe(gus.id);
  });
});

describe('the JWKS path', () => {
  it('answers an empty set for an organization without keys or none at all, and only GET', async () => {
    expect(await jwks('no-such-org')).toEqual({ keys: [] });
    const res = await fetch(jwksUrl(org), { method: 'POST' });
    expect(res.status).toBe(405);
    expect((await fetch(`${server.baseUrl}/.well-known/jwks/a%00b.json`)).status).toBe(400);
  });
});

describe('key rotation (CLI)', () => {
  it('rotates: a new key signs, the retired one stays published until deleted', { timeout: 180_000 }, async () => {
    const organization = await server.createOrg(ada, 'Rotation');
    const old = await ping(ada, organization);
    const oldKid = decodeProtectedHeader(old).kid;

    const rotated = await cli('keys:rotate', '--org', organization);
    expect(rotated.code, rotated.stderr).toBe(0);
    const out = JSON.parse(rotated.stdout.trim());
    expect(out.retired).toEqual([expect.objectContaining({ kid: oldKid, retiredAt: expect.any(String) })]);
    expect(out.key).toMatchObject({ algorithm: 'ES256', retiredAt: null });
    expect(JSON.stringify(out)).not.toMatch(/"d"/);

    const fresh = await ping(ada, organization);
    expect(decodeProtectedHeader(fresh).kid).toBe(out.key.kid);
    expect((await jwks(organization)).keys.map((k) => k.kid)).toEqual([out.key.kid, oldKid]);
    expect((await verify(old, organization)).sub).toBe(ada.id);
    expect((await verify(fresh, organization)).sub).toBe(ada.id);

    const refused = await cli('keys:delete', '--org', organization, '--kid', out.key.kid);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/signs the organization's visitor claims: rotate the keys first/);
    const deleted = await cli('keys:delete', '--org', organization, '--kid', oldKid!);
    expect(deleted.code, deleted.stderr).toBe(0);
    expect((await jwks(organization)).keys.map((k) => k.kid)).toEqual([out.key.kid]);
    await expect(verify(old, organization)).rejects.toMatchObject({ code: 'ERR_JWKS_NO_MATCHING_KEY' });
    expect((await verify(fresh, organization)).sub).toBe(ada.id);

    const listed = await cli('keys:list', '--org', organization);
    expect(JSON.parse(listed.stdout.trim()).keys).toEqual([expect.objectContaining({ kid: out.key.kid })]);
    const unknown = await cli('keys:rotate', '--org', 'no-such-org');
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/Organization "no-such-org" not found/);
  });
});

describe('lastSeenAt from real use', () => {
  it('is written by any request touching the organization, once a minute, and feeds the lastSeenAt sort', async () => {
    const organization = await server.createOrg(ada, 'Activity');
    const [kim, lee] = [await server.createUser('Kim'), await server.createUser('Lee')];
    await server.addMember(organization, kim, 'read');
    await server.addMember(organization, lee, 'read');
    const list = async () => {
      const res = await server.request('GET', `/v1/orgs/${organization}/members?sort=lastSeenAt`, { token: ada.token });
      assertMatchesSpec('listMembersInOrganizationById', 200, res.body);
      return res.body.items.map((m: { id: string }) => m.id);
    };
    expect(await list()).toEqual([ada.id]);
    await setLastSeenAt(ada.id, new Date(Date.now() - 10 * 60_000), organization);
    expect((await server.request('GET', `/v1/orgs/${organization}`, { token: kim.token })).status).toBe(200);
    // Kim was just seen; Ada's listing is real use too, recorded once it is answered; Lee was never seen.
    expect(await list()).toEqual([kim.id, ada.id]);
    expect(await list()).toEqual([ada.id, kim.id]);
    expect(await lastSeenAt(lee.id, organization)).toBeNull();

    // One write a minute: a second request costs one statement less than the first after a minute
    // (and one more for the first: told to forget, the process reads the caller again).
    const get = () => server.request('GET', `/v1/orgs/${organization}`, { token: kim.token });
    await setLastSeenAt(kim.id, new Date(Date.now() - 2 * 60_000), organization);
    const first = await server.countStatements(get);
    const seen = await lastSeenAt(kim.id, organization);
    const second = await server.countStatements(get);
    expect(first.statements).toBe(second.statements + 2);
    expect(await lastSeenAt(kim.id, organization)).toEqual(seen);
    expect(Date.now() - seen!.getTime()).toBeLessThan(60_000);

    // A disabled member is not seen; another organization's requests do not count here.
    await server.app.db.member.update({ where: { organizationId_userId: { organizationId: organization, userId: lee.id } }, data: { disabled: true } });
    expect((await server.request('GET', `/v1/orgs/${organization}`, { token: lee.token })).status).toBe(403);
    expect(await lastSeenAt(lee.id, organization)).toBeNull();
  });
});

/**
 * Personal API tokens over the API: what a scoped token may do (REST and
 * GraphQL), managing one's own tokens through GraphQL, and expiry and
 * revocation seen by two app instances on one database and Redis (each with
 * its own database client, as two processes or replicas would be).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { TOKEN_SCOPES } from '../../src/db/value-sets.ts';
import { assertMatchesSpec } from '../helpers/openapi.ts';
import { expectError, useServersSharingRedis, useTestServer, type TestServer } from '../helpers/server.ts';
import { servicesConfigured } from '../helpers/services.ts';

const { server, ada, bob } = useTestServer({ users: ['Ada', 'Bob'] });

const CREATE = `mutation ($input: CreateApiTokenInput!) {
  createApiToken(input: $input) { token apiToken { id label scopes createdAt expiresAt lastUsedAt } }
}`;
const REVOKE = 'mutation ($id: ID!) { revokeApiToken(id: $id) { id label } }';
const LIST = '{ viewer { id tokens { id label scopes createdAt expiresAt lastUsedAt } } }';

/** Creates a token for `owner` through GraphQL; its secret and id. */
async function createToken(owner: { token: string }, input: Record<string, unknown>, on: TestServer = server) {
  const res = await on.graphql(CREATE, { token: owner.token, variables: { input } });
  expect(res.body.errors, JSON.stringify(res.body.errors)).toBeUndefined();
  return { token: res.body.data.createApiToken.token as string, id: res.body.data.createApiToken.apiToken.id as string, view: res.body.data.createApiToken.apiToken };
}

describe('a scoped token over REST', () => {
  let org: string;
  let space: string;

  beforeAll(async () => {
    org = await server.createOrg(ada);
    space = (await server.createSpace(ada, org, { title: 'Guide' })).id;
  });

  it('does what its scopes allow, within its user’s roles', async () => {
    const { token } = await createToken(ada, { label: 'reader', scopes: ['space:read'] });
    const got = await server.request('GET', `/v1/spaces/${space}`, { token });
    expect(got.status).toBe(200);
    assertMatchesSpec('getSpaceById', 200, got.body);
    // The space's permissions say what this token may do, not only the role.
    expect(got.body.permissions).toMatchObject({ view: true, edit: false, admin: false });
    const listed = await server.request('GET', `/v1/orgs/${org}/spaces`, { token });
    expect(listed.status).toBe(200);
    expect(listed.body.items.map((s: { id: string }) => s.id)).toEqual([space]);
  });

  it('answers 403 naming the missing scope for anything else', async () => {
    const { token } = await createToken(ada, { scopes: ['space:read'] });
    expectError(await server.request('PATCH', `/v1/spaces/${space}`, { token, body: { title: 'Renamed' } }), 403, /space:update needs the scope space:write/);
    expectError(await server.request('POST', `/v1/orgs/${org}/spaces`, { token, body: { title: 'New' } }), 403, /needs the scope space:write/);
    expectError(await server.request('GET', '/v1/user', { token }), 403, /account:read needs the scope user:read/);
    expectError(await server.request('GET', '/v1/orgs', { token }), 403, /needs the scope organization:read/);
    expectError(await server.request('POST', '/v1/orgs', { token, body: { title: 'Mine' } }), 403, /needs the scope organization:write/);
    expectError(await server.request('GET', `/v1/orgs/${org}/sites`, { token }), 403, /needs the scope site:read/);
    expectError(await server.request('GET', `/v1/orgs/${org}/members`, { token }), 403, /needs the scope organization:members:read/);
    expectError(await server.request('POST', `/v1/orgs/${org}/join`, { token }), 403, /account:join-organization needs the scope organization:members:write/);
    // Nothing was changed.
    expect((await server.request('GET', `/v1/spaces/${space}`, { token: ada.token })).body.title).toBe('Guide');
  });

  it('never adds to its user’s roles: a reader with space:write still cannot edit', async () => {
    await server.addMember(org, bob, 'read');
    const { token } = await createToken(bob, { scopes: ['space:read', 'space:write'] });
    expectError(await server.request('PATCH', `/v1/spaces/${space}`, { token, body: { title: 'Renamed' } }), 403, /Your role does not allow this/);
    // And another organization stays invisible, whatever the scopes.
    const other = await server.createOrg(ada, 'Other');
    expectError(await server.request('GET', `/v1/orgs/${other}/spaces`, { token }), 404);
  });

  it('lets a write scope act without the read scope, and merging needs change-request:merge', async () => {
    const writer = await createToken(ada, { scopes: ['space:write'] });
    const renamed = await server.request('PATCH', `/v1/spaces/${space}`, { token: writer.token, body: { title: 'Guide 2' } });
    expect(renamed.status).toBe(200);
    assertMatchesSpec('updateSpaceById', 200, renamed.body);

    const created = await server.request('POST', `/v1/spaces/${space}/change-requests`, { token: writer.token, body: { subject: 'Edits' } });
    expect(created.status).toBe(201);
    const cr = `/v1/spaces/${space}/change-requests/${created.body.id}`;
    expect((await server.request('PATCH', cr, { token: writer.token, body: { status: 'open' } })).status).toBe(200);
    expectError(await server.request('POST', `${cr}/merge`, { token: writer.token }), 403, /change-request:merge needs the scope change-request:merge/);

    const merger = await createToken(ada, { scopes: ['change-request:merge'] });
    const merged = await server.request('POST', `${cr}/merge`, { token: merger.token });
    expect(merged.status, JSON.stringify(merged.body)).toBe(200);
    assertMatchesSpec('mergeChangeRequest', 200, merged.body);
  });

  it('publishes a site with site:publish only, and not with site:write', async () => {
    const site = (await server.createSite(ada, org)).id;
    const writer = await createToken(ada, { scopes: ['site:write', 'site:read'] });
    expectError(await server.request('POST', `/v1/orgs/${org}/sites/${site}/publish`, { token: writer.token }), 403, /needs the scope site:publish/);
    const publisher = await createToken(ada, { scopes: ['site:publish'] });
    expect((await server.request('POST', `/v1/orgs/${org}/sites/${site}/publish`, { token: publisher.token })).status).toBe(200);
  });
});

describe('a scoped token over GraphQL', () => {
  it('answers FORBIDDEN naming the missing scope, and reads what it may', async () => {
    const org = await server.createOrg(ada, 'GraphQL');
    const space = (await server.createSpace(ada, org, { title: 'Docs' })).id;
    const { token } = await createToken(ada, { scopes: ['space:read'] });
    const read = await server.graphql('query ($id: ID!) { space(id: $id) { id title } }', { token, variables: { id: space } });
    expect(read.body).toEqual({ data: { space: { id: space, title: 'Docs' } } });

    const denied = await server.graphql('mutation ($id: ID!) { updateSpace(spaceId: $id, input: { title: "X" }) { id } }', { token, variables: { id: space } });
    expect(denied.body.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
    expect(denied.body.errors?.[0]?.message).toMatch(/needs the scope space:write/);
    const viewer = await server.graphql('{ viewer { id } }', { token });
    expect(viewer.body.errors?.[0]?.message).toMatch(/account:read needs the scope user:read/);
  });
});

describe('managing tokens through GraphQL', () => {
  it("lists the caller's own tokens, never a secret", async () => {
    const user = await server.createUser('Lister');
    const created = await createToken(user, { label: 'ci', expiresIn: '30d', scopes: ['site:read', 'space:read'] });
    expect(created.token).toMatch(/^gb_api_/);
    expect(created.view).toEqual({
      id: created.id,
      label: 'ci',
      scopes: ['site:read', 'space:read'],
      createdAt: expect.any(String),
      expiresAt: expect.any(String),
      lastUsedAt: null,
    });
    const days = (Date.parse(created.view.expiresAt) - Date.now()) / 86_400_000;
    expect(days).toBeGreaterThan(29.9);
    expect(days).toBeLessThanOrEqual(30);

    const listed = await server.graphql(LIST, { token: user.token });
    expect(listed.body.errors).toBeUndefined();
    const tokens = listed.body.data.viewer.tokens;
    expect(tokens.map((t: { id: string }) => t.id)).toContain(created.id);
    expect(tokens).toHaveLength(2);
    // The caller's own token has been used (by this very request, at the latest).
    expect(tokens.find((t: { id: string }) => t.id !== created.id).lastUsedAt).toEqual(expect.any(String));
    expect(JSON.stringify(listed.body)).not.toContain(created.token);
    expect(JSON.stringify(listed.body)).not.toMatch(/hash/i);
  });

  it('revokes a token: its next request answers 401', async () => {
    const user = await server.createUser('Revoker');
    const doomed = await createToken(user, { label: 'old' });
    expect((await server.request('GET', '/v1/user', { token: doomed.token })).status).toBe(200);
    const revoked = await server.graphql(REVOKE, { token: user.token, variables: { id: doomed.id } });
    expect(revoked.body).toEqual({ data: { revokeApiToken: { id: doomed.id, label: 'old' } } });
    expectError(await server.request('GET', '/v1/user', { token: doomed.token }), 401, /invalid or has been revoked/);
    // Revoking again: not found.
    const again = await server.graphql(REVOKE, { token: user.token, variables: { id: doomed.id } });
    expect(again.body.errors?.[0]?.extensions?.code).toBe('NOT_FOUND');
  });

  it("never shows or revokes another user's tokens", async () => {
    const bobs = await createToken(bob, { label: 'bob' });
    const revoke = await server.graphql(REVOKE, { token: ada.token, variables: { id: bobs.id } });
    expect(revoke.body.errors?.[0]?.extensions?.code).toBe('NOT_FOUND');
    expect((await server.request('GET', '/v1/user', { token: bobs.token })).status).toBe(200);
    const adas = await server.graphql(LIST, { token: ada.token });
    expect(adas.body.data.viewer.tokens.map((t: { id: string }) => t.id)).not.toContain(bobs.id);
  });

  it('takes a token without scopes: a scoped one cannot list, create or revoke', async () => {
    const scoped = await createToken(ada, { scopes: [...TOKEN_SCOPES] });
    const list = await server.graphql(LIST, { token: scoped.token });
    expect(list.body.errors?.[0]?.message).toMatch(/account:manage-tokens needs a token without scopes/);
    const create = await server.graphql(CREATE, { token: scoped.token, variables: { input: { label: 'escalate' } } });
    expect(create.body.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
    const revoke = await server.graphql(REVOKE, { token: scoped.token, variables: { id: scoped.id } });
    expect(revoke.body.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
  });

  it('refuses bad input with a 400 naming the field', async () => {
    const cases: Array<[Record<string, unknown>, RegExp]> = [
      [{ expiresIn: 'soon' }, /expiresIn: "soon" is neither a duration/],
      [{ expiresIn: '0d' }, /expiresIn: a duration must be more than zero/],
      [{ expiresAt: '2020-01-01T00:00:00Z' }, /expiresAt: .* is not in the future/],
      [{ expiresAt: '2099-01-01T00:00:00Z', expiresIn: '1d' }, /expiresAt or expiresIn, not both/],
      [{ label: 'x'.repeat(201) }, /label: must be at most 200 characters/],
    ];
    for (const [input, message] of cases) {
      const res = await server.graphql(CREATE, { token: ada.token, variables: { input } });
      expect(res.body.errors?.[0]?.message, JSON.stringify(input)).toMatch(message);
      expect(res.body.errors?.[0]?.extensions?.code, JSON.stringify(input)).toBe('BAD_REQUEST');
    }
    // A scope outside the set is refused by the TokenScope scalar, before anything runs.
    const unknownScope = await server.graphql(CREATE, { token: ada.token, variables: { input: { scopes: ['space:admin'] } } });
    expect(unknownScope.status).toBe(400);
    expect(unknownScope.body.errors?.[0]?.message).toMatch(/must be one of user:read, /);
    const unauthenticated = await server.graphql(CREATE, { variables: { input: {} } });
    expect(unauthenticated.body.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
  });
});

// Several processes share their changes to callers through Redis (src/auth/viewer-cache.ts).
describe.skipIf(!servicesConfigured('redis'))('two app instances on one database and Redis', () => {
  const { a: first, b: second } = useServersSharingRedis(() => server);

  it('a token revoked through one answers 401 on the other at its next request', async () => {
    const user = await first.createUser('Replica');
    const { token, id } = await createToken(user, { label: 'shared' });
    // Both instances have served it (anything either could keep of it is warm).
    for (const instance of [first, second]) expect((await instance.request('GET', '/v1/user', { token })).status).toBe(200);
    expect((await first.graphql(REVOKE, { token: user.token, variables: { id } })).body.errors).toBeUndefined();
    expectError(await second.request('GET', '/v1/user', { token }), 401, /revoked/);
    const graphql = await second.graphql('{ viewer { id } }', { token });
    expect(graphql.status).toBe(401);
    expect(graphql.body.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
  });

  it('a token created on one with a short expiry answers 401 "expired" on both once it has passed', async () => {
    const user = await first.createUser('Expiring');
    const expiresAt = new Date(Date.now() + 1500);
    const { token } = await createToken(user, { expiresAt: expiresAt.toISOString() }, second);
    for (const instance of [first, second]) expect((await instance.request('GET', '/v1/user', { token })).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, expiresAt.getTime() - Date.now()) + 50));
    for (const instance of [first, second]) {
      expectError(await instance.request('GET', '/v1/user', { token }), 401, /The API token expired at .*: create a new one/);
    }
  });

  it('lastUsedAt is written once for a burst of requests to both', async () => {
    const user = await first.createUser('Burst');
    const { token, id } = await createToken(user, {});
    const writes: Date[] = [];
    for (let i = 0; i < 5; i++) {
      for (const instance of [first, second]) expect((await instance.request('GET', '/v1/user', { token })).status).toBe(200);
      const row = await first.app.db.apiToken.findUniqueOrThrow({ where: { id } });
      writes.push(row.lastUsedAt!);
    }
    expect(new Set(writes.map((d) => d.getTime())).size).toBe(1);
  });
});

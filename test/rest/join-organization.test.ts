/**
 * POST /v1/orgs/{organizationId}/join over real HTTP: a user whose e-mail domain the organization
 * lets in becomes a member with its default role; anyone else gets 400 and stays out.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { createUserWithToken } from '../../src/auth/users.ts';
import { assertMatchesSpec } from '../helpers/openapi.ts';
import { expectError, useTestServer } from '../helpers/server.ts';

const { server, ada, bob } = useTestServer({ users: ['Ada', 'Bob'] }); // Bob's e-mail is @example.com
let carol: { id: string; token: string }; // @elsewhere.test

beforeAll(async () => {
  const made = await createUserWithToken(server.app.db, { email: 'carol@elsewhere.test', displayName: 'Carol' });
  carol = { id: made.user.id, token: made.token };
});

/** An organization of Ada's that lets in @example.com as editors. */
async function openOrg(): Promise<string> {
  const org = await server.createOrg(ada);
  const patched = await server.request('PATCH', `/v1/orgs/${org}`, { token: ada.token, body: { emailDomains: ['Example.com'], defaultRole: 'edit' } });
  expect(patched.status, JSON.stringify(patched.body)).toBe(200);
  return org;
}

describe('POST /v1/orgs/{organizationId}/join', () => {
  it('makes a user of an allowed e-mail domain a member, with the default role', async () => {
    const org = await openOrg();
    expectError(await server.request('GET', `/v1/orgs/${org}`, { token: bob.token }), 404);
    const joined = await server.request('POST', `/v1/orgs/${org}/join`, { token: bob.token });
    expect(joined.status, JSON.stringify(joined.body)).toBe(204);
    expect(joined.body).toBeNull();
    const member = await server.request('GET', `/v1/orgs/${org}/members/${bob.id}`, { token: ada.token });
    expect(member.status).toBe(200);
    assertMatchesSpec('getMemberInOrganizationById', 200, member.body);
    expect(member.body.role).toBe('edit');
    expect((await server.request('GET', `/v1/orgs/${org}`, { token: bob.token })).status).toBe(200);
  });

  it('changes nothing for a member joining again', async () => {
    const org = await openOrg();
    expect((await server.request('POST', `/v1/orgs/${org}/join`, { token: bob.token })).status).toBe(204);
    const demoted = await server.request('PATCH', `/v1/orgs/${org}/members/${bob.id}`, { token: ada.token, body: { role: 'read' } });
    expect(demoted.status, JSON.stringify(demoted.body)).toBe(200);
    expect((await server.request('POST', `/v1/orgs/${org}/join`, { token: bob.token })).status).toBe(204);
    expect((await server.request('GET', `/v1/orgs/${org}/members/${bob.id}`, { token: ada.token })).body.role).toBe('read');
  });

  it('refuses another e-mail domain with 400, and the user stays out', async () => {
    const org = await openOrg();
    expectError(await server.request('POST', `/v1/orgs/${org}/join`, { token: carol.token }), 400, /elsewhere\.test/);
    expectError(await server.request('GET', `/v1/orgs/${org}`, { token: carol.token }), 404);
    expectError(await server.request('GET', `/v1/orgs/${org}/members/${carol.id}`, { token: ada.token }), 404);
  });

  it('refuses everyone when the organization lists no domain (400), and answers 404 for an unknown organization', async () => {
    const closed = await server.createOrg(ada, 'Closed');
    expectError(await server.request('POST', `/v1/orgs/${closed}/join`, { token: bob.token }), 400);
    expectError(await server.request('POST', '/v1/orgs/no-such-org/join', { token: bob.token }), 404);
    expectError(await server.request('POST', `/v1/orgs/${await openOrg()}/join`), 401);
  });
});

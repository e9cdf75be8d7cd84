/**
 * Invites over real HTTP: invite links (create, list, get, update, delete;
 * the secret shown once and stored hashed), joining with a link's secret (a
 * role on the organization, or a grant on a space or collection), e-mail
 * invites, and what the organization's settings refuse (`inviteLinks` off,
 * `sso` on). Refused joins write nothing; concurrent joins never exceed
 * `maxUses`; another organization's token gets no 2xx. Every answer is
 * validated against GitBook's OpenAPI document, and the routes are driven once
 * through GitBook's client.
 */
import { createHash } from 'node:crypto';
import { GitBookAPI, GitBookAPIError, MemberRole } from '@gitbook/api';
import { beforeAll, describe, expect, it } from 'vitest';
import { assertMatchesSpec } from '../helpers/openapi.ts';
import { databaseFingerprint } from '../helpers/rest-fixture.ts';
import { expectError, useTestServer, type TestUser } from '../helpers/server.ts';

const { server, ada, bob } = useTestServer({ users: ['Ada', 'Bob'] }); // Ada: admin of `org`; Bob: admin of another organization
let org: string;
let otherOrg: string;
let collection: string;
let spaceInCollection: string;
let otherSpace: string;

beforeAll(async () => {
  org = await server.createOrg(ada, 'Invites');
  otherOrg = await server.createOrg(bob, 'Elsewhere');
  collection = (await server.createCollection(ada, org, { title: 'Guides' })).id;
  spaceInCollection = (await server.createSpace(ada, org, { title: 'Guide', parent: collection })).id;
  otherSpace = (await server.createSpace(ada, org, { title: 'Private' })).id;
});

const links = (organizationId = org) => `/v1/orgs/${organizationId}/link-invites`;
const join = (secret: string, organizationId = org) => `/v1/orgs/${organizationId}/invites/${encodeURIComponent(secret)}`;

/** POST a link as `user` (Ada by default), expecting 201 and the contract's shape; the body (with its secret). */
async function createLink(body: Record<string, unknown>, user: TestUser = ada, organizationId = org) {
  const res = await server.request('POST', links(organizationId), { token: user.token, body });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  assertMatchesSpec('createOrganizationInvite', 201, res.body);
  return res.body;
}

/** Joins with `secret` as `user`, expecting 200 and the contract's shape. */
async function joinOk(user: TestUser, secret: string) {
  const res = await server.request('POST', join(secret), { token: user.token });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  assertMatchesSpec('joinOrganizationWithInvite', 200, res.body);
  return res.body;
}

const memberRow = (userId: string, organizationId = org) =>
  server.app.db.member.findUnique({ where: { organizationId_userId: { organizationId, userId } } });
const usesOf = async (id: string) => (await server.app.db.inviteLink.findUniqueOrThrow({ where: { id } })).uses;

describe('invite links', () => {
  it('creates links to the organization, a space and a collection; the secret is shown once and stored hashed', async () => {
    const before = Date.now();
    const orgLink = await createLink({ role: 'edit', maxUses: 5, expiresAt: '2099-01-01T00:00:00.000Z' });
    expect(orgLink).toMatchObject({ object: 'invite', role: 'edit', redundant: true, maxUses: 5, uses: 0, expiresAt: '2099-01-01T00:00:00.000Z' });
    expect(orgLink.secret).toMatch(/^inv_[\w-]{43}$/);
    expect(orgLink).not.toHaveProperty('level');
    const guestLink = await createLink({ role: null });
    expect(guestLink.role).toBeNull();
    const spaceLink = await createLink({ level: 'comment', space: spaceInCollection });
    expect(spaceLink).toMatchObject({ object: 'invite', level: 'comment', space: { id: spaceInCollection, title: 'Guide' } });
    expect(spaceLink).not.toHaveProperty('role');
    const collectionLink = await createLink({ level: 'read', collection });
    expect(collectionLink).toMatchObject({ level: 'read', collection: { id: collection, title: 'Guides' } });
    expect(Date.parse(orgLink.createdAt)).toBeGreaterThanOrEqual(before - 1000);

    // Only the hash is kept; nothing answers the secret again.
    const stored = await server.app.db.inviteLink.findUniqueOrThrow({ where: { id: orgLink.id } });
    expect(stored.secretHash).toBe(createHash('sha256').update(orgLink.secret).digest('hex'));
    expect(JSON.stringify(stored)).not.toContain(orgLink.secret.slice(4));
    const got = await server.request('GET', `${links()}/${orgLink.id}`, { token: ada.token });
    expect(got.status).toBe(200);
    assertMatchesSpec('getOrganizationInviteLink', 200, got.body);
    expect(got.body).not.toHaveProperty('secret');
    expect(got.body).toMatchObject({ id: orgLink.id, role: 'edit', uses: 0 });
    for (const link of [spaceLink, collectionLink]) {
      const res = await server.request('GET', `${links()}/${link.id}`, { token: ada.token });
      assertMatchesSpec('getOrganizationInviteLink', 200, res.body);
      expect(res.body.level).toBe(link.level);
    }
  });

  it('lists the links to the organization, newest first, with pages; GraphQL lists every target', async () => {
    const organization = await server.createOrg(ada, 'Listing');
    const space = (await server.createSpace(ada, organization)).id;
    const made: string[] = [];
    for (const role of ['read', 'comment', 'edit']) made.push((await createLink({ role }, ada, organization)).id);
    const spaceLink = (await createLink({ level: 'edit', space }, ada, organization)).id;
    const paged = await server.pageThrough(ada, links(organization), 'listOrganizationInviteLinks');
    expect(paged).toEqual({ ids: [...made].reverse(), pages: 2, count: 3 });

    const res = await server.graphql(
      `query($org: ID!) { organization(id: $org) {
        all: inviteLinkList { count items { __typename id target ... on SpaceInviteLink { level space { id title } } ... on OrganizationInviteLink { role } } }
        spaces: inviteLinkList(target: space) { items { id } }
      } }`,
      { token: ada.token, variables: { org: organization } },
    );
    expect(res.body.errors).toBeUndefined();
    const { all, spaces } = res.body.data.organization;
    expect(all.count).toBe(4);
    expect(all.items[0]).toEqual({ __typename: 'SpaceInviteLink', id: spaceLink, target: 'space', level: 'edit', space: { id: space, title: 'Space' } });
    expect(all.items.slice(1).map((l: { role: string }) => l.role)).toEqual(['edit', 'comment', 'read']);
    expect(spaces.items).toEqual([{ id: spaceLink }]);
  });

  it('updates the role, the level, the expiry and the use limit; deletes (205, then 204)', async () => {
    const orgLink = await createLink({ role: 'read', maxUses: 2 });
    const patch = async (id: string, body: unknown) => server.request('PATCH', `${links()}/${id}`, { token: ada.token, body });
    let res = await patch(orgLink.id, { role: 'review', maxUses: null, expiresAt: '2098-05-01T00:00:00.000Z' });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    assertMatchesSpec('updateOrganizationInviteById', 200, res.body);
    expect(res.body).toMatchObject({ role: 'review', expiresAt: '2098-05-01T00:00:00.000Z' });
    expect(res.body).not.toHaveProperty('maxUses');
    res = await patch(orgLink.id, { role: null, expiresAt: null });
    expect(res.body.role).toBeNull();
    expect(res.body).not.toHaveProperty('expiresAt');

    const spaceLink = await createLink({ level: 'read', space: otherSpace });
    res = await patch(spaceLink.id, { level: 'edit' });
    assertMatchesSpec('updateOrganizationInviteById', 200, res.body);
    expect(res.body.level).toBe('edit');
    expectError(await patch(spaceLink.id, { role: 'edit' }), 400, /^role: the link is to a space: set its `level`$/);
    expectError(await patch(spaceLink.id, { level: null }), 400, /^level: /);
    expectError(await patch(orgLink.id, { level: 'edit' }), 400, /^level: the link is to the organization/);
    expectError(await patch(orgLink.id, {}), 400);
    expectError(await patch(orgLink.id, { maxUses: 0 }), 400, /^maxUses: /);
    expectError(await patch(orgLink.id, { expiresAt: '2001-01-01T00:00:00.000Z' }), 400, /^expiresAt: .* is not in the future$/);

    const deleted = await server.request('DELETE', `${links()}/${spaceLink.id}`, { token: ada.token });
    expect(deleted.status).toBe(205);
    expect((await server.request('DELETE', `${links()}/${spaceLink.id}`, { token: ada.token })).status).toBe(204);
    expectError(await server.request('GET', `${links()}/${spaceLink.id}`, { token: ada.token }), 404);
  });

  it('refuses bad bodies with a 400 naming the problem, writing nothing', async () => {
    const foreignSpace = (await server.createSpace(bob, otherOrg)).id;
    const before = await databaseFingerprint(server);
    const cases: Array<[unknown, RegExp]> = [
      [{}, /^give `role` for an invite to the organization, or `level` with `space` or `collection`$/],
      [{ role: 'read', space: otherSpace, level: 'read' }, /not both$/],
      [{ space: otherSpace }, /^level: is required for an invite to a space$/],
      [{ level: null, space: otherSpace }, /^level: an invite to a space gives a level from read to admin/],
      [{ level: 'read' }, /^give `space` or `collection` with `level`/],
      [{ level: 'read', space: otherSpace, collection }, /^give `space` or `collection`, not both$/],
      [{ level: 'read', space: 'nope' }, /^space: no space "nope" in the organization$/],
      [{ level: 'read', space: foreignSpace }, /^space: no space .* in the organization$/],
      [{ level: 'read', collection: 'nope' }, /^collection: no collection "nope" in the organization$/],
      [{ role: 'owner' }, /^role: must be one of /],
      [{ role: 'read', maxUses: 0 }, /^maxUses: must be from 1 to /],
      [{ role: 'read', maxUses: 1.5 }, /^maxUses: must be an integer$/],
      [{ role: 'read', expiresAt: '2001-01-01T00:00:00Z' }, /^expiresAt: .* is not in the future$/],
      [{ role: 'read', expiresAt: 'tomorrow' }, /^expiresAt: /],
    ];
    for (const [body, message] of cases) expectError(await server.request('POST', links(), { token: ada.token, body }), 400, message);
    expect(await databaseFingerprint(server)).toEqual(before);
  });

  it('is for admins only: 403 for other members, 404 for other organizations, 401 without a token', async () => {
    const editor = await server.createUser('Editor');
    await server.addMember(org, editor, 'edit');
    const link = await createLink({ role: 'read' });
    for (const [method, path, body] of [
      ['GET', links(), undefined],
      ['POST', links(), { role: 'read' }],
      ['GET', `${links()}/${link.id}`, undefined],
      ['PATCH', `${links()}/${link.id}`, { role: 'edit' }],
      ['DELETE', `${links()}/${link.id}`, undefined],
      ['POST', `/v1/orgs/${org}/invites`, { emails: ['x@example.com'] }],
    ] as const) {
      expectError(await server.request(method, path, { token: editor.token, body }), 403);
      expectError(await server.request(method, path, { token: bob.token, body }), 404);
      expectError(await server.request(method, path, { body }), 401);
    }
    // Bob's own organization does not hold Ada's link.
    expectError(await server.request('GET', `${links(otherOrg)}/${link.id}`, { token: bob.token }), 404);
    expectError(await server.request('PATCH', `${links(otherOrg)}/${link.id}`, { token: bob.token, body: { role: 'admin' } }), 404);
    expect((await server.request('DELETE', `${links(otherOrg)}/${link.id}`, { token: bob.token })).status).toBe(204);
    expect((await server.request('GET', `${links()}/${link.id}`, { token: ada.token })).status).toBe(200);
  });
});

describe('links to a place that leaves the organization', () => {
  it('go with it: transferring a space or deleting a collection deletes the links to them', async () => {
    const leaving = (await server.createSpace(ada, org, { title: 'Leaving' })).id;
    const target = await server.createOrg(ada, 'Transfer target');
    const spaceLink = await createLink({ level: 'edit', space: leaving });
    const gone = (await server.createCollection(ada, org, { title: 'Gone' })).id;
    const collectionLink = await createLink({ level: 'read', collection: gone });
    const kept = await createLink({ level: 'read', space: otherSpace });
    expect((await server.request('POST', `/v1/spaces/${leaving}/transfer`, { token: ada.token, body: { organization: target } })).status).toBe(200);
    expect((await server.request('DELETE', `/v1/collections/${gone}`, { token: ada.token })).status).toBeLessThan(300);
    for (const link of [spaceLink, collectionLink]) {
      expectError(await server.request('GET', `${links()}/${link.id}`, { token: ada.token }), 404);
      expectError(await server.request('POST', join(link.secret), { token: bob.token }), 404);
    }
    expect((await server.request('GET', `${links()}/${kept.id}`, { token: ada.token })).status).toBe(200);
  });
});

describe('joining with an invite link', () => {
  it('makes a user a member with the link role, counts the use, and says a second join is redundant', async () => {
    const carol = await server.createUser('Carol');
    const link = await createLink({ role: 'edit', maxUses: 10 });
    expectError(await server.request('GET', `/v1/orgs/${org}`, { token: carol.token }), 404);
    const joined = await joinOk(carol, link.secret);
    expect(joined).toMatchObject({ organization: org, redundant: false, member: { id: carol.id, role: 'edit', disabled: false, sso: false } });
    expect(joined).not.toHaveProperty('space');
    expect((await server.request('GET', `/v1/orgs/${org}`, { token: carol.token })).status).toBe(200);
    expect(await usesOf(link.id)).toBe(1);
    const again = await joinOk(carol, link.secret);
    expect(again.redundant).toBe(true);
    expect(await usesOf(link.id)).toBe(1);
  });

  it("raises a member's role, never lowers it", async () => {
    const reader = await server.createUser('Reader');
    await server.addMember(org, reader, 'read');
    const review = await createLink({ role: 'review' });
    expect((await joinOk(reader, review.secret)).member.role).toBe('review');
    const read = await createLink({ role: 'read' });
    const lower = await joinOk(reader, read.secret);
    expect(lower).toMatchObject({ redundant: true, member: { role: 'review' } });
    const guest = await server.createUser('Guest');
    await server.addMember(org, guest, null);
    const guestLink = await createLink({ role: null });
    expect((await joinOk(guest, guestLink.secret)).redundant).toBe(true);
    expect((await joinOk(guest, read.secret)).member.role).toBe('read');
  });

  it('gives a level on a space: a grant and a guest membership; the user sees that space and nothing else', async () => {
    const dora = await server.createUser('Dora');
    const link = await createLink({ level: 'comment', space: spaceInCollection });
    // Before joining, the secret shows what joining gives.
    const preview = await server.request('GET', `${links()}/${encodeURIComponent(link.secret)}`, { token: dora.token });
    expect(preview.status, JSON.stringify(preview.body)).toBe(200);
    assertMatchesSpec('getOrganizationInviteLink', 200, preview.body);
    expect(preview.body).toMatchObject({ id: link.id, level: 'comment', redundant: false, space: { id: spaceInCollection } });
    const joined = await joinOk(dora, link.secret);
    expect(joined).toMatchObject({ redundant: false, space: spaceInCollection, member: { id: dora.id, role: null, spaces: 1 } });
    const grant = await server.app.db.contentGrant.findFirstOrThrow({ where: { granteeId: dora.id } });
    expect(grant).toMatchObject({ organizationId: org, resourceKind: 'space', resourceId: spaceInCollection, granteeKind: 'user', role: 'comment' });
    const space = await server.request('GET', `/v1/spaces/${spaceInCollection}`, { token: dora.token });
    expect(space.status).toBe(200);
    expect(space.body.permissions).toMatchObject({ view: true, comment: true, edit: false });
    expectError(await server.request('GET', `/v1/spaces/${otherSpace}`, { token: dora.token }), 404);
    expect((await server.request('GET', `${links()}/${encodeURIComponent(link.secret)}`, { token: dora.token })).body.redundant).toBe(true);
    expect((await joinOk(dora, link.secret)).redundant).toBe(true);
    // A higher level raises the grant.
    const edit = await createLink({ level: 'edit', space: spaceInCollection });
    await joinOk(dora, edit.secret);
    expect((await server.app.db.contentGrant.findFirstOrThrow({ where: { granteeId: dora.id } })).role).toBe('edit');
    expect(await usesOf(link.id)).toBe(1);
  });

  it('gives a level on a collection, and so on the spaces in it; redundant for a member whose role already reaches it', async () => {
    const emil = await server.createUser('Emil');
    const link = await createLink({ level: 'edit', collection });
    const joined = await joinOk(emil, link.secret);
    expect(joined).toMatchObject({ redundant: false, collection, member: { role: null } });
    const space = await server.request('GET', `/v1/spaces/${spaceInCollection}`, { token: emil.token });
    expect(space.body.permissions).toMatchObject({ edit: true });
    const creator = await server.createUser('Creator');
    await server.addMember(org, creator, 'create');
    expect((await joinOk(creator, link.secret)).redundant).toBe(true);
    expect(await server.app.db.contentGrant.count({ where: { granteeId: creator.id } })).toBe(0);
  });

  it('never joins with the link id, another organization path, or a deleted link (404), nothing written', async () => {
    const fay = await server.createUser('Fay');
    const link = await createLink({ role: 'admin' });
    const before = await databaseFingerprint(server);
    expectError(await server.request('POST', join(link.id), { token: fay.token }), 404, /Invite not found/);
    expectError(await server.request('POST', join(link.secret, otherOrg), { token: fay.token }), 404);
    expectError(await server.request('POST', join(`${link.secret}x`), { token: fay.token }), 404);
    expectError(await server.request('POST', join(link.secret)), 401);
    expect(await databaseFingerprint(server)).toEqual(before);
    await server.request('DELETE', `${links()}/${link.id}`, { token: ada.token });
    const afterDelete = await databaseFingerprint(server);
    expectError(await server.request('POST', join(link.secret), { token: fay.token }), 404);
    expect(await databaseFingerprint(server)).toEqual(afterDelete);
    expect(await memberRow(fay.id)).toBeNull();
  });

  it('refuses an expired link and a used-up one (410), and a disabled member (403): nothing granted', async () => {
    const gus = await server.createUser('Gus');
    const expired = await createLink({ role: 'read', expiresAt: new Date(Date.now() + 60_000).toISOString() });
    await server.app.db.inviteLink.update({ where: { id: expired.id }, data: { expiresAt: new Date(Date.now() - 1000) } });
    const once = await createLink({ level: 'read', space: otherSpace, maxUses: 1 });
    await joinOk(await server.createUser('First'), once.secret);
    const disabled = await server.createUser('Disabled');
    await server.addMember(org, disabled, 'read');
    await server.app.db.member.update({ where: { organizationId_userId: { organizationId: org, userId: disabled.id } }, data: { disabled: true } });
    const spaceLink = await createLink({ level: 'admin', space: otherSpace });

    const before = await databaseFingerprint(server);
    expectError(await server.request('POST', join(expired.secret), { token: gus.token }), 410, /^The invite expired at /);
    expectError(await server.request('POST', join(once.secret), { token: gus.token }), 410, /^The invite was used its 1 time/);
    expectError(await server.request('POST', join(spaceLink.secret), { token: disabled.token }), 403, /is disabled/);
    expect(await databaseFingerprint(server)).toEqual(before);
    expect(await memberRow(gus.id)).toBeNull();
    expect(await usesOf(once.id)).toBe(1);
    expect(await server.app.db.contentGrant.count({ where: { granteeId: { in: [gus.id, disabled.id] } } })).toBe(0);
  });

  it('works only while the organization has invite links on (403 otherwise, nothing written)', async () => {
    const hal = await server.createUser('Hal');
    const link = await createLink({ role: 'read' });
    const off = await server.request('PATCH', `/v1/orgs/${org}`, { token: ada.token, body: { inviteLinks: false } });
    expect(off.status).toBe(200);
    try {
      const before = await databaseFingerprint(server);
      expectError(await server.request('POST', join(link.secret), { token: hal.token }), 403, /Invite links are turned off/);
      expectError(await server.request('POST', links(), { token: ada.token, body: { role: 'read' } }), 403, /Invite links are turned off/);
      expect(await databaseFingerprint(server)).toEqual(before);
      // Admins still see and clean up the links they have.
      expect((await server.request('GET', `${links()}/${link.id}`, { token: ada.token })).status).toBe(200);
    } finally {
      await server.request('PATCH', `/v1/orgs/${org}`, { token: ada.token, body: { inviteLinks: true } });
    }
    expect((await joinOk(hal, link.secret)).member.role).toBe('read');
  });

  it('never counts past maxUses when users join at the same time', async () => {
    const link = await createLink({ level: 'read', space: otherSpace, maxUses: 3 });
    const users = await Promise.all(Array.from({ length: 10 }, (_, i) => server.createUser(`Racer ${i}`)));
    const answers = await Promise.all(users.map((user) => server.request('POST', join(link.secret), { token: user.token })));
    const statuses = answers.map((a) => a.status).sort();
    expect(statuses, JSON.stringify(answers.map((a) => a.body))).toEqual([200, 200, 200, 410, 410, 410, 410, 410, 410, 410]);
    expect(await usesOf(link.id)).toBe(3);
    const joined = users.filter((_, i) => answers[i]!.status === 200).map((u) => u.id).sort();
    expect((await server.app.db.member.findMany({ where: { organizationId: org, userId: { in: users.map((u) => u.id) } } })).map((m) => m.userId).sort()).toEqual(joined);
    expect(await server.app.db.contentGrant.count({ where: { granteeId: { in: users.map((u) => u.id) } } })).toBe(3);
  });
});

describe('organizations whose new members join only through SAML (sso: true)', () => {
  it('refuse new members by link, by e-mail domain and by e-mail invite without sso; existing members keep working', async () => {
    const ssoOrg = await server.createOrg(ada, 'SSO only');
    const member = await server.createUser('Inside');
    await server.addMember(ssoOrg, member, 'read');
    const space = (await server.createSpace(ada, ssoOrg)).id;
    const orgLink = await createLink({ role: 'read' }, ada, ssoOrg);
    const spaceLink = await createLink({ level: 'edit', space }, ada, ssoOrg);
    const set = await server.request('PATCH', `/v1/orgs/${ssoOrg}`, { token: ada.token, body: { sso: true, emailDomains: ['example.com'] } });
    expect(set.status, JSON.stringify(set.body)).toBe(200);
    const newcomer = await server.createUser('Newcomer'); // @example.com

    const before = await databaseFingerprint(server);
    expectError(await server.request('POST', join(orgLink.secret, ssoOrg), { token: newcomer.token }), 403, /requires single sign-on/);
    expectError(await server.request('POST', `/v1/orgs/${ssoOrg}/join`, { token: newcomer.token }), 403, /requires single sign-on/);
    expectError(
      await server.request('POST', `/v1/orgs/${ssoOrg}/invites`, { token: ada.token, body: { emails: [newcomer.email, 'someone-new@example.com'] } }),
      403,
      /requires single sign-on.*Not members: .*newcomer.*someone-new@example\.com/,
    );
    expect(await databaseFingerprint(server)).toEqual(before);
    expect(await memberRow(newcomer.id, ssoOrg)).toBeNull();

    // An existing member uses a space link; an invite with sso adds an SSO member.
    const res = await server.request('POST', join(spaceLink.secret, ssoOrg), { token: member.token });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.redundant).toBe(false);
    const invited = await server.request('POST', `/v1/orgs/${ssoOrg}/invites`, { token: ada.token, body: { emails: [newcomer.email], sso: true } });
    expect(invited.status, JSON.stringify(invited.body)).toBe(200);
    expect(invited.body).toMatchObject({ users: [newcomer.id], invited: 1, failedSSOEmails: [] });
    expect(await memberRow(newcomer.id, ssoOrg)).toMatchObject({ role: null, sso: true });
  });
});

describe('POST /v1/orgs/{organizationId}/invites', () => {
  it('adds known users and makes records for unknown addresses, with the default or their own role', async () => {
    const organization = await server.createOrg(ada, 'Mail invites');
    const known = await server.createUser('Known');
    const body = { emails: [known.email.toUpperCase(), { email: 'Brand.New@Example.org', role: 'admin' }, { email: 'guest-new@example.org', role: null }], role: 'comment' };
    const res = await server.request('POST', `/v1/orgs/${organization}/invites`, { token: ada.token, body });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    assertMatchesSpec('inviteUsersToOrganization', 200, res.body);
    const brandNew = await server.app.db.user.findUniqueOrThrow({ where: { email: 'brand.new@example.org' } });
    const guest = await server.app.db.user.findUniqueOrThrow({ where: { email: 'guest-new@example.org' } });
    expect(res.body).toEqual({ users: [known.id, brandNew.id, guest.id], invited: 3, failedSSOEmails: [], redundant: [], updated: [] });
    expect(brandNew.displayName).toBe('brand.new');
    expect(await server.app.db.apiToken.count({ where: { userId: brandNew.id } })).toBe(0);
    expect((await memberRow(known.id, organization))?.role).toBe('comment');
    expect((await memberRow(brandNew.id, organization))?.role).toBe('admin');
    expect((await memberRow(guest.id, organization))?.role).toBeNull();

    // Again, with a higher role for one: redundant for the rest, a raise for that one.
    const again = await server.request('POST', `/v1/orgs/${organization}/invites`, { token: ada.token, body: { emails: [known.email, { email: guest.email, role: 'read' }, ada.email] } });
    expect(again.status).toBe(200);
    assertMatchesSpec('inviteUsersToOrganization', 200, again.body);
    expect(again.body).toEqual({ users: [], invited: 0, failedSSOEmails: [], redundant: [known.email, ada.email], updated: [guest.id] });
    expect((await memberRow(guest.id, organization))?.role).toBe('read');
  });

  it("takes the organization's default role without one, and makes SSO members except of users in other organizations", async () => {
    const organization = await server.createOrg(ada, 'Defaults');
    await server.request('PATCH', `/v1/orgs/${organization}`, { token: ada.token, body: { defaultRole: 'review' } });
    const busy = await server.createUser('Busy');
    await server.addMember(otherOrg, busy, 'read');
    const res = await server.request('POST', `/v1/orgs/${organization}/invites`, { token: ada.token, body: { emails: ['fresh@example.net', busy.email], sso: true } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    assertMatchesSpec('inviteUsersToOrganization', 200, res.body);
    expect(res.body.invited).toBe(2);
    expect(res.body.failedSSOEmails).toEqual([busy.email]);
    const fresh = await server.app.db.user.findUniqueOrThrow({ where: { email: 'fresh@example.net' } });
    expect(await memberRow(fresh.id, organization)).toMatchObject({ role: 'review', sso: true });
    expect(await memberRow(busy.id, organization)).toMatchObject({ role: 'review', sso: false });
  });

  it('refuses bad addresses and lists whole (400 naming the entry), writing nothing', async () => {
    const before = await databaseFingerprint(server);
    const post = (body: unknown) => server.request('POST', `/v1/orgs/${org}/invites`, { token: ada.token, body });
    expectError(await post({ emails: ['ok@example.com', 'not-an-address'] }), 400, /^emails\[1\]: not an e-mail address$/);
    expectError(await post({ emails: [{ email: 'ok@example.com', role: 'owner' }] }), 400, /^emails\[0\]: role: must be one of /);
    expectError(await post({ emails: [{ email: 'ok@example.com' }] }), 400, /^emails\[0\]: role: is required/);
    expectError(await post({ emails: [42] }), 400, /^emails\[0\]: must be an e-mail address/);
    expectError(await post({ emails: [] }), 400, /^emails: give at least one/);
    expectError(await post({ emails: Array.from({ length: 101 }, (_, i) => `u${i}@example.com`) }), 400, /^emails: at most 100/);
    expectError(await post({ emails: ['ok@example.com'], role: 'owner' }), 400, /^role: must be one of /);
    expect(await databaseFingerprint(server)).toEqual(before);
  });
});

describe('GraphQL', () => {
  it('creates a link, previews it by its secret and joins with it, with nested fields', async () => {
    const organization = await server.createOrg(ada, 'GraphQL invites');
    const guides = (await server.createCollection(ada, organization, { title: 'Handbooks' })).id;
    const created = await server.graphql(
      `mutation($org: ID!, $collection: String!) {
        createInviteLink(organizationId: $org, input: { level: edit, collection: $collection, maxUses: 2 }) {
          __typename id secret uses maxUses target ... on CollectionInviteLink { level collection { id title } }
        }
      }`,
      { token: ada.token, variables: { org: organization, collection: guides } },
    );
    expect(created.body.errors).toBeUndefined();
    const link = created.body.data.createInviteLink;
    expect(link).toMatchObject({ __typename: 'CollectionInviteLink', uses: 0, maxUses: 2, target: 'collection', level: 'edit', collection: { id: guides, title: 'Handbooks' } });
    const jo = await server.createUser('Jo');
    const preview = await server.graphql('query($org: ID!, $id: ID!) { inviteLink(organizationId: $org, inviteId: $id) { id redundant secret } }', {
      token: jo.token,
      variables: { org: organization, id: link.secret },
    });
    expect(preview.body.data.inviteLink).toEqual({ id: link.id, redundant: false, secret: null });
    const joined = await server.graphql(
      'mutation($org: ID!, $id: ID!) { joinWithInvite(organizationId: $org, inviteId: $id) { organization redundant collection space member { role user { email } } } }',
      { token: jo.token, variables: { org: organization, id: link.secret } },
    );
    expect(joined.body.data.joinWithInvite).toEqual({ organization, redundant: false, collection: guides, space: null, member: { role: null, user: { email: jo.email } } });
    const invited = await server.graphql('mutation($org: ID!) { inviteUsers(organizationId: $org, input: { emails: ["gql-invitee@example.com", { email: "gql-admin@example.com", role: admin }] }) { users invited } }', {
      token: ada.token,
      variables: { org: organization },
    });
    expect(invited.body.errors).toBeUndefined();
    expect(invited.body.data.inviteUsers.invited).toBe(2);
  });
});

describe("another organization's token", () => {
  it('never gets a 2xx on these routes of the first organization', async () => {
    const link = await createLink({ role: 'read' });
    const routes: Array<[string, string, unknown?]> = [
      ['GET', links()],
      ['POST', links(), { role: 'admin' }],
      ['GET', `${links()}/${link.id}`],
      ['PATCH', `${links()}/${link.id}`, { role: 'admin' }],
      ['DELETE', `${links()}/${link.id}`],
      ['POST', `/v1/orgs/${org}/invites`, { emails: [bob.email], role: 'admin' }],
      ['POST', join(link.id)],
      ['POST', `/v1/orgs/${org}/ping`],
      ['PATCH', `/v1/orgs/${org}/members/${ada.id}`, { disabled: true }],
    ];
    const before = await databaseFingerprint(server);
    for (const [method, path, body] of routes) {
      const res = await server.request(method, path, { token: bob.token, body });
      expect(res.status, `${method} ${path}: ${JSON.stringify(res.body)}`).toBe(404);
    }
    expect(await databaseFingerprint(server)).toEqual(before);
    expect(await memberRow(bob.id)).toBeNull();
  });
});

describe("GitBook's client", () => {
  it('drives every invite route', async () => {
    const api = new GitBookAPI({ authToken: ada.token, endpoint: server.baseUrl });
    const organization = await server.createOrg(ada, 'Client invites');
    const created = await api.orgs.createOrganizationInvite(organization, { role: MemberRole.Read });
    expect(created.status).toBe(201);
    assertMatchesSpec('createOrganizationInvite', 201, created.data);
    const link = created.data as unknown as { id: string; secret: string };
    const listed = await api.orgs.listOrganizationInviteLinks(organization);
    assertMatchesSpec('listOrganizationInviteLinks', 200, listed.data);
    expect(listed.data.items.map((i) => i.id)).toEqual([link.id]);
    const got = await api.orgs.getOrganizationInviteLink(organization, link.id);
    assertMatchesSpec('getOrganizationInviteLink', 200, got.data);
    const updated = await api.orgs.updateOrganizationInviteById(organization, link.id, { role: MemberRole.Edit });
    assertMatchesSpec('updateOrganizationInviteById', 200, updated.data);
    expect((updated.data as { role: string }).role).toBe('edit');

    const ivy = await server.createUser('Ivy');
    const ivyApi = new GitBookAPI({ authToken: ivy.token, endpoint: server.baseUrl });
    const joined = await ivyApi.orgs.joinOrganizationWithInvite(organization, link.secret);
    expect(joined.status).toBe(200);
    assertMatchesSpec('joinOrganizationWithInvite', 200, joined.data);
    const invited = await api.orgs.inviteUsersToOrganization(organization, { emails: ['client-invitee@example.com'], role: MemberRole.Read });
    assertMatchesSpec('inviteUsersToOrganization', 200, invited.data);
    expect(invited.data.invited).toBe(1);
    const deleted = await api.orgs.deleteOrganizationInviteById(organization, link.id);
    expect(deleted.status).toBe(205);
    const refused = await ivyApi.orgs.joinOrganizationWithInvite(organization, link.secret).then(
      () => null,
      (error: unknown) => error,
    );
    expect(refused).toBeInstanceOf(GitBookAPIError);
    expect((refused as GitBookAPIError).code).toBe(404);
  });
});

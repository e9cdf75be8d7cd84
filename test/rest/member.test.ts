/**
 * Members of an organization over REST: list (paging, filters, sorting), get,
 * PATCH role and DELETE, with the role rules and the last-admin guard.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { assertMatchesSpec } from '../helpers/openapi.ts';
import { useTestServer, type TestUser } from '../helpers/server.ts';

const { server, ada, outsider } = useTestServer({ users: ['Ada', 'Outsider'] });

const ids = (body: { items: Array<{ id: string }> }) => body.items.map((m) => m.id);

describe('GET /v1/orgs/{organizationId}/members', () => {
  let org: string;
  let grace: TestUser; // edit, seen
  let linus: TestUser; // read
  let guest: TestUser; // guest (null role), seen
  let quiet: TestUser; // create; e-mail unrelated to the display name, with upper case
  let ken: TestUser; // comment
  /** Member user ids in joinedAt descending order (the default order). */
  let newestFirst: string[];

  beforeAll(async () => {
    org = await server.createOrg(ada);
    grace = await server.createUser('Grace Hopper');
    linus = await server.createUser('Linus');
    guest = await server.createUser('Gus Guest');
    quiet = await server.createUser('Quiet Person');
    ken = await server.createUser('Ken');
    await server.app.db.user.update({ where: { id: quiet.id }, data: { email: 'UniqueMailbox@Sample.TEST' } });
    const day = (d: number) => new Date(Date.UTC(2024, 0, d));
    await server.addMember(org, grace, 'edit', { joinedAt: day(1), lastSeenAt: new Date(Date.UTC(2024, 5, 1)) });
    await server.addMember(org, linus, 'read', { joinedAt: day(2) });
    await server.addMember(org, guest, null, { joinedAt: day(3), lastSeenAt: new Date(Date.UTC(2024, 5, 3)) });
    await server.addMember(org, quiet, 'create', { joinedAt: day(4) });
    await server.addMember(org, ken, 'comment', { joinedAt: day(5) });
    // Ada joined when she created the organization: now, the newest.
    newestFirst = [ada.id, ken.id, quiet.id, guest.id, linus.id, grace.id];
  });

  async function list(query = '', token = ada.token) {
    const res = await server.request('GET', `/v1/orgs/${org}/members${query ? `?${query}` : ''}`, { token });
    if (res.status === 200) assertMatchesSpec('listMembersInOrganizationById', 200, res.body);
    return res;
  }

  it('lists every member, newest first by default, in the Member shape', async () => {
    const res = await list();
    expect(res.status).toBe(200);
    expect(res.body.count).toBe(6);
    expect(res.body.next).toBeUndefined();
    expect(ids(res.body)).toEqual(newestFirst);
    const adaMember = res.body.items[0];
    expect(adaMember).toMatchObject({ object: 'member', id: ada.id, role: 'admin', disabled: false, sso: false, spaces: 0, teams: 0 });
    expect(adaMember.user).toMatchObject({ object: 'user', id: ada.id, displayName: 'Ada', email: ada.email });
    const guestMember = res.body.items.find((m: { id: string }) => m.id === guest.id);
    expect(guestMember.role).toBeNull();
    expect(guestMember.joinedAt).toBe('2024-01-03T00:00:00.000Z');
    expect(guestMember.lastSeenAt).toBe('2024-06-03T00:00:00.000Z');
    expect(res.body.items.find((m: { id: string }) => m.id === linus.id)).not.toHaveProperty('lastSeenAt');
  });

  it('pages with limit=2 and next.page, visiting each member once', async () => {
    for (const order of ['desc', 'asc'] as const) {
      const paged = await server.pageThrough(ada, `/v1/orgs/${org}/members?order=${order}`, 'listMembersInOrganizationById');
      expect(paged).toEqual({ ids: order === 'desc' ? newestFirst : [...newestFirst].reverse(), pages: 3, count: 6 });
    }
  });

  it('orders ascending and descending', async () => {
    expect(ids((await list('order=asc')).body)).toEqual([...newestFirst].reverse());
    expect(ids((await list('order=desc')).body)).toEqual(newestFirst);
  });

  it('filters by role, guest included', async () => {
    const cases: Array<[string, string[]]> = [
      ['admin', [ada.id]],
      ['create', [quiet.id]],
      ['edit', [grace.id]],
      ['comment', [ken.id]],
      ['read', [linus.id]],
      ['review', []],
      ['guest', [guest.id]],
    ];
    for (const [role, expected] of cases) {
      const res = await list(`role=${role}`);
      expect(res.status, role).toBe(200);
      expect(ids(res.body), role).toEqual(expected);
      expect(res.body.count, role).toBe(expected.length);
    }
    const bad = await list('role=owner');
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({ error: { code: 400, message: expect.stringMatching(/role/) } });
  });

  it('searches display names and e-mails case-insensitively', async () => {
    expect(ids((await list('search=HOPPER')).body)).toEqual([grace.id]);
    expect(ids((await list('search=quiet')).body)).toEqual([quiet.id]); // display name only: the e-mail does not contain it
    expect(ids((await list('search=uniquemailbox%40sample.test')).body)).toEqual([quiet.id]); // e-mail only, stored as UniqueMailbox@Sample.TEST
    expect(ids((await list('search=SAMPLE.test')).body)).toEqual([quiet.id]);
    const none = await list('search=nobody-at-all');
    expect(none.body).toMatchObject({ items: [], count: 0 });
    const combined = await list('search=g&role=guest');
    expect(ids(combined.body)).toEqual([guest.id]);
  });

  // Prisma's `contains` does not escape LIKE wildcards: unescaped, `_` and `%` in a
  // search would match any character(s) (`a_a` would match "Ada").
  it('treats % and _ in a search literally', async () => {
    for (const search of ['_', '%25', 'a_a', '%25%25', '%5C']) {
      const res = await list(`search=${search}`);
      expect(res.status, search).toBe(200);
      expect(res.body.count, search).toBe(0);
      expect(res.body.items, search).toEqual([]);
    }
  });

  it('finds %, _ and \\ themselves, case-insensitively, and pages through such a search', async () => {
    const other = await server.createOrg(ada);
    const snake = await server.createUser('Snake_Case');
    const under = await server.createUser('Under_Score');
    const percent = await server.createUser('Hundred 100%');
    const backslash = await server.createUser('Back\\slash');
    const plain = await server.createUser('Snakexcase 1000');
    const users = [snake, under, percent, backslash, plain];
    for (const [i, user] of users.entries()) await server.addMember(other, user, 'read', { joinedAt: new Date(Date.UTC(2024, 0, i + 1)) });
    const cases: Array<[string, string[]]> = [
      ['_', [under.id, snake.id]],
      ['e_c', [snake.id]],
      ['SNAKE_case', [snake.id]],
      ['%25', [percent.id]],
      ['100%25', [percent.id]],
      ['0%25', [percent.id]],
      ['%5C', [backslash.id]],
      ['k%5Cs', [backslash.id]],
      ['snake', [plain.id, snake.id]],
      ['_x', []],
    ];
    for (const [search, expected] of cases) {
      const res = await server.request('GET', `/v1/orgs/${other}/members?search=${search}`, { token: ada.token });
      expect(res.status, search).toBe(200);
      assertMatchesSpec('listMembersInOrganizationById', 200, res.body);
      expect(ids(res.body), search).toEqual(expected);
      expect(res.body.count, search).toBe(expected.length);
    }
    const paged = await server.pageThrough(ada, `/v1/orgs/${other}/members?search=_&order=asc`, 'listMembersInOrganizationById', 1);
    expect(paged).toEqual({ ids: [snake.id, under.id], pages: 2, count: 2 });
  });

  it('sorts by lastSeenAt, listing only members seen at least once', async () => {
    // Ada's own requests are real use of the organization: she was seen just now, the newest.
    const desc = await list('sort=lastSeenAt');
    expect(desc.status).toBe(200);
    expect(ids(desc.body)).toEqual([ada.id, guest.id, grace.id]);
    expect(desc.body.count).toBe(3);
    expect(ids((await list('sort=lastSeenAt&order=asc')).body)).toEqual([grace.id, guest.id, ada.id]);
    // paging with the lastSeenAt cursor
    const first = await list('sort=lastSeenAt&limit=2');
    expect(ids(first.body)).toEqual([ada.id, guest.id]);
    const second = await list(`sort=lastSeenAt&limit=2&page=${encodeURIComponent(first.body.next.page)}`);
    expect(ids(second.body)).toEqual([grace.id]);
    expect(second.body.next).toBeUndefined();
    expect((await list('sort=bogus')).status).toBe(400);
  });

  it('validates limit and page', async () => {
    for (const q of ['limit=0', 'limit=1001', 'limit=abc', 'page=not-a-cursor']) {
      const res = await list(q);
      expect(res.status, q).toBe(400);
      expect(res.body.error.code, q).toBe(400);
    }
  });

  it('hides the list from non-members (404), refuses guests (403), and requires a token (401)', async () => {
    expect((await list('', outsider.token)).status).toBe(404);
    expect((await list('', guest.token)).status).toBe(403);
    const readers = await list('', linus.token);
    expect(readers.status).toBe(200);
    expect(readers.body.count).toBe(6);
    const anon = await server.request('GET', `/v1/orgs/${org}/members`);
    expect(anon.status).toBe(401);
    expect((await server.request('GET', '/v1/orgs/no-such-org/members', { token: ada.token })).status).toBe(404);
  });
});

describe('GET /v1/orgs/{organizationId}/members/{userId}', () => {
  it('answers a member to members, 404 otherwise', async () => {
    const org = await server.createOrg(ada);
    const reader = await server.createUser('Reader');
    await server.addMember(org, reader, 'read');

    const got = await server.request('GET', `/v1/orgs/${org}/members/${reader.id}`, { token: ada.token });
    expect(got.status).toBe(200);
    assertMatchesSpec('getMemberInOrganizationById', 200, got.body);
    expect(got.body).toMatchObject({ object: 'member', id: reader.id, role: 'read', user: { id: reader.id, displayName: 'Reader' } });

    const byReader = await server.request('GET', `/v1/orgs/${org}/members/${ada.id}`, { token: reader.token });
    expect(byReader.status).toBe(200);
    assertMatchesSpec('getMemberInOrganizationById', 200, byReader.body);
    expect(byReader.body.role).toBe('admin');

    const notMember = await server.request('GET', `/v1/orgs/${org}/members/${outsider.id}`, { token: ada.token });
    expect(notMember.status).toBe(404);
    expect(notMember.body).toEqual({ error: { code: 404, message: expect.any(String) } });
    expect((await server.request('GET', `/v1/orgs/${org}/members/${reader.id}`, { token: outsider.token })).status).toBe(404);
    expect((await server.request('GET', `/v1/orgs/${org}/members/${reader.id}`)).status).toBe(401);
  });
});

describe('PATCH /v1/orgs/{organizationId}/members/{userId}', () => {
  /** An organization of Ada's with Bob (read) and Carol (edit), and PATCH on its members. */
  async function newOrg() {
    const org = await server.createOrg(ada);
    const bob = await server.createUser('Bob');
    const carol = await server.createUser('Carol');
    await server.addMember(org, bob, 'read');
    await server.addMember(org, carol, 'edit');
    const patch = (userId: string, body: unknown, token = ada.token) => server.request('PATCH', `/v1/orgs/${org}/members/${userId}`, { token, body });
    return { org, bob, carol, patch };
  }

  it('lets an admin change a role, to guest and back', async () => {
    const { org, bob, patch } = await newOrg();
    const review = await patch(bob.id, { role: 'review' });
    expect(review.status).toBe(200);
    assertMatchesSpec('updateMemberInOrganizationById', 200, review.body);
    expect(review.body).toMatchObject({ object: 'member', id: bob.id, role: 'review' });

    const toGuest = await patch(bob.id, { role: null });
    expect(toGuest.status).toBe(200);
    assertMatchesSpec('updateMemberInOrganizationById', 200, toGuest.body);
    expect(toGuest.body.role).toBeNull();
    const listed = await server.request('GET', `/v1/orgs/${org}/members?role=guest`, { token: ada.token });
    expect(ids(listed.body)).toEqual([bob.id]);

    const unchanged = await patch(bob.id, {});
    expect(unchanged.status).toBe(200);
    assertMatchesSpec('updateMemberInOrganizationById', 200, unchanged.body);
    expect(unchanged.body.role).toBeNull();

    const back = await patch(bob.id, { role: 'read' });
    expect(back.status).toBe(200);
    expect(back.body.role).toBe('read');
    const got = await server.request('GET', `/v1/orgs/${org}/members/${bob.id}`, { token: ada.token });
    expect(got.body.role).toBe('read');
  });

  it('refuses a non-admin member (403), hides from non-members (404)', async () => {
    const { org, bob, carol, patch } = await newOrg();
    const byCarol = await patch(bob.id, { role: 'admin' }, carol.token);
    expect(byCarol.status).toBe(403);
    expect(byCarol.body).toEqual({ error: { code: 403, message: expect.any(String) } });
    const selfPromotion = await patch(carol.id, { role: 'admin' }, carol.token);
    expect(selfPromotion.status).toBe(403);
    expect((await patch(bob.id, { role: 'admin' }, outsider.token)).status).toBe(404);
    expect((await patch(outsider.id, { role: 'read' })).status).toBe(404);
    expect((await server.request('PATCH', `/v1/orgs/${org}/members/${bob.id}`, { body: { role: 'admin' } })).status).toBe(401);
    const got = await server.request('GET', `/v1/orgs/${org}/members/${bob.id}`, { token: ada.token });
    expect(got.body.role).toBe('read');
  });

  it('rejects an invalid role or body with 400', async () => {
    const { bob, patch } = await newOrg();
    for (const body of [{ role: 'owner' }, { role: 'ADMIN' }, { role: 3 }]) {
      const res = await patch(bob.id, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error).toMatchObject({ code: 400, message: expect.stringMatching(/role/) });
    }
    expect((await patch(bob.id, '{"role":')).status).toBe(400);
    expect((await patch(bob.id, '["read"]')).status).toBe(400);
  });

  it('never demotes the last admin (409), but does once another admin exists', async () => {
    const { bob, carol, patch } = await newOrg();
    for (const role of ['edit', null]) {
      const res = await patch(ada.id, { role });
      expect(res.status, String(role)).toBe(409);
      expect(res.body).toEqual({ error: { code: 409, message: expect.stringMatching(/at least one admin/) } });
    }
    // Keeping admin is not a demotion.
    expect((await patch(ada.id, { role: 'admin' })).status).toBe(200);

    const promoted = await patch(carol.id, { role: 'admin' });
    expect(promoted.status).toBe(200);
    expect(promoted.body.role).toBe('admin');
    const demoted = await patch(ada.id, { role: 'create' });
    expect(demoted.status).toBe(200);
    expect(demoted.body.role).toBe('create');
    // Ada is no longer admin: she may not change roles any more; Carol, the last admin, may not step down.
    expect((await patch(bob.id, { role: 'edit' })).status).toBe(403);
    expect((await patch(carol.id, { role: 'read' }, carol.token)).status).toBe(409);
    expect((await patch(ada.id, { role: 'admin' }, carol.token)).body.role).toBe('admin');
  });
});

describe('concurrent changes of the last two admins', () => {
  /** An organization with two admins, Ada and a new one. */
  async function twoAdmins() {
    const org = await server.createOrg(ada);
    const other = await server.createUser('Second admin');
    await server.addMember(org, other, 'admin');
    return { org, other };
  }

  async function adminIds(org: string) {
    const rows = await server.app.db.member.findMany({ where: { organizationId: org, role: 'admin' }, select: { userId: true } });
    return rows.map((r) => r.userId);
  }

  /** One request went through (200, or 205 for a removal), the other is the last-admin 409. */
  function expectOneWinner(results: Array<{ status: number; body: any }>) {
    const statuses = results.map((r) => r.status);
    expect(statuses.filter((s) => s === 200 || s === 205), JSON.stringify(results.map((r) => r.body))).toHaveLength(1);
    const refused = results.filter((r) => r.status === 409);
    expect(refused, JSON.stringify(results.map((r) => r.body))).toHaveLength(1);
    expect(refused[0]!.body).toEqual({ error: { code: 409, message: expect.stringMatching(/at least one admin/) } });
  }

  it('lets exactly one of two simultaneous demotions of the two admins through', async () => {
    for (let round = 0; round < 5; round++) {
      const { org, other } = await twoAdmins();
      // Both admins step down at the same time. (Each demotes themselves: had they demoted
      // each other, the later request could also be refused as no longer coming from an admin.)
      const results = await Promise.all([
        server.request('PATCH', `/v1/orgs/${org}/members/${ada.id}`, { token: ada.token, body: { role: 'edit' } }),
        server.request('PATCH', `/v1/orgs/${org}/members/${other.id}`, { token: other.token, body: { role: 'read' } }),
      ]);
      expectOneWinner(results);
      expect(await adminIds(org)).toHaveLength(1);
    }
  });

  it('lets exactly one of two admins step down at the same time, by demotion or by leaving', async () => {
    for (let round = 0; round < 5; round++) {
      const { org, other } = await twoAdmins();
      const results = await Promise.all([
        server.request('PATCH', `/v1/orgs/${org}/members/${ada.id}`, { token: ada.token, body: { role: null } }),
        round % 2
          ? server.request('DELETE', `/v1/orgs/${org}/members/${other.id}`, { token: other.token })
          : server.request('PATCH', `/v1/orgs/${org}/members/${other.id}`, { token: other.token, body: { role: 'create' } }),
      ]);
      expectOneWinner(results);
      expect(await adminIds(org)).toHaveLength(1);
    }
  });
});

describe('DELETE /v1/orgs/{organizationId}/members/{userId}', () => {
  it('removes a member (205), then answers 204; the member loses access', async () => {
    const org = await server.createOrg(ada);
    const bob = await server.createUser('Bob');
    await server.addMember(org, bob, 'edit');
    const first = await server.request('DELETE', `/v1/orgs/${org}/members/${bob.id}`, { token: ada.token });
    expect(first.status).toBe(205);
    expect(first.body).toBeNull();
    const second = await server.request('DELETE', `/v1/orgs/${org}/members/${bob.id}`, { token: ada.token });
    expect(second.status).toBe(204);
    expect(second.body).toBeNull();
    expect((await server.request('GET', `/v1/orgs/${org}/members/${bob.id}`, { token: ada.token })).status).toBe(404);
    expect((await server.request('GET', `/v1/orgs/${org}`, { token: bob.token })).status).toBe(404);
    const list = await server.request('GET', `/v1/orgs/${org}/members`, { token: ada.token });
    expect(ids(list.body)).toEqual([ada.id]);
  });

  it('refuses a non-admin (403) and a non-member (404)', async () => {
    const org = await server.createOrg(ada);
    const bob = await server.createUser('Bob');
    const carol = await server.createUser('Carol');
    await server.addMember(org, bob, 'create');
    await server.addMember(org, carol, 'read');
    const byBob = await server.request('DELETE', `/v1/orgs/${org}/members/${carol.id}`, { token: bob.token });
    expect(byBob.status).toBe(403);
    expect(byBob.body.error.code).toBe(403);
    expect((await server.request('DELETE', `/v1/orgs/${org}/members/${ada.id}`, { token: bob.token })).status).toBe(403);
    expect((await server.request('DELETE', `/v1/orgs/${org}/members/${carol.id}`, { token: outsider.token })).status).toBe(404);
    expect((await server.request('DELETE', `/v1/orgs/${org}/members/${carol.id}`)).status).toBe(401);
    const list = await server.request('GET', `/v1/orgs/${org}/members`, { token: ada.token });
    expect(list.body.count).toBe(3);
  });

  it('lets a member leave, but never removes the last admin (409)', async () => {
    const org = await server.createOrg(ada);
    const bob = await server.createUser('Bob');
    const carol = await server.createUser('Carol');
    await server.addMember(org, bob, 'read');
    await server.addMember(org, carol, 'edit');

    const leave = await server.request('DELETE', `/v1/orgs/${org}/members/${bob.id}`, { token: bob.token });
    expect(leave.status).toBe(205);
    expect((await server.request('GET', `/v1/orgs/${org}`, { token: bob.token })).status).toBe(404);

    const lastAdmin = await server.request('DELETE', `/v1/orgs/${org}/members/${ada.id}`, { token: ada.token });
    expect(lastAdmin.status).toBe(409);
    expect(lastAdmin.body).toEqual({ error: { code: 409, message: expect.stringMatching(/at least one admin/) } });
    expect((await server.request('GET', `/v1/orgs/${org}/members/${ada.id}`, { token: ada.token })).body.role).toBe('admin');

    expect((await server.request('PATCH', `/v1/orgs/${org}/members/${carol.id}`, { token: ada.token, body: { role: 'admin' } })).status).toBe(200);
    const adaLeaves = await server.request('DELETE', `/v1/orgs/${org}/members/${ada.id}`, { token: ada.token });
    expect(adaLeaves.status).toBe(205);
    const remaining = await server.request('GET', `/v1/orgs/${org}/members`, { token: carol.token });
    expect(ids(remaining.body)).toEqual([carol.id]);
    // Carol is now the last admin; she can neither leave nor be removed.
    expect((await server.request('DELETE', `/v1/orgs/${org}/members/${carol.id}`, { token: carol.token })).status).toBe(409);
  });
});

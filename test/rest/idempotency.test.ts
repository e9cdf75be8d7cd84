/**
 * Idempotency-Key on POST (src/plugins/use-idempotency.ts): a retry of the same
 * request gets the stored answer and runs nothing; the same key for another
 * request is 422; a key in use is 409; what is kept and what is not.
 */
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, expectError, type TestServer, type TestUser } from '../helpers/server.ts';

let server: TestServer;
let ada: TestUser;
let bob: TestUser;
let org: string;
/** What the next statements matching it do: fail (a throw before they are sent). */
let failWhen: ((sql: string) => boolean) | null = null;

beforeAll(async () => {
  server = await startTestServer({}, undefined, {
    onQuery: (sql) => {
      if (failWhen?.(sql)) throw new Error('injected database failure');
    },
  });
  ada = await server.createUser('Ada');
  bob = await server.createUser('Bob');
  org = await server.createOrg(ada);
  await server.addMember(org, bob, 'admin');
});
afterAll(() => server?.close());

let keys = 0;
/** A key no other test uses. */
const newKey = () => `key-${++keys}-${Math.random().toString(36).slice(2)}`;

const createSpace = (user: TestUser, key: string | undefined, body: unknown = { title: 'Handbook' }, path = `/v1/orgs/${org}/spaces`) =>
  server.request('POST', path, { token: user.token, body, headers: key === undefined ? {} : { 'idempotency-key': key } });

const spaceCount = () => server.app.db.space.count({ where: { organizationId: org } });
const storedKey = (user: TestUser, key: string) =>
  server.app.db.idempotencyKey.findFirst({ where: { key, token: { userId: user.id } } });

describe('Idempotency-Key', () => {
  it('answers a retry with the first answer, marked replayed, and creates nothing more', async () => {
    const key = newKey();
    const before = await spaceCount();
    const first = await createSpace(ada, key);
    expect(first.status, JSON.stringify(first.body)).toBe(201);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    const retries = [await createSpace(ada, key), await createSpace(ada, key)];
    for (const retry of retries) {
      expect(retry.status).toBe(201);
      expect(retry.body).toEqual(first.body);
      expect(retry.headers.get('location')).toBe(first.headers.get('location'));
      expect(retry.headers.get('content-type')).toBe(first.headers.get('content-type'));
      expect(retry.headers.get('idempotent-replayed')).toBe('true');
    }
    expect(await spaceCount()).toBe(before + 1);
  });

  it('runs requests without a key, or with another key, each time', async () => {
    const before = await spaceCount();
    await createSpace(ada, undefined);
    await createSpace(ada, undefined);
    await createSpace(ada, newKey());
    await createSpace(ada, newKey());
    expect(await spaceCount()).toBe(before + 4);
  });

  it('refuses the same key for another body or another path with 422, running nothing', async () => {
    const key = newKey();
    expect((await createSpace(ada, key, { title: 'First' })).status).toBe(201);
    const before = await spaceCount();
    expectError(await createSpace(ada, key, { title: 'Second' }), 422, /Idempotency-Key was first used for another request/);
    expectError(await createSpace(ada, key, { title: 'First' }, `/v1/orgs/${org}/collections`), 422, /Idempotency-Key/);
    expect(await spaceCount()).toBe(before);
    expect(await server.app.db.collection.count({ where: { organizationId: org } })).toBe(0);
    // The key still answers its own request.
    expect((await createSpace(ada, key, { title: 'First' })).headers.get('idempotent-replayed')).toBe('true');
  });

  it('keeps keys per token: another token with the same key runs its own request', async () => {
    const key = newKey();
    const before = await spaceCount();
    const byAda = await createSpace(ada, key);
    const byBob = await createSpace(bob, key);
    expect([byAda.status, byBob.status]).toEqual([201, 201]);
    expect(byBob.body.id).not.toBe(byAda.body.id);
    expect(byBob.headers.get('idempotent-replayed')).toBeNull();
    expect(await spaceCount()).toBe(before + 2);
    expect((await createSpace(bob, key)).body.id).toBe(byBob.body.id);
  });

  it('answers 409 while the first request with the key has not answered', async () => {
    const key = newKey();
    const token = await server.app.db.apiToken.findFirstOrThrow({ where: { userId: ada.id } });
    // A first request in flight (or interrupted before it could store its answer).
    await server.app.db.idempotencyKey.create({
      data: { tokenId: token.id, key, method: 'POST', path: `/v1/orgs/${org}/spaces`, bodyHash: sha256(JSON.stringify({ title: 'Handbook' })), expiresAt: new Date(Date.now() + 60_000) },
    });
    const before = await spaceCount();
    expectError(await createSpace(ada, key), 409, /has not finished/);
    expect(await spaceCount()).toBe(before);
  });

  it('runs one of several concurrent requests with the same key; the others get 409 or its answer', async () => {
    const key = newKey();
    const before = await spaceCount();
    const answers = await Promise.all(Array.from({ length: 6 }, () => createSpace(ada, key)));
    expect(await spaceCount()).toBe(before + 1);
    const ran = answers.filter((a) => a.status === 201 && a.headers.get('idempotent-replayed') === null);
    expect(ran).toHaveLength(1);
    for (const answer of answers) {
      if (answer.status === 409) expectError(answer, 409);
      else expect(answer.body).toEqual(ran[0]!.body);
    }
  });

  it('refuses a key longer than 255 characters with 400 and takes one of 255', async () => {
    const before = await spaceCount();
    expectError(await createSpace(ada, 'k'.repeat(256)), 400, /Idempotency-Key header must be 1 to 255 characters/);
    expect(await spaceCount()).toBe(before);
    const key = 'k'.repeat(255);
    expect((await createSpace(ada, key)).status).toBe(201);
    expect((await createSpace(ada, key)).headers.get('idempotent-replayed')).toBe('true');
  });

  it('keeps nothing for a request refused before it ran (invalid input): a retry runs again', async () => {
    const key = newKey();
    const invalid = { title: 'x'.repeat(500) };
    expectError(await createSpace(ada, key, invalid), 400);
    expect(await storedKey(ada, key)).toBeNull();
    const retry = await createSpace(ada, key, invalid);
    expectError(retry, 400);
    expect(retry.headers.get('idempotent-replayed')).toBeNull();
    // Free for a corrected request, too.
    expect((await createSpace(ada, key, { title: 'Fixed' })).status).toBe(201);
  });

  it('keeps the answer of a request that ran and was refused (404), as Stripe does', async () => {
    const key = newKey();
    const path = '/v1/orgs/no-such-org/spaces';
    expectError(await createSpace(ada, key, { title: 'x' }, path), 404);
    const retry = await createSpace(ada, key, { title: 'x' }, path);
    expectError(retry, 404);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
  });

  it('keeps nothing for a server error before any write: a retry runs again', async () => {
    const key = newKey();
    const before = await spaceCount();
    failWhen = (sql) => /INSERT INTO .*Space/.test(sql);
    try {
      expectError(await createSpace(ada, key), 500);
    } finally {
      failWhen = null;
    }
    expect(await spaceCount()).toBe(before);
    expect(await storedKey(ada, key)).toBeNull();
    const retry = await createSpace(ada, key);
    expect(retry.status).toBe(201);
    expect(retry.headers.get('idempotent-replayed')).toBeNull();
    expect(await spaceCount()).toBe(before + 1);
  });

  it('keeps a server error that came after the write (the reply failed): a retry does not write again', async () => {
    const key = newKey();
    const before = await spaceCount();
    // The space is committed, then reading what the reply needs fails.
    failWhen = (sql) => sql.includes('"SiteSpace"');
    try {
      expectError(await createSpace(ada, key), 500);
    } finally {
      failWhen = null;
    }
    expect(await spaceCount()).toBe(before + 1);
    const retry = await createSpace(ada, key);
    expectError(retry, 500);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(await spaceCount()).toBe(before + 1);
  });

  it('answers 500 in the API’s shape, running nothing, when the key cannot be looked up', async () => {
    const key = newKey();
    const before = await spaceCount();
    failWhen = (sql) => sql.includes('IdempotencyKey');
    try {
      const rest = await createSpace(ada, key);
      expectError(rest, 500, /^Unexpected error$/);
      const graphql = await server.graphql('{ __typename }', { token: ada.token, headers: { 'idempotency-key': key } });
      expect(graphql.status).toBe(500);
      expect(graphql.body).toEqual({ errors: [{ message: 'Unexpected error', extensions: { code: 'INTERNAL_SERVER_ERROR' } }] });
    } finally {
      failWhen = null;
    }
    expect(await spaceCount()).toBe(before);
    expect((await createSpace(ada, key)).status).toBe(201);
  });

  it('still answers when the answer cannot be stored; retries then get 409 and write nothing', async () => {
    const key = newKey();
    const before = await spaceCount();
    failWhen = (sql) => /^UPDATE .*IdempotencyKey/.test(sql);
    let first;
    try {
      first = await createSpace(ada, key);
    } finally {
      failWhen = null;
    }
    expect(first.status).toBe(201);
    expect(first.body.title).toBe('Handbook');
    expectError(await createSpace(ada, key), 409, /has not finished/);
    expect(await spaceCount()).toBe(before + 1);
  });

  it('ignores the key of an anonymous request and of methods other than POST', async () => {
    const key = newKey();
    const anonymous = await server.request('POST', `/v1/orgs/${org}/spaces`, { body: { title: 'x' }, headers: { 'idempotency-key': key } });
    expectError(anonymous, 401);
    const space = (await createSpace(ada, undefined)).body;
    const patch = () =>
      server.request('PATCH', `/v1/spaces/${space.id}`, { token: ada.token, body: { title: 'Renamed' }, headers: { 'idempotency-key': key } });
    expect((await patch()).headers.get('idempotent-replayed')).toBeNull();
    expect((await patch()).headers.get('idempotent-replayed')).toBeNull();
    expect(await server.app.db.idempotencyKey.count({ where: { key } })).toBe(0);
  });

  it('replays GraphQL mutations sent over POST with a key', async () => {
    const key = newKey();
    const before = await spaceCount();
    const mutation = `mutation($org: ID!) { createSpace(organizationId: $org, input: { title: "Over GraphQL" }) { id title } }`;
    const send = () => server.graphql(mutation, { token: ada.token, variables: { org }, headers: { 'idempotency-key': key } });
    const first = await send();
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect(first.body.data.createSpace.title).toBe('Over GraphQL');
    const retry = await send();
    expect(retry.body).toEqual(first.body);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(await spaceCount()).toBe(before + 1);
  });

  it('forgets a key when it expires: the request runs again, and expired keys are pruned', async () => {
    const key = newKey();
    const first = await createSpace(ada, key);
    await server.app.db.idempotencyKey.updateMany({ where: { key }, data: { expiresAt: new Date(Date.now() - 1000) } });
    const again = await createSpace(ada, key);
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBeNull();
    expect(again.body.id).not.toBe(first.body.id);
    const stored = await storedKey(ada, key);
    expect(stored?.expiresAt.getTime()).toBeGreaterThan(Date.now() + 23 * 3600_000);
  });

  it('deletes a token’s keys with the token', async () => {
    const carol = await server.createUser('Carol');
    const key = newKey();
    await createSpace(carol, key, { title: 'x' }, '/v1/orgs/no-such-org/spaces');
    expect(await storedKey(carol, key)).not.toBeNull();
    await server.app.db.apiToken.deleteMany({ where: { userId: carol.id } });
    expect(await server.app.db.idempotencyKey.count({ where: { key } })).toBe(0);
  });
});

describe('Idempotency-Key expiry', () => {
  let other: TestServer;
  beforeAll(async () => {
    // Its own server: it prunes when the first key is claimed (then at most once a minute).
    other = await startTestServer({ IDEMPOTENCY_KEY_TTL_SECONDS: '2' });
  });
  afterAll(() => other?.close());

  it('keeps answers IDEMPOTENCY_KEY_TTL_SECONDS, and prunes expired ones when a key is claimed', async () => {
    const user = await other.createUser('Dee');
    const orgId = await other.createOrg(user);
    const token = await other.app.db.apiToken.findFirstOrThrow({ where: { userId: user.id } });
    await other.app.db.idempotencyKey.create({
      data: { tokenId: token.id, key: 'long-gone', method: 'POST', path: '/v1/orgs', bodyHash: '', status: 201, body: '{}', expiresAt: new Date(Date.now() - 1) },
    });
    const send = () => other.request('POST', `/v1/orgs/${orgId}/spaces`, { token: user.token, body: { title: 'x' }, headers: { 'idempotency-key': 'k' } });
    const sentAt = Date.now();
    const first = await send();
    expect(first.status).toBe(201);
    expect(await other.app.db.idempotencyKey.count({ where: { key: 'long-gone' } })).toBe(0);
    const stored = await other.app.db.idempotencyKey.findFirstOrThrow({ where: { key: 'k' } });
    expect(stored.expiresAt.getTime()).toBeGreaterThanOrEqual(sentAt + 2000);
    expect(stored.expiresAt.getTime()).toBeLessThanOrEqual(Date.now() + 2000);
    expect((await send()).headers.get('idempotent-replayed')).toBe('true');
  });
});

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

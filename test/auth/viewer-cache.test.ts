/**
 * The viewer cache (src/auth/viewer-cache.ts): a caller the process knows costs no statement, and
 * no change to callers is ever answered stale: a token revoked, a member removed or disabled, a
 * grant given or taken, a team joined apply to the very next request, on the process that made
 * the change and, through Redis, on another one; the CLI's changes too (with Redis at once,
 * without within VIEWER_CACHE_MAX_AGE_MS).
 */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { changesViewers, isActivityUpdate } from '../../src/auth/viewer-cache.ts';
import { createDb } from '../../src/db/client.ts';
import { parseDatabaseUrl } from '../../src/db/provider/config.ts';
import { newId } from '../../src/ids.ts';
import { startTestServer, useServersSharingRedis, useTestServer, type TestServer, type TestUser } from '../helpers/server.ts';
import { servicesConfigured, TEST_REDIS_URL } from '../helpers/services.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

const revoke = (server: TestServer, user: TestUser, tokenId: string) =>
  server.graphql('mutation($id: ID!) { revokeApiToken(id: $id) { id } }', { token: user.token, variables: { id: tokenId } });

const tokenIdOf = async (server: TestServer, user: TestUser) => (await server.app.db.apiToken.findFirstOrThrow({ where: { userId: user.id } })).id;

describe('which writes change callers', () => {
  it('counts every write to the tables a caller is read from, but not the activity times', () => {
    for (const sql of [
      'UPDATE `main`.`ApiToken` SET `lastUsedAt` = ? WHERE (`main`.`ApiToken`.`id` = ? AND 1=1)',
      'UPDATE "public"."Member" SET "lastSeenAt" = $1 WHERE ("public"."Member"."userId" = $2)',
      'UPDATE "Member" SET "lastSeenAt" = $1, "updatedAt" = $2 WHERE "id" = $3',
    ]) {
      expect(isActivityUpdate(sql), sql).toBe(true);
    }
    for (const sql of [
      'UPDATE "public"."Member" SET "disabled" = $1 WHERE ("public"."Member"."id" = $2)',
      'UPDATE "Member" SET "lastSeenAt" = $1, "role" = $2 WHERE "id" = $3',
      'DELETE FROM "public"."ApiToken" WHERE "id" = $1',
      'INSERT INTO "ContentGrant" ("id") VALUES ($1)',
    ]) {
      expect(isActivityUpdate(sql), sql).toBe(false);
    }
    expect(changesViewers('Member', 'UPDATE "Member" SET "role" = $1 WHERE "id" = $2')).toBe(true);
    expect(changesViewers('Member', 'UPDATE "Member" SET "lastSeenAt" = $1 WHERE "id" = $2')).toBe(false);
    // At a commit there is no statement to look at: counted.
    expect(changesViewers('TeamMember')).toBe(true);
    expect(changesViewers('Space', 'DELETE FROM "Space" WHERE "id" = $1')).toBe(false);
  });
});

describe('one process', () => {
  const { server, ada, bob } = useTestServer({ users: ['Ada', 'Bob'] });
  let org: string;
  let space: string;
  beforeAll(async () => {
    org = await server.createOrg(ada, 'Kept callers');
    space = (await server.createSpace(ada, org, { title: 'Handbook' })).id;
  });

  const getSpace = (user: TestUser) => server.request('GET', `/v1/spaces/${space}`, { token: user.token });

  it('a known caller costs no statement; a revoked token is refused by the very next request', async () => {
    await getSpace(ada);
    const warm = await server.countStatements(() => getSpace(ada));
    const statementsOfSpace = warm.statements;
    expect(statementsOfSpace).toBeLessThanOrEqual(2);

    const user = await server.createUser('Rex');
    await server.addMember(org, user, 'read');
    expect((await getSpace(user)).status).toBe(200);
    expect((await getSpace(user)).status).toBe(200);
    expect((await revoke(server, user, await tokenIdOf(server, user))).body.errors).toBeUndefined();
    const refused = await getSpace(user);
    expect(refused.status).toBe(401);
    expect(refused.body.error.message).toMatch(/invalid or has been revoked/);
  });

  it('membership changes apply to the next request: removed, disabled, role changed', async () => {
    await server.addMember(org, bob, 'read');
    const asBob = () => getSpace(bob);
    expect((await asBob()).body.permissions.edit).toBe(false);
    expect((await server.request('PATCH', `/v1/orgs/${org}/members/${bob.id}`, { token: ada.token, body: { role: 'edit' } })).status).toBe(200);
    expect((await asBob()).body.permissions.edit).toBe(true);
    await server.app.db.member.update({ where: { organizationId_userId: { organizationId: org, userId: bob.id } }, data: { disabled: true } });
    expect((await asBob()).status).toBe(403);
    await server.app.db.member.update({ where: { organizationId_userId: { organizationId: org, userId: bob.id } }, data: { disabled: false } });
    expect((await asBob()).status).toBe(200);
    expect((await server.request('DELETE', `/v1/orgs/${org}/members/${bob.id}`, { token: ada.token })).status).toBe(205);
    expect((await asBob()).status).toBe(404);
  });

  it('grants, to the user or through a team, apply to the next request, and so does leaving the team', async () => {
    const guest = await server.createUser('Gia');
    await server.addMember(org, guest, null);
    expect((await getSpace(guest)).status).toBe(404);
    const team = newId();
    await server.app.db.team.create({ data: { id: team, organizationId: org, title: 'Writers' } });
    await server.app.db.contentGrant.create({
      data: { id: newId(), organizationId: org, resourceKind: 'space', resourceId: space, granteeKind: 'team', granteeId: team, role: 'edit' },
    });
    expect((await getSpace(guest)).status).toBe(404);
    await server.app.db.teamMember.create({ data: { teamId: team, userId: guest.id } });
    const granted = await getSpace(guest);
    expect(granted.status).toBe(200);
    expect(granted.body.permissions.edit).toBe(true);
    await server.app.db.teamMember.deleteMany({ where: { teamId: team, userId: guest.id } });
    expect((await getSpace(guest)).status).toBe(404);
  });

  it('what no process announces (SQL by hand, the CLI without Redis) is read again after VIEWER_CACHE_MAX_AGE_MS', async () => {
    const maxAgeMs = 300;
    const other = await startTestServer({ VIEWER_CACHE_MAX_AGE_MS: String(maxAgeMs) }, { database: server.database, storageDir: server.storageDir });
    // A client of the same database that no server hears: as the CLI is, without REDIS_URL.
    const outsider = createDb(parseDatabaseUrl(server.database.url));
    try {
      const user = await other.createUser('Una');
      await other.addMember(org, user, 'read');
      const get = () => other.request('GET', `/v1/spaces/${space}`, { token: user.token });
      expect((await get()).status).toBe(200);
      const keptSince = Date.now();
      await outsider.apiToken.deleteMany({ where: { userId: user.id } });
      const answered = await get();
      // Kept: still answered unless the bound already passed (a slow machine).
      if (Date.now() - keptSince < maxAgeMs) expect(answered.status).toBe(200);
      await new Promise((resolve) => setTimeout(resolve, maxAgeMs + 50));
      expect((await get()).status).toBe(401);
    } finally {
      await outsider.$disconnect();
      await other.close();
    }
  });
});

describe.skipIf(!servicesConfigured('redis'))('two processes sharing a database and Redis', () => {
  const { a, b } = useServersSharingRedis();

  it('a token revoked through one process is refused by the very next request to the other, every time', async () => {
    const owner = await a.createUser('Owner');
    const org = await a.createOrg(owner, 'Two processes');
    const space = (await a.createSpace(owner, org, { title: 'Shared' })).id;
    for (let i = 0; i < 10; i++) {
      const user = await a.createUser(`Reader ${i}`);
      await a.addMember(org, user, 'read');
      const onB = () => b.request('GET', `/v1/spaces/${space}`, { token: user.token });
      // Known to b (read once, then kept).
      expect((await onB()).status).toBe(200);
      expect((await onB()).status).toBe(200);
      expect((await revoke(a, user, await tokenIdOf(a, user))).body.errors).toBeUndefined();
      expect((await onB()).status, `round ${i}`).toBe(401);
    }
  });

  it('a member removed through one process is refused by the next request to the other', async () => {
    const owner = await a.createUser('Owner');
    const org = await a.createOrg(owner, 'Removal');
    const space = (await a.createSpace(owner, org, { title: 'Shared' })).id;
    const user = await a.createUser('Leaver');
    await a.addMember(org, user, 'edit');
    const onB = () => b.request('GET', `/v1/spaces/${space}`, { token: user.token });
    expect((await onB()).body.permissions.edit).toBe(true);
    expect((await a.request('PATCH', `/v1/orgs/${org}/members/${user.id}`, { token: owner.token, body: { role: 'read' } })).status).toBe(200);
    expect((await onB()).body.permissions.edit).toBe(false);
    expect((await a.request('DELETE', `/v1/orgs/${org}/members/${user.id}`, { token: owner.token })).status).toBe(205);
    expect((await onB()).status).toBe(404);
  });

  it("the CLI's token:revoke is refused by the next request to either process", async () => {
    const user = await a.createUser('Cli user');
    const org = await a.createOrg(user, 'By the CLI');
    const tokenId = await tokenIdOf(a, user);
    for (const server of [a, b]) expect((await server.request('GET', `/v1/orgs/${org}`, { token: user.token })).status).toBe(200);
    const run = await new Promise<{ code: number; stderr: string }>((resolve) =>
      execFile(
        'npm',
        ['run', '--silent', 'cli', '--', 'token:revoke', '--email', user.email, '--id', tokenId],
        { cwd: root, env: { ...process.env, DATABASE_URL: a.database.url, STORAGE_DIR: a.storageDir, REDIS_URL: TEST_REDIS_URL!, LOG_LEVEL: 'silent' }, timeout: 60_000 },
        (error, _stdout, stderr) => resolve({ code: error ? 1 : 0, stderr }),
      ),
    );
    expect(run.code, run.stderr).toBe(0);
    for (const server of [a, b]) expect((await server.request('GET', `/v1/orgs/${org}`, { token: user.token })).status).toBe(401);
  }, 60_000);
});

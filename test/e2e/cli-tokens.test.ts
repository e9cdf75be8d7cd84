/**
 * The operator's token and member commands, run as the README says
 * (`npm run cli -- ...`, each its own process) against the database of a
 * running server: what the CLI creates works on the server, what it revokes
 * answers 401 at the server's next request, and bad input is one clear line
 * on stderr with exit code 1.
 */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { expectError, useTestServer } from '../helpers/server.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
// The CLI here has no REDIS_URL to tell the server of its changes: a server keeping callers would
// apply them within VIEWER_CACHE_MAX_AGE_MS; this one keeps none (test/auth/viewer-cache.test.ts
// covers the CLI with Redis, and the bound).
const { server, ada } = useTestServer({ users: ['Ada'], env: { VIEWER_CACHE_MAX_AGE_MS: '0' } });

interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

function cli(...args: string[]): Promise<CliResult> {
  return new Promise((resolve) => {
    execFile(
      'npm',
      ['run', '--silent', 'cli', '--', ...args],
      { cwd: root, env: { ...process.env, DATABASE_URL: server.database.url, LOG_LEVEL: 'silent' }, timeout: 60_000 },
      (error, stdout, stderr) => resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

/** Runs a command that must succeed; its one line of JSON. */
async function cliJson(...args: string[]): Promise<any> {
  const result = await cli(...args);
  expect(result.code, result.stderr).toBe(0);
  return JSON.parse(result.stdout.trim());
}

describe('token commands', () => {
  it('creates a scoped, expiring token, lists it without its secret, and revokes it (401 on the server next)', { timeout: 120_000 }, async () => {
    const created = await cliJson('user:create', '--email', 'Grace@Example.com', '--name', 'Grace', '--label', 'laptop', '--expires-in', '30d', '--scopes', 'space:read, site:read');
    expect(created.user).toMatchObject({ object: 'user', email: 'grace@example.com' });
    expect(created.token).toMatch(/^gb_api_/);
    expect(created.apiToken).toMatchObject({ label: 'laptop', scopes: ['site:read', 'space:read'], lastUsedAt: null });
    const days = (Date.parse(created.apiToken.expiresAt) - Date.now()) / 86_400_000;
    expect(days).toBeGreaterThan(29.9);

    // The server takes it, within its scopes.
    expectError(await server.request('GET', '/v1/user', { token: created.token }), 403, /needs the scope user:read/);
    const another = await cliJson('token:create', '--email', 'grace@example.com', '--expires-in', '2099-12-31');
    expect(another.apiToken).toMatchObject({ scopes: [], expiresAt: '2099-12-31T00:00:00.000Z', label: null });
    expect((await server.request('GET', '/v1/user', { token: another.token })).status).toBe(200);

    const listed = await cliJson('token:list', '--email', 'grace@example.com');
    expect(listed.tokens.map((t: { id: string }) => t.id).sort()).toEqual([created.apiToken.id, another.apiToken.id].sort());
    expect(Object.keys(listed.tokens[0]).sort()).toEqual(['createdAt', 'expiresAt', 'id', 'label', 'lastUsedAt', 'scopes']);
    expect(listed.tokens.find((t: { id: string }) => t.id === another.apiToken.id).lastUsedAt).toEqual(expect.any(String));
    expect(JSON.stringify(listed)).not.toContain(another.token);

    const revoked = await cliJson('token:revoke', '--email', 'grace@example.com', '--id', another.apiToken.id);
    expect(revoked.revoked.id).toBe(another.apiToken.id);
    expectError(await server.request('GET', '/v1/user', { token: another.token }), 401, /revoked/);
    const gone = await cli('token:revoke', '--email', 'grace@example.com', '--id', another.apiToken.id);
    expect(gone.code).toBe(1);
    expect(gone.stderr).toMatch(/API token ".*" not found/);
  });

  it('refuses bad options with one clear line and exit code 1', { timeout: 120_000 }, async () => {
    const cases: Array<[string[], RegExp]> = [
      [['token:create', '--email', ada.email, '--scopes', 'space:read,space:admin'], /unknown scope "space:admin"; the scopes are /],
      [['token:create', '--email', ada.email, '--expires-in', 'soon'], /"soon" is neither a duration \(30d, 12h, 90m, 2w\) nor an ISO 8601 date/],
      [['token:create', '--email', ada.email, '--expires-in', '2001-01-01'], /is not in the future/],
      [['token:create', '--email', 'nobody@example.com'], /User with e-mail "nobody@example.com" not found/],
      [['token:list', '--email', 'nobody@example.com'], /not found/],
    ];
    // Each refusal is its own process, and none changes anything: run at once.
    const results = await Promise.all(cases.map(([args]) => cli(...args)));
    for (const [i, [args, message]] of cases.entries()) {
      expect(results[i]!.code, args.join(' ')).toBe(1);
      expect(results[i]!.stderr, args.join(' ')).toMatch(message);
      expect(results[i]!.stderr).not.toMatch(/\n\s+at /);
    }
  });
});

describe('member:add', () => {
  it('adds an existing user to an organization with a role, and names what is wrong otherwise', { timeout: 120_000 }, async () => {
    const org = await server.createOrg(ada, 'Acme');
    const lin = await server.createUser('Lin');
    expectError(await server.request('GET', `/v1/orgs/${org}`, { token: lin.token }), 404);

    const added = await cliJson('member:add', '--email', lin.email, '--org', org, '--role', 'edit');
    expect(added.member).toMatchObject({ organization: { id: org, title: 'Acme' }, user: { id: lin.id }, role: 'edit' });
    const member = await server.request('GET', `/v1/orgs/${org}/members/${lin.id}`, { token: ada.token });
    expect(member.status).toBe(200);
    expect(member.body.role).toBe('edit');
    expect((await server.request('GET', `/v1/orgs/${org}`, { token: lin.token })).status).toBe(200);

    const cases: Array<[string[], RegExp]> = [
      [['--email', 'nobody@example.com', '--org', org, '--role', 'read'], /User with e-mail "nobody@example.com" not found: create it with user:create first/],
      [['--email', lin.email, '--org', 'no-such-org', '--role', 'read'], /Organization "no-such-org" not found/],
      [['--email', lin.email, '--org', org, '--role', 'owner'], /role: unknown role "owner"; the roles are read, comment, edit, review, create, admin, guest/],
      [['--email', lin.email, '--org', org, '--role', 'admin'], /already a member of organization .* \(role: edit\)/],
    ];
    // Refusals change nothing: run at once.
    const results = await Promise.all(cases.map(([args]) => cli('member:add', ...args)));
    for (const [i, [args, message]] of cases.entries()) {
      expect(results[i]!.code, args.join(' ')).toBe(1);
      expect(results[i]!.stderr, args.join(' ')).toMatch(message);
    }
    const guest = await server.createUser('Guest');
    expect((await cliJson('member:add', '--email', guest.email, '--org', org, '--role', 'guest')).member.role).toBe('guest');
  });
});

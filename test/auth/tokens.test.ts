/**
 * Token options as operators and callers write them (expiry, scopes), and the
 * lastUsedAt throttle against a real database: at most one write a minute per
 * token, whoever asks.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { noteTokenUse, LAST_USED_WRITE_INTERVAL_MS } from '../../src/auth/token-usage.ts';
import { issueApiToken, listApiTokens, parseExpiry, parseScopes, revokeApiToken } from '../../src/auth/tokens.ts';
import { ViewerCache } from '../../src/auth/viewer-cache.ts';
import { closeDb, createDb, type Db } from '../../src/db/client.ts';
import { InvalidInputError, NotFoundError, UnauthenticatedError } from '../../src/errors/index.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/database.ts';

/** Reads the token's caller on every call, as a server keeping none does (VIEWER_CACHE_MAX_AGE_MS=0). */
const loadViewer = (on: Db, token: string, now?: Date) => new ViewerCache(on, { maxAgeMs: 0, maxEntries: 1 }).viewerFor(token, now);

describe('parseExpiry', () => {
  const now = new Date('2026-11-27T10:00:00.000Z');

  it('reads a duration from now or an ISO date', () => {
    expect(parseExpiry('30d', now).toISOString()).toBe('2026-12-27T10:00:00.000Z');
    expect(parseExpiry('12h', now).toISOString()).toBe('2026-11-27T22:00:00.000Z');
    expect(parseExpiry('90m', now).toISOString()).toBe('2026-11-27T11:30:00.000Z');
    expect(parseExpiry('2w', now).toISOString()).toBe('2026-12-11T10:00:00.000Z');
    expect(parseExpiry('2027-01-31', now).toISOString()).toBe('2027-01-31T00:00:00.000Z');
    expect(parseExpiry('2027-01-31T12:30:00Z', now).toISOString()).toBe('2027-01-31T12:30:00.000Z');
  });

  it('refuses anything else, and the past, with a 400 naming the field', () => {
    for (const value of ['30', 'soon', '0d', '-1d', '31/01/2027', '2027-13-45', '']) {
      expect(() => parseExpiry(value, now), value).toThrow(InvalidInputError);
    }
    expect(() => parseExpiry('2020-01-01', now)).toThrow(/expires-in: 2020-01-01T00:00:00.000Z is not in the future/);
    expect(() => parseExpiry('tomorrow', now, 'expiresIn')).toThrow(/^expiresIn: "tomorrow" is neither a duration/);
  });
});

describe('parseScopes', () => {
  it("keeps GitBook's scope names once each, and names the unknown ones", () => {
    expect(parseScopes(['space:read', 'site:publish', 'space:read'])).toEqual(['space:read', 'site:publish']);
    expect(() => parseScopes(['space:read', 'space:admin', 'everything'])).toThrow(/unknown scopes "space:admin", "everything"; the scopes are user:read, /);
  });
});

describe('tokens in the database', () => {
  let database: TestDatabase;
  let db: Db;
  let userId: string;

  beforeAll(async () => {
    database = await createTestDatabase();
    db = createDb(database.config);
    userId = (await db.user.create({ data: { id: 'u1', email: 'ada@example.com', displayName: 'Ada' } })).id;
  });
  afterAll(async () => {
    await closeDb(db);
    await database.drop();
  });

  it('issues, lists (never the secret) and revokes', async () => {
    const expiresAt = new Date(Date.now() + 86_400_000);
    const { token, apiToken } = await issueApiToken(db, userId, { label: ' laptop ', expiresAt, scopes: ['space:read', 'site:read'] });
    expect(token).toMatch(/^gb_api_/);
    expect(apiToken).toEqual({ id: expect.any(String), label: 'laptop', scopes: ['site:read', 'space:read'], createdAt: expect.any(Date), expiresAt, lastUsedAt: null });
    const listed = await listApiTokens(db, userId);
    expect(listed).toEqual([apiToken]);
    expect(JSON.stringify(listed)).not.toContain(token.slice(7));

    const viewer = await loadViewer(db, token);
    expect([...viewer.scopes!].sort()).toEqual(['site:read', 'space:read']);

    await expect(revokeApiToken(db, 'someone-else', apiToken.id)).rejects.toThrow(NotFoundError);
    expect(await revokeApiToken(db, userId, apiToken.id)).toEqual({ ...apiToken, lastUsedAt: expect.any(Date) });
    await expect(loadViewer(db, token)).rejects.toThrow(/invalid or has been revoked/);
    await expect(revokeApiToken(db, userId, apiToken.id)).rejects.toThrow(NotFoundError);
  });

  it('refuses an expiry in the past and an unknown scope', async () => {
    await expect(issueApiToken(db, userId, { expiresAt: new Date(Date.now() - 1000) })).rejects.toThrow(/expiresAt: .* is not in the future/);
    await expect(issueApiToken(db, userId, { scopes: ['space:admin'] })).rejects.toThrow(/unknown scope "space:admin"/);
  });

  it('answers 401 naming the expiry once a token has expired', async () => {
    const issuedAt = new Date();
    const { token } = await issueApiToken(db, userId, { expiresAt: new Date(issuedAt.getTime() + 60_000) });
    await expect(loadViewer(db, token, new Date(issuedAt.getTime() + 59_000))).resolves.toMatchObject({ userId, scopes: null });
    const expired = loadViewer(db, token, new Date(issuedAt.getTime() + 60_000));
    await expect(expired).rejects.toThrow(UnauthenticatedError);
    await expect(loadViewer(db, token, new Date(issuedAt.getTime() + 60_000))).rejects.toThrow(/The API token expired at .*: create a new one/);
  });

  it('writes lastUsedAt at most once a minute, also for requests that read it before the write', async () => {
    const { token, apiToken } = await issueApiToken(db, userId);
    const lastUsed = async () => (await db.apiToken.findUniqueOrThrow({ where: { id: apiToken.id } })).lastUsedAt;
    const t0 = new Date('2030-01-01T00:00:00.000Z');

    await loadViewer(db, token, t0);
    expect(await lastUsed()).toEqual(t0);
    // Within the minute: nothing is written.
    await loadViewer(db, token, new Date(t0.getTime() + 30_000));
    await loadViewer(db, token, new Date(t0.getTime() + LAST_USED_WRITE_INTERVAL_MS - 1));
    expect(await lastUsed()).toEqual(t0);
    // A request that read the token before another process wrote it does not write again.
    expect(await noteTokenUse(db, { id: apiToken.id, lastUsedAt: null }, new Date(t0.getTime() + 1000))).toBe(false);
    expect(await lastUsed()).toEqual(t0);
    // A minute later: written again.
    const t1 = new Date(t0.getTime() + LAST_USED_WRITE_INTERVAL_MS);
    await loadViewer(db, token, t1);
    expect(await lastUsed()).toEqual(t1);
  });

  it('sends no write for a token used again within the minute', async () => {
    const { token } = await issueApiToken(db, userId);
    const writes: string[] = [];
    const watched = createDb(database.config, { onWrite: (table) => writes.push(table) });
    try {
      const now = Date.now();
      await loadViewer(watched, token, new Date(now));
      expect(writes).toEqual(['ApiToken']);
      for (let i = 1; i <= 20; i++) await loadViewer(watched, token, new Date(now + i * 1000));
      expect(writes).toEqual(['ApiToken']);
    } finally {
      await closeDb(watched);
    }
  });
});

/** Signed download URLs: round trip, tampering, expiry, and the kept secret. */
import { createHash } from 'node:crypto';
import { mkdtemp, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadUrlSecret, signDownloadUrl, URL_SECRET_FILE, verifyDownload } from '../../src/storage/signed-url.ts';

const SECRET = 'test-secret-test-secret-test-secret-0123456789';
const config = { publicUrl: 'https://docs.example.com/', storage: { urlSecret: SECRET } };
const KEY = createHash('sha256').update('bytes').digest('hex');
const NOW = Date.UTC(2026, 0, 1, 12, 0, 0);
const clock = (ms: number) => () => ms;

function sign(overrides: Partial<{ key: string; name: string; contentType: string; expiresInSeconds: number }> = {}) {
  return new URL(signDownloadUrl(config, { key: KEY, name: 'diagram.png', contentType: 'image/png', expiresInSeconds: 3600, ...overrides }, clock(NOW)));
}

function verify(url: URL, options: { secret?: string; now?: number } = {}) {
  const key = url.pathname.replace(/^\/storage\//, '');
  return verifyDownload({ key, query: url.searchParams }, { secret: options.secret ?? SECRET, now: clock(options.now ?? NOW) });
}

describe('signDownloadUrl / verifyDownload', () => {
  it('makes <PUBLIC_URL>/storage/<key>?name&type&expires&signature that verifies to what was signed', () => {
    const url = sign();
    expect(`${url.origin}${url.pathname}`).toBe(`https://docs.example.com/storage/${KEY}`);
    expect([...url.searchParams.keys()]).toEqual(['name', 'type', 'expires', 'signature']);
    expect(url.searchParams.get('expires')).toBe(String(NOW / 1000 + 3600));
    expect(verify(url)).toEqual({ ok: true, key: KEY, name: 'diagram.png', contentType: 'image/png', expiresAt: NOW / 1000 + 3600 });
  });

  it('keeps any file name and parameters of the type intact', () => {
    const name = 'Ré sumé & "notes"?#=;/…/../x.pdf';
    const url = sign({ name, contentType: 'text/plain; charset="utf-8"' });
    expect(verify(url)).toMatchObject({ ok: true, name, contentType: 'text/plain; charset="utf-8"' });
  });

  it.each([
    ['the name', (u: URL) => u.searchParams.set('name', 'other.png')],
    ['the type', (u: URL) => u.searchParams.set('type', 'text/html')],
    ['the expiry', (u: URL) => u.searchParams.set('expires', String(Number(u.searchParams.get('expires')) + 86_400))],
    ['the key', (u: URL) => (u.pathname = `/storage/${createHash('sha256').update('other').digest('hex')}`)],
    ['the signature', (u: URL) => {
      const s = u.searchParams.get('signature')!;
      u.searchParams.set('signature', `${s[0] === 'A' ? 'B' : 'A'}${s.slice(1)}`);
    }],
    ['the signature (truncated)', (u: URL) => u.searchParams.set('signature', u.searchParams.get('signature')!.slice(0, -1))],
  ])('refuses a URL whose %s was changed', (_label, tamper) => {
    const url = sign();
    tamper(url);
    expect(verify(url)).toMatchObject({ ok: false, reason: 'bad-signature' });
  });

  it('refuses a URL signed with another secret', () => {
    expect(verify(sign(), { secret: `${SECRET}-rotated` })).toMatchObject({ ok: false, reason: 'bad-signature' });
  });

  it.each(['name', 'type', 'expires', 'signature'])('refuses a URL without %s', (param) => {
    const url = sign();
    url.searchParams.delete(param);
    expect(verify(url)).toMatchObject({ ok: false, reason: 'malformed' });
  });

  it('refuses a non-numeric expiry and a key that is not one', () => {
    const url = sign();
    url.searchParams.set('expires', '1e12');
    expect(verify(url)).toMatchObject({ ok: false, reason: 'malformed' });
    expect(verifyDownload({ key: '../secret', query: sign().searchParams }, { secret: SECRET, now: clock(NOW) })).toMatchObject({ ok: false, reason: 'malformed' });
  });

  it('accepts a URL up to its expiry second and refuses it after', () => {
    const url = sign({ expiresInSeconds: 60 });
    expect(verify(url, { now: NOW + 60_000 })).toMatchObject({ ok: true });
    expect(verify(url, { now: NOW + 61_000 })).toEqual({ ok: false, reason: 'expired', message: 'This download link has expired' });
  });

  it('refuses to sign without a secret, or a malformed key, name or type', () => {
    expect(() => signDownloadUrl({ publicUrl: 'http://x', storage: { urlSecret: undefined } }, { key: KEY, name: 'a', contentType: 'image/png', expiresInSeconds: 1 })).toThrow(/no URL secret/);
    expect(() => sign({ key: KEY.toUpperCase() })).toThrow(TypeError);
    expect(() => sign({ name: '' })).toThrow(TypeError);
    expect(() => sign({ contentType: 'text/html\r\nSet-Cookie: a=b' })).toThrow(TypeError);
    expect(() => sign({ contentType: 'png' })).toThrow(TypeError);
    expect(() => sign({ expiresInSeconds: 0 })).toThrow(TypeError);
  });
});

describe('loadUrlSecret', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'url-secret-'));
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  it('uses STORAGE_URL_SECRET when set, without touching the disk', async () => {
    expect(loadUrlSecret({ dir, urlSecret: SECRET })).toBe(SECRET);
    expect(await readdir(dir)).toEqual([]);
  });

  it('otherwise generates one once, keeps it with mode 0600 and returns it again', async () => {
    const storageDir = path.join(dir, 'files');
    const first = loadUrlSecret({ dir: storageDir, urlSecret: undefined });
    expect(first.length).toBeGreaterThanOrEqual(43);
    expect((await stat(path.join(storageDir, URL_SECRET_FILE))).mode & 0o777).toBe(0o600);
    expect(loadUrlSecret({ dir: storageDir })).toBe(first);
    expect(await readdir(storageDir)).toEqual([URL_SECRET_FILE]);
  });

  it('refuses a kept secret that is too short to be one', async () => {
    await writeFile(path.join(dir, URL_SECRET_FILE), 'short\n');
    expect(() => loadUrlSecret({ dir })).toThrow(/no usable secret/);
  });
});

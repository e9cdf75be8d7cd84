/** useFileDownloads through a yoga instance: signed downloads, refusals and active content. */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createSchema, createYoga } from 'graphql-yoga';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useFileDownloads } from '../../src/plugins/use-file-downloads.ts';
import { storageKey } from '../../src/storage/local-storage.ts';
import { type ObjectStorage } from '../../src/storage/object-storage.ts';
import { signDownloadUrl } from '../../src/storage/signed-url.ts';
import { createStorage } from '../../src/storage/storage.ts';

const SECRET = 'downloads-secret-downloads-secret-0123456789';
const config = { publicUrl: 'http://localhost', storage: { urlSecret: SECRET } };
const NOW = Date.UTC(2026, 0, 1);

describe('useFileDownloads', () => {
  let dir: string;
  let storage: ObjectStorage;
  let now = NOW;
  const yoga = () =>
    createYoga({
      schema: createSchema({ typeDefs: 'type Query { ok: Boolean }', resolvers: { Query: { ok: () => true } } }),
      plugins: [useFileDownloads({ storage, secret: SECRET, now: () => now })],
      logging: false,
    });
  let app: ReturnType<typeof yoga>;
  const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 1, 2, 3, 4, 5]);
  let pngKey: string;

  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'downloads-'));
    storage = createStorage({ dir });
    pngKey = (await storage.put(png)).key;
    app = yoga();
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  const sign = (params: { key?: string; name?: string; contentType?: string; expiresInSeconds?: number } = {}) =>
    signDownloadUrl(config, { key: pngKey, name: 'diagram.png', contentType: 'image/png', expiresInSeconds: 3600, ...params }, () => now);

  async function expectError(response: Response, status: number) {
    expect(response.status).toBe(status);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    const body = (await response.json()) as { error: { code: number; message: string } };
    expect(body).toEqual({ error: { code: status, message: expect.any(String) } });
    return body.error.message;
  }

  it('serves the bytes with the signed type, length, inline disposition and nosniff', async () => {
    const response = await app.fetch(sign({ name: 'Résumé (final).png' }));
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('image/png');
    expect(response.headers.get('content-length')).toBe(String(png.byteLength));
    expect(response.headers.get('content-disposition')).toBe("inline; filename*=UTF-8''R%C3%A9sum%C3%A9%20%28final%29.png");
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    expect(response.headers.get('content-security-policy')).toBeNull();
    expect(response.headers.get('cache-control')).toBe('private, max-age=3600');
    expect(new Uint8Array(await response.arrayBuffer())).toEqual(png);
  });

  it('answers HEAD with the headers and no body', async () => {
    const response = await app.fetch(sign(), { method: 'HEAD' });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-length')).toBe(String(png.byteLength));
    expect((await response.arrayBuffer()).byteLength).toBe(0);
  });

  it('answers 403 for a tampered URL', async () => {
    const url = new URL(sign());
    url.searchParams.set('type', 'text/html');
    expect(await expectError(await app.fetch(url.toString()), 403)).toBe('This download link is not valid');
    const unsigned = new URL(sign());
    unsigned.searchParams.delete('signature');
    await expectError(await app.fetch(unsigned.toString()), 403);
  });

  it('answers 403 for an expired URL', async () => {
    const url = sign({ expiresInSeconds: 60 });
    now = NOW + 61_000;
    try {
      expect(await expectError(await app.fetch(url), 403)).toBe('This download link has expired');
    } finally {
      now = NOW;
    }
  });

  it('answers 404 for a validly signed key that is not stored', async () => {
    const missing = storageKey(new TextEncoder().encode('not stored'));
    await expectError(await app.fetch(sign({ key: missing })), 404);
  });

  it('answers 404 for a path under /storage/ that is not a key', async () => {
    await expectError(await app.fetch('http://localhost/storage/..%2F.url-secret'), 404);
    await expectError(await app.fetch('http://localhost/storage/'), 404);
  });

  it('answers 405 for other methods', async () => {
    const response = await app.fetch(sign(), { method: 'POST' });
    await expectError(response, 405);
    expect(response.headers.get('allow')).toBe('GET, HEAD');
  });

  it.each([
    ['image/svg+xml', 'logo.svg'],
    ['text/html; charset=utf-8', 'page.html'],
    ['application/xhtml+xml', 'page.xhtml'],
    ['text/xml', 'data.xml'],
    ['application/javascript', 'app.js'],
  ])('serves %s as a sandboxed attachment', async (contentType, name) => {
    const { key } = await storage.put(new TextEncoder().encode(`<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg> ${name}`));
    const response = await app.fetch(sign({ key, name, contentType }));
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe(contentType);
    expect(response.headers.get('content-disposition')).toBe(`attachment; filename*=UTF-8''${name}`);
    expect(response.headers.get('content-security-policy')).toBe('sandbox');
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
  });

  it('leaves other paths to yoga', async () => {
    const response = await app.fetch('http://localhost/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: '{ ok }' }),
    });
    expect(await response.json()).toEqual({ data: { ok: true } });
  });
});

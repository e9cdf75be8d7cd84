/** The storage and remote-fetch settings of loadConfig. */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';

describe('storage and fetch configuration', () => {
  it('has defaults: ./data/files under the working directory, no secret, private addresses refused, 10 MiB, 10 s', () => {
    const config = loadConfig({});
    expect(config.storage).toEqual({ dir: path.resolve(process.cwd(), 'data/files'), urlSecret: undefined });
    expect(config.fetch).toEqual({ allowPrivateAddresses: false, maxBytes: 10 * 1024 * 1024, timeoutMs: 10_000 });
  });

  it('reads every variable', () => {
    const config = loadConfig({
      STORAGE_DIR: '/var/lib/docs/files',
      STORAGE_URL_SECRET: 'x'.repeat(32),
      FETCH_ALLOW_PRIVATE_ADDRESSES: 'true',
      FETCH_MAX_BYTES: '1024',
      FETCH_TIMEOUT_MS: '500',
    });
    expect(config.storage).toEqual({ dir: '/var/lib/docs/files', urlSecret: 'x'.repeat(32) });
    expect(config.fetch).toEqual({ allowPrivateAddresses: true, maxBytes: 1024, timeoutMs: 500 });
  });

  it.each([
    ['true', true],
    ['1', true],
    ['false', false],
    ['0', false],
  ])('reads FETCH_ALLOW_PRIVATE_ADDRESSES=%s as %s', (value, expected) => {
    expect(loadConfig({ FETCH_ALLOW_PRIVATE_ADDRESSES: value }).fetch.allowPrivateAddresses).toBe(expected);
  });

  it.each(['yes', 'TRUE', '', 'on'])('refuses FETCH_ALLOW_PRIVATE_ADDRESSES=%j', (value) => {
    expect(() => loadConfig({ FETCH_ALLOW_PRIVATE_ADDRESSES: value })).toThrow(/FETCH_ALLOW_PRIVATE_ADDRESSES/);
  });

  it('refuses a short STORAGE_URL_SECRET and non-positive limits', () => {
    expect(() => loadConfig({ STORAGE_URL_SECRET: 'short' })).toThrow(/STORAGE_URL_SECRET/);
    expect(() => loadConfig({ FETCH_MAX_BYTES: '0' })).toThrow(/FETCH_MAX_BYTES/);
    expect(() => loadConfig({ FETCH_TIMEOUT_MS: '-1' })).toThrow(/FETCH_TIMEOUT_MS/);
  });
});

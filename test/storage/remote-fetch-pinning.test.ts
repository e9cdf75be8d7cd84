/**
 * The connection goes to the addresses that were checked: DNS is mocked so
 * `files.invalid` resolves (once, for the check) to 127.0.0.1; the system
 * resolver would know no such name, so the fetch only succeeds when the socket
 * reuses the checked address instead of resolving again (DNS rebinding).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';

const answers = vi.hoisted(() => ({ current: [] as { address: string; family: number }[], calls: 0 }));

vi.mock('node:dns/promises', () => ({
  lookup: async () => {
    answers.calls += 1;
    return answers.current;
  },
}));

const { fetchRemoteFile } = await import('../../src/storage/remote-fetch.ts');
const { RemoteFetchError } = await import('../../src/errors/external.ts');

describe('fetchRemoteFile address pinning', () => {
  let server: http.Server;
  let port: number;
  let hosts: string[];

  beforeAll(async () => {
    server = http.createServer((req, res) => {
      hosts.push(req.headers.host ?? '');
      res.writeHead(200, { 'content-type': 'text/plain' }).end('pinned');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
  beforeEach(() => {
    hosts = [];
    answers.calls = 0;
  });

  it('connects to the checked address and sends the original Host', async () => {
    answers.current = [{ address: '127.0.0.1', family: 4 }];
    const file = await fetchRemoteFile(`http://files.invalid:${port}/x`, { allowPrivateAddresses: true, maxBytes: 1000, timeoutMs: 5000 });
    expect(Buffer.from(file.bytes).toString()).toBe('pinned');
    expect(hosts).toEqual([`files.invalid:${port}`]);
    expect(answers.calls).toBe(1);
  });

  it('refuses a name when any of its addresses is private, even next to a public one', async () => {
    answers.current = [
      { address: '93.184.216.34', family: 4 },
      { address: '127.0.0.1', family: 4 },
    ];
    const error = await fetchRemoteFile(`http://files.invalid:${port}/x`, { allowPrivateAddresses: false, maxBytes: 1000, timeoutMs: 5000 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RemoteFetchError);
    expect((error as InstanceType<typeof RemoteFetchError>).reason).toBe('address');
    expect(hosts).toEqual([]);
  });

  it('refuses a name that resolves to an IPv4-mapped private address', async () => {
    answers.current = [{ address: '::ffff:10.0.0.1', family: 6 }];
    const error = await fetchRemoteFile('http://files.invalid/x', { allowPrivateAddresses: false, maxBytes: 1000, timeoutMs: 5000 }).catch((e: unknown) => e);
    expect((error as InstanceType<typeof RemoteFetchError>).reason).toBe('address');
    expect((error as Error).message).toMatch(/\(private\)/);
  });
});

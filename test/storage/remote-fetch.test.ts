/**
 * fetchRemoteFile against local servers on 127.0.0.1 (and 127.0.0.2 standing in
 * for a public host): address refusals, redirects re-checked per hop, size
 * limits, the timeout and schemes. Nothing here leaves the machine.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { RemoteFetchError } from '../../src/errors/external.ts';
import { InvalidInputError } from '../../src/errors/index.ts';
import { fetchRemoteFile, isPublicAddress, type RemoteFetchOptions } from '../../src/storage/remote-fetch.ts';

interface TestServer {
  url: string;
  port: number;
  requests: string[];
}

const servers: http.Server[] = [];

async function serve(handler: http.RequestListener, host = '127.0.0.1'): Promise<TestServer> {
  const requests: string[] = [];
  const server = http.createServer((req, res) => {
    requests.push(req.url ?? '');
    handler(req, res);
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://${host}:${port}`, port, requests };
}

afterEach(async () => {
  await Promise.all(
    servers.splice(0).map(
      (server) =>
        new Promise<void>((resolve) => {
          server.closeAllConnections();
          server.close(() => resolve());
        }),
    ),
  );
});

const PRIVATE_OK: RemoteFetchOptions = { allowPrivateAddresses: true, maxBytes: 1024 * 1024, timeoutMs: 5000 };
const STRICT: RemoteFetchOptions = { allowPrivateAddresses: false, maxBytes: 1024 * 1024, timeoutMs: 5000 };
/** 127.0.0.2 plays a public host; every other address goes through the real classification. */
const PUBLIC_127_0_0_2: RemoteFetchOptions = { ...STRICT, isAllowedAddress: (a) => a === '127.0.0.2' || isPublicAddress(a) };

async function failure(promise: Promise<unknown>): Promise<RemoteFetchError> {
  const error = await promise.then(
    () => {
      throw new Error('expected the fetch to fail');
    },
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(RemoteFetchError);
  return error as RemoteFetchError;
}

const fileServer = (body = 'PNG-ish bytes', type = 'image/png'): http.RequestListener => (_req, res) => {
  res.writeHead(200, { 'content-type': type, 'content-length': Buffer.byteLength(body) });
  res.end(body);
};

describe('fetchRemoteFile', () => {
  it('refuses a loopback address when private addresses are not allowed, without connecting', async () => {
    const server = await serve(fileServer());
    const error = await failure(fetchRemoteFile(`${server.url}/a.png`, STRICT));
    expect(error.reason).toBe('address');
    expect(error.message).toMatch(/non-public address \(loopback\)/);
    // The message names the setting that allows it.
    expect(error.message).toMatch(/FETCH_ALLOW_PRIVATE_ADDRESSES=true/);
    expect(error).toBeInstanceOf(InvalidInputError);
    expect(error.status).toBe(400);
    expect(server.requests).toEqual([]);
  });

  it('refuses a host name that resolves to loopback', async () => {
    const server = await serve(fileServer());
    const error = await failure(fetchRemoteFile(`http://localhost:${server.port}/a.png`, STRICT));
    expect(error.reason).toBe('address');
    expect(server.requests).toEqual([]);
  });

  it('fetches from loopback when private addresses are allowed', async () => {
    const server = await serve(fileServer('hello', 'image/gif'));
    const file = await fetchRemoteFile(`${server.url}/a.gif`, PRIVATE_OK);
    expect(Buffer.from(file.bytes).toString()).toBe('hello');
    expect(file.contentType).toBe('image/gif');
    expect(server.requests).toEqual(['/a.gif']);
  });

  it('fetches from an allowed address (the policy stand-in for a public host)', async () => {
    const server = await serve(fileServer('public'), '127.0.0.2');
    const file = await fetchRemoteFile(`${server.url}/p.png`, PUBLIC_127_0_0_2);
    expect(Buffer.from(file.bytes).toString()).toBe('public');
  });

  it('refuses a redirect to a host name resolving to a private address', async () => {
    const internal = await serve(fileServer('secret'));
    const outside = await serve((_req, res) => {
      res.writeHead(302, { location: `http://localhost:${internal.port}/admin` });
      res.end();
    }, '127.0.0.2');
    const error = await failure(fetchRemoteFile(`${outside.url}/image.png`, PUBLIC_127_0_0_2));
    expect(error.reason).toBe('address');
    expect(outside.requests).toEqual(['/image.png']);
    expect(internal.requests).toEqual([]);
  });

  it('refuses a redirect to a private IP literal', async () => {
    const internal = await serve(fileServer('secret'));
    const outside = await serve((_req, res) => {
      res.writeHead(301, { location: `http://127.0.0.1:${internal.port}/admin` });
      res.end();
    }, '127.0.0.2');
    expect((await failure(fetchRemoteFile(`${outside.url}/`, PUBLIC_127_0_0_2))).reason).toBe('address');
    expect(internal.requests).toEqual([]);
  });

  it('follows relative and absolute redirects, and gives the final Content-Type', async () => {
    const server = await serve((req, res) => {
      if (req.url === '/start') res.writeHead(307, { location: '/next' }).end();
      else if (req.url === '/next') res.writeHead(308, { location: `http://localhost:${(req.socket.localPort)}/file` }).end();
      else fileServer('final', 'image/webp')(req, res);
    });
    const file = await fetchRemoteFile(`${server.url}/start`, PRIVATE_OK);
    expect(Buffer.from(file.bytes).toString()).toBe('final');
    expect(file.contentType).toBe('image/webp');
    expect(server.requests).toEqual(['/start', '/next', '/file']);
  });

  it('follows at most 5 redirects', async () => {
    const server = await serve((req, res) => {
      const n = Number(req.url!.slice(1));
      if (n < 10) res.writeHead(302, { location: `/${n + 1}` }).end();
      else fileServer()(req, res);
    });
    const error = await failure(fetchRemoteFile(`${server.url}/0`, PRIVATE_OK));
    expect(error.reason).toBe('redirects');
    expect(server.requests).toHaveLength(6);
    // Five redirects are fine.
    expect(Buffer.from((await fetchRemoteFile(`${server.url}/5`, PRIVATE_OK)).bytes).toString()).toBe('PNG-ish bytes');
  });

  it('refuses a redirect to another scheme', async () => {
    const server = await serve((_req, res) => res.writeHead(302, { location: 'file:///etc/passwd' }).end());
    expect((await failure(fetchRemoteFile(`${server.url}/`, PRIVATE_OK))).reason).toBe('scheme');
  });

  it('refuses a Content-Length over the limit before reading the body', async () => {
    const server = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'image/png', 'content-length': 10_000 });
      res.write(Buffer.alloc(100)); // and never finishes
    });
    // Had it waited for the body, the 5 s timeout would answer instead ('timeout').
    const error = await failure(fetchRemoteFile(`${server.url}/big.png`, { ...PRIVATE_OK, maxBytes: 1000 }));
    expect(error.reason).toBe('too-large');
    expect(error.message).toMatch(/larger than the 1000 bytes allowed/);
  });

  it('stops a chunked body as soon as it passes the limit', async () => {
    let sent = 0;
    const server = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/octet-stream' }); // chunked: no Content-Length
      const timer = setInterval(() => {
        sent += 1024;
        res.write(Buffer.alloc(1024, 1));
      }, 2);
      res.on('close', () => clearInterval(timer));
    });
    const error = await failure(fetchRemoteFile(`${server.url}/stream`, { ...PRIVATE_OK, maxBytes: 8 * 1024 }));
    expect(error.reason).toBe('too-large');
    expect(sent).toBeLessThan(256 * 1024);
  });

  it('accepts a chunked body right at the limit', async () => {
    const server = await serve((_req, res) => {
      res.writeHead(200);
      res.write(Buffer.alloc(600));
      res.end(Buffer.alloc(400));
    });
    expect((await fetchRemoteFile(`${server.url}/`, { ...PRIVATE_OK, maxBytes: 1000 })).bytes.byteLength).toBe(1000);
  });

  it('gives up after the timeout when the server never answers', async () => {
    const server = await serve(() => undefined);
    const error = await failure(fetchRemoteFile(`${server.url}/slow`, { ...PRIVATE_OK, timeoutMs: 200 }));
    expect(error.reason).toBe('timeout');
    expect(error.message).toMatch(/longer than 200 ms/);
  });

  it('applies the timeout to the whole body, not to each read', async () => {
    const server = await serve((_req, res) => {
      res.writeHead(200);
      const timer = setInterval(() => res.write('x'), 20);
      res.on('close', () => clearInterval(timer));
    });
    expect((await failure(fetchRemoteFile(`${server.url}/trickle`, { ...PRIVATE_OK, timeoutMs: 300 }))).reason).toBe('timeout');
  });

  it('refuses an error status', async () => {
    const server = await serve((_req, res) => res.writeHead(404).end('nope'));
    const error = await failure(fetchRemoteFile(`${server.url}/missing`, PRIVATE_OK));
    expect(error.reason).toBe('status');
    expect(error.message).toMatch(/answered 404/);
  });

  it.each(['file:///etc/passwd', 'ftp://127.0.0.1/file', 'data:text/plain,hi', 'javascript:alert(1)', 'gopher://127.0.0.1:70/'])(
    'refuses the scheme of %s',
    async (url) => {
      expect((await failure(fetchRemoteFile(url, PRIVATE_OK))).reason).toBe('scheme');
    },
  );

  it('refuses what is not a URL, and URLs with credentials', async () => {
    expect((await failure(fetchRemoteFile('not a url', PRIVATE_OK))).reason).toBe('invalid-url');
    expect((await failure(fetchRemoteFile('http://user:pass@127.0.0.1/', PRIVATE_OK))).reason).toBe('invalid-url');
  });

  it('reports a refused connection as a network failure', async () => {
    const server = await serve(fileServer());
    const { port } = server;
    await new Promise<void>((resolve) => servers.pop()!.close(() => resolve()));
    const error = await failure(fetchRemoteFile(`http://127.0.0.1:${port}/`, PRIVATE_OK));
    expect(error.reason).toBe('network');
    expect(error.message).toMatch(/ECONNREFUSED/);
  });
});

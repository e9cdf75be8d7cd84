/**
 * A local HTTP server for the OpenAPI processing tests: the files of
 * ./fixtures/ under their paths (`%ORIGIN%` in them written as the server's
 * own origin), the OpenAPI documents of @gitbook/api under /gitbook/ and
 * /gitbook-next/, and /hang, which never answers.
 */
import { readFile } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';

export const FIXTURES = fileURLToPath(new URL('./fixtures/', import.meta.url));
export const GITBOOK_API_SPEC = fileURLToPath(new URL('../../node_modules/@gitbook/api/spec/openapi.json', import.meta.url));
export const GITBOOK_API_NEXT_SPEC = fileURLToPath(new URL('../../node_modules/gitbook-api-next/spec/openapi.json', import.meta.url));

export interface SpecServer {
  origin: string;
  /** Paths asked for, in order. */
  requests: string[];
  close(): Promise<void>;
}

export async function startSpecServer(): Promise<SpecServer> {
  const requests: string[] = [];
  let origin = '';
  const server = http.createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://localhost').pathname;
    requests.push(path);
    if (path === '/hang') return; // Never answers; close() ends the connection.
    const file =
      path === '/gitbook/openapi.json'
        ? GITBOOK_API_SPEC
        : path === '/gitbook-next/openapi.json'
          ? GITBOOK_API_NEXT_SPEC
          : !path.includes('..') && !path.includes('%')
            ? `${FIXTURES}${path.slice(1)}`
            : null;
    if (!file) {
      res.writeHead(404).end();
      return;
    }
    readFile(file, 'utf8').then(
      (text) => {
        res.writeHead(200, { 'content-type': file.endsWith('.json') ? 'application/json' : 'application/yaml' });
        res.end(text.replaceAll('%ORIGIN%', origin));
      },
      () => res.writeHead(404).end(),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

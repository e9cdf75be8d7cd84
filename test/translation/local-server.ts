/**
 * A small HTTP server on 127.0.0.1 standing in for a translation provider:
 * it records every request and answers with the handler's reply.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach } from 'vitest';

export interface RecordedRequest {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  /** The parsed JSON body (the raw text when it is not JSON). */
  body: unknown;
}

/** What the handler answers: a status and a body (an object is sent as JSON); `hang` never answers. */
export type Reply = { status?: number; json?: unknown; text?: string } | 'hang';

export interface LocalServer {
  /** `http://127.0.0.1:<port>` */
  url: string;
  requests: RecordedRequest[];
  close(): Promise<void>;
}

export async function startLocalServer(handler: (request: RecordedRequest, index: number) => Reply | Promise<Reply>): Promise<LocalServer> {
  const requests: RecordedRequest[] = [];
  const server = http.createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks).toString('utf8');
    let body: unknown = raw;
    try {
      body = JSON.parse(raw);
    } catch {
      // Keep the text.
    }
    const recorded: RecordedRequest = { method: req.method ?? '', path: req.url ?? '', headers: req.headers, body };
    requests.push(recorded);
    const reply = await handler(recorded, requests.length - 1);
    if (reply === 'hang') return;
    const text = reply.text ?? JSON.stringify(reply.json ?? {});
    res.writeHead(reply.status ?? 200, { 'content-type': reply.text !== undefined ? 'text/plain' : 'application/json' });
    res.end(text);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  let closed: Promise<void> | undefined;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      (closed ??= new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      })),
  };
}

/**
 * Registers an `afterEach` that closes every server started during the test (a test may close
 * one itself before); returns the function that starts one.
 */
export function useLocalServers(): (handler: Parameters<typeof startLocalServer>[0]) => Promise<LocalServer> {
  const started: LocalServer[] = [];
  afterEach(async () => {
    await Promise.all(started.splice(0).map((server) => server.close()));
  });
  return async (handler) => {
    const server = await startLocalServer(handler);
    started.push(server);
    return server;
  };
}

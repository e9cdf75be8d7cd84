/**
 * Stopping the server the README starts. `npm start` runs `sh -c`, which used to fork
 * `node scripts/start.js` rather than exec it: npm passed SIGTERM to the shell, which died, and the
 * server went on, re-parented. Here SIGTERM goes to the pid `npm start` has, with a graphql-ws
 * subscription and an SSE subscription open: both are closed at once (1001 "Going away"; the SSE
 * stream completed and ended), not after SHUTDOWN_TIMEOUT_MS (set to a minute here), npm and the
 * server exit, and the last log line counts what was closed. SIGINT to `node scripts/start.js`
 * (Ctrl-C, a supervisor running it itself) does the same.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { createUserWithToken } from '../../src/auth/users.ts';
import { closeDb, createDb } from '../../src/db/client.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/database.ts';
import { ROOT, alive, freePort, startProcess, type LogLine, type ServerProcess } from '../helpers/process.ts';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'docs-api-signals-'));
let database: TestDatabase;
let token: string;
const started: ServerProcess[] = [];

beforeAll(async () => {
  database = await createTestDatabase();
  const db = createDb(database.config);
  try {
    ({ token } = await createUserWithToken(db, { email: 'signals@example.com', displayName: 'Signals' }));
  } finally {
    await closeDb(db);
  }
});

afterAll(async () => {
  for (const server of started) if (server.child.pid && alive(server.child.pid)) server.child.kill('SIGKILL');
  for (const server of started) {
    const pid = server.lines[0]?.pid;
    if (pid && alive(pid)) process.kill(pid, 'SIGKILL');
  }
  await database?.drop();
  fs.rmSync(dir, { recursive: true, force: true });
});

async function start(command: string, args: string[]): Promise<{ server: ServerProcess; baseUrl: string; nodePid: number }> {
  const port = await freePort();
  const server = startProcess(command, args, {
    ...process.env,
    PORT: String(port),
    HOST: '127.0.0.1',
    DATABASE_URL: database.url,
    STORAGE_DIR: path.join(dir, 'files'),
    LOG_LEVEL: 'info',
    // Far longer than the test waits: closing the subscriptions must not wait for it.
    SHUTDOWN_TIMEOUT_MS: '60000',
  });
  started.push(server);
  const listening = await server.waitForLine((line) => line.msg === 'listening');
  return { server, baseUrl: listening.url as string, nodePid: listening.pid };
}

async function call(baseUrl: string, method: string, url: string, body?: unknown): Promise<any> {
  const res = await fetch(baseUrl + url, {
    method,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  expect(res.status, url).toBeLessThan(300);
  return res.json();
}

const SUBSCRIPTION = 'subscription Syncs($spaceId: ID!) { gitSync(spaceId: $spaceId) { id state } }';

/** A graphql-ws connection with one subscription; resolves once the server acknowledged the connection. */
async function openWebSocket(baseUrl: string, spaceId: string): Promise<{ closed: Promise<{ code: number; reason: string }> }> {
  const socket = new WebSocket(`${baseUrl.replace(/^http/, 'ws')}/graphql`, 'graphql-transport-ws');
  const closed = new Promise<{ code: number; reason: string }>((resolve) => socket.on('close', (code, reason) => resolve({ code, reason: reason.toString() })));
  await new Promise<void>((resolve, reject) => {
    socket.on('error', reject);
    socket.on('open', () => socket.send(JSON.stringify({ type: 'connection_init', payload: { authorization: `Bearer ${token}` } })));
    socket.on('message', (data) => {
      const message = JSON.parse(data.toString()) as { type: string };
      if (message.type !== 'connection_ack') return;
      socket.send(JSON.stringify({ id: '1', type: 'subscribe', payload: { query: SUBSCRIPTION, variables: { spaceId } } }));
      resolve();
    });
  });
  return { closed };
}

/** A subscription over SSE; resolves once the response's headers came (the subscription started). */
async function openEventStream(baseUrl: string, spaceId: string): Promise<{ ended: Promise<{ clean: boolean; text: string }> }> {
  const res = await fetch(`${baseUrl}/graphql`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'text/event-stream' },
    body: JSON.stringify({ query: SUBSCRIPTION, variables: { spaceId } }),
  });
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
  const reader = res.body!.getReader();
  const ended = (async () => {
    let text = '';
    try {
      for (let read = await reader.read(); !read.done; read = await reader.read()) text += Buffer.from(read.value).toString();
      return { clean: true, text };
    } catch {
      // The connection was cut rather than ended.
      return { clean: false, text };
    }
  })();
  return { ended };
}

/** Resolves once `pid` no longer exists (polled), or rejects after `ms`. */
async function gone(pid: number, ms: number): Promise<void> {
  const until = Date.now() + ms;
  while (alive(pid)) {
    if (Date.now() > until) throw new Error(`process ${pid} still running after ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function withSubscriptions(baseUrl: string) {
  const org = await call(baseUrl, 'POST', '/v1/orgs', { title: 'Signals' });
  const space = await call(baseUrl, 'POST', `/v1/orgs/${org.id}/spaces`, { title: 'Handbook' });
  const ws = await openWebSocket(baseUrl, space.id);
  const sse = await openEventStream(baseUrl, space.id);
  return { ws, sse };
}

/**
 * The line that says the server stopped, wherever it came. The log is written to stdout
 * asynchronously (pino's default destination), and in one CI run the two shutdown lines reached
 * the pipe in the wrong order: "stopped" before "shutting down", though their times were 15 ms
 * apart the right way round. That the line is there at all is what this checks: it went missing
 * once, lost with the process at exit.
 */
function stoppedLine(server: ServerProcess): LogLine | undefined {
  return server.lines.find((line) => line.msg.startsWith('stopped'));
}

describe('stopping the server', () => {
  it('SIGTERM to `npm start` closes WebSocket (1001) and SSE connections at once and stops npm and the server', async () => {
    const { server, baseUrl, nodePid } = await start('npm', ['start', '--silent']);
    // exec: the server is npm's own child, not a shell's.
    expect(nodePid).not.toBe(server.child.pid);
    const { ws, sse } = await withSubscriptions(baseUrl);

    const sent = Date.now();
    process.kill(server.child.pid!, 'SIGTERM');
    const [closed, ended, exit] = await Promise.all([ws.closed, sse.ended, server.exited]);
    await gone(nodePid, 5_000);
    const took = Date.now() - sent;

    expect(closed).toEqual({ code: 1001, reason: 'Going away' });
    expect(ended.clean).toBe(true);
    expect(ended.text).toContain('event: complete');
    expect(exit).toEqual({ code: 0, signal: null });
    // Nowhere near SHUTDOWN_TIMEOUT_MS (a minute), with room for a loaded machine.
    expect(took).toBeLessThan(15_000);
    expect(stoppedLine(server), server.output()).toMatchObject({ pid: nodePid, webSockets: 1, eventStreams: 1, msg: expect.stringMatching(/^stopped: closed 1 WebSocket .* ended 1 SSE stream/) });
    expect(server.lines.find((line) => line.msg.startsWith('shutting down'))).toMatchObject({ signal: 'SIGTERM' });
  }, 120_000);

  it('SIGINT to `node scripts/start.js` does the same', async () => {
    const { server, baseUrl, nodePid } = await start(process.execPath, [path.join(ROOT, 'scripts/start.js')]);
    expect(nodePid).toBe(server.child.pid);
    const { ws, sse } = await withSubscriptions(baseUrl);

    process.kill(nodePid, 'SIGINT');
    const [closed, ended, exit] = await Promise.all([ws.closed, sse.ended, server.exited]);
    expect(closed.code).toBe(1001);
    expect(ended.clean).toBe(true);
    expect(exit).toEqual({ code: 0, signal: null });
    expect(stoppedLine(server), server.output()).toMatchObject({ webSockets: 1, eventStreams: 1, msg: expect.stringMatching(/^stopped: /) });
  }, 120_000);
});

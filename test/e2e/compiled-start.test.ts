/**
 * `npm start` as a user runs it: scripts/start.js, which runs the compiled
 * server (dist/, built by `npm install` or `npm run build`; built here first
 * when src/ changed since). On a database nothing was created in: it migrates
 * from dist/ (the migrations are found from the compiled module), answers
 * REST and GraphQL, loads what is loaded on first use (the Markdown parser
 * and printer, pdfkit) from dist/, and after `kill -9` comes back with the
 * data. Every other test runs the TypeScript sources; this one guards what
 * only the compiled code can break (a file read beside a module and not
 * copied, an import the build did not rewrite).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUserWithToken } from '../../src/auth/users.ts';
import { closeDb, createDb } from '../../src/db/client.ts';
import { parseDatabaseUrl } from '../../src/db/provider/config.ts';
import { dropDatabase } from '../../src/db/provider/setup.ts';
import { TEST_DATABASE_URL } from '../helpers/database.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'docs-api-compiled-'));
// A database nobody migrated: a new SQLite file, or a new schema of the test PostgreSQL.
const databaseUrl = TEST_DATABASE_URL
  ? (() => {
      const u = new URL(TEST_DATABASE_URL);
      u.searchParams.set('schema', `t_${randomBytes(6).toString('hex')}`);
      return u.toString();
    })()
  : `file:${path.join(dir, 'app.db')}`;
let env: NodeJS.ProcessEnv;

/** A port free now (the server restarts on the same one). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as net.AddressInfo;
      probe.close(() => resolve(port));
    });
    probe.on('error', reject);
  });
}

/** Starts `npm start`'s script; resolves with the process and the base URL it logged once listening. */
function start(): Promise<{ child: ChildProcess; baseUrl: string; applied: string[] }> {
  const child = spawn(process.execPath, [path.join(root, 'scripts/start.js')], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
  return new Promise((resolve, reject) => {
    let output = '';
    let pending = '';
    let applied: string[] = [];
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    // pino's JSON lines, as they complete.
    child.stdout!.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const lines = (pending + chunk.toString()).split('\n');
      pending = lines.pop()!;
      for (const line of lines) {
        if (!line.startsWith('{')) continue;
        const entry = JSON.parse(line) as { msg?: string; url?: string; applied?: string[] };
        if (entry.msg === 'applied database migrations') applied = entry.applied ?? [];
        if (entry.msg === 'listening' && entry.url) resolve({ child, baseUrl: entry.url, applied });
      }
    });
    child.on('exit', (code) => reject(new Error(`npm start exited with ${code}:\n${output}`)));
  });
}

function kill9(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.removeAllListeners('exit');
    child.on('exit', () => resolve());
    child.kill('SIGKILL');
  });
}

let server: { child: ChildProcess; baseUrl: string; applied: string[] };
let token: string;

async function call(method: string, url: string, body?: unknown): Promise<{ status: number; headers: Headers; body: any }> {
  const res = await fetch(url.startsWith('http') ? url : server.baseUrl + url, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text && res.headers.get('content-type')?.includes('json') ? JSON.parse(text) : text };
}

beforeAll(async () => {
  const port = await freePort();
  env = {
    ...process.env,
    PORT: String(port),
    HOST: '127.0.0.1',
    PUBLIC_URL: `http://127.0.0.1:${port}`,
    DATABASE_URL: databaseUrl,
    STORAGE_DIR: path.join(dir, 'files'),
    LOG_LEVEL: 'info',
  };
  server = await start();
  const db = createDb(parseDatabaseUrl(databaseUrl));
  try {
    ({ token } = await createUserWithToken(db, { email: 'compiled@example.com', displayName: 'Compiled' }));
  } finally {
    await closeDb(db);
  }
}, 300_000);

afterAll(async () => {
  if (server) await kill9(server.child);
  await dropDatabase(parseDatabaseUrl(databaseUrl)).catch(() => undefined);
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('npm start (the compiled server)', () => {
  it('runs from dist/ and migrated the empty database', () => {
    expect(fs.existsSync(path.join(root, 'dist/main.js'))).toBe(true);
    expect(server.applied.length).toBeGreaterThan(0);
    expect(server.applied).toContain(fs.readdirSync(path.join(root, 'prisma/migrations/sqlite')).filter((n) => /^\d{14}_/.test(n)).sort().at(-1));
  });

  let org: string;
  let space: string;
  it('answers REST writes and reads, and GraphQL', async () => {
    const created = await call('POST', '/v1/orgs', { title: 'Compiled' });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    org = created.body.id;
    const spaceRes = await call('POST', `/v1/orgs/${org}/spaces`, { title: 'Handbook' });
    expect(spaceRes.status).toBe(201);
    space = spaceRes.body.id;
    expect(spaceRes.headers.get('location')).toBe(`${server.baseUrl}/v1/spaces/${space}`);
    expect((await call('GET', `/v1/spaces/${space}`)).body.title).toBe('Handbook');
    const graphql = await call('POST', '/graphql', { query: `{ space(id: "${space}") { title } }` });
    expect(graphql.body).toEqual({ data: { space: { title: 'Handbook' } } });
  });

  it('loads the Markdown parser and printer and pdfkit on first use', async () => {
    const changeRequest = (await call('POST', `/v1/spaces/${space}/change-requests`, { subject: 'Content' })).body;
    const content = `/v1/spaces/${space}/change-requests/${changeRequest.id}/content`;
    const edited = await call('POST', content, {
      changes: [{ operation: 'insert_page', title: 'Guide', document: { markdown: '# Guide\n\nWelcome to the **guide**.\n' } }],
    });
    expect(edited.status, JSON.stringify(edited.body)).toBe(200);
    const [guide] = (await call('GET', `${content}/pages`)).body.pages;
    const page = await call('GET', `${content}/page/${guide.id}?format=markdown`);
    expect(page.body.markdown).toContain('Welcome to the **guide**.');
    const pdf = await call('GET', `/v1/spaces/${space}/change-requests/${changeRequest.id}/pdf`);
    expect(pdf.status, JSON.stringify(pdf.body)).toBe(200);
    const file = await fetch(pdf.body.url);
    expect(file.headers.get('content-type')).toBe('application/pdf');
    expect(Buffer.from(await file.arrayBuffer()).subarray(0, 5).toString()).toBe('%PDF-');
  });

  it('comes back after kill -9 with its data, migrating nothing', async () => {
    await kill9(server.child);
    server = await start();
    expect(server.applied).toEqual([]);
    expect((await call('GET', `/v1/spaces/${space}`)).body.title).toBe('Handbook');
    expect((await call('GET', '/healthz')).status).toBe(200);
  });
});

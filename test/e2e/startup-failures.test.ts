/**
 * A start that cannot succeed, as `npm start` runs it (node scripts/start.js): one JSON log line at
 * level fatal naming what failed and the setting to look at, nothing on stderr (no stack, no wasm
 * frames of the schema engine), and exit code 1.
 */
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../helpers/database.ts';
import { ROOT, freePort, startProcess } from '../helpers/process.ts';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'docs-api-startup-'));
let database: TestDatabase;

beforeAll(async () => {
  database = await createTestDatabase();
});

afterAll(async () => {
  await database?.drop();
  fs.rmSync(dir, { recursive: true, force: true });
});

/** Starts the server with `env` over the usual settings; its exit code, stdout lines and stderr. */
async function failedStart(env: Record<string, string>) {
  const server = startProcess(process.execPath, [path.join(ROOT, 'scripts/start.js')], {
    ...process.env,
    HOST: '127.0.0.1',
    PORT: String(await freePort()),
    DATABASE_URL: database.url,
    STORAGE_DIR: path.join(dir, 'files'),
    LOG_LEVEL: 'info',
    ...env,
  });
  const exit = await server.exited;
  const stdout = server.output().slice(0, server.output().length - server.stderr().length);
  return { exit, lines: server.lines, stdout, stderr: server.stderr() };
}

function expectOneFatalLine(result: Awaited<ReturnType<typeof failedStart>>, stage: string, message: RegExp) {
  expect(result.exit, result.stdout + result.stderr).toEqual({ code: 1, signal: null });
  expect(result.stderr).toBe('');
  expect(result.lines).toHaveLength(1);
  expect(result.stdout.trim().split('\n')).toHaveLength(1);
  const [line] = result.lines;
  expect(line).toMatchObject({ level: 60, stage, msg: expect.stringMatching(/^cannot start: /) });
  expect(line!.msg).toMatch(message);
  expect(JSON.stringify(line)).not.toMatch(/wasm|\bat .*\.js:\d+/);
}

describe('a start that fails', () => {
  it('on an unsupported DATABASE_URL names the setting and the forms it takes', async () => {
    const result = await failedStart({ DATABASE_URL: 'mysql://app:secret@db.example/docs' });
    expectOneFatalLine(result, 'configuration', /Unsupported DATABASE_URL .*expected "file:<path>" \(SQLite\) or "postgresql:/);
    // The password is not logged.
    expect(result.stdout).not.toContain('secret');
  });

  it('on a PostgreSQL server that cannot be reached says where it looked', async () => {
    const port = await freePort();
    const result = await failedStart({ DATABASE_URL: `postgresql://postgres:secret@127.0.0.1:${port}/docs` });
    expectOneFatalLine(result, 'database', new RegExp(`cannot open the PostgreSQL database docs at 127\\.0\\.0\\.1:${port} \\(DATABASE_URL\\): Can't reach database server`));
    expect(result.stdout).not.toContain('secret');
  });

  it('on a PostgreSQL schema that cannot be prepared, the same', async () => {
    const port = await freePort();
    const result = await failedStart({ DATABASE_URL: `postgresql://postgres@127.0.0.1:${port}/docs?schema=app` });
    expectOneFatalLine(result, 'database', /cannot open the PostgreSQL database docs at 127\.0\.0\.1:\d+ \(DATABASE_URL\): connect ECONNREFUSED/);
  });

  it('on a SQLite file whose folder cannot be made', async () => {
    const file = path.join(dir, 'a-file');
    fs.writeFileSync(file, '');
    const result = await failedStart({ DATABASE_URL: `file:${file}/app.db` });
    expectOneFatalLine(result, 'database', /cannot open the SQLite database .*a-file\/app\.db \(DATABASE_URL\): EEXIST/);
  });

  it('on a port in use names PORT and HOST', async () => {
    const taken = net.createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const { port } = taken.address() as net.AddressInfo;
    try {
      const result = await failedStart({ PORT: String(port) });
      expectOneFatalLine(result, 'listen', new RegExp(`cannot listen on port ${port} of 127\\.0\\.0\\.1 \\(PORT, HOST\\): the port is already in use`));
      expect(result.lines[0]).toMatchObject({ code: 'EADDRINUSE' });
    } finally {
      taken.close();
    }
  });

  it('on an invalid setting names it', async () => {
    const result = await failedStart({ RATE_LIMIT_POINTS: 'many' });
    expectOneFatalLine(result, 'configuration', /Invalid configuration: RATE_LIMIT_POINTS: /);
  });
}, 120_000);

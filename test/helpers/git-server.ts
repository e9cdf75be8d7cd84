/**
 * A Git smart-HTTP server for tests: a node HTTP server on 127.0.0.1 that runs
 * the system's `git http-backend` as a CGI program over bare repositories in
 * a temporary directory (push is enabled per repository with
 * `http.receivepack true`). Optional basic auth; every request is recorded,
 * and `beforeRequest` can act before the backend sees one (a concurrent push).
 *
 * The helpers that set up and inspect repositories use system git on the
 * bare repositories' paths, never the HTTP server, so they are not recorded.
 */
import { execFile, spawn } from 'node:child_process';
import fs from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** One request the server received, before any authentication check. */
export interface GitRequestRecord {
  method: string;
  /** The path, e.g. `/docs.git/info/refs`. */
  path: string;
  /** The query string without `?`. */
  query: string;
  /** The Authorization header as sent, or null. */
  authorization: string | null;
}

export interface GitServerOptions {
  /** When set, every request needs these basic-auth credentials (401 with WWW-Authenticate otherwise). */
  auth?: { username: string; password: string };
}

export interface CommitInfo {
  oid: string;
  /** The full message without trailing newlines. */
  message: string;
  authorName: string;
  authorEmail: string;
}

export interface GitServer {
  /** `http://127.0.0.1:<port>` */
  baseUrl: string;
  /** The directory holding the bare repositories (`<name>.git`). */
  root: string;
  /** Every request received, in order. */
  requests: GitRequestRecord[];
  /** Runs before a request (after it is recorded and authenticated) reaches `git http-backend`. */
  beforeRequest: ((request: GitRequestRecord) => void | Promise<void>) | null;
  /** While set, requests wait for it to settle (before `beforeRequest`): a job's Git work waits for the test. */
  hold: Promise<unknown> | null;
  /** The clone URL of repository `name`. */
  url(name: string): string;
  /**
   * Creates bare repository `name`; with `files`, one commit holding them on
   * `branch` (which becomes HEAD), without, an empty repository. Returns its URL.
   */
  createBareRepository(name: string, files?: Record<string, string | Uint8Array>, branch?: string): Promise<string>;
  /** Commits changes on `branch` (null deletes a file) and pushes them straight to the bare repository; the new commit. */
  commit(name: string, branch: string, changes: Record<string, string | Uint8Array | null>, message?: string): Promise<string>;
  /** Every file of `ref`'s tree (`git ls-tree -r`), by path. */
  readBareRepository(name: string, ref: string): Promise<Map<string, Buffer>>;
  /** `ref`'s commit (`git log -1`). */
  lastCommit(name: string, ref: string): Promise<CommitInfo>;
  /** The number of commits reachable from `ref`. */
  commitCount(name: string, ref: string): Promise<number>;
  /** Whether `ref` exists in repository `name`. */
  hasRef(name: string, ref: string): Promise<boolean>;
  /** Stops the server and removes every repository. */
  close(): Promise<void>;
}

/** Keeps system git away from the user's and the system's configuration. */
const GIT_ENV = {
  PATH: process.env.PATH ?? '/usr/bin:/bin',
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_CONFIG_GLOBAL: '/dev/null',
  GIT_AUTHOR_NAME: 'Test Author',
  GIT_AUTHOR_EMAIL: 'author@example.com',
  GIT_COMMITTER_NAME: 'Test Author',
  GIT_COMMITTER_EMAIL: 'author@example.com',
  GIT_TERMINAL_PROMPT: '0',
};

async function git(args: string[], cwd?: string): Promise<string> {
  const { stdout } = await run('git', args, { cwd, env: { ...GIT_ENV, HOME: os.tmpdir() }, maxBuffer: 64 * 1024 * 1024 });
  return stdout;
}

async function gitBuffer(args: string[]): Promise<Buffer> {
  const { stdout } = await run('git', args, { env: { ...GIT_ENV, HOME: os.tmpdir() }, encoding: 'buffer', maxBuffer: 64 * 1024 * 1024 });
  return stdout;
}

async function writeFiles(dir: string, files: Record<string, string | Uint8Array | null>): Promise<void> {
  for (const [file, content] of Object.entries(files)) {
    const target = path.join(dir, ...file.split('/'));
    if (content === null) {
      await fs.rm(target, { force: true });
    } else {
      await fs.mkdir(path.dirname(target), { recursive: true });
      await fs.writeFile(target, content);
    }
  }
}

function isAuthorized(header: string | undefined, auth: { username: string; password: string }): boolean {
  const match = /^Basic\s+(.+)$/i.exec(header ?? '');
  if (!match) return false;
  return Buffer.from(match[1]!, 'base64').toString('utf8') === `${auth.username}:${auth.password}`;
}

/** Finds the end of the CGI header block (`\r\n\r\n` or `\n\n`). */
function headerEnd(buffer: Buffer): { at: number; length: number } | null {
  const crlf = buffer.indexOf('\r\n\r\n');
  const lf = buffer.indexOf('\n\n');
  if (crlf >= 0 && (lf < 0 || crlf <= lf)) return { at: crlf, length: 4 };
  if (lf >= 0) return { at: lf, length: 2 };
  return null;
}

/** Runs `git http-backend` for one request and relays its CGI answer. */
function runBackend(root: string, req: http.IncomingMessage, res: http.ServerResponse, url: URL, user: string | null): Promise<void> {
  return new Promise((resolve) => {
    const env: Record<string, string> = {
      ...GIT_ENV,
      HOME: root,
      GIT_PROJECT_ROOT: root,
      GIT_HTTP_EXPORT_ALL: '1',
      PATH_INFO: decodeURIComponent(url.pathname),
      QUERY_STRING: url.search.replace(/^\?/, ''),
      REQUEST_METHOD: req.method ?? 'GET',
      CONTENT_TYPE: req.headers['content-type'] ?? '',
      REMOTE_ADDR: req.socket.remoteAddress ?? '127.0.0.1',
    };
    if (req.headers['content-length']) env.CONTENT_LENGTH = req.headers['content-length'];
    if (req.headers['content-encoding']) env.HTTP_CONTENT_ENCODING = req.headers['content-encoding'];
    if (typeof req.headers['git-protocol'] === 'string') env.HTTP_GIT_PROTOCOL = req.headers['git-protocol'];
    if (user) env.REMOTE_USER = user;

    const child = spawn('git', ['http-backend'], { env, stdio: ['pipe', 'pipe', 'pipe'] });
    let head = Buffer.alloc(0);
    let headersSent = false;
    const stderr: Buffer[] = [];
    child.stderr.on('data', (chunk: Buffer) => stderr.push(chunk));
    child.stdin.on('error', () => undefined);
    req.pipe(child.stdin);

    child.stdout.on('data', (chunk: Buffer) => {
      if (headersSent) {
        res.write(chunk);
        return;
      }
      head = Buffer.concat([head, chunk]);
      const end = headerEnd(head);
      if (!end) return;
      let status = 200;
      let statusMessage: string | undefined;
      const headers: Record<string, string> = {};
      for (const line of head.subarray(0, end.at).toString('latin1').split(/\r?\n/)) {
        const colon = line.indexOf(':');
        if (colon <= 0) continue;
        const name = line.slice(0, colon).trim();
        const value = line.slice(colon + 1).trim();
        if (name.toLowerCase() === 'status') {
          status = Number.parseInt(value, 10);
          statusMessage = value.replace(/^\d+\s*/, '') || undefined;
        } else {
          headers[name] = value;
        }
      }
      res.writeHead(status, statusMessage, headers);
      headersSent = true;
      const rest = head.subarray(end.at + end.length);
      if (rest.length > 0) res.write(rest);
    });
    child.on('close', (code) => {
      if (!headersSent) {
        res.writeHead(500, { 'content-type': 'text/plain' });
        res.end(`git http-backend exited with ${code}: ${Buffer.concat(stderr).toString()}`);
      } else {
        res.end();
      }
      resolve();
    });
  });
}

/** Starts a Git smart-HTTP server on 127.0.0.1 with its own temporary root. */
export async function startGitServer(options: GitServerOptions = {}): Promise<GitServer> {
  const root = await fs.mkdtemp(path.join(os.tmpdir(), 'git-server-'));
  const requests: GitRequestRecord[] = [];
  const bare = (name: string) => path.join(root, `${name}.git`);

  const self: GitServer = {
    baseUrl: '',
    root,
    requests,
    beforeRequest: null,
    hold: null,
    url: (name) => `${self.baseUrl}/${name}.git`,

    async createBareRepository(name, files, branch = 'main') {
      const target = bare(name);
      await git(['init', '--quiet', '--bare', `--initial-branch=${branch}`, target]);
      await git(['--git-dir', target, 'config', 'http.receivepack', 'true']);
      if (files) {
        const work = await fs.mkdtemp(path.join(os.tmpdir(), 'git-work-'));
        try {
          await git(['init', '--quiet', `--initial-branch=${branch}`, work]);
          await writeFiles(work, files);
          await git(['add', '--all'], work);
          await git(['commit', '--quiet', '--allow-empty', '-m', 'Initial content'], work);
          await git(['push', '--quiet', target, `HEAD:refs/heads/${branch}`], work);
        } finally {
          await fs.rm(work, { recursive: true, force: true });
        }
      }
      return self.url(name);
    },

    async commit(name, branch, changes, message = 'Concurrent change') {
      const work = await fs.mkdtemp(path.join(os.tmpdir(), 'git-work-'));
      try {
        await git(['clone', '--quiet', '--branch', branch, bare(name), work]);
        await writeFiles(work, changes);
        await git(['add', '--all'], work);
        await git(['commit', '--quiet', '--allow-empty', '-m', message], work);
        await git(['push', '--quiet', 'origin', `HEAD:refs/heads/${branch}`], work);
        return (await git(['rev-parse', 'HEAD'], work)).trim();
      } finally {
        await fs.rm(work, { recursive: true, force: true });
      }
    },

    async readBareRepository(name, ref) {
      const listing = await git(['--git-dir', bare(name), 'ls-tree', '-r', '-z', ref]);
      const files = new Map<string, Buffer>();
      for (const entry of listing.split('\0')) {
        if (!entry) continue;
        const tab = entry.indexOf('\t');
        const [, type, oid] = entry.slice(0, tab).split(' ');
        if (type !== 'blob') continue;
        files.set(entry.slice(tab + 1), await gitBuffer(['--git-dir', bare(name), 'cat-file', 'blob', oid!]));
      }
      return files;
    },

    async lastCommit(name, ref) {
      const out = await git(['--git-dir', bare(name), 'log', '-1', '--format=%H%n%an%n%ae%n%B', ref]);
      const [oid, authorName, authorEmail, ...message] = out.split('\n');
      return { oid: oid!, authorName: authorName!, authorEmail: authorEmail!, message: message.join('\n').replace(/\n+$/, '') };
    },

    async commitCount(name, ref) {
      return Number((await git(['--git-dir', bare(name), 'rev-list', '--count', ref])).trim());
    },

    async hasRef(name, ref) {
      try {
        await git(['--git-dir', bare(name), 'rev-parse', '--verify', '--quiet', ref]);
        return true;
      } catch {
        return false;
      }
    },

    async close() {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      await fs.rm(root, { recursive: true, force: true });
    },
  };

  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const record: GitRequestRecord = {
      method: req.method ?? 'GET',
      path: url.pathname,
      query: url.search.replace(/^\?/, ''),
      authorization: req.headers.authorization ?? null,
    };
    requests.push(record);
    if (options.auth && !isAuthorized(req.headers.authorization, options.auth)) {
      req.resume();
      res.writeHead(401, { 'www-authenticate': 'Basic realm="git"', 'content-type': 'text/plain' }).end('Authentication required');
      return;
    }
    Promise.resolve(self.hold)
      .then(() => self.beforeRequest?.(record))
      .then(() => runBackend(root, req, res, url, options.auth?.username ?? null))
      .catch((error: unknown) => {
        if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' });
        res.end(String(error));
      });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  self.baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return self;
}

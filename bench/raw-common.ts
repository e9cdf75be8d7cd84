/**
 * What the hand-written SQL servers of the benchmarks (bench/raw-ceiling.ts,
 * bench/raw-site-graph.ts) share: their database (better-sqlite3 on SQLite,
 * node-postgres on PostgreSQL: statements prepared once, by hand), roles and
 * the caller's effective role on a space, the REST body of a space, the bearer
 * token's hash, JSON answers, listening and running as a benchmark's child
 * process.
 */
import { createHash } from 'node:crypto';
import http from 'node:http';
import Database from 'better-sqlite3';
import pg from 'pg';
import { parseDatabaseUrl, pgPoolConfig, type Provider } from '../src/db/provider/config.ts';

// ---------------------------------------------------------------------------
// The database

/**
 * A hand-written statement in both dialects: SQLite with named parameters
 * (`@hash`), PostgreSQL with `$n` (the n-th of `params`) and quoted camelCase names.
 */
export interface RawStatement {
  name: string;
  params: string[];
  sqlite: string;
  postgresql: string;
}

export interface RawDb {
  provider: Provider;
  /** Runs a statement (prepared on first use) with its parameters; its rows. */
  all<T>(statement: RawStatement, params: Record<string, unknown>): Promise<T[]>;
  /** A list of ids as one parameter: a JSON array for SQLite's json_each, an array for PostgreSQL's `= ANY($n)`. */
  list(ids: string[]): unknown;
  close(): Promise<void>;
}

/** PostgreSQL `timestamp` (no time zone; the app stores UTC) as an ISO string, not a Date in the local zone. */
const PG_TIMESTAMP_OID = 1114;

/**
 * The database of DATABASE_URL (as the app reads it), opened the way one
 * would by hand: better-sqlite3 on the file, or a node-postgres pool (pg's
 * default of 10 connections, as the app's adapter) with the URL's schema as
 * search_path. Rows come back with the same types on both: dates as ISO
 * text, booleans as 0/1 (cast in the PostgreSQL statements), counts as numbers.
 */
export function openRawDb(databaseUrl: string): RawDb {
  const config = parseDatabaseUrl(databaseUrl);
  if (config.provider === 'sqlite') {
    const db = new Database(config.file!, { fileMustExist: true });
    const prepared = new Map<string, Database.Statement>();
    return {
      provider: 'sqlite',
      all: <T>(statement: RawStatement, params: Record<string, unknown>) => {
        let s = prepared.get(statement.name);
        if (!s) prepared.set(statement.name, (s = db.prepare(statement.sqlite)));
        return Promise.resolve(s.all(params) as T[]);
      },
      list: (ids) => JSON.stringify(ids),
      close: async () => void db.close(),
    };
  }
  const pool = new pg.Pool({
    ...pgPoolConfig(config),
    types: { getTypeParser: ((oid: number, format?: 'text' | 'binary') => (oid === PG_TIMESTAMP_OID ? (text: string) => `${text.replace(' ', 'T')}Z` : pg.types.getTypeParser(oid, format))) as typeof pg.types.getTypeParser },
  });
  return {
    provider: 'postgresql',
    // A named query is parsed and planned once per connection, as a prepared statement.
    all: async <T>(statement: RawStatement, params: Record<string, unknown>) =>
      (await pool.query({ name: statement.name, text: statement.postgresql, values: statement.params.map((p) => params[p]) })).rows as T[],
    list: (ids) => ids,
    close: () => pool.end(),
  };
}

// ---------------------------------------------------------------------------
// Spaces

export const ROLES = ['read', 'comment', 'edit', 'review', 'create', 'admin'] as const;
export type Role = (typeof ROLES)[number];
export const rank = (role: string | null | undefined): number => (role ? ROLES.indexOf(role as Role) : -1);
export const isRole = (v: unknown): v is Role => typeof v === 'string' && (ROLES as readonly string[]).includes(v);

export interface SpaceRow {
  id: string;
  organizationId: string;
  parentId: string | null;
  title: string;
  emoji: string;
  visibility: string;
  editMode: string;
  defaultLevel: string | null;
  language: string | null;
  mergeRules: string;
  revisionId: string;
  createdAt: string;
  updatedAt: string;
  deletedAt: string | null;
  /** The nearest explicit default level walking up (space, then its collections); 'inherit' when none. */
  level: string | null;
}

/** The columns of SpaceRow but `level`, in both dialects (`alias.` prefixed). */
export const spaceColumns = (alias: string) => ({
  sqlite: ['id', 'organizationId', 'parentId', 'title', 'emoji', 'visibility', 'editMode', 'defaultLevel', 'language', 'mergeRules', 'revisionId', 'createdAt', 'updatedAt', 'deletedAt']
    .map((c) => `${alias}.${c}`)
    .join(', '),
  postgresql: ['id', 'organizationId', 'parentId', 'title', 'emoji', 'visibility', 'editMode', 'defaultLevel', 'language', 'mergeRules', 'revisionId', 'createdAt', 'updatedAt', 'deletedAt']
    .map((c) => `${alias}."${c}"`)
    .join(', '),
});

export const iso = (text: string | null) => (text === null ? null : new Date(text).toISOString());

/** The caller's role on a space: the member's role raised by the space's effective default level; undefined for non-members. */
export function roleOn(memberRole: string | null, memberId: string | null, level: string | null): string | null | undefined {
  if (!memberId) return undefined; // not a member
  const own = isRole(memberRole) ? memberRole : null;
  const inherited = isRole(level) ? level : undefined;
  return inherited !== undefined && rank(inherited) > rank(own) ? inherited : own;
}

/**
 * The REST body of a space as the app answers it, fields in the app's order:
 * nulls dropped except `defaultLevel`, `urls.published` only when the space
 * is on a published site (`published`).
 */
export function spaceBody(
  s: SpaceRow,
  role: string | null | undefined,
  urls: { publicUrl: string; appUrl: string },
  published?: string | null,
): Record<string, unknown> {
  const locked = s.editMode === 'locked';
  const read = rank(role) >= 0;
  const admin = rank(role) >= rank('admin');
  const edit = rank(role) >= rank('edit') && !locked;
  const review = rank(role) >= rank('review');
  const comment = rank(role) >= rank('comment');
  let mergeRules: unknown;
  try {
    mergeRules = JSON.parse(s.mergeRules);
  } catch {
    mergeRules = { type: 'inherit' };
  }
  const body: Record<string, unknown> = {
    object: 'space',
    id: s.id,
    title: s.title,
    emoji: s.emoji,
    visibility: s.visibility,
    createdAt: iso(s.createdAt),
    updatedAt: iso(s.updatedAt),
  };
  if (s.deletedAt !== null) body.deletedAt = iso(s.deletedAt);
  body.editMode = s.editMode;
  body.mergeRules = mergeRules;
  body.urls = published
    ? { location: `${urls.publicUrl}/v1/spaces/${s.id}`, app: `${urls.appUrl}/o/${s.organizationId}/s/${s.id}`, published }
    : { location: `${urls.publicUrl}/v1/spaces/${s.id}`, app: `${urls.appUrl}/o/${s.organizationId}/s/${s.id}` };
  body.organization = s.organizationId;
  if (s.parentId !== null) body.parent = s.parentId;
  if (s.language !== null) body.language = s.language;
  body.revision = s.revisionId;
  body.defaultLevel = s.defaultLevel;
  body.comments = 0;
  body.changeRequests = 0;
  body.changeRequestsOpen = 0;
  body.changeRequestsDraft = 0;
  body.permissions = {
    view: read,
    access: read,
    admin,
    viewInviteLinks: admin,
    edit,
    triggerGitSync: edit,
    comment,
    merge: review,
    review,
    installIntegration: admin,
  };
  return body;
}

// ---------------------------------------------------------------------------
// HTTP

/** SHA-256 (hex) of the request's bearer token, as ApiToken.tokenHash stores it; null without one. */
export function tokenHash(req: http.IncomingMessage): string | null {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? '');
  return match ? createHash('sha256').update(match[1]!).digest('hex') : null;
}

const JSON_TYPE = { 'content-type': 'application/json; charset=utf-8' };

export function send(res: http.ServerResponse, status: number, body: string) {
  res.writeHead(status, JSON_TYPE);
  res.end(body);
}

export const error = (res: http.ServerResponse, status: number, message: string) => send(res, status, JSON.stringify({ error: { code: status, message } }));

/** GET /metrics: `db_queries_total` like the real server, so the benchmark measures both the same way. */
export function sendMetrics(res: http.ServerResponse, statements: number) {
  res.writeHead(200, { 'content-type': 'text/plain; version=0.0.4; charset=utf-8' });
  res.end(`# TYPE db_queries_total counter\ndb_queries_total ${statements}\n`);
}

export interface RawServer {
  server: http.Server;
  /** Listens and resolves with the base URL. */
  listen(): Promise<string>;
  close(): Promise<void>;
}

/** `listen` on `port` (0: a free one) of `host` (default 127.0.0.1); `close` closes the server, then runs `onClose`. */
export function rawServer(server: http.Server, options: { port?: number; host?: string }, onClose: () => Promise<void>): RawServer {
  const host = options.host ?? '127.0.0.1';
  return {
    server,
    listen: () =>
      new Promise<string>((resolve, reject) => {
        server.once('error', reject);
        server.listen(options.port ?? 0, host, () => {
          const address = server.address();
          resolve(`http://${host}:${typeof address === 'object' && address ? address.port : options.port}`);
        });
      }),
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }).then(onClose),
  };
}

/** The body of a request. */
export function readBody(req: http.IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

/**
 * A node:http server for `handle`, counting the statements it reports for GET
 * /metrics (`db_queries_total`, like the app, so the benchmark measures both
 * the same way); an error is logged and answered 500.
 */
export function rawHttpServer(
  db: RawDb,
  options: { port?: number; host?: string },
  handle: (req: http.IncomingMessage, url: URL, res: http.ServerResponse, counted: () => void) => Promise<void>,
): RawServer {
  let statements = 0;
  const counted = () => void statements++;
  const server = http.createServer(async (req, res) => {
    try {
      const url = new URL(req.url ?? '/', 'http://raw');
      if (req.method === 'GET' && url.pathname === '/metrics') return sendMetrics(res, statements);
      await handle(req, url, res, counted);
    } catch (e) {
      console.error(e);
      error(res, 500, 'Unexpected error');
    }
  });
  return rawServer(server, options, () => db.close());
}

/** Serves `raw`: reports the base URL to the parent benchmark over IPC (or prints it), closes on SIGTERM/SIGINT/disconnect. */
export async function serveAsChild(raw: RawServer, name: string) {
  const baseUrl = await raw.listen();
  const shutdown = () => void raw.close().then(() => process.exit(0));
  process.on('SIGTERM', shutdown);
  process.on('SIGINT', shutdown);
  process.on('disconnect', shutdown);
  if (process.send) process.send({ ready: true, baseUrl });
  else console.log(`${name} on ${baseUrl}`);
}

/**
 * The ceiling of the REST benchmark (bench/rest.ts): a minimal `node:http`
 * server with hand-written SQL (better-sqlite3 on SQLite, node-postgres on
 * PostgreSQL; bench/raw-common.ts) on the benchmark's database, answering
 *
 *   GET /v1/spaces/{spaceId}
 *   GET /v1/orgs/{organizationId}/spaces?limit=N   (first page only; no `page` cursor)
 *
 * with the same bytes as the real server: same fields in the same order, nulls
 * dropped except `defaultLevel`, `urls`, the computed `permissions` (the
 * caller's role raised by the nearest explicit default level up the collection
 * chain), `count` and `next.page` of lists, the same 401/404 rules. Each
 * request runs exactly ONE prepared statement, which also authenticates the
 * token (SHA-256 hash lookup) and reads the caller's membership.
 *
 * `GET /metrics` answers `db_queries_total` like the real server, so the
 * benchmark measures both the same way.
 *
 * Run as a child process by bench/rest.ts (DATABASE_URL, PUBLIC_URL, APP_URL in
 * the environment; reports its base URL over IPC), or by hand:
 *   DATABASE_URL=file:/path/bench.db PORT=8081 npx tsx bench/raw-ceiling.ts
 */
import { error, iso, isRole, openRawDb, rank, rawHttpServer, roleOn, send, serveAsChild, spaceBody, spaceColumns, tokenHash, type RawStatement, type SpaceRow } from './raw-common.ts';

export interface RawServerOptions {
  databaseUrl: string;
  publicUrl: string;
  appUrl: string;
  port?: number;
  host?: string;
}

type Viewer = { viewer: string | null; role: string | null; memberId: string | null };

// GET /v1/spaces/{id}: token -> user, the space, the caller's membership in its
// organization and the effective default level (recursive walk up the collections).
const GET_SPACE: RawStatement = {
  name: 'ceiling_get_space',
  params: ['hash', 'id'],
  sqlite: `
    WITH RECURSIVE chain(n, parentId, defaultLevel) AS (
      SELECT 0, parentId, defaultLevel FROM Space WHERE id = @id
      UNION ALL
      SELECT chain.n + 1, c.parentId, c.defaultLevel FROM Collection c JOIN chain ON c.id = chain.parentId
      WHERE chain.defaultLevel = 'inherit'
    )
    SELECT t.userId AS viewer, m.id AS memberId, m.role AS role, ${spaceColumns('s').sqlite},
           (SELECT defaultLevel FROM chain ORDER BY n DESC LIMIT 1) AS level
    FROM (SELECT @hash AS h) x
    LEFT JOIN ApiToken t ON t.tokenHash = x.h
    LEFT JOIN Space s ON s.id = @id
    LEFT JOIN Member m ON m.organizationId = s.organizationId AND m.userId = t.userId`,
  postgresql: `
    WITH RECURSIVE chain(n, parent_id, default_level) AS (
      SELECT 0, "parentId", "defaultLevel" FROM "Space" WHERE id = $2
      UNION ALL
      SELECT chain.n + 1, c."parentId", c."defaultLevel" FROM "Collection" c JOIN chain ON c.id = chain.parent_id
      WHERE chain.default_level = 'inherit'
    )
    SELECT t."userId" AS viewer, m.id AS "memberId", m.role AS role, ${spaceColumns('s').postgresql},
           (SELECT default_level FROM chain ORDER BY n DESC LIMIT 1) AS level
    FROM (SELECT $1::text AS h) x
    LEFT JOIN "ApiToken" t ON t."tokenHash" = x.h
    LEFT JOIN "Space" s ON s.id = $2
    LEFT JOIN "Member" m ON m."organizationId" = s."organizationId" AND m."userId" = t."userId"`,
};

// GET /v1/orgs/{id}/spaces: token -> user and membership, one page of live
// spaces in (createdAt, id) order with their effective default level, and the total.
const LIST_SPACES: RawStatement = {
  name: 'ceiling_list_spaces',
  params: ['hash', 'org', 'take'],
  sqlite: `
    WITH RECURSIVE eff(id, level) AS (
      SELECT id, defaultLevel FROM Collection WHERE organizationId = @org AND parentId IS NULL
      UNION ALL
      SELECT c.id, CASE WHEN c.defaultLevel = 'inherit' THEN eff.level ELSE c.defaultLevel END
      FROM Collection c JOIN eff ON c.parentId = eff.id
    ),
    viewer AS (
      SELECT t.userId AS viewer, m.id AS memberId, m.role AS role
      FROM (SELECT @hash AS h) x
      LEFT JOIN ApiToken t ON t.tokenHash = x.h
      LEFT JOIN Member m ON m.userId = t.userId AND m.organizationId = @org
    ),
    pg AS (
      SELECT ${spaceColumns('s').sqlite},
             CASE WHEN s.defaultLevel = 'inherit' THEN coalesce(e.level, 'inherit') ELSE s.defaultLevel END AS level,
             -- uncorrelated, so evaluated once (a COUNT(*) OVER () window would materialise every row)
             (SELECT COUNT(*) FROM Space c WHERE c.organizationId = @org AND c.deletedAt IS NULL) AS total
      FROM Space s LEFT JOIN eff e ON e.id = s.parentId
      WHERE s.organizationId = @org AND s.deletedAt IS NULL
      ORDER BY s.createdAt, s.id
      LIMIT @take
    )
    SELECT v.viewer, v.memberId, v.role, pg.* FROM viewer v LEFT JOIN pg ON 1
    ORDER BY pg.createdAt, pg.id`,
  postgresql: `
    WITH RECURSIVE eff(id, level) AS (
      SELECT id, "defaultLevel" FROM "Collection" WHERE "organizationId" = $2 AND "parentId" IS NULL
      UNION ALL
      SELECT c.id, CASE WHEN c."defaultLevel" = 'inherit' THEN eff.level ELSE c."defaultLevel" END
      FROM "Collection" c JOIN eff ON c."parentId" = eff.id
    ),
    viewer AS (
      SELECT t."userId" AS viewer, m.id AS "memberId", m.role AS role
      FROM (SELECT $1::text AS h) x
      LEFT JOIN "ApiToken" t ON t."tokenHash" = x.h
      LEFT JOIN "Member" m ON m."userId" = t."userId" AND m."organizationId" = $2
    ),
    pg AS (
      SELECT ${spaceColumns('s').postgresql},
             CASE WHEN s."defaultLevel" = 'inherit' THEN coalesce(e.level, 'inherit') ELSE s."defaultLevel" END AS level,
             -- uncorrelated, so evaluated once (a COUNT(*) OVER () window would materialise every row)
             (SELECT COUNT(*)::int FROM "Space" c WHERE c."organizationId" = $2 AND c."deletedAt" IS NULL) AS total
      FROM "Space" s LEFT JOIN eff e ON e.id = s."parentId"
      WHERE s."organizationId" = $2 AND s."deletedAt" IS NULL
      ORDER BY s."createdAt", s.id
      LIMIT $3
    )
    SELECT v.viewer, v."memberId", v.role, pg.* FROM viewer v LEFT JOIN pg ON true
    ORDER BY pg."createdAt", pg.id`,
};

const SPACE = /^\/v1\/spaces\/([^/]+)\/?$/;
const ORG_SPACES = /^\/v1\/orgs\/([^/]+)\/spaces\/?$/;

export function createRawServer(options: RawServerOptions) {
  const db = openRawDb(options.databaseUrl);
  const present = (s: SpaceRow, role: string | null | undefined) => JSON.stringify(spaceBody(s, role, { publicUrl: options.publicUrl, appUrl: options.appUrl }));

  return rawHttpServer(db, options, async (req, url, res, counted) => {
    if (req.method !== 'GET') return error(res, 405, `${req.method} is not supported`);
    let m = SPACE.exec(url.pathname);
    if (m) {
      const hash = tokenHash(req);
      if (!hash) return error(res, 401, 'Authentication required');
      const id = decodeURIComponent(m[1]!);
      counted();
      const row = (await db.all<SpaceRow & Viewer>(GET_SPACE, { hash, id }))[0]!;
      if (!row.viewer) return error(res, 401, 'The API token is invalid or has been revoked');
      if (!row.id || row.deletedAt !== null) return error(res, 404, `Space ${id} not found`);
      const role = roleOn(row.role, row.memberId, row.level);
      if (rank(role) < 0) return error(res, 404, `Space ${id} not found`);
      return send(res, 200, present(row, role));
    }
    m = ORG_SPACES.exec(url.pathname);
    if (m) {
      const hash = tokenHash(req);
      if (!hash) return error(res, 401, 'Authentication required');
      if (url.searchParams.has('page')) return error(res, 400, 'page: not supported by the ceiling server');
      const rawLimit = url.searchParams.get('limit');
      const limit = rawLimit === null ? 100 : Number(rawLimit);
      if (!Number.isInteger(limit) || limit < 1 || limit > 1000) return error(res, 400, 'limit: must be between 1 and 1000');
      const org = decodeURIComponent(m[1]!);
      counted();
      const rows = await db.all<Partial<SpaceRow> & Viewer & { total: number | null }>(LIST_SPACES, { hash, org, take: limit + 1 });
      const first = rows[0]!;
      if (!first.viewer) return error(res, 401, 'The API token is invalid or has been revoked');
      if (!first.memberId) return error(res, 404, `Organization ${org} not found`);
      const mayRead = rank(isRole(first.role) ? first.role : null) >= 0;
      const found = mayRead && first.id ? (rows as unknown as SpaceRow[]) : [];
      const items = found.slice(0, limit);
      const parts = items.map((s) => present(s, roleOn(first.role, first.memberId, s.level)));
      const last = items[items.length - 1];
      const next =
        found.length > limit && last
          ? `,"next":${JSON.stringify({ page: Buffer.from(JSON.stringify([{ d: iso(last.createdAt) }, last.id])).toString('base64url') })}`
          : '';
      const total = mayRead ? (first.total ?? 0) : 0;
      return send(res, 200, `{"items":[${parts.join(',')}]${next},"count":${total}}`);
    }
    return error(res, 404, `Endpoint ${req.method} ${url.pathname} not found`);
  });
}

// As a script (the child process of bench/rest.ts, or by hand).
if (import.meta.url === `file://${process.argv[1]}` || process.env.RAW_CEILING_CHILD === '1') {
  const databaseUrl = process.env.DATABASE_URL;
  if (!databaseUrl) throw new Error('DATABASE_URL is required');
  const raw = createRawServer({
    databaseUrl,
    publicUrl: process.env.PUBLIC_URL ?? 'http://bench.local',
    appUrl: process.env.APP_URL ?? process.env.PUBLIC_URL ?? 'http://bench.local',
    port: Number(process.env.PORT ?? 0),
  });
  await serveAsChild(raw, 'raw ceiling server');
}

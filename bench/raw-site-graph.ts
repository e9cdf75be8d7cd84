/**
 * The hand-written-SQL baseline of bench/site-graph.ts: node:http and
 * hand-written SQL (better-sqlite3 on SQLite, node-postgres on PostgreSQL;
 * bench/raw-common.ts) on the benchmark's database, answering the same JSON
 * as the app for
 *
 *   POST /graphql   the nested site graph query of bench/site-graph.ts
 *                   (`organization(id) { sites(limit) { items { id title sections {
 *                   id title path siteSpaces { id path space { id title } } } } } }`),
 *                   whatever the query text: this server knows that one query
 *                   and reads only its variables (organizationId, limit)
 *   GET /v1/orgs/{organizationId}/sites/{siteId}/structure
 *
 * One prepared statement per level, results assembled in JS, as one would
 * write it by hand:
 *
 *   graph:     1. token -> user, the organization, the caller's membership
 *              2. the sites of the organization (createdAt, id), LIMIT
 *              3. their sections (position, id)            -- WHERE siteId IN (the sites)
 *              4. their site spaces joined with the spaces  -- WHERE sectionId IN (the sections)
 *   structure: 1. token -> user, the site, the caller's membership in its organization
 *              2. its sections and section groups
 *              3. its site spaces joined with their spaces (each space's
 *                 effective default level, for its permissions, as a subquery)
 *
 * `GET /metrics` answers `db_queries_total` (the statements run), like the app.
 *
 * Run as a child process by bench/site-graph.ts (DATABASE_URL, PUBLIC_URL,
 * APP_URL, SITES_URL in the environment; reports its base URL over IPC), or by hand:
 *   DATABASE_URL=file:/path/bench.db PORT=8082 npx tsx bench/raw-site-graph.ts
 */
import { error, openRawDb, rank, rawHttpServer, readBody, roleOn, send, serveAsChild, spaceBody, spaceColumns, tokenHash, type RawDb, type RawStatement, type SpaceRow } from './raw-common.ts';

export interface RawSiteGraphOptions {
  databaseUrl: string;
  publicUrl: string;
  appUrl: string;
  /** Where published sites are served (the app's SITES_URL; default `<publicUrl>/sites`). */
  sitesUrl?: string;
  port?: number;
  host?: string;
}

interface Viewer {
  viewer: string | null;
  memberId: string | null;
  role: string | null;
}

// ---------------------------------------------------------------------------
// The nested graph

const GRAPH_VIEWER: RawStatement = {
  name: 'graph_viewer',
  params: ['hash', 'org'],
  sqlite: `
    SELECT t.userId AS viewer, o.id AS orgId, m.id AS memberId, m.role AS role
    FROM (SELECT @hash AS h) x
    LEFT JOIN ApiToken t ON t.tokenHash = x.h
    LEFT JOIN Organization o ON o.id = @org
    LEFT JOIN Member m ON m.organizationId = o.id AND m.userId = t.userId`,
  postgresql: `
    SELECT t."userId" AS viewer, o.id AS "orgId", m.id AS "memberId", m.role AS role
    FROM (SELECT $1::text AS h) x
    LEFT JOIN "ApiToken" t ON t."tokenHash" = x.h
    LEFT JOIN "Organization" o ON o.id = $2
    LEFT JOIN "Member" m ON m."organizationId" = o.id AND m."userId" = t."userId"`,
};
const GRAPH_SITES: RawStatement = {
  name: 'graph_sites',
  params: ['org', 'take'],
  sqlite: 'SELECT id, title FROM Site WHERE organizationId = @org ORDER BY createdAt, id LIMIT @take',
  postgresql: 'SELECT id, title FROM "Site" WHERE "organizationId" = $1 ORDER BY "createdAt", id LIMIT $2',
};
const GRAPH_SECTIONS: RawStatement = {
  name: 'graph_sections',
  params: ['ids'],
  sqlite: `
    SELECT id, siteId, title, path FROM SiteSection
    WHERE siteId IN (SELECT value FROM json_each(@ids))
    ORDER BY position, id`,
  postgresql: `
    SELECT id, "siteId", title, path FROM "SiteSection"
    WHERE "siteId" = ANY($1::text[])
    ORDER BY position, id`,
};
const GRAPH_SITE_SPACES: RawStatement = {
  name: 'graph_site_spaces',
  params: ['ids'],
  sqlite: `
    SELECT ss.id, ss.sectionId, ss.path, s.id AS spaceId, s.title AS spaceTitle
    FROM SiteSpace ss JOIN Space s ON s.id = ss.spaceId
    WHERE ss.sectionId IN (SELECT value FROM json_each(@ids))
    ORDER BY ss.position, ss.id`,
  postgresql: `
    SELECT ss.id, ss."sectionId", ss.path, s.id AS "spaceId", s.title AS "spaceTitle"
    FROM "SiteSpace" ss JOIN "Space" s ON s.id = ss."spaceId"
    WHERE ss."sectionId" = ANY($1::text[])
    ORDER BY ss.position, ss.id`,
};

export interface GraphSite {
  id: string;
  title: string;
  sections: GraphSection[];
}
interface GraphSection {
  id: string;
  title: string;
  path: string;
  siteSpaces: GraphSiteSpace[];
}
interface GraphSiteSpace {
  id: string;
  path: string;
  space: { id: string; title: string };
}

/**
 * The sites of an organization with their sections, site spaces and spaces
 * (the `items` of the graph query): 3 statements, sites, sections, site spaces
 * joined with spaces; `counted` is called once per statement.
 */
export async function siteGraphItems(db: RawDb, org: string, limit: number, counted: () => void = () => {}): Promise<GraphSite[]> {
  counted();
  const sites = await db.all<{ id: string; title: string }>(GRAPH_SITES, { org, take: limit });
  const sectionsOf = new Map<string, GraphSection[]>();
  const siteSpacesOf = new Map<string, GraphSiteSpace[]>();
  if (sites.length > 0) {
    counted();
    const sections = await db.all<{ id: string; siteId: string; title: string; path: string }>(GRAPH_SECTIONS, { ids: db.list(sites.map((s) => s.id)) });
    for (const s of sections) {
      const section: GraphSection = { id: s.id, title: s.title, path: s.path, siteSpaces: [] };
      siteSpacesOf.set(s.id, section.siteSpaces);
      const list = sectionsOf.get(s.siteId);
      if (list) list.push(section);
      else sectionsOf.set(s.siteId, [section]);
    }
    if (sections.length > 0) {
      counted();
      const rows = await db.all<{ id: string; sectionId: string; path: string; spaceId: string; spaceTitle: string }>(GRAPH_SITE_SPACES, {
        ids: db.list(sections.map((s) => s.id)),
      });
      for (const ss of rows) siteSpacesOf.get(ss.sectionId)!.push({ id: ss.id, path: ss.path, space: { id: ss.spaceId, title: ss.spaceTitle } });
    }
  }
  return sites.map((s) => ({ id: s.id, title: s.title, sections: sectionsOf.get(s.id) ?? [] }));
}

// ---------------------------------------------------------------------------
// The structure of one site

const STRUCTURE_VIEWER: RawStatement = {
  name: 'structure_viewer',
  params: ['hash', 'site'],
  sqlite: `
    SELECT t.userId AS viewer, m.id AS memberId, m.role AS role,
           s.id, s.organizationId, s.basename, s.hostname, s.published, s.defaultSectionId, s.visibility
    FROM (SELECT @hash AS h) x
    LEFT JOIN ApiToken t ON t.tokenHash = x.h
    LEFT JOIN Site s ON s.id = @site
    LEFT JOIN Member m ON m.organizationId = s.organizationId AND m.userId = t.userId`,
  postgresql: `
    SELECT t."userId" AS viewer, m.id AS "memberId", m.role AS role,
           s.id, s."organizationId", s.basename, s.hostname, s.published::int AS published, s."defaultSectionId", s.visibility
    FROM (SELECT $1::text AS h) x
    LEFT JOIN "ApiToken" t ON t."tokenHash" = x.h
    LEFT JOIN "Site" s ON s.id = $2
    LEFT JOIN "Member" m ON m."organizationId" = s."organizationId" AND m."userId" = t."userId"`,
};
// Sections and section groups in one statement (kind 's' / 'g'), in structure order within each parent.
const STRUCTURE_ITEMS: RawStatement = {
  name: 'structure_items',
  params: ['site'],
  sqlite: `
    SELECT 's' AS kind, id, sectionGroupId AS parentId, title, description, path, condition, icon, position
    FROM SiteSection WHERE siteId = @site
    UNION ALL
    SELECT 'g', id, parentGroupId, title, NULL, NULL, NULL, icon, position
    FROM SiteSectionGroup WHERE siteId = @site
    ORDER BY position, id`,
  postgresql: `
    SELECT 's' AS kind, id, "sectionGroupId" AS "parentId", title, description, path, condition, icon, position
    FROM "SiteSection" WHERE "siteId" = $1
    UNION ALL
    SELECT 'g', id, "parentGroupId", title, NULL, NULL, NULL, icon, position
    FROM "SiteSectionGroup" WHERE "siteId" = $1
    ORDER BY position, id`,
};
// The site spaces with their spaces, and each space's effective default
// level (the nearest explicit one up its collections) for its permissions.
const STRUCTURE_SITE_SPACES: RawStatement = {
  name: 'structure_site_spaces',
  params: ['site'],
  sqlite: `
    SELECT ss.id AS ssId, ss.sectionId AS ssSectionId, ss.path AS ssPath, ss.condition AS ssCondition,
           ss.isDefault AS ssIsDefault, ss.hidden AS ssHidden, ${spaceColumns('sp').sqlite},
           CASE WHEN sp.defaultLevel = 'inherit' AND sp.parentId IS NOT NULL THEN (
             WITH RECURSIVE chain(n, parentId, defaultLevel) AS (
               SELECT 0, c.parentId, c.defaultLevel FROM Collection c WHERE c.id = sp.parentId
               UNION ALL
               SELECT chain.n + 1, c.parentId, c.defaultLevel FROM Collection c JOIN chain ON c.id = chain.parentId
               WHERE chain.defaultLevel = 'inherit'
             )
             SELECT defaultLevel FROM chain ORDER BY n DESC LIMIT 1
           ) ELSE sp.defaultLevel END AS level
    FROM SiteSpace ss
    JOIN Space sp ON sp.id = ss.spaceId
    WHERE ss.siteId = @site
    ORDER BY ss.position, ss.id`,
  postgresql: `
    SELECT ss.id AS "ssId", ss."sectionId" AS "ssSectionId", ss.path AS "ssPath", ss.condition AS "ssCondition",
           ss."isDefault"::int AS "ssIsDefault", ss.hidden::int AS "ssHidden", ${spaceColumns('sp').postgresql},
           CASE WHEN sp."defaultLevel" = 'inherit' AND sp."parentId" IS NOT NULL THEN (
             WITH RECURSIVE chain(n, parent_id, default_level) AS (
               SELECT 0, c."parentId", c."defaultLevel" FROM "Collection" c WHERE c.id = sp."parentId"
               UNION ALL
               SELECT chain.n + 1, c."parentId", c."defaultLevel" FROM "Collection" c JOIN chain ON c.id = chain.parent_id
               WHERE chain.default_level = 'inherit'
             )
             SELECT default_level FROM chain ORDER BY n DESC LIMIT 1
           ) ELSE sp."defaultLevel" END AS level
    FROM "SiteSpace" ss
    JOIN "Space" sp ON sp.id = ss."spaceId"
    WHERE ss."siteId" = $1
    ORDER BY ss.position, ss.id`,
};

export function createRawSiteGraphServer(options: RawSiteGraphOptions) {
  const db = openRawDb(options.databaseUrl);
  const sitesUrl = (options.sitesUrl ?? `${options.publicUrl}/sites`).replace(/\/+$/, '');

  /** The graph query's answer, or a GraphQL error. */
  async function graph(hash: string, org: string, limit: number, counted: () => void): Promise<{ status: number; body: string }> {
    counted();
    const v = (await db.all<Viewer & { orgId: string | null }>(GRAPH_VIEWER, { hash, org }))[0]!;
    if (!v.viewer) return { status: 401, body: JSON.stringify({ errors: [{ message: 'The API token is invalid or has been revoked', extensions: { code: 'UNAUTHENTICATED', http: { status: 401 } } }] }) };
    if (!v.orgId || !v.memberId) {
      return { status: 200, body: JSON.stringify({ errors: [{ message: `Organization ${org} not found`, path: ['organization'], extensions: { code: 'NOT_FOUND' } }], data: { organization: null } }) };
    }
    // Sites need site:read (role read); a guest (no role) sees none.
    const items = rank(v.role) >= rank('read') ? await siteGraphItems(db, org, limit, counted) : [];
    return { status: 200, body: JSON.stringify({ data: { organization: { sites: { items } } } }) };
  }

  /** The published address of a site (and of paths on it), as the app's urls.publishedSite makes it. */
  function publishedSite(site: { organizationId: string; basename: string; hostname: string | null }, ...paths: Array<string | null>): string {
    const base = site.hostname ? `https://${site.hostname}` : `${sitesUrl}/${site.organizationId}/${site.basename}`;
    const rest = paths
      .filter((p): p is string => Boolean(p))
      .map((p) => p.replace(/^\/+|\/+$/g, ''))
      .join('/');
    return rest ? `${base}/${rest}` : `${base}/`;
  }

  async function structure(hash: string, org: string, siteId: string, counted: () => void): Promise<{ status: number; body: string }> {
    counted();
    type SiteRow = { id: string | null; organizationId: string; basename: string; hostname: string | null; published: number; defaultSectionId: string | null; visibility: string };
    const v = (await db.all<Viewer & SiteRow>(STRUCTURE_VIEWER, { hash, site: siteId }))[0]!;
    const fail = (status: number, message: string) => ({ status, body: JSON.stringify({ error: { code: status, message } }) });
    if (!v.viewer) return fail(401, 'The API token is invalid or has been revoked');
    if (!v.id || v.organizationId !== org || !v.memberId || rank(v.role) < rank('read')) return fail(404, `Site ${siteId} not found`);
    const site = { organizationId: v.organizationId, basename: v.basename, hostname: v.hostname, published: v.published === 1 };
    const published = (...paths: Array<string | null>) => (site.published ? publishedSite(site, ...paths) : undefined);

    type ItemRow = { kind: 's' | 'g'; id: string; parentId: string | null; title: string; description: string | null; path: string | null; condition: string | null; icon: string | null };
    type SiteSpaceRow = SpaceRow & { ssId: string; ssSectionId: string | null; ssPath: string; ssCondition: string | null; ssIsDefault: number; ssHidden: number };
    counted();
    const items = await db.all<ItemRow>(STRUCTURE_ITEMS, { site: siteId });
    counted();
    const siteSpaceRows = await db.all<SiteSpaceRow>(STRUCTURE_SITE_SPACES, { site: siteId });

    const sectionPath = new Map<string, string>();
    for (const it of items) if (it.kind === 's') sectionPath.set(it.id, it.path!);
    const siteSpacesOf = new Map<string | null, Record<string, unknown>[]>();
    for (const r of siteSpaceRows) {
      const body: Record<string, unknown> = {
        object: 'site-space',
        id: r.ssId,
        path: r.ssPath,
      };
      if (r.ssSectionId !== null) body.section = r.ssSectionId;
      body.space = spaceBody(r, roleOn(v.role, v.memberId, r.level), options);
      body.title = r.title;
      body.default = r.ssIsDefault === 1;
      if (r.ssCondition !== null) body.condition = r.ssCondition;
      body.hidden = r.ssHidden === 1;
      // No drafts in the app: every site space, section and group is live once created.
      body.draft = false;
      body.hasAdvancedCustomizationFeature = false;
      const url = published(r.ssSectionId !== null ? (sectionPath.get(r.ssSectionId) ?? null) : null, r.ssPath);
      body.urls = url ? { published: url } : {};
      // A space's own urls.published is the address of its site space on a published site. The seed
      // puts every space on exactly one site space, so that is this one (a general baseline would
      // need one more statement to find each space's first published site space).
      if (url) (body.space as { urls: Record<string, unknown> }).urls.published = url;
      // ... and its urls.public, the same address when that site is public.
      if (url && v.visibility === 'public') (body.space as { urls: Record<string, unknown> }).urls.public = url;
      const list = siteSpacesOf.get(r.ssSectionId);
      if (list) list.push(body);
      else siteSpacesOf.set(r.ssSectionId, [body]);
    }

    if (!items.some((it) => it.kind === 's')) {
      return { status: 200, body: JSON.stringify({ type: 'siteSpaces', structure: siteSpacesOf.get(null) ?? [] }) };
    }
    // Sections and groups under their parents, in order (the rows come sorted by position, id).
    const childrenOf = new Map<string | null, Record<string, unknown>[]>();
    const sectionsOfGroup = new Map<string, Record<string, unknown>[]>();
    const bodies: Array<{ row: (typeof items)[number]; body: Record<string, unknown> }> = [];
    for (const it of items) {
      let body: Record<string, unknown>;
      if (it.kind === 's') {
        body = { object: 'site-section', id: it.id, title: it.title, draft: false };
        if (it.description !== null) body.description = it.description;
        body.default = v.defaultSectionId === it.id;
        body.path = it.path;
        if (it.condition !== null) body.condition = it.condition;
        if (it.parentId !== null) body.sectionGroup = it.parentId;
        body.siteSpaces = siteSpacesOf.get(it.id) ?? [];
        const url = published(it.path);
        body.urls = url ? { published: url } : {};
        if (it.icon !== null) body.icon = it.icon;
        if (it.parentId !== null) {
          const list = sectionsOfGroup.get(it.parentId);
          if (list) list.push(body);
          else sectionsOfGroup.set(it.parentId, [body]);
        }
      } else {
        body = { object: 'site-section-group', id: it.id, title: it.title, draft: false };
      }
      bodies.push({ row: it, body });
      const list = childrenOf.get(it.parentId);
      if (list) list.push(body);
      else childrenOf.set(it.parentId, [body]);
    }
    for (const { row, body } of bodies) {
      if (row.kind !== 'g') continue;
      body.sections = sectionsOfGroup.get(row.id) ?? [];
      if (row.parentId !== null) body.sectionGroup = row.parentId;
      body.children = childrenOf.get(row.id) ?? [];
      if (row.icon !== null) body.icon = row.icon;
    }
    return { status: 200, body: JSON.stringify({ type: 'sections', structure: childrenOf.get(null) ?? [] }) };
  }

  const STRUCTURE = /^\/v1\/orgs\/([^/]+)\/sites\/([^/]+)\/structure\/?$/;

  return rawHttpServer(db, options, async (req, url, res, counted) => {
    if (req.method === 'POST' && url.pathname === '/graphql') {
      const hash = tokenHash(req);
      if (!hash) return error(res, 401, 'Authentication required');
      const { variables } = JSON.parse(await readBody(req)) as { variables?: { organizationId?: string; limit?: number } };
      if (!variables?.organizationId) return error(res, 400, 'variables.organizationId is required');
      const limit = variables.limit ?? 100;
      if (!Number.isInteger(limit) || limit < 1 || limit > 1000) return error(res, 400, 'limit: must be between 1 and 1000');
      const answer = await graph(hash, variables.organizationId, limit, counted);
      return send(res, answer.status, answer.body);
    }
    const m = req.method === 'GET' ? STRUCTURE.exec(url.pathname) : null;
    if (m) {
      const hash = tokenHash(req);
      if (!hash) return error(res, 401, 'Authentication required');
      if (url.searchParams.has('shareKey')) return error(res, 400, 'shareKey: not supported by the baseline server');
      const answer = await structure(hash, decodeURIComponent(m[1]!), decodeURIComponent(m[2]!), counted);
      return send(res, answer.status, answer.body);
    }
    return error(res, 404, `Endpoint ${req.method} ${url.pathname} not found`);
  });
}

// As a script (the child process of bench/site-graph.ts, or by hand).
if (import.meta.url === `file://${process.argv[1]}` || process.env.RAW_SITE_GRAPH_CHILD === '1') {
  const databaseUrl = process.env.DATABASE_URL;
  if (!databaseUrl) throw new Error('DATABASE_URL is required');
  const publicUrl = process.env.PUBLIC_URL ?? 'http://bench.local';
  const raw = createRawSiteGraphServer({
    databaseUrl,
    publicUrl,
    appUrl: process.env.APP_URL ?? publicUrl,
    sitesUrl: process.env.SITES_URL,
    port: Number(process.env.PORT ?? 0),
  });
  await serveAsChild(raw, 'raw site graph server');
}

/**
 * PostGraphile 5 (a dev dependency used only by the benchmarks) over the
 * benchmark's PostgreSQL database: the amber preset on the run's schema (the
 * app's tables as Prisma migrated them; their foreign keys give the relations),
 * served by grafserv on node:http at POST /graphql, to compare the app with
 * the best-known GraphQL server over PostgreSQL on the same tables and data
 * (bench/rest.ts: `spaceByRowId`; bench/site-graph.ts: the nested site graph).
 *
 * As configured here it has no authentication and no authorization (no
 * token, no roles, no row-level security): it answers what the benchmark
 * asks of every row. Its pool is node-postgres's default of 10 connections,
 * as the app's adapter and the hand-written servers; GET /metrics answers
 * `db_queries_total`, the statements sent through that pool (every
 * `client.query`, transaction control included), like the app, so the
 * benchmark measures all servers the same way.
 *
 * Run as a child process by the benchmarks (DATABASE_URL in the environment,
 * PostgreSQL only; reports its base URL over IPC), or by hand:
 *   DATABASE_URL='postgresql://postgres@127.0.0.1:5432/postgres?schema=bench_x' PORT=8082 npx tsx bench/postgraphile-server.ts
 */
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { parseDatabaseUrl, pgPoolConfig } from '../src/db/provider/config.ts';
// Types only: the harness pins the process that loads it to the load generator's core.
import type { Endpoint } from './harness.ts';
import { rawServer, sendMetrics, serveAsChild, type RawServer, type SpaceRow } from './raw-common.ts';

/**
 * PostGraphile 5 asks for Node >= 22 and calls `Promise.withResolvers` (Node 22) when it executes;
 * the project runs on Node 20, so it gets the standard polyfill, set before PostGraphile's modules load.
 * (Without it every query fails: "Cannot read properties of undefined (reading 'items')".)
 */
function polyfillPromiseWithResolvers() {
  const P = Promise as unknown as { withResolvers?: () => unknown };
  if (typeof P.withResolvers === 'function') return;
  P.withResolvers = function withResolvers<T>(this: PromiseConstructor) {
    let resolve!: (value: T | PromiseLike<T>) => void;
    let reject!: (reason?: unknown) => void;
    const promise = new this<T>((res, rej) => {
      resolve = res;
      reject = rej;
    });
    return { promise, resolve, reject };
  };
}

export interface PostGraphileServerOptions {
  /** A PostgreSQL URL; its `?schema=` (default public) is the schema PostGraphile introspects. */
  databaseUrl: string;
  port?: number;
  host?: string;
}

/** PostGraphile on `databaseUrl`'s schema, with the statements it sends counted. */
export async function createPostGraphileServer(options: PostGraphileServerOptions): Promise<RawServer> {
  const config = parseDatabaseUrl(options.databaseUrl);
  if (config.provider !== 'postgresql') throw new Error('PostGraphile runs on PostgreSQL only');
  polyfillPromiseWithResolvers();
  const [{ postgraphile }, { makePgService }, { grafserv }, { PostGraphileAmberPreset }] = await Promise.all([
    import('postgraphile'),
    import('postgraphile/adaptors/pg'),
    import('postgraphile/grafserv/node'),
    import('postgraphile/presets/amber'),
  ]);
  const schema = config.pg!.schema ?? 'public';
  // The app's connection settings, the schema on the search path even when it is `public`.
  const pool = new pg.Pool({ ...pgPoolConfig(config), options: `-c search_path=${schema}` });
  // Every statement sent on a connection of the pool (PostGraphile's own setup per connection included);
  // 'connect' is emitted once per new connection.
  let statements = 0;
  pool.on('connect', (client) => {
    const query = client.query.bind(client) as (...args: unknown[]) => unknown;
    (client as unknown as { query: (...args: unknown[]) => unknown }).query = (...args: unknown[]) => {
      statements++;
      return query(...args);
    };
  });

  const pgl = postgraphile({
    extends: [PostGraphileAmberPreset],
    pgServices: [makePgService({ pool, schemas: [schema] })],
    grafserv: { graphqlPath: '/graphql', graphiql: false, watch: false },
    grafast: { explain: false },
  });
  // Build the schema now (introspection), not on the first request.
  await pgl.getSchema();
  const serv = pgl.createServ(grafserv);
  // The plain request handler (not `serv.addTo`): GET /metrics is answered first, and no websocket is needed.
  const handler = serv.createHandler();
  const server = http.createServer((req, res) => {
    if (req.method === 'GET' && req.url === '/metrics') return sendMetrics(res, statements);
    handler(req, res);
  });

  return rawServer(server, options, async () => {
    // Releases grafserv too; the pool is ours to end.
    await pgl.release();
    await pool.end();
  });
}

// ---------------------------------------------------------------------------
// What the benchmarks ask of it

/** The version of PostGraphile installed, for the reports ("PostGraphile 5.1.5"). */
export function postgraphileName(): string {
  const file = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'node_modules', 'postgraphile', 'package.json');
  return `PostGraphile ${(JSON.parse(fs.readFileSync(file, 'utf8')) as { version: string }).version}`;
}

const JSON_HEADERS = { 'content-type': 'application/json', accept: 'application/json' };

/** The columns of a space that GET /v1/spaces/{spaceId} answers from (bench/raw-common.ts's SpaceRow), by their PostGraphile names. */
export const SPACE_BY_ROW_ID_QUERY = `query Space($id: String!) {
  spaceByRowId(rowId: $id) { rowId organizationId parentId title emoji visibility editMode defaultLevel language mergeRules revisionId createdAt updatedAt deletedAt }
}`;

/**
 * The same columns as SpaceRow (but the resolved `level`), with PostGraphile's `rowId` for `id` and
 * `mergeRules` as parsed JSON; the dates are `timestamp` without time zone as PostgreSQL prints
 * them: UTC, no `Z`.
 */
export type PostGraphileSpace = Omit<SpaceRow, 'id' | 'mergeRules' | 'level'> & { rowId: string; mergeRules: unknown };

/** The body of `SPACE_BY_ROW_ID_QUERY` for one space. */
export const spaceByRowIdBody = (id: string) => JSON.stringify({ query: SPACE_BY_ROW_ID_QUERY, variables: { id }, operationName: 'Space' });

/** The equivalent of GET /v1/spaces/{spaceId} on PostGraphile: one space by id, cycling through `spaceIds` as the REST benchmark does. */
export function spaceByRowIdEndpoint(spaceIds: string[]): Endpoint {
  return {
    key: 'postgraphile-space-by-row-id',
    label: 'POST /graphql: spaceByRowId(rowId) { the 14 columns of a space }',
    paths: ['/graphql'],
    method: 'POST',
    headers: JSON_HEADERS,
    bodies: spaceIds.map(spaceByRowIdBody),
  };
}

/**
 * The site graph query of bench/seed-sites.ts (SITE_GRAPH_QUERY) in PostGraphile's schema: the same
 * levels, fields and limit (the first `$limit` sites), in the same order (sites by creation then id,
 * sections and site spaces by position then id), through the relations PostGraphile infers from
 * Prisma's foreign keys.
 */
export const POSTGRAPHILE_SITE_GRAPH_QUERY = `query SiteGraph($organizationId: String!, $limit: Int) {
  organizationByRowId(rowId: $organizationId) {
    sitesByOrganizationId(first: $limit, orderBy: [CREATED_AT_ASC, PRIMARY_KEY_ASC]) {
      nodes {
        rowId
        title
        siteSectionsBySiteId(orderBy: [POSITION_ASC, PRIMARY_KEY_ASC]) {
          nodes {
            rowId
            title
            path
            siteSpacesBySectionId(orderBy: [POSITION_ASC, PRIMARY_KEY_ASC]) {
              nodes {
                rowId
                path
                spaceBySpaceId { rowId title }
              }
            }
          }
        }
      }
    }
  }
}`;

/** The site graph benchmark's GraphQL query on PostGraphile (every answer the same size, so an error answered with 200 fails the run). */
export function siteGraphEndpoint(organizationId: string, limit: number): Endpoint {
  return {
    key: 'postgraphile-site-graph',
    label: `POST /graphql: organizationByRowId { sitesByOrganizationId(first: ${limit}) { nodes { siteSectionsBySiteId { nodes { siteSpacesBySectionId { nodes { spaceBySpaceId } } } } } } }`,
    paths: ['/graphql'],
    method: 'POST',
    headers: JSON_HEADERS,
    body: JSON.stringify({ query: POSTGRAPHILE_SITE_GRAPH_QUERY, variables: { organizationId, limit }, operationName: 'SiteGraph' }),
    sameSize: true,
  };
}

interface Nodes<T> {
  nodes: T[];
}
interface PostGraphileSiteGraph {
  data?: {
    organizationByRowId: {
      sitesByOrganizationId: Nodes<{
        rowId: string;
        title: string;
        siteSectionsBySiteId: Nodes<{ rowId: string; title: string; path: string; siteSpacesBySectionId: Nodes<{ rowId: string; path: string; spaceBySpaceId: { rowId: string; title: string } }> }>;
      }>;
    } | null;
  };
  errors?: unknown[];
}

/** PostGraphile's answer to the site graph query in the shape of the app's (SITE_GRAPH_QUERY), to compare them. */
export function siteGraphAsApp(body: PostGraphileSiteGraph): unknown {
  const org = body.data?.organizationByRowId;
  return {
    ...(body.errors ? { errors: body.errors } : {}),
    data: {
      organization: org
        ? {
            sites: {
              items: org.sitesByOrganizationId.nodes.map((site) => ({
                id: site.rowId,
                title: site.title,
                sections: site.siteSectionsBySiteId.nodes.map((section) => ({
                  id: section.rowId,
                  title: section.title,
                  path: section.path,
                  siteSpaces: section.siteSpacesBySectionId.nodes.map((ss) => ({ id: ss.rowId, path: ss.path, space: { id: ss.spaceBySpaceId.rowId, title: ss.spaceBySpaceId.title } })),
                })),
              })),
            },
          }
        : null,
    },
  };
}

// As a script (the child process of bench/rest.ts and bench/site-graph.ts, or by hand).
if (import.meta.url === `file://${process.argv[1]}` || process.env.POSTGRAPHILE_CHILD === '1') {
  const databaseUrl = process.env.DATABASE_URL;
  if (!databaseUrl) throw new Error('DATABASE_URL is required');
  const server = await createPostGraphileServer({ databaseUrl, port: Number(process.env.PORT ?? 0) });
  await serveAsChild(server, 'PostGraphile server');
}

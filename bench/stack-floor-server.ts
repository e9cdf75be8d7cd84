/**
 * The floor of the chosen stack for one space by id (issue 18): graphql-yoga on node:http, a
 * Pothos schema with plugin-prisma, and the app's own Prisma client (src/db/client.ts: the same
 * adapters and settings), answering `space(id)` with the 14 columns PostGraphile's `spaceByRowId`
 * answers, through one `findUnique` planned by plugin-prisma. Nothing else: no authentication,
 * no authorization, no REST layer, no loaders, no metrics but the statement count, no rate limit,
 * no logging. What the app does for GET /v1/spaces/{spaceId} is this and more, so this server's
 * requests per second bound the app's from above on this stack; bench/rest.ts measures it in the
 * same run as the app and PostGraphile.
 *
 * Run as a child process by the benchmark (DATABASE_URL in the environment; reports its base URL
 * over IPC), or by hand: DATABASE_URL=... PORT=8083 npx tsx bench/stack-floor-server.ts
 */
import http from 'node:http';
import SchemaBuilder from '@pothos/core';
import PrismaPlugin from '@pothos/plugin-prisma';
import { createYoga } from 'graphql-yoga';
import { createDb, type Db } from '../src/db/client.ts';
import type PrismaTypes from '../src/db/generated/pothos-types.ts';
import { getDatamodel } from '../src/db/generated/pothos-types.ts';
import { parseDatabaseUrl } from '../src/db/provider/config.ts';
// Types only: the harness pins the process that loads it to the load generator's core.
import type { Endpoint } from './harness.ts';
import { rawServer, sendMetrics, serveAsChild, type RawServer } from './raw-common.ts';

export async function createStackFloorServer(options: { databaseUrl: string; port?: number; host?: string }): Promise<RawServer> {
  let statements = 0;
  const db: Db = createDb(parseDatabaseUrl(options.databaseUrl), { onQuery: () => statements++ });
  // The options cast: the app's plugins (scope-auth) extend SchemaBuilder's option types program-wide.
  const builderOptions = { plugins: [PrismaPlugin], prisma: { client: db, dmmf: getDatamodel() } };
  const builder = new SchemaBuilder<{ PrismaTypes: PrismaTypes; Context: object; Scalars: { DateTime: { Input: Date; Output: Date }; JSON: { Input: unknown; Output: unknown } } }>(builderOptions as never);
  builder.scalarType('DateTime', { serialize: (value) => (value as Date).toISOString() });
  builder.scalarType('JSON', { serialize: (value) => value });
  builder.prismaObject('Space', {
    fields: (t) => ({
      id: t.exposeID('id'),
      organizationId: t.exposeString('organizationId'),
      parentId: t.exposeString('parentId', { nullable: true }),
      title: t.exposeString('title'),
      emoji: t.exposeString('emoji'),
      visibility: t.exposeString('visibility'),
      editMode: t.exposeString('editMode'),
      defaultLevel: t.exposeString('defaultLevel', { nullable: true }),
      language: t.exposeString('language', { nullable: true }),
      mergeRules: t.expose('mergeRules', { type: 'JSON' }),
      revisionId: t.exposeString('revisionId'),
      createdAt: t.expose('createdAt', { type: 'DateTime' }),
      updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
      deletedAt: t.expose('deletedAt', { type: 'DateTime', nullable: true }),
    }),
  });
  builder.queryType({
    fields: (t) => ({
      space: t.prismaField({
        type: 'Space',
        nullable: true,
        args: { id: t.arg.id({ required: true }) },
        resolve: (query, _root, args) => db.space.findUnique({ ...query, where: { id: String(args.id) } }),
      }),
    }),
  });
  const yoga = createYoga({ schema: builder.toSchema(), graphiql: false, logging: false, maskedErrors: true });
  const server = http.createServer((req, res) => {
    if (req.method === 'GET' && req.url === '/metrics') return sendMetrics(res, statements);
    void yoga(req, res);
  });
  return rawServer(server, options, () => db.$disconnect());
}

/** The floor's query: the same 14 columns as bench/postgraphile-server.ts's SPACE_BY_ROW_ID_QUERY. */
export const STACK_FLOOR_SPACE_QUERY = `query Space($id: ID!) {
  space(id: $id) { id organizationId parentId title emoji visibility editMode defaultLevel language mergeRules revisionId createdAt updatedAt deletedAt }
}`;

/** One space by id on the floor server, cycling through `spaceIds` as the REST benchmark does. */
export function stackFloorSpaceEndpoint(spaceIds: string[]): Endpoint {
  return {
    key: 'stack-floor-space',
    label: 'POST /graphql: space(id) { the 14 columns } (yoga + Pothos + Prisma alone)',
    paths: ['/graphql'],
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    bodies: spaceIds.map((id) => JSON.stringify({ query: STACK_FLOOR_SPACE_QUERY, variables: { id }, operationName: 'Space' })),
  };
}

if (process.env.STACK_FLOOR_CHILD === '1' || import.meta.url === `file://${process.argv[1]}`) {
  const databaseUrl = process.env.DATABASE_URL;
  if (!databaseUrl) throw new Error('DATABASE_URL is required');
  await serveAsChild(await createStackFloorServer({ databaseUrl, port: process.env.PORT ? Number(process.env.PORT) : undefined }), 'stack floor');
}

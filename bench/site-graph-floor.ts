/**
 * Where the site graph query's time goes, layer by layer (issue 5's latency target: the nested
 * GraphQL query within 2x of the same data fetched by hand-written SQL; bench/site-graph.ts measures
 * the two end to end). Each layer of the app's stack is measured alone on the same seeded database,
 * SQLite or, with BENCH_DATABASE_URL, PostgreSQL (bench/seed-sites.ts: 20 sites x 5 sections x 10
 * site spaces, 1,000 spaces):
 *
 *   over HTTP, one request at a time, the same client (fetch):
 *     - the hand-written SQL server of bench/site-graph.ts (bench/raw-site-graph.ts)
 *     - graphql-yoga + graphql-js with the same answer in memory: GraphQL parsing, validation,
 *       execution and serialisation of these 1,120 objects, without a database
 *     - the app
 *   in process, no HTTP, no GraphQL:
 *     - hand-written SQL (the baseline's 3 statements, site spaces joined with spaces, assembled)
 *     - Prisma: the narrowest findMany of the same rows (sites -> sections -> site spaces -> space,
 *       ids, titles and paths only), which is the least plugin-prisma can ask of Prisma for this
 *       query; and its parts (the site spaces alone, and with their spaces)
 *
 * The versions take turns in short bursts (ROUNDS x BURST requests each) so that background load
 * falls on all alike. Writes bench/results/<date>-site-graph-floor-<sqlite|postgresql>.md (and the
 * raw JSON in bench/out/).
 *
 *   npm run bench:sites-floor        (BENCH_ROUNDS, default 40; BENCH_BURST, default 10)
 */
import http from 'node:http';
import { createSchema, createYoga } from 'graphql-yoga';
import { loadConfig } from '../src/config.ts';
import { createDb } from '../src/db/client.ts';
import { createApp } from '../src/server.ts';
import { databaseVersion, firstDifference, fmt, log, machineLoad, main, PUBLIC_URL, reportHeader, SERVER_NODE_ENV, startRun, stats, table, writeResults } from './harness.ts';
import { openRawDb } from './raw-common.ts';
import { createRawSiteGraphServer, siteGraphItems } from './raw-site-graph.ts';
import { seedSites, siteGraphEndpoints, SITES_LIMIT } from './seed-sites.ts';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 40);
const BURST = Number(process.env.BENCH_BURST ?? 10);

interface Layer {
  name: string;
  what: string;
  run: () => Promise<unknown>;
}

async function run() {
  const benchRun = startRun('site-graph-floor');
  await machineLoad.settle('before the run');
  const data = await seedSites('site_graph_floor');
  const { graph } = siteGraphEndpoints(data);
  const databaseUrl = data.database.url;
  const version = await databaseVersion(data.database);

  // --- over HTTP
  const raw = createRawSiteGraphServer({ databaseUrl, publicUrl: PUBLIC_URL, appUrl: PUBLIC_URL });
  const rawUrl = await raw.listen();
  const headers = { ...graph.headers, authorization: `Bearer ${data.token}` };
  const post = (base: string) => fetch(`${base}/graphql`, { method: 'POST', headers, body: graph.body }).then((r) => r.text());
  const answer = JSON.parse(await post(rawUrl));

  const inMemorySchema = createSchema({
    typeDefs: /* GraphQL */ `
      type Query { organization(id: ID!): Organization }
      type Organization { sites(limit: Int): SiteList }
      type SiteList { items: [Site!]! }
      type Site { id: ID! title: String! sections: [Section!]! }
      type Section { id: ID! title: String! path: String! siteSpaces: [SiteSpace!]! }
      type SiteSpace { id: ID! path: String! space: Space! }
      type Space { id: ID! title: String! }`,
    resolvers: { Query: { organization: () => answer.data.organization } },
  });
  const inMemory = http.createServer(createYoga({ schema: inMemorySchema, logging: false, landingPage: false }));
  await new Promise<void>((resolve) => inMemory.listen(0, '127.0.0.1', () => resolve()));
  const inMemoryUrl = `http://127.0.0.1:${(inMemory.address() as { port: number }).port}`;

  const config = loadConfig({
    ...process.env,
    NODE_ENV: SERVER_NODE_ENV,
    DATABASE_URL: databaseUrl,
    PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: 'silent',
    RATE_LIMIT_POINTS: '1000000000',
    JOB_POLL_MS: '3600000',
    PUBLIC_URL,
    APP_URL: PUBLIC_URL,
  });
  const app = createApp({ config });
  const appUrl = await app.listen();

  for (const [name, url] of [['in memory', inMemoryUrl], ['app', appUrl]] as const) {
    const difference = firstDifference(JSON.parse(await post(url)), answer);
    if (difference) throw new Error(`${name}: answers differently from the hand-written SQL: ${difference}`);
  }

  // --- in process
  const rawDb = openRawDb(databaseUrl);
  const handWritten = () => siteGraphItems(rawDb, data.organizationId, SITES_LIMIT);
  const db = createDb(data.database.config);
  const order = [{ position: 'asc' as const }, { id: 'asc' as const }];
  const prismaGraph = () =>
    db.site.findMany({
      where: { organizationId: data.organizationId },
      orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
      take: SITES_LIMIT,
      select: {
        id: true,
        title: true,
        sections: { orderBy: order, select: { id: true, title: true, path: true, siteSpaces: { orderBy: order, select: { id: true, path: true, space: { select: { id: true, title: true } } } } } },
      },
    });
  const sectionIds = (await db.siteSection.findMany({ select: { id: true } })).map((s) => s.id);
  const prismaSiteSpaces = () => db.siteSpace.findMany({ where: { sectionId: { in: sectionIds } }, orderBy: order, select: { id: true, path: true, sectionId: true, spaceId: true } });
  const prismaSiteSpacesWithSpace = () =>
    db.siteSpace.findMany({ where: { sectionId: { in: sectionIds } }, orderBy: order, select: { id: true, path: true, sectionId: true, space: { select: { id: true, title: true } } } });

  {
    const difference = firstDifference(JSON.parse(JSON.stringify(await prismaGraph())), await handWritten());
    if (difference) throw new Error(`Prisma's findMany and the hand-written SQL read different data: ${difference}`);
    const d2 = firstDifference(await handWritten(), answer.data.organization.sites.items);
    if (d2) throw new Error(`the hand-written SQL in process reads other data than the app answers: ${d2}`);
  }

  const driver = data.database.provider === 'postgresql' ? 'node-postgres' : 'better-sqlite3';
  const layers: Layer[] = [
    { name: 'hand-written SQL server', what: `HTTP: node:http + ${driver} (bench/raw-site-graph.ts), the baseline of the target`, run: () => post(rawUrl) },
    { name: 'GraphQL only (yoga, data in memory)', what: 'HTTP: graphql-yoga + graphql-js, the same answer from memory, no database', run: () => post(inMemoryUrl) },
    { name: 'the app', what: 'HTTP: the app (Pothos + plugin-prisma + Prisma + yoga)', run: () => post(appUrl) },
    { name: 'hand-written SQL, in process', what: `${driver}: 3 statements (site spaces joined with spaces), assembled`, run: handWritten },
    { name: 'Prisma findMany, the whole graph', what: 'in process: sites -> sections -> siteSpaces -> space, ids/titles/paths only', run: prismaGraph },
    { name: 'Prisma: the 1,000 site spaces', what: 'in process: siteSpace.findMany by section ids', run: prismaSiteSpaces },
    { name: 'Prisma: the 1,000 site spaces with their space', what: 'in process: the same with `space: { select: { id, title } }`', run: prismaSiteSpacesWithSpace },
  ];

  log(`warming up, then ${ROUNDS} rounds of ${BURST} per layer`);
  for (const layer of layers) for (let i = 0; i < 50; i++) await layer.run();
  await machineLoad.settle('before the rounds');
  const before = machineLoad.snapshot();
  const times = layers.map(() => [] as number[]);
  for (let r = 0; r < ROUNDS; r++) {
    for (const [k, layer] of layers.entries()) {
      for (let i = 0; i < BURST; i++) {
        const t = performance.now();
        await layer.run();
        times[k]!.push(performance.now() - t);
      }
    }
  }
  machineLoad.between('the rounds (every layer in turn)', before, machineLoad.snapshot());
  await app.close();
  await raw.close();
  await rawDb.close();
  inMemory.close();
  await db.$disconnect();
  await data.drop();
  await machineLoad.read('after the run');

  const results = layers.map((layer, k) => ({ name: layer.name, what: layer.what, ...stats(times[k]!) }));
  const baseline = results[0]!.p50;
  const byName = (name: string) => results.find((r) => r.name === name)!;
  const inMemoryP50 = byName('GraphQL only (yoga, data in memory)').p50;
  const prismaP50 = byName('Prisma findMany, the whole graph').p50;
  /** The least the app's stack can take: a GraphQL server's work on this answer plus Prisma's read of its rows. */
  const floor = inMemoryP50 + prismaP50;
  const md = [
    ...reportHeader(benchRun, 'Site graph: the cost of each layer', { description: data.database.description, version }),
    `Data (bench/seed-sites.ts): 20 sites x 5 sections x 10 site spaces, 1,000 spaces. Query: the site graph query of bench/site-graph.ts (${answer.data.organization.sites.items.length} sites, 1,120 objects). Every version's answer was checked equal to the hand-written SQL's first.`,
    `Sequential requests (no queueing), ${ROUNDS} rounds of ${BURST} per layer, taking turns; no CPU pinning of the layers (everything runs in this one process, the HTTP client too${data.database.provider === 'postgresql' ? '; the PostgreSQL server is a process of its own' : ''}).`,
    '',
    ...table(
      ['layer', 'what', 'n', 'p10 (ms)', 'p50 (ms)', 'p90 (ms)', 'p99 (ms)', 'p50 / hand-written SQL server p50'],
      results.map((r) => [r.name, r.what, r.n, fmt(r.p10, 2), fmt(r.p50, 2), fmt(r.p90, 2), fmt(r.p99, 2), `${fmt(r.p50 / baseline, 2)}x`]),
      ['l', 'l', 'r', 'r', 'r', 'r', 'r', 'r'],
    ),
    '',
    '## Reading',
    '',
    `The target allows the app ${fmt(2 * baseline, 2)} ms (2x the hand-written SQL server's ${fmt(baseline, 2)} ms). Whatever resolvers do, the app has to do at least two things in its one thread: what a GraphQL server does with this answer (HTTP, parsing, validation, execution and serialisation of 1,120 objects: ${fmt(inMemoryP50, 2)} ms with the data already in memory) and load the rows through Prisma, as the issue asks (plugin-prisma relations): ${fmt(prismaP50, 2)} ms for Prisma's narrowest findMany of them, in process, against ${fmt(byName('hand-written SQL, in process').p50, 2)} ms by hand-written SQL. Together ${fmt(floor, 2)} ms, ${fmt(floor / baseline, 2)}x the baseline: ${floor > 2 * baseline ? 'over the 2x target before plugin-prisma plans a query or Pothos resolves a field' : 'within the 2x target, so the gap is in plugin-prisma and Pothos'}. Most of Prisma's time is the many-to-one edge from the 1,000 site spaces to their spaces: ${fmt(byName('Prisma: the 1,000 site spaces').p50, 2)} ms for the site spaces alone, ${fmt(byName('Prisma: the 1,000 site spaces with their space').p50, 2)} ms with their space (a second statement, \`Space.id IN\` 1,000 parameters, and the rows stitched in JavaScript). The app takes ${fmt(byName('the app').p50, 2)} ms (${fmt(byName('the app').p50 / baseline, 2)}x): plugin-prisma's planning, Pothos's resolvers and the garbage they make come on top of that floor.`,
    '',
    'See docs/decisions.md, "Site graph latency".',
    '',
    ...machineLoad.markdown(),
  ];
  writeResults(benchRun, { database: { description: data.database.description, version }, rounds: ROUNDS, burst: BURST, results, floorMs: floor, targetMs: 2 * baseline }, md);
}

main(run);

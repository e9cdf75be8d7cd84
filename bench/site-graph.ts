/**
 * Site graph benchmark (issue 5): the nested GraphQL query of an organization's
 * docs sites, and GET /v1/orgs/{organizationId}/sites/{siteId}/structure,
 * on the app (bench/app-server.ts) and on a hand-written-SQL baseline
 * (bench/raw-site-graph.ts: node:http and hand-written SQL, one statement per
 * level, assembled in JS) over the same seeded database, SQLite or, with
 * BENCH_DATABASE_URL, PostgreSQL (bench/seed-sites.ts: 1 organization, 20
 * sites x 5 sections x 10 site spaces, 1,000 spaces).
 *
 *   npm run bench:sites
 *   BENCH_DATABASE_URL=postgresql://postgres@127.0.0.1:5432/postgres npm run bench:sites
 *
 * Before measuring, the baseline's bodies are checked equal to the app's
 * (modulo key order), and the app's against the seeded data (every site,
 * section and site space, in structure order). Per endpoint and server:
 * statements/request (delta of `db_queries_total` of GET /metrics over the
 * measured run), requests/s, p50/p99 (from every response). The SQL of one
 * app request is captured and each statement attributed to the nesting level
 * of the table it reads (see LEVELS).
 *
 * Targets (issue 5), for the GraphQL query: at most one SQL statement per
 * level of nesting, and a median latency at most 2x the baseline's. When the
 * latency target is missed, the app is CPU-profiled under the same load.
 *
 * On PostgreSQL the GraphQL query is also asked of PostGraphile 5
 * (bench/postgraphile-server.ts) in its schema's terms, with the same levels,
 * fields, limit and order, in the same run; its answer is checked equal to the
 * seeded data first. Targets (issue 18): the app's requests/s at least
 * PostGraphile's and its median no higher, at 10 connections.
 *
 * Environment: see bench/harness.ts. Results:
 * bench/results/<date>-site-graph-<sqlite|postgresql>.md (raw data and
 * profile in bench/out/).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  captureSql,
  CONNECTIONS,
  count,
  databaseVersion,
  describeStatement,
  DURATION,
  firstDifference,
  fmt,
  isTransactionControl,
  handWrittenDriver,
  keepInOut,
  log,
  machineLoad,
  main,
  measure,
  MEASUREMENT_NOTE,
  measurementTable,
  profileMarkdown,
  PROFILE_SECONDS,
  profileUnderLoad,
  provider,
  PUBLIC_URL,
  ratioTable,
  reportHeader,
  request,
  sqlBlock,
  startRun,
  statementTable,
  summariseProfile,
  table,
  WARMUP,
  withChild,
  writeResults,
  type Endpoint,
  type Measurement,
  type ProfileSummary,
} from './harness.ts';
import { POSTGRAPHILE_SITE_GRAPH_QUERY, postgraphileName, siteGraphAsApp, siteGraphEndpoint } from './postgraphile-server.ts';
import { seedSites, siteGraphEndpoints, SITE_GRAPH_QUERY, SITES_LIMIT, type SiteSeed } from './seed-sites.ts';

/** Median latency of the GraphQL query at most this many times the baseline's. */
const TARGET_MEDIAN_RATIO = 2;
/**
 * The levels of nesting of the query, and the tables whose statements count
 * for each. A statement counts for the level of the first table it reads
 * (`FROM <table>`; inside a subquery too, so a COUNT over sites is a sites
 * statement). BEGIN/COMMIT/SAVEPOINT count for no level but are statements
 * (they are in `db_queries_total`), so "at most one statement per level" holds
 * when no level has more than one and there is no other statement.
 */
const LEVELS = [
  { level: 'auth (token -> user, memberships)', tables: ['ApiToken', 'Member', 'User'] },
  { level: 'organization', tables: ['Organization'] },
  { level: 'sites', tables: ['Site'] },
  { level: 'sections', tables: ['SiteSection', 'SiteSectionGroup'] },
  { level: 'site spaces', tables: ['SiteSpace'] },
  { level: 'spaces', tables: ['Space', 'Collection', 'Revision'] },
] as const;

function byLevel(statements: string[]) {
  const rows = LEVELS.map((l) => ({ level: l.level, statements: [] as string[] }));
  const transactionControl: string[] = [];
  const other: string[] = [];
  for (const sql of statements) {
    if (isTransactionControl(sql)) {
      transactionControl.push(describeStatement(sql));
      continue;
    }
    const t = statementTable(sql);
    const i = LEVELS.findIndex((l) => (l.tables as readonly string[]).includes(t ?? ''));
    if (i >= 0) rows[i]!.statements.push(describeStatement(sql));
    else other.push(describeStatement(sql));
  }
  const holds = rows.every((r) => r.statements.length <= 1) && transactionControl.length === 0 && other.length === 0;
  return { rows, transactionControl, other, total: statements.length, holds };
}

/** `n` statements, with their summaries grouped: `2: SELECT Site, COUNT Site`. */
function cell(list: string[]): string {
  if (list.length === 0) return '0';
  const counts = new Map<string, number>();
  for (const s of list) counts.set(s, (counts.get(s) ?? 0) + 1);
  return `${list.length}: ${[...counts].map(([s, n]) => (n > 1 ? `${n} × ${s}` : s)).join(', ')}`;
}

/** What the baseline runs per request, by construction (bench/raw-site-graph.ts). */
const RAW_LEVELS = {
  graph: ['auth + organization (1 statement)', 'sites (1)', 'sections (1)', 'site spaces + spaces (1, a join)'],
  structure: ['auth + site (1 statement)', 'sections and section groups (1, a UNION)', 'site spaces + spaces (1, a join; the effective default level of each space, for its permissions, as a subquery)'],
};

// ---------------------------------------------------------------------------
// The expected answers, from the seed

interface GraphBody {
  data?: {
    organization: {
      sites: {
        items: Array<{ id: string; title: string; sections: Array<{ id: string; title: string; path: string; siteSpaces: Array<{ id: string; path: string; space: { id: string; title: string } }> }> }>;
      };
    } | null;
  };
  errors?: unknown[];
}

function expectedGraph(data: SiteSeed): GraphBody {
  return {
    data: {
      organization: {
        sites: {
          items: data.sites.map((s) => ({
            id: s.id,
            title: s.title,
            sections: s.sections.map((sec) => ({
              id: sec.id,
              title: sec.title,
              path: sec.path,
              siteSpaces: sec.siteSpaces.map((ss) => ({ id: ss.id, path: ss.path, space: { id: ss.spaceId, title: data.spaceTitles.get(ss.spaceId)! } })),
            })),
          })),
        },
      },
    },
  };
}

/** The structure body's ids, in order: [section id, [site space id, space id]...]... */
function structureOrder(body: { type?: string; structure?: Array<{ id: string; siteSpaces?: Array<{ id: string; space?: { id: string } }> }> }) {
  return {
    type: body.type,
    sections: (body.structure ?? []).map((s) => ({ id: s.id, siteSpaces: (s.siteSpaces ?? []).map((ss) => [ss.id, ss.space?.id]) })),
  };
}

function expectedStructureOrder(site: SiteSeed['sites'][number]) {
  return { type: 'sections', sections: site.sections.map((s) => ({ id: s.id, siteSpaces: s.siteSpaces.map((ss) => [ss.id, ss.spaceId]) })) };
}

// ---------------------------------------------------------------------------

async function run() {
  const benchRun = startRun('site-graph');
  await machineLoad.settle('before the run');
  log('seeding the site graph...');
  const data = await seedSites('site_graph');
  const { token } = data;
  const shape = data.shape;

  const { graph, structure } = siteGraphEndpoints(data);
  // The same query one request at a time: latency without queueing (with BENCH_CONNECTIONS
  // connections on one core, a median is mostly time spent waiting behind the other requests).
  const graphAlone: Endpoint = { ...graph, key: 'graphql-site-graph-1-connection', label: `${graph.label}, 1 connection`, connections: 1 };
  // Job polling once an hour: the dispatcher's background polls are not statements of the requests.
  const appEnv = { DATABASE_URL: data.database.url, JOB_POLL_MS: '3600000' };
  const rawEnv = { DATABASE_URL: data.database.url, PUBLIC_URL, APP_URL: PUBLIC_URL, RAW_SITE_GRAPH_CHILD: '1' };

  // PostGraphile (PostgreSQL only): the same query in its schema's terms, with 10 connections and with 1.
  const withPostGraphile = provider === 'postgresql';
  const pgName = postgraphileName();
  const pgGraph = siteGraphEndpoint(data.organizationId, SITES_LIMIT);
  const pgGraphAlone: Endpoint = { ...pgGraph, key: `${pgGraph.key}-1-connection`, label: `${pgGraph.label}, 1 connection`, connections: 1 };

  const results: { app: Measurement[]; raw: Measurement[]; postgraphile: Measurement[] } = { app: [], raw: [], postgraphile: [] };
  const sql: { graph: string[]; structure: string[] } = { graph: [], structure: [] };
  let appGraph = '';
  const appStructures: string[] = [];
  let profile: ProfileSummary | null = null;
  let version = '';
  const profileDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-prof-'));
  const expected = expectedGraph(data);

  try {
    // --- the app
    log('starting the app server...');
    await withChild('app-server.ts', appEnv, async (child) => {
      version = await databaseVersion(data.database);
      // One request first: the SQL captured is a warm process's, without the viewer's first load and the
      // once-a-minute activity writes (lastUsedAt, lastSeenAt) that the first request of a token makes.
      await request(child.baseUrl, graph.paths[0]!, token, graph);
      const g = await captureSql(child, () => request(child.baseUrl, graph.paths[0]!, token, graph));
      if (g.result.status !== 200) throw new Error(`app: the graph query answered ${g.result.status}: ${g.result.text.slice(0, 2000)}`);
      const body = JSON.parse(g.result.text) as GraphBody;
      if (body.errors) throw new Error(`app: the graph query answered errors (are the site fields in the schema yet?): ${g.result.text.slice(0, 2000)}`);
      const diff = firstDifference(body, expected);
      if (diff) throw new Error(`app: the graph query does not answer the seeded data in structure order: ${diff}`);
      appGraph = g.result.text;
      sql.graph = g.statements;

      for (const [i, p] of structure.paths.entries()) {
        const s = i === 0 ? await captureSql(child, () => request(child.baseUrl, p, token)) : { result: await request(child.baseUrl, p, token), statements: [] };
        if (s.result.status !== 200) throw new Error(`app: GET ${p} answered ${s.result.status}: ${s.result.text.slice(0, 2000)}`);
        const order = firstDifference(structureOrder(JSON.parse(s.result.text)), expectedStructureOrder(data.sites[i]!));
        if (order) throw new Error(`app: GET ${p} is not the seeded structure: ${order}`);
        if (i === 0) sql.structure = s.statements;
        appStructures.push(s.result.text);
      }

      await machineLoad.settle('before the app runs');
      for (const e of [graph, structure, graphAlone]) results.app.push(await measure(child.baseUrl, e, token, `app: ${e.label}`));
    });

    // --- the baseline
    log('starting the hand-written SQL baseline...');
    await withChild('raw-site-graph.ts', rawEnv, async (child) => {
      const g = await request(child.baseUrl, graph.paths[0]!, token, graph);
      const diff = g.status === 200 ? firstDifference(JSON.parse(g.text), JSON.parse(appGraph)) : `status ${g.status}: ${g.text}`;
      if (diff) throw new Error(`baseline: the graph answer differs from the app's: ${diff}`);
      for (const [i, p] of structure.paths.entries()) {
        const s = await request(child.baseUrl, p, token);
        const d = s.status === 200 ? firstDifference(JSON.parse(s.text), JSON.parse(appStructures[i]!)) : `status ${s.status}: ${s.text}`;
        if (d) throw new Error(`baseline: GET ${p} differs from the app's body: ${d}`);
      }
      await machineLoad.settle('before the baseline runs');
      for (const e of [graph, structure, graphAlone]) results.raw.push(await measure(child.baseUrl, e, token, `baseline: ${e.label}`));
    });

    // --- PostGraphile
    if (withPostGraphile) {
      log(`starting ${pgName}...`);
      await withChild('postgraphile-server.ts', { DATABASE_URL: data.database.url, POSTGRAPHILE_CHILD: '1' }, async (child) => {
        const g = await request(child.baseUrl, pgGraph.paths[0]!, token, pgGraph);
        const diff = g.status === 200 ? firstDifference(siteGraphAsApp(JSON.parse(g.text)), expected) : `status ${g.status}: ${g.text.slice(0, 2000)}`;
        if (diff) throw new Error(`${pgName}: the graph query does not answer the seeded data (the app's answer) in structure order: ${diff}`);
        await machineLoad.settle('before PostGraphile runs');
        for (const e of [pgGraph, pgGraphAlone]) results.postgraphile.push(await measure(child.baseUrl, e, token, `${pgName}: ${e.label}`));
      });
    }

    // --- where the time goes, when the query misses the latency target
    const medianRatio = results.app[0]!.p50Ms / results.raw[0]!.p50Ms;
    if (medianRatio > TARGET_MEDIAN_RATIO && PROFILE_SECONDS > 0) {
      log(`the graph query's median is ${medianRatio.toFixed(1)}x the baseline's (> ${TARGET_MEDIAN_RATIO}x): profiling the app server...`);
      const file = path.join(profileDir, 'site-graph.cpuprofile');
      await profileUnderLoad(appEnv, graph, token, file);
      profile = summariseProfile(keepInOut(file, `${benchRun.name}.cpuprofile`));
    }
  } finally {
    await data.drop();
    fs.rmSync(profileDir, { recursive: true, force: true });
  }
  await machineLoad.read('after the run');

  // --- report
  const rows = results.app.map((a, i) => {
    const r = results.raw[i]!;
    return { endpoint: a.label, app: a, raw: r, medianRatio: a.p50Ms / r.p50Ms, rpsRatio: a.rps / r.rps };
  });
  const [graphRow, structureRow, aloneRow] = rows as [(typeof rows)[number], (typeof rows)[number], (typeof rows)[number]];
  const levels = { graph: byLevel(sql.graph), structure: byLevel(sql.structure) };
  const perLevelHolds = levels.graph.holds;
  const excess = [
    ...levels.graph.rows.filter((r) => r.statements.length > 1).map((r) => `${r.level}: ${cell(r.statements)}`),
    ...(levels.graph.transactionControl.length ? [`transaction control: ${cell(levels.graph.transactionControl)}`] : []),
    ...(levels.graph.other.length ? [`other: ${cell(levels.graph.other)}`] : []),
  ];
  const latencyHolds = graphRow.medianRatio <= TARGET_MEDIAN_RATIO;
  const targets = {
    statementsPerLevel: { levels: LEVELS.length, statements: sql.graph.length, holds: perLevelHolds, byLevel: levels.graph },
    medianRatio: { target: TARGET_MEDIAN_RATIO, measured: graphRow.medianRatio, holds: latencyHolds, connections: CONNECTIONS },
    medianRatioOneConnection: { target: TARGET_MEDIAN_RATIO, measured: aloneRow.medianRatio, holds: aloneRow.medianRatio <= TARGET_MEDIAN_RATIO, connections: 1 },
  };
  const vsPostGraphile =
    results.postgraphile.length === 2
      ? {
          server: pgName,
          graph: results.postgraphile[0]!,
          alone: results.postgraphile[1]!,
          rpsRatio: graphRow.app.rps / results.postgraphile[0]!.rps,
          p50Ratio: graphRow.app.p50Ms / results.postgraphile[0]!.p50Ms,
          rpsHolds: graphRow.app.rps >= results.postgraphile[0]!.rps,
          p50Holds: graphRow.app.p50Ms <= results.postgraphile[0]!.p50Ms,
        }
      : null;
  const sqlSamples = [
    { request: 'POST /graphql (the graph query)', statements: sql.graph },
    { request: `${structure.label} (first site)`, statements: sql.structure },
  ];
  const database = { description: data.database.description, version };

  const md = reportHeader(benchRun, 'Site graph benchmark', database);
  md.push(
    `Load: autocannon, ${CONNECTIONS} connections (and the GraphQL query again with 1), ${WARMUP} s warm-up then ${DURATION} s measured per endpoint and server; one bearer token (an admin of the organization).`,
    `Data (bench/seed-sites.ts): 1 organization, ${count(shape.spaces)} spaces (5 in a collection), ${shape.sites} published sites x ${shape.sectionsPerSite} sections x ${shape.siteSpacesPerSection} site spaces ` +
      `(${count(shape.sites * shape.sectionsPerSite)} sections, ${count(shape.sites * shape.sectionsPerSite * shape.siteSpacesPerSection)} site spaces, each on its own space).`,
    `The GraphQL query asks for \`sites(limit: ${SITES_LIMIT})\` (all ${shape.sites}) with every section, site space and space (id, title, path); the structure endpoint cycles through the ${shape.sites} sites.`,
    `Baseline (bench/raw-site-graph.ts): node:http with hand-written SQL (${handWrittenDriver}), one statement per level, assembled in JS; its bodies were checked equal to the app's (modulo key order) before measuring, and the app's to the seeded data in structure order.`,
    MEASUREMENT_NOTE,
    '',
    ...measurementTable(
      [
        ...rows.flatMap((r) => [
          { server: 'app', m: r.app, vs: `${fmt(r.medianRatio, 2)}x` },
          { server: 'hand-written SQL', m: r.raw, vs: '1x' },
        ]),
        ...results.postgraphile.map((m, i) => ({ server: pgName, m, vs: `${fmt(m.p50Ms / [graphRow, aloneRow][i]!.raw.p50Ms, 2)}x` })),
      ],
      'p50 / baseline p50',
    ),
    '',
  );
  md.push(
    `**Target 1** — the GraphQL query in at most one SQL statement per level of nesting (${LEVELS.length} levels: ${LEVELS.map((l) => l.level).join(', ')}). ` +
      `**Measured: ${sql.graph.length} statements for ${LEVELS.length} levels — ${perLevelHolds ? 'met' : `NOT met (${excess.join('; ')})`}.**`,
    '',
    `**Target 2** — its median latency at most ${TARGET_MEDIAN_RATIO}x that of the same data by hand-written SQL. ` +
      `**Measured (${CONNECTIONS} connections): ${fmt(graphRow.app.p50Ms, 2)} ms vs ${fmt(graphRow.raw.p50Ms, 2)} ms = ${fmt(graphRow.medianRatio, 2)}x — ${latencyHolds ? 'met' : 'NOT met'}.** ` +
      `(Requests/s: ${fmt(100 * graphRow.rpsRatio, 1)}% of the baseline's.) ` +
      `One request at a time (1 connection, no queueing): ${fmt(aloneRow.app.p50Ms, 2)} ms vs ${fmt(aloneRow.raw.p50Ms, 2)} ms = ${fmt(aloneRow.medianRatio, 2)}x — ` +
      `${aloneRow.medianRatio <= TARGET_MEDIAN_RATIO ? 'within' : 'over'} ${TARGET_MEDIAN_RATIO}x.`,
    '',
    `The structure endpoint has no target; its median is ${fmt(structureRow.medianRatio, 2)}x the baseline's, ${fmt(structureRow.app.statementsPerRequest, 2)} statements/request vs ${fmt(structureRow.raw.statementsPerRequest, 2)}.`,
    '',
  );
  md.push(`## The app and ${pgName}`, '');
  if (vsPostGraphile) {
    md.push(
      `${pgName} (bench/postgraphile-server.ts: the amber preset over this run's schema, relations inferred from Prisma's foreign keys, grafserv on node:http, a pool of 10 connections) ` +
        `answers the same query in its schema's terms (\`organizationByRowId { sitesByOrganizationId(first: ${SITES_LIMIT}) { nodes { siteSectionsBySiteId { nodes { siteSpacesBySectionId { nodes { spaceBySpaceId } } } } } } }\`, ` +
        'the same fields, sites by creation then id, sections and site spaces by position then id), measured in this run with the same load; its answer was checked equal to the seeded data (as the app\'s) before measuring. ' +
        'It has no authentication or authorization as configured here (no token lookup, no membership or role check). Ratios are the app\'s over PostGraphile\'s:',
      '',
      ...ratioTable({ a: 'app', b: pgName }, [
        { label: 'the site graph query', a: graphRow.app, b: vsPostGraphile.graph },
        { label: 'the site graph query, 1 connection', a: aloneRow.app, b: vsPostGraphile.alone },
      ]),
      '',
      `**Target (issue 18)** — the site graph query at least ${pgName}'s requests/s and a median no higher (at 10 connections). ` +
        `**Measured (${CONNECTIONS} connections): ${fmt(graphRow.app.rps)} vs ${fmt(vsPostGraphile.graph.rps)} req/s = ${fmt(vsPostGraphile.rpsRatio, 2)}x — ${vsPostGraphile.rpsHolds ? 'met' : 'NOT met'}; ` +
        `p50 ${fmt(graphRow.app.p50Ms, 2)} vs ${fmt(vsPostGraphile.graph.p50Ms, 2)} ms = ${fmt(vsPostGraphile.p50Ratio, 2)}x — ${vsPostGraphile.p50Holds ? 'met' : 'NOT met'}.** ` +
        `One request at a time (1 connection): p50 ${fmt(aloneRow.app.p50Ms, 2)} vs ${fmt(vsPostGraphile.alone.p50Ms, 2)} ms = ${fmt(aloneRow.app.p50Ms / vsPostGraphile.alone.p50Ms, 2)}x. ` +
        `Statements per request: app ${fmt(graphRow.app.statementsPerRequest, 2)}, ${pgName} ${fmt(vsPostGraphile.graph.statementsPerRequest, 2)}.`,
      '',
    );
  } else {
    md.push(`Not measured: ${pgName} runs on PostgreSQL only (BENCH_DATABASE_URL).`, '');
  }
  md.push('## Statements by level of nesting', '');
  md.push(
    'The SQL the app sent for one request (captured from its database client); each statement counts for the level of the first table it reads ' +
      `(${LEVELS.map((l) => `${l.level}: ${l.tables.join('/')}`).join('; ')}), inside a subquery too, so a COUNT over sites is a sites statement. ` +
      'BEGIN/COMMIT belong to no level but are statements (counted in `db_queries_total`): "at most one statement per level" holds when no level has more than one statement and there are no others.',
    '',
  );
  md.push(
    ...table(
      ['level', 'GraphQL query (app)', 'structure of one site (app)'],
      [
        ...LEVELS.map((l, i) => [l.level, cell(levels.graph.rows[i]!.statements), cell(levels.structure.rows[i]!.statements)]),
        ['transaction control', cell(levels.graph.transactionControl), cell(levels.structure.transactionControl)],
        ['other', cell(levels.graph.other), cell(levels.structure.other)],
        ['**total**', `**${levels.graph.total}**`, `**${levels.structure.total}**`],
      ],
      ['l', 'l', 'l'],
    ),
    '',
    `Baseline, by construction: GraphQL query — ${RAW_LEVELS.graph.join('; ')}. Structure — ${RAW_LEVELS.structure.join('; ')}.`,
    '',
  );
  md.push(...machineLoad.markdown());
  if (profile) {
    const top = profile.byLayer.slice(0, 4).map((l) => `${l.layer} ${fmt(l.percentOfBusy, 0)}%`);
    const section = profileMarkdown(profile, 'the GraphQL site graph query');
    // After the heading: the gist, then the details.
    section.splice(
      2,
      0,
      `In short: of the app's busy time, ${top.join(', ')}. The baseline runs ${fmt(graphRow.raw.statementsPerRequest, 0)} statements reading only the columns the query asks for; ` +
        `the app's statements are in the tables above and below.`,
      '',
    );
    md.push(...section);
  }
  md.push('## SQL sent by the app for one request', '');
  for (const sample of sqlSamples) md.push(`${sample.request}: ${sample.statements.length} statements`, '', ...sqlBlock(sample.statements), '');
  const settings = { durationSeconds: DURATION, warmupSeconds: WARMUP, connections: CONNECTIONS, ...shape, sitesLimit: SITES_LIMIT };
  writeResults(
    benchRun,
    { database, settings, query: SITE_GRAPH_QUERY, targets, rows, postgraphile: vsPostGraphile && { ...vsPostGraphile, query: POSTGRAPHILE_SITE_GRAPH_QUERY }, statementsByLevel: { graph: levels.graph, structure: levels.structure, baseline: RAW_LEVELS }, sqlSamples, profile },
    md,
  );
}

main(run);

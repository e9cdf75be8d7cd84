/**
 * Paired A/B of the site graph query (the GraphQL query of bench/site-graph.ts)
 * and GET /v1/orgs/{organizationId}/sites/{siteId}/structure across versions of
 * the app, for a machine others use too: the versions run side by side, each
 * its own server (bench/app-server.ts, pinned to core 1) on one seeded SQLite
 * database, and take turns in short bursts of sequential requests, so that
 * background load falls on every version alike. bench/site-graph.ts measures
 * one version against the hand-written SQL baseline; this compares versions.
 *
 *   git worktree add /tmp/ab-before <rev>   (and link node_modules, run scripts/prisma-generate.ts)
 *   AB_DIRS=/tmp/ab-before,$PWD npx tsx bench/ab-site-graph.ts
 *
 * Before measuring, every version's answers are checked equal to the first's
 * (modulo key order). Environment: AB_DIRS (checkouts, comma-separated),
 * AB_ROUNDS (turns per version, 40), AB_BURST (requests per turn, 10).
 * Prints p10/p50/p90/p99 per endpoint and version; writes nothing.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { firstDifference } from './harness.ts';
import { seedSites } from './seed-sites.ts';

const QUERY = `query SiteGraph($organizationId: ID!, $limit: Int) {
  organization(id: $organizationId) { sites(limit: $limit) { items { id title sections { id title path siteSpaces { id path space { id title } } } } } } }`;
const dirs = (process.env.AB_DIRS ?? '').split(',').filter(Boolean);
const ROUNDS = Number(process.env.AB_ROUNDS ?? 40);
const BURST = Number(process.env.AB_BURST ?? 10);
if (dirs.length === 0) throw new Error('AB_DIRS: the checkouts to compare, comma-separated');

interface Server {
  baseUrl: string;
  child: ChildProcess;
}

const data = await seedSites();
const servers: Server[] = [];
try {
  for (const dir of dirs) servers.push(await start(dir));
  const body = JSON.stringify({ query: QUERY, variables: { organizationId: data.organizationId, limit: 100 } });
  const headers = { authorization: `Bearer ${data.token}` };
  const graph = (s: Server) =>
    fetch(`${s.baseUrl}/graphql`, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body }).then((r) => r.text());
  let next = 0;
  const structureOf = (s: Server, i: number) =>
    fetch(`${s.baseUrl}/v1/orgs/${data.organizationId}/sites/${data.sites[i % data.sites.length]!.id}/structure`, { headers }).then((r) => r.text());
  const structure = (s: Server) => structureOf(s, next++);

  // The same answers from every version.
  const graphs = await Promise.all(servers.map(async (s) => JSON.parse(await graph(s))));
  for (const [k, g] of graphs.entries()) {
    const d = firstDifference(g, graphs[0]);
    if (d) throw new Error(`${dirs[k]}: the graph query answers differently: ${d}`);
  }
  for (let i = 0; i < data.sites.length; i++) {
    const bodies = await Promise.all(servers.map(async (s) => JSON.parse(await structureOf(s, i))));
    for (const [k, b] of bodies.entries()) {
      const d = firstDifference(b, bodies[0]);
      if (d) throw new Error(`${dirs[k]}: the structure of site ${i} differs: ${d}`);
    }
  }

  for (const [name, run] of [['POST /graphql (site graph)', graph], ['GET .../structure', structure]] as const) {
    const times: number[][] = servers.map(() => []);
    for (const s of servers) for (let i = 0; i < 30; i++) await run(s); // warm-up
    for (let r = 0; r < ROUNDS; r++) {
      for (const [k, s] of servers.entries()) {
        for (let i = 0; i < BURST; i++) {
          const t = performance.now();
          await run(s);
          times[k]!.push(performance.now() - t);
        }
      }
    }
    for (const [k, t] of times.entries()) {
      t.sort((a, b) => a - b);
      const q = (p: number) => t[Math.min(t.length - 1, Math.floor(t.length * p))]!.toFixed(2);
      console.log(`${name} ${path.basename(dirs[k]!)}: n=${t.length} p10 ${q(0.1)} p50 ${q(0.5)} p90 ${q(0.9)} p99 ${q(0.99)} ms`);
    }
  }
} finally {
  for (const s of servers) s.child.kill('SIGTERM');
  await data.drop();
}

function start(dir: string): Promise<Server> {
  const child = spawn('taskset', ['-c', '1', process.execPath, '--import', 'tsx', path.join(dir, 'bench/app-server.ts')], {
    cwd: dir,
    env: { ...process.env, NODE_ENV: 'production', DATABASE_URL: data.databaseUrl },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`${dir}: the server exited with ${code}`)));
    child.on('message', (m: { ready?: boolean; baseUrl?: string }) => m.ready && resolve({ baseUrl: m.baseUrl!, child }));
  });
}

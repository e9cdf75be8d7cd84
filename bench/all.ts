/**
 * `npm run bench`: every benchmark on SQLite, and each again on PostgreSQL
 * when BENCH_DATABASE_URL is set (the two runs of a benchmark one after the
 * other, so that both see the machine alike). Each benchmark runs in its own
 * process and writes its own report (bench/results/<date>-<name>-<database>.md);
 * the first failure stops the run.
 *
 *   npm run bench
 *   BENCH_DATABASE_URL=postgresql://postgres@127.0.0.1:5432/postgres npm run bench
 */
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

// Not through bench/harness.ts: importing it pins this process (and so what it starts) to core 0.
const here = path.dirname(fileURLToPath(import.meta.url));
const BENCH_DATABASE_URL = process.env.BENCH_DATABASE_URL || undefined;
const log = (...args: unknown[]) => console.error('[bench]', ...args);

const BENCHMARKS = ['rest.ts', 'site-graph.ts', 'site-graph-floor.ts', 'content.ts', 'jobs.ts', 'comments.ts', 'links.ts', 'published.ts', 'openapi.ts', 'insights.ts', 'growth.ts', 'soak.ts'];
const databases = [{ name: 'SQLite', url: '' }, ...(BENCH_DATABASE_URL ? [{ name: 'PostgreSQL', url: BENCH_DATABASE_URL }] : [])];

for (const script of BENCHMARKS) {
  for (const database of databases) {
    log(`=== bench/${script} on ${database.name}`);
    const run = spawnSync(process.execPath, ['--import', 'tsx', path.join(here, script)], {
      stdio: 'inherit',
      env: { ...process.env, BENCH_DATABASE_URL: database.url },
    });
    if (run.status !== 0) {
      log(`bench/${script} on ${database.name} failed (${run.status ?? run.signal})`);
      process.exit(1);
    }
  }
}

/**
 * Child-process entry of the benchmarks: the real server (createApp) on the
 * database of DATABASE_URL, on a free port. Reports its base URL to the parent
 * over IPC, hands over the SQL it sends (with when it sent each statement)
 * and takes a CPU profile of the steady state when the parent asks, and exits
 * cleanly on SIGTERM/SIGINT. Started by startChild of bench/harness.ts; not
 * meant to be run by hand.
 *
 * It imports the app only through src/server.ts and src/config.ts:
 * bench/ab.ts starts this file in other checkouts of the app too.
 */
import { loadConfig } from '../src/config.ts';
import { createApp, type App } from '../src/server.ts';

const config = loadConfig({
  ...process.env,
  PORT: '0',
  HOST: '127.0.0.1',
  LOG_LEVEL: 'silent',
  RATE_LIMIT_POINTS: '1000000000',
  PUBLIC_URL: 'http://bench.local',
  APP_URL: 'http://bench.local',
});
// createApp tells the benchmark every statement its client sends (db_queries_total counts them too).
let captured: { statements: string[]; times: number[] } | null = null;
const app: App = createApp({
  config,
  onQuery: (sql) => {
    if (captured) {
      captured.statements.push(sql);
      captured.times.push(performance.timeOrigin + performance.now());
    }
  },
});
const baseUrl = await app.listen();
// The job dispatcher polls its table once as the server starts: let that pass before reporting
// ready, so that the statements captured for the first measured request are the request's own.
for (let last = -1; ; ) {
  const count = (await app.metrics.dbQueries.get()).values[0]?.value ?? 0;
  if (count === last) break;
  last = count;
  await new Promise((resolve) => setTimeout(resolve, 200));
}

let closing = false;
async function shutdown() {
  if (closing) return;
  closing = true;
  await app.close();
  process.exit(0);
}
process.on('SIGTERM', shutdown);
process.on('SIGINT', shutdown);
process.on('disconnect', shutdown);

// On request of the parent: {sql: 'start'} then {sql: 'stop'} (the statements sent meanwhile, with their
// times as epoch ms); {profile: 'start', intervalUs} then {profile: 'stop', file} (the steady state only).
let session: import('node:inspector/promises').Session | null = null;
process.on('message', async (message: { profile?: 'start' | 'stop'; intervalUs?: number; file?: string; sql?: 'start' | 'stop' }) => {
  if (message.sql === 'start') {
    captured = { statements: [], times: [] };
    process.send?.({ sql: 'started' });
  } else if (message.sql === 'stop') {
    process.send?.({ sql: 'stopped', statements: captured?.statements ?? [], times: captured?.times ?? [] });
    captured = null;
  } else if (message.profile === 'start') {
    const { Session } = await import('node:inspector/promises');
    session = new Session();
    session.connect();
    await session.post('Profiler.enable');
    await session.post('Profiler.setSamplingInterval', { interval: message.intervalUs ?? 200 });
    await session.post('Profiler.start');
    process.send?.({ profile: 'started' });
  } else if (message.profile === 'stop' && session) {
    const { profile } = await session.post('Profiler.stop');
    const { writeFileSync } = await import('node:fs');
    writeFileSync(message.file!, JSON.stringify(profile));
    session.disconnect();
    session = null;
    process.send?.({ profile: 'stopped', file: message.file });
  }
});

process.send?.({ ready: true, baseUrl });

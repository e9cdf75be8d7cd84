/**
 * `npm start` (scripts/start.js) and the Docker image's `node dist/main.js`: migrate the database,
 * serve, and shut down gracefully on SIGTERM/SIGINT.
 *
 * A start that fails (invalid settings, a database that cannot be opened or reached, a port in use)
 * is one JSON log line saying what and which setting, and exit code 1: not the stack of the
 * schema engine's wasm frames.
 */
import pino, { type Logger } from 'pino';
import { loadConfig, type AppConfig } from './config.ts';
import { migrate } from './db/migrate.ts';
import { parseDatabaseUrl, type DatabaseConfig } from './db/provider/config.ts';
import { prepareDatabase } from './db/provider/setup.ts';
import { createApp, type App } from './server.ts';

type Stage = 'configuration' | 'database' | 'startup' | 'listen';

/** Where the start failed and the message of its error (first lines only: no stack). */
class StartupFailure extends Error {
  constructor(
    readonly stage: Stage,
    message: string,
    readonly code?: string,
  ) {
    super(message);
  }
}

/** An error's own message, without the stack and the engine's advice lines after a blank line. */
function messageOf(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return text.split(/\n\s*\n/)[0]!.replace(/\s*\n\s*/g, ' ').trim() || 'unknown error';
}

function codeOf(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

/** Where the database is, without its credentials, for the message. */
function databaseName(database: DatabaseConfig): string {
  if (database.provider === 'sqlite') return `the SQLite database ${database.file ?? ''}`.trim();
  const pg = database.pg!;
  return `the PostgreSQL database ${pg.database} at ${pg.host}:${pg.port}`;
}

async function step<T>(stage: Stage, describe: (error: unknown) => string, fn: () => Promise<T> | T): Promise<T> {
  try {
    return await fn();
  } catch (error) {
    throw new StartupFailure(stage, describe(error), codeOf(error));
  }
}

async function start(log: { current: Logger }): Promise<App> {
  const config: AppConfig = await step('configuration', messageOf, () => loadConfig());
  log.current = pino({ level: config.logLevel });
  const database = await step('configuration', messageOf, () => parseDatabaseUrl(config.databaseUrl));
  const cannotOpen = (error: unknown) => `cannot open ${databaseName(database)} (DATABASE_URL): ${messageOf(error)}`;
  await step('database', cannotOpen, () => prepareDatabase(database));
  const { applied } = await step('database', cannotOpen, () => migrate(database));
  const app = await step('startup', messageOf, () => createApp({ config, log: log.current }));
  if (applied.length) app.log.info({ applied }, 'applied database migrations');
  const url = await step(
    'listen',
    (error) => {
      const where = `port ${config.port} of ${config.host} (PORT, HOST)`;
      if (codeOf(error) === 'EADDRINUSE') return `cannot listen on ${where}: the port is already in use`;
      if (codeOf(error) === 'EACCES') return `cannot listen on ${where}: permission denied`;
      return `cannot listen on ${where}: ${messageOf(error)}`;
    },
    () => app.listen(),
  );
  app.log.info({ url, graphql: `${url}/graphql`, rest: `${url}/v1`, database: database.provider }, 'listening');
  return app;
}

/**
 * Ends the process once what was logged reached stdout. pino writes asynchronously: a line logged
 * just before `process.exit` can still be on its way to the file descriptor and is lost with the
 * process (the "stopped" line went missing so on a busy machine). A stdout that no longer drains
 * does not keep the process past two seconds.
 */
function exitAfterLogging(logger: Logger, code: number): void {
  process.exitCode = code;
  logger.flush(() => process.exit(code));
  setTimeout(() => process.exit(code), 2_000).unref();
}

/** Stops the server gracefully on SIGTERM and SIGINT, once, and ends the process. */
function stopOnSignals(app: App): void {
  let stopping = false;
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.on(signal, () => {
      if (stopping) return;
      stopping = true;
      app.log.info({ signal }, 'shutting down: closing subscriptions, finishing in-flight requests');
      app.close().then(
        ({ webSockets, eventStreams }) => {
          app.log.info({ webSockets, eventStreams }, `stopped: closed ${webSockets} WebSocket connection(s) (1001 going away) and ended ${eventStreams} SSE stream(s)`);
          exitAfterLogging(app.log, 0);
        },
        (error: unknown) => {
          app.log.error({ err: error }, 'shutdown failed');
          exitAfterLogging(app.log, 1);
        },
      );
    });
  }
}

const log = { current: pino() };
try {
  stopOnSignals(await start(log));
} catch (error) {
  const failure = error instanceof StartupFailure ? error : new StartupFailure('startup', messageOf(error), codeOf(error));
  log.current.fatal({ stage: failure.stage, ...(failure.code && { code: failure.code }) }, `cannot start: ${failure.message}`);
  exitAfterLogging(log.current, 1);
}

/** `npm start`: migrate the database, serve, and shut down gracefully on SIGTERM/SIGINT. */
import { loadConfig } from './config.ts';
import { migrate } from './db/migrate.ts';
import { parseDatabaseUrl } from './db/provider/config.ts';
import { prepareDatabase } from './db/provider/setup.ts';
import { createApp } from './server.ts';

const config = loadConfig();
const database = parseDatabaseUrl(config.databaseUrl);
await prepareDatabase(database);
const { applied } = await migrate(database);

const app = createApp({ config });
if (applied.length) app.log.info({ applied }, 'applied database migrations');
const url = await app.listen();
app.log.info({ url, graphql: `${url}/graphql`, rest: `${url}/v1`, database: database.provider }, 'listening');

let stopping = false;
for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.on(signal, () => {
    if (stopping) return;
    stopping = true;
    app.log.info({ signal }, 'shutting down: finishing in-flight requests');
    app.close().then(
      () => process.exit(0),
      (error: unknown) => {
        app.log.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  });
}

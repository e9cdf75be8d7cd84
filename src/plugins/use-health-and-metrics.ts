/**
 * `GET /healthz` (200 when the database answers `SELECT 1` within
 * `timeoutMs`, 503 otherwise, saying why) and `GET /metrics` (Prometheus).
 */
import type { Plugin } from 'graphql-yoga';
import type { Db } from '../db/client.ts';
import { DATABASE_RETRY_AFTER_SECONDS, DatabaseUnavailableError } from '../errors/external.ts';
import { toAppError } from '../errors/to-app-error.ts';
import type { Metrics } from '../metrics.ts';

/** Why the database is not healthy, or null when it answered within `timeoutMs`. */
async function databaseProblem(db: Db, timeoutMs: number): Promise<string | null> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<string>((resolve) => {
    timer = setTimeout(() => resolve(`the database did not answer within ${timeoutMs} ms`), timeoutMs);
  });
  // The query goes on after the deadline (its own timeouts end it); its failure then has no one to tell.
  const query = db.$queryRawUnsafe('SELECT 1').then(
    () => null,
    (error: unknown) => {
      const appError = toAppError(error);
      return appError instanceof DatabaseUnavailableError ? appError.message : 'the database answered an error';
    },
  );
  try {
    return await Promise.race([query, deadline]);
  } finally {
    clearTimeout(timer);
  }
}

export function useHealthAndMetrics(options: { db: Db; metrics: Metrics; timeoutMs: number }): Plugin {
  return {
    async onRequest({ request, url, endResponse, fetchAPI }) {
      if (request.method !== 'GET' && request.method !== 'HEAD') return;
      if (url.pathname === '/healthz') {
        const problem = await databaseProblem(options.db, options.timeoutMs);
        endResponse(
          problem === null
            ? fetchAPI.Response.json({ status: 'ok' })
            : fetchAPI.Response.json(
                { status: 'unavailable', error: problem },
                { status: 503, headers: { 'Retry-After': String(DATABASE_RETRY_AFTER_SECONDS) } },
              ),
        );
      } else if (url.pathname === '/metrics') {
        endResponse(new fetchAPI.Response(await options.metrics.registry.metrics(), { headers: { 'content-type': options.metrics.registry.contentType } }));
      }
    },
  };
}

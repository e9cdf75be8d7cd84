/**
 * `GET /healthz`: liveness, 200 while the process answers HTTP (no database:
 * a database outage must not get a healthy process restarted). `GET /readyz`:
 * readiness, 200 when the database answers `SELECT 1`, and Redis a PING when
 * REDIS_URL is set, each within `timeoutMs`; else 503 naming each check that
 * failed and why. `GET /metrics`: Prometheus.
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

/** Why `check` did not succeed within `timeoutMs`, or null when it did. */
async function checkProblem(name: string, check: () => Promise<void>, timeoutMs: number): Promise<string | null> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<string>((resolve) => {
    timer = setTimeout(() => resolve(`${name} did not answer within ${timeoutMs} ms`), timeoutMs);
  });
  const run = check().then(
    () => null,
    (error: unknown) => `${name} answered an error: ${error instanceof Error ? error.message : String(error)}`,
  );
  try {
    return await Promise.race([run, deadline]);
  } finally {
    clearTimeout(timer);
  }
}

export interface HealthOptions {
  db: Db;
  metrics: Metrics;
  /** HEALTH_TIMEOUT_MS: how long each readiness check may take. */
  timeoutMs: number;
  /** PINGs Redis (with REDIS_URL); undefined: no Redis to check. */
  pingRedis?: () => Promise<void>;
}

export function useHealthAndMetrics(options: HealthOptions): Plugin {
  return {
    async onRequest({ request, url, endResponse, fetchAPI }) {
      if (request.method !== 'GET' && request.method !== 'HEAD') return;
      if (url.pathname === '/healthz') {
        endResponse(fetchAPI.Response.json({ status: 'ok' }));
      } else if (url.pathname === '/readyz') {
        const [database, redis] = await Promise.all([
          databaseProblem(options.db, options.timeoutMs),
          options.pingRedis ? checkProblem('Redis', options.pingRedis, options.timeoutMs) : Promise.resolve(undefined),
        ]);
        const checks: Record<string, { status: 'ok' | 'unavailable'; error?: string }> = {
          database: database === null ? { status: 'ok' } : { status: 'unavailable', error: database },
        };
        if (redis !== undefined) checks.redis = redis === null ? { status: 'ok' } : { status: 'unavailable', error: redis };
        const failed = Object.entries(checks).filter(([, check]) => check.status !== 'ok');
        endResponse(
          failed.length === 0
            ? fetchAPI.Response.json({ status: 'ok', checks })
            : fetchAPI.Response.json(
                // `error`: the first failure in words, for a glance; `checks`: each of them.
                { status: 'unavailable', error: failed.map(([, check]) => check.error).join('; '), checks },
                { status: 503, headers: { 'Retry-After': String(DATABASE_RETRY_AFTER_SECONDS) } },
              ),
        );
      } else if (url.pathname === '/metrics') {
        endResponse(new fetchAPI.Response(await options.metrics.registry.metrics(), { headers: { 'content-type': options.metrics.registry.contentType } }));
      }
    },
  };
}

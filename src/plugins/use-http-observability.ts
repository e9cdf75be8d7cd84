/**
 * Request id, structured access log and request duration metric, per request.
 * The route label is the REST route pattern (set by the REST runtime) so
 * metrics do not explode with ids.
 */
import { randomUUID } from 'node:crypto';
import type { Plugin } from 'graphql-yoga';
import type { Logger } from 'pino';
import type { Metrics } from '../metrics.ts';

const started = new WeakMap<Request, { at: bigint; id: string; route: string }>();

/** Lets the REST runtime name the route a request matched. */
export function setRouteLabel(request: Request, route: string | null) {
  const entry = started.get(request);
  if (entry) entry.route = route ?? 'unmatched';
}

export function requestId(request: Request): string | undefined {
  return started.get(request)?.id;
}

export function useHttpObservability(options: { log: Logger; metrics: Metrics; graphqlEndpoint: string }): Plugin {
  return {
    onRequest({ request, url }) {
      const id = request.headers.get('x-request-id')?.slice(0, 128) || randomUUID();
      const route = url.pathname === options.graphqlEndpoint || ['/healthz', '/readyz', '/metrics'].includes(url.pathname) ? url.pathname : 'unmatched';
      started.set(request, { at: process.hrtime.bigint(), id, route });
    },
    onResponse({ request, response }) {
      const entry = started.get(request);
      if (!entry) return;
      const seconds = Number(process.hrtime.bigint() - entry.at) / 1e9;
      response.headers.set('x-request-id', entry.id);
      options.metrics.httpDuration.observe({ method: request.method, route: entry.route, status: String(response.status) }, seconds);
      const url = new URL(request.url);
      options.log.info(
        { reqId: entry.id, method: request.method, path: url.pathname, route: entry.route, status: response.status, ms: Math.round(seconds * 1e4) / 10 },
        'request',
      );
    },
  };
}

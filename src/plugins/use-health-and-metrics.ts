/** `GET /healthz` (200 when the database answers, 503 otherwise) and `GET /metrics` (Prometheus). */
import type { Plugin } from 'graphql-yoga';
import type { Db } from '../db/client.ts';
import type { Metrics } from '../metrics.ts';

export function useHealthAndMetrics(options: { db: Db; metrics: Metrics }): Plugin {
  return {
    async onRequest({ request, url, endResponse, fetchAPI }) {
      if (request.method !== 'GET' && request.method !== 'HEAD') return;
      if (url.pathname === '/healthz') {
        try {
          await options.db.$queryRawUnsafe('SELECT 1');
          endResponse(fetchAPI.Response.json({ status: 'ok' }));
        } catch {
          endResponse(fetchAPI.Response.json({ status: 'unavailable', error: 'database did not answer' }, { status: 503 }));
        }
      } else if (url.pathname === '/metrics') {
        endResponse(new fetchAPI.Response(await options.metrics.registry.metrics(), { headers: { 'content-type': options.metrics.registry.contentType } }));
      }
    },
  };
}

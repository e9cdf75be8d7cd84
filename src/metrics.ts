/** Prometheus metrics of one app instance (its own registry, so tests can run several apps). */
import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

export function createMetrics() {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  return {
    registry,
    httpDuration: new Histogram({
      name: 'http_request_duration_seconds',
      help: 'HTTP request durations by method, route and status',
      labelNames: ['method', 'route', 'status'] as const,
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
      registers: [registry],
    }),
    dbQueries: new Counter({
      name: 'db_queries_total',
      help: 'SQL statements sent to the database',
      registers: [registry],
    }),
  };
}

export type Metrics = ReturnType<typeof createMetrics>;

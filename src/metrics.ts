/** Prometheus metrics of one app instance (its own registry, so tests can run several apps). */
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/** What a PostgreSQL pool (node-postgres) says of its connections. */
export interface PoolCounts {
  totalCount: number;
  idleCount: number;
  waitingCount: number;
}

/** Distinct operation names kept as labels; later ones count as `other` (names are the client's choice). */
export const MAX_OPERATION_NAMES = 500;

export function createMetrics() {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  // Filled in by the app once it has them (the job table's counts, the database pool).
  let queuedJobs: (() => Promise<Array<{ kind: string; count: number }>>) | null = null;
  let pool: PoolCounts | null = null;
  const operationNames = new Set<string>();
  const metrics = {
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
    jobsQueued: new Gauge({
      name: 'jobs_queued',
      help: 'Jobs waiting for a worker, by kind, in the whole deployment (read from the job table when scraped)',
      labelNames: ['kind'] as const,
      registers: [registry],
      async collect() {
        if (!queuedJobs) return;
        // A database that does not answer leaves the last values: /metrics itself still answers.
        const counts = await queuedJobs().catch(() => null);
        if (!counts) return;
        this.reset();
        for (const { kind, count } of counts) this.set({ kind }, count);
      },
    }),
    jobsRunning: new Gauge({
      name: 'jobs_running',
      help: 'Jobs this process is running now, by kind',
      labelNames: ['kind'] as const,
      registers: [registry],
    }),
    jobsSucceeded: new Counter({
      name: 'jobs_succeeded_total',
      help: 'Jobs this process finished successfully, by kind',
      labelNames: ['kind'] as const,
      registers: [registry],
    }),
    jobsFailed: new Counter({
      name: 'jobs_failed_total',
      help: 'Jobs this process finished as failed, by kind',
      labelNames: ['kind'] as const,
      registers: [registry],
    }),
    jobDuration: new Histogram({
      name: 'job_duration_seconds',
      help: 'How long a job ran on this process, from its claim to its end, by kind and final state (succeeded, failed, cancelled)',
      labelNames: ['kind', 'state'] as const,
      buckets: [0.1, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600, 1800],
      registers: [registry],
    }),
    subscriptionsOpen: new Gauge({
      name: 'graphql_subscriptions_open',
      help: 'Subscriptions open now, by transport (graphql-ws, sse, http)',
      labelNames: ['transport'] as const,
      registers: [registry],
    }),
    operations: new Counter({
      name: 'graphql_operations_total',
      help: 'GraphQL operations (REST routes included, under their operation names) by name, type and outcome (ok, error)',
      labelNames: ['operation', 'type', 'outcome'] as const,
      registers: [registry],
    }),
    dbPoolConnections: new Gauge({
      name: 'db_pool_connections',
      help: 'PostgreSQL pool connections by state (in_use, idle) and requests waiting for one (waiting); absent on SQLite, which has one connection and no pool',
      labelNames: ['state'] as const,
      registers: [registry],
      collect() {
        if (!pool) return;
        this.set({ state: 'in_use' }, pool.totalCount - pool.idleCount);
        this.set({ state: 'idle' }, pool.idleCount);
        this.set({ state: 'waiting' }, pool.waitingCount);
      },
    }),
    /** Counts the job table's queued jobs when scraped. */
    countQueuedJobsWith(source: () => Promise<Array<{ kind: string; count: number }>>) {
      queuedJobs = source;
    },
    /** Reports this pool's connections when scraped. */
    observePool(counts: PoolCounts) {
      pool = counts;
    },
    /** The label of an operation's name: itself while fewer than MAX_OPERATION_NAMES were seen, else `other`. */
    operationLabel(name: string | null | undefined): string {
      if (!name) return 'anonymous';
      if (operationNames.has(name)) return name;
      if (operationNames.size >= MAX_OPERATION_NAMES || name.length > 100) return 'other';
      operationNames.add(name);
      return name;
    },
  };
  return metrics;
}

export type Metrics = ReturnType<typeof createMetrics>;

/** What the job runner reports (a part of Metrics, so the jobs need not know the rest). */
export type JobMetrics = Pick<Metrics, 'jobsRunning' | 'jobsSucceeded' | 'jobsFailed' | 'jobDuration'>;

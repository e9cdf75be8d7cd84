/**
 * Job events: every transition and progress step of a job, numbered within the job
 * (`sequence` 1, 2, ...) and stored with the change (the JobEvent table, written by
 * job-store.ts), then published on the `job` topic of the process's event hub
 * (src/event-bus.ts): in-process by default; with REDIS_URL, on a Redis channel, so a
 * subscriber on one server process sees a job run by another.
 *
 * The bus is fast, not faithful; the store is the record. When the bus may have lost
 * events (`resync`), a listener reads what it missed from the store (src/jobs/job-feed.ts).
 */
import type { Logger } from 'pino';
import { createEventHub, type EventBus, type EventHub, type EventListener } from '../event-bus.ts';
import type { JobKind, JobState } from '../db/value-sets.ts';

/** JOB_STATES and JOB_KINDS of src/db/value-sets.ts. */
export type { JobKind, JobState };

/** States a job never leaves: its event reaching one is its last. */
export const FINAL_JOB_STATES: ReadonlySet<string> = new Set<JobState>(['succeeded', 'failed', 'cancelled']);

export interface JobEvent {
  id: string;
  organizationId: string;
  spaceId: string | null;
  translationId: string | null;
  kind: JobKind;
  state: JobState;
  step: string | null;
  percent: number;
  message: string | null;
  /** What it made, once succeeded (revision, space, commit, ...). */
  result: Record<string, unknown> | null;
  error: string | null;
  /** When the change was written (ISO). */
  at: string;
  /** The number of this change within the job: 1 (created), 2, ...; no gaps. */
  sequence: number;
}

/** A job event bus: the `job` topic of the process's event hub (src/event-bus.ts). */
export type JobEventListener = EventListener<JobEvent>;
export type JobEventBus = EventBus<JobEvent>;

/** The job topic of `hub`. */
export function jobEventBus(hub: EventHub): JobEventBus {
  return hub.topic<JobEvent>('job');
}

/**
 * A job event bus on a hub of its own (closing the bus closes the hub): for tools and tests
 * that need job events alone. `namespace` keeps deployments (databases) that share one Redis
 * apart: their events travel on different channels.
 */
export function createJobEventBus(redisUrl: string | undefined, options: { namespace?: string; log?: Logger } = {}): JobEventBus {
  const hub = createEventHub(redisUrl, options);
  const bus = jobEventBus(hub);
  return { publish: (event) => bus.publish(event), listen: (listener) => bus.listen(listener), ping: () => hub.ping(), close: () => hub.close() };
}

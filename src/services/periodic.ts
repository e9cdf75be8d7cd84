/**
 * Housekeeping that runs every so often in each process (the bin of deleted spaces, stored bytes
 * nothing refers to): one timer per task, first run after one interval, never keeping the process
 * alive, and a failure logged rather than thrown. Each task is safe to run in several processes at
 * once.
 */
import type { Logger } from 'pino';

export interface PeriodicTask {
  /** Says what failed, in the log. */
  name: string;
  intervalSeconds: number;
  run: () => Promise<unknown>;
}

/** Starts the task's timer; returns a stop function. A run is skipped while the previous one is still going. */
export function startPeriodic(task: PeriodicTask, log: Logger): () => void {
  let running = false;
  const timer = setInterval(() => {
    if (running) return;
    running = true;
    task
      .run()
      .catch((error: unknown) => log.error({ err: error }, `${task.name} failed`))
      .finally(() => {
        running = false;
      });
  }, task.intervalSeconds * 1000);
  timer.unref();
  return () => clearInterval(timer);
}

/**
 * Errors that never reach a caller as such: how workers tell each other what
 * happened to a job. The runner turns them into a job's final state.
 */

/** A job was cancelled while it ran; it stops at its next step. */
export class JobCancelledError extends Error {
  constructor() {
    super('Cancelled');
  }
}

/** The worker's lease was taken over (it was too slow to renew, or the job was cancelled). */
export class LostJobError extends Error {
  constructor(id: string) {
    super(`Job ${id} is no longer held by this worker`);
  }
}

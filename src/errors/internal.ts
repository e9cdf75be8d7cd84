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

/**
 * The handler could not do its work now but may later (a server that did not answer): the job
 * is queued again, to be claimed no earlier than `delayMs` from now. The handler bounds how many
 * times it asks (the job's `retries`).
 */
export class RetryLaterError extends Error {
  constructor(
    message: string,
    readonly delayMs: number,
  ) {
    super(message);
  }
}

/**
 * Failures of the outside systems the service calls: a server a remote file
 * is fetched from, a Git server, a translation provider, the insights model
 * API, the database. Each names its reason; a remote fetch, a translation
 * provider and the database reach callers as AppErrors (400, 502, 503), a Git
 * failure ends its job with the message, an insights model failure makes the
 * job read with the default engine.
 */
import { AppError, InvalidInputError } from './index.ts';

export type RemoteFetchFailure =
  | 'invalid-url'
  | 'scheme'
  | 'address'
  | 'redirects'
  | 'status'
  | 'too-large'
  | 'timeout'
  | 'network';

/** Why a remote file could not be fetched; answered as 400 like any InvalidInputError. */
export class RemoteFetchError extends InvalidInputError {
  readonly reason: RemoteFetchFailure;

  constructor(reason: RemoteFetchFailure, message: string) {
    super(message);
    this.name = 'RemoteFetchError';
    this.reason = reason;
  }
}

export type GitSyncFailure =
  | 'invalid-input'
  | 'address'
  | 'network'
  | 'timeout'
  | 'aborted'
  | 'redirects'
  | 'status'
  | 'protocol'
  | 'auth'
  | 'forbidden'
  | 'not-found'
  | 'branch-not-found'
  | 'directory-not-found'
  | 'too-large'
  | 'non-fast-forward'
  | 'rejected'
  | 'failed';

/** Why a Git operation failed; `message` is meant for a person (the job records it). */
export class GitSyncError extends Error {
  readonly reason: GitSyncFailure;

  constructor(reason: GitSyncFailure, message: string) {
    super(message);
    this.name = 'GitSyncError';
    this.reason = reason;
  }
}

/** Why a provider failed. */
export type TranslationProviderFailure = 'http' | 'timeout' | 'network' | 'malformed';

/**
 * A translation provider could not translate: it answered an error status,
 * did not answer in time, could not be reached, or answered something
 * unusable. A 502 when it reaches a client.
 */
export class TranslationProviderError extends AppError {
  readonly code = 'TRANSLATION_PROVIDER_ERROR';
  readonly status = 502;
  /** The provider's name (`libretranslate`, `openai`). */
  readonly provider: string;
  readonly reason: TranslationProviderFailure;
  /** The provider's HTTP status, for `http` failures. */
  readonly httpStatus: number | null;

  constructor(provider: string, reason: TranslationProviderFailure, message: string, options: { httpStatus?: number; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'TranslationProviderError';
    this.provider = provider;
    this.reason = reason;
    this.httpStatus = options.httpStatus ?? null;
  }
}

/** Why the insights model API failed: the JSON POST's reasons, or `invalid`: JSON that is not the answer asked for. */
export type InsightsModelFailure = 'http' | 'timeout' | 'network' | 'malformed' | 'invalid';

/**
 * The optional insights model API (INSIGHTS_PROVIDER) could not answer, or
 * answered something unusable. It never reaches a client: the
 * conversation-processing job retries, then reads with the default engine.
 */
export class InsightsModelError extends AppError {
  readonly code = 'INSIGHTS_MODEL_ERROR';
  readonly status = 502;
  readonly reason: InsightsModelFailure;
  /** The API's HTTP status, for `http` failures. */
  readonly httpStatus: number | null;

  constructor(reason: InsightsModelFailure, message: string, options: { httpStatus?: number; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'InsightsModelError';
    this.reason = reason;
    this.httpStatus = options.httpStatus ?? null;
  }
}

/** Why the database could not serve a request. */
export type DatabaseFailure = 'unreachable' | 'timeout';

/** Seconds a client is told to wait before retrying when the database is unavailable. */
export const DATABASE_RETRY_AFTER_SECONDS = 5;

/**
 * The database could not be reached, dropped the connection, or did not
 * answer within the configured timeouts (connect, statement, pool). A 503
 * with Retry-After: the request can be sent again once it is back, which the
 * service notices by itself (no restart).
 */
export class DatabaseUnavailableError extends AppError {
  readonly code = 'DATABASE_UNAVAILABLE';
  readonly status = 503;
  readonly reason: DatabaseFailure;

  constructor(reason: DatabaseFailure, options: { cause?: unknown } = {}) {
    super(
      reason === 'timeout'
        ? `The database did not answer in time; try again in ${DATABASE_RETRY_AFTER_SECONDS} seconds`
        : `The database cannot be reached; try again in ${DATABASE_RETRY_AFTER_SECONDS} seconds`,
      options.cause === undefined ? undefined : { cause: options.cause },
    );
    this.name = 'DatabaseUnavailableError';
    this.reason = reason;
    this.headers['Retry-After'] = String(DATABASE_RETRY_AFTER_SECONDS);
  }
}

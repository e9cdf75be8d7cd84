/**
 * Failures of the outside systems the service calls: a server a remote file
 * is fetched from, a Git server, a translation provider. Each names its
 * reason; the first and the last reach callers as AppErrors (400, 502), a Git
 * failure ends its job with the message.
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

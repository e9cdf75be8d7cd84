/**
 * The one error hierarchy. Thrown anywhere (resolvers, policies, the REST
 * runtime); `toAppError` (./to-app-error.ts) finds the one a thrown value
 * carries, ./mask.ts maps it to a GraphQL error, and the REST runtime to the
 * body `{"error":{"code":<status>,"message"}}`.
 */
export abstract class AppError extends Error {
  abstract readonly code: string;
  abstract readonly status: number;
  /** Extra headers the HTTP reply carries (Retry-After, ...). */
  readonly headers: Record<string, string> = {};
}

export class InvalidInputError extends AppError {
  readonly code = 'BAD_REQUEST';
  readonly status = 400;
}

/**
 * Input over one of the service's work limits (Markdown length, nesting, inline delimiters; the
 * conversion deadline): a 400 whose message names the limit and the setting that configures it.
 */
export class LimitExceededError extends InvalidInputError {
  /** The setting of the limit (`MARKDOWN_MAX_NESTING`). */
  readonly setting: string;

  constructor(message: string, setting: string) {
    super(message);
    this.name = 'LimitExceededError';
    this.setting = setting;
  }

  /** The same error for the input at `field` (`changes[0].document.markdown`): the message starts with the field. */
  at(field: string): LimitExceededError {
    return new LimitExceededError(`${field}: ${this.message}`, this.setting);
  }
}

export class UnauthenticatedError extends AppError {
  readonly code = 'UNAUTHENTICATED';
  readonly status = 401;
  constructor(message = 'Authentication required: send "Authorization: Bearer <token>"') {
    super(message);
  }
}

export class ForbiddenError extends AppError {
  readonly code = 'FORBIDDEN';
  readonly status = 403;
  /** `action`: the policy action refused (`space:update`): the message names it. */
  constructor(action: string) {
    const [resource = '', verb = action] = action.split(':');
    super(`Your role does not allow this: ${verb.replace(/-/g, ' ')} on a ${resource.replace(/-/g, ' ')} (${action})`);
  }
}

export class NotFoundError extends AppError {
  readonly code = 'NOT_FOUND';
  readonly status = 404;
  /** `hint`: what the caller can do about it, appended to the message. */
  constructor(type: string, id?: string, hint?: string) {
    super(`${id === undefined ? `${type} not found` : `${type} ${JSON.stringify(id)} not found`}${hint ? `: ${hint}` : ''}`);
  }
}

export class MethodNotAllowedError extends AppError {
  readonly code = 'METHOD_NOT_ALLOWED';
  readonly status = 405;
}

export class ConflictError extends AppError {
  readonly code = 'CONFLICT';
  readonly status = 409;
}

export class PreconditionFailedError extends AppError {
  readonly code = 'PRECONDITION_FAILED';
  readonly status = 412;
}

export class PayloadTooLargeError extends AppError {
  readonly code = 'PAYLOAD_TOO_LARGE';
  readonly status = 413;
}

export class RateLimitedError extends AppError {
  readonly code = 'RATE_LIMITED';
  readonly status = 429;
  constructor(retryAfterSeconds: number, headers: Record<string, string>) {
    super(`Too many requests: retry in ${retryAfterSeconds} seconds`);
    Object.assign(this.headers, headers, { 'Retry-After': String(retryAfterSeconds) });
  }
}

/** The service cannot take the work now (its conversion queue is full, or it is stopping); `retryAfterSeconds` is sent as Retry-After. */
export class ServiceUnavailableError extends AppError {
  readonly code = 'SERVICE_UNAVAILABLE';
  readonly status = 503;
  constructor(message: string, retryAfterSeconds?: number) {
    super(message);
    if (retryAfterSeconds !== undefined) this.headers['Retry-After'] = String(retryAfterSeconds);
  }
}

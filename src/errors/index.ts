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

/** A path into an input value: member names and list indexes. */
export type InputPath = readonly (string | number)[];

/** `path` as a caller writes it: `parent.title`, `changes[0].files[1].name` (`prefix` first). */
export function inputPathName(prefix: string, path: InputPath): string {
  return path.reduce<string>((name, key) => (typeof key === 'number' ? `${name}[${key}]` : name ? `${name}.${key}` : key), prefix);
}

/**
 * Text no database stores (src/db/storable-text.ts) in a GraphQL variable
 * (`$input.title: ...`) or an argument written in the document
 * (`argument input.title: ...`). `variable` and `path` say where, so the REST
 * runtime can name the path parameter, query parameter or body field instead.
 */
export class UnstorableTextError extends InvalidInputError {
  /** `must not contain U+0000 (NUL), ...` */
  readonly problem: string;
  /** The variable that held it, or null for an argument written in the document. */
  readonly variable: string | null;
  /** Where in the variable's value (or below the argument's name). */
  readonly path: InputPath;

  constructor(problem: string, place: { variable: string; path: InputPath } | { argument: string; path: InputPath }) {
    super(
      'variable' in place
        ? `${inputPathName(`$${place.variable}`, place.path)}: ${problem}`
        : `argument ${inputPathName(place.argument, place.path)}: ${problem}`,
    );
    this.problem = problem;
    this.variable = 'variable' in place ? place.variable : null;
    this.path = place.path;
  }
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
  /** `action`: the policy action refused (`space:update`): the message names it, and `reason` when given. */
  constructor(action: string, reason?: string) {
    const [resource = '', verb = action] = action.split(':');
    super(`Your role does not allow this: ${verb.replace(/-/g, ' ')} on a ${resource.replace(/-/g, ' ')} (${action})${reason ? `: ${reason}` : ''}`);
  }
}

/** 403: an admin disabled the caller's membership of the organization; nothing of it is open to them until re-enabled. */
export class MemberDisabledError extends AppError {
  readonly code = 'FORBIDDEN';
  readonly status = 403;
  constructor(organizationId: string) {
    super(`Your membership of organization ${JSON.stringify(organizationId)} is disabled: an admin of the organization can enable it again`);
  }
}

/**
 * 403: the organization's own settings refuse this, whatever the caller's role: invite links
 * turned off (`inviteLinks: false`). Single sign-on (`sso: true`) has its own: SsoRequiredError.
 */
export class OrganizationSettingError extends AppError {
  readonly code = 'FORBIDDEN';
  readonly status = 403;
}

/** 403: the caller's role allows the action, but their token's scopes do not. */
export class MissingScopeError extends AppError {
  readonly code = 'FORBIDDEN';
  readonly status = 403;
  /** `scope`: the scope the token lacks, or `unscoped` when only a token without scopes may act. */
  constructor(action: string, scope: string) {
    super(
      scope === 'unscoped'
        ? `This token's scopes do not allow this: ${action} needs a token without scopes`
        : `This token's scopes do not allow this: ${action} needs the scope ${scope}`,
    );
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

/**
 * 403: a sign-in through an identity provider is refused: its SAML response does not hold
 * (signature, issuer, audience, destination, time window, InResponseTo, replay), or the account
 * it names may not be signed in through it. Nothing is written.
 */
export class SignInRefusedError extends AppError {
  readonly code = 'FORBIDDEN';
  readonly status = 403;
}

/** 403: the organization enforces single sign-on (`Organization.sso`): new members join only by signing in through its identity provider. */
export class SsoRequiredError extends AppError {
  readonly code = 'FORBIDDEN';
  readonly status = 403;
  /** `detail`: what of the request it refused (the e-mails of an invite that are not members yet). */
  constructor(organizationId: string, detail?: string) {
    super(
      `Organization ${JSON.stringify(organizationId)} requires single sign-on: new members join by signing in through its identity provider (its start URL), or by an invite with sso${detail ? `. ${detail}` : ''}`,
    );
  }
}

/** 410: what was asked for existed but is no longer usable (an expired or used-up invite link). */
export class GoneError extends AppError {
  readonly code = 'GONE';
  readonly status = 410;
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

/** The request is well formed but cannot be processed as sent (an Idempotency-Key reused for another request). */
export class UnprocessableContentError extends AppError {
  readonly code = 'UNPROCESSABLE_CONTENT';
  readonly status = 422;
}

export class PayloadTooLargeError extends AppError {
  readonly code = 'PAYLOAD_TOO_LARGE';
  readonly status = 413;
}

/** A failure of the server's own (a database that does not answer), said without its details. */
export class UnexpectedError extends AppError {
  readonly code = 'INTERNAL_SERVER_ERROR';
  readonly status = 500;
  constructor() {
    super('Unexpected error');
  }
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

/**
 * The one mapping from errors to GraphQL errors (and, through
 * `extensions.http.status`, to HTTP statuses and the REST error body).
 */
import { GraphQLError } from 'graphql';
import { maskError as yogaMaskError } from 'graphql-yoga';
import { AppError, ConflictError, NotFoundError } from './index.ts';

/** Prisma's known request errors we can explain to the caller. */
function fromPrisma(error: unknown): AppError | null {
  const code = (error as { code?: unknown })?.code;
  const name = (error as { name?: unknown })?.name;
  if (name !== 'PrismaClientKnownRequestError') return null;
  if (code === 'P2002') return new ConflictError('A resource with the same unique value already exists');
  if (code === 'P2025') return new NotFoundError('Resource');
  return null;
}

export function toGraphQLError(error: AppError, original?: GraphQLError): GraphQLError {
  return new GraphQLError(error.message, {
    nodes: original?.nodes,
    source: original?.source,
    positions: original?.positions,
    path: original?.path,
    originalError: error,
    extensions: {
      code: error.code,
      http: { status: error.status, headers: error.headers },
    },
  });
}

/** yoga's `maskedErrors.maskError`: known errors keep their message and status, the rest are logged and hidden. */
export function maskError(error: unknown, message: string, isDev?: boolean): Error {
  const cause = error instanceof GraphQLError ? (error.originalError ?? error) : error;
  // Errors raised inside resolvers arrive wrapped in a GraphQLError; unwrap nested wrappers too.
  const root = cause instanceof GraphQLError && cause.originalError ? cause.originalError : cause;
  const appError = root instanceof AppError ? root : fromPrisma(root);
  if (appError) return toGraphQLError(appError, error instanceof GraphQLError ? error : undefined);
  if (error instanceof GraphQLError && !error.originalError) return error; // parse/validation errors: already safe
  return yogaMaskError(error, message, isDev);
}

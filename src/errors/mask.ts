/**
 * The one mapping from errors to GraphQL errors (and, through
 * `extensions.http.status`, to HTTP statuses and the REST error body).
 */
import { GraphQLError } from 'graphql';
import { maskError as yogaMaskError } from 'graphql-yoga';
import type { AppError } from './index.ts';
import { toAppError } from './to-app-error.ts';

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
  const appError = toAppError(error);
  if (appError) return toGraphQLError(appError, error instanceof GraphQLError ? error : undefined);
  if (error instanceof GraphQLError && !error.originalError) return error; // parse/validation errors: already safe
  return yogaMaskError(error, message, isDev);
}

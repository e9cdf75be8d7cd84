/**
 * The one place that finds the AppError a thrown value carries: itself, the
 * error a GraphQLError wraps (execution wraps a resolver's throw, sometimes
 * twice), or a known Prisma error. The GraphQL mask, the REST runtime and the
 * server's log all ask this function, so they never disagree.
 */
import { GraphQLError } from 'graphql';
import { AppError } from './index.ts';
import { appErrorOfPrisma } from './prisma.ts';

/** The innermost error a chain of GraphQLErrors wraps (the value itself when it wraps nothing). */
export function rootCause(value: unknown): unknown {
  let current = value;
  while (current instanceof GraphQLError && current.originalError) current = current.originalError;
  return current;
}

export function toAppError(value: unknown): AppError | null {
  const cause = rootCause(value);
  if (cause instanceof AppError) return cause;
  return appErrorOfPrisma(cause);
}

/**
 * Whether the caller caused `value` (a 4xx): an AppError of a 4xx, or a
 * GraphQLError that wraps nothing and carries a 4xx status or none (parse and
 * validation errors are the caller's).
 */
export function isClientError(value: unknown): boolean {
  const appError = toAppError(value);
  if (appError) return appError.status < 500;
  if (value instanceof GraphQLError && !value.originalError) {
    const status = (value.extensions?.http as { status?: number } | undefined)?.status;
    return (status ?? 400) < 500;
  }
  return false;
}

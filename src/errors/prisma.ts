/**
 * The Prisma errors the service explains or acts on, recognised in one place:
 * by code for the query engine's known request errors, by the driver
 * adapter's own error where Prisma passes that through (seen with 7.10).
 */
import { type AppError, ConflictError, NotFoundError } from './index.ts';

interface PrismaLikeError {
  code?: unknown;
  name?: unknown;
  cause?: { kind?: unknown };
}

const fields = (error: unknown): PrismaLikeError => (error && typeof error === 'object' ? (error as PrismaLikeError) : {});

/** A write that broke a unique constraint (P2002). */
export function isUniqueViolation(error: unknown): boolean {
  return fields(error).code === 'P2002';
}

/**
 * A transaction the database aborted for a conflict with a concurrent one
 * (PostgreSQL 40001 or 40P01): Prisma's P2034 when a statement fails, the
 * driver adapter's own error when COMMIT does.
 */
export function isWriteConflict(error: unknown): boolean {
  const e = fields(error);
  return e.code === 'P2034' || (e.name === 'DriverAdapterError' && e.cause?.kind === 'TransactionWriteConflict');
}

/** The caller's error a known Prisma request error stands for, or null (anything else is the server's). */
export function appErrorOfPrisma(error: unknown): AppError | null {
  const e = fields(error);
  if (e.name !== 'PrismaClientKnownRequestError') return null;
  if (e.code === 'P2002') return new ConflictError('A resource with the same unique value already exists');
  if (e.code === 'P2025') return new NotFoundError('Resource');
  return null;
}

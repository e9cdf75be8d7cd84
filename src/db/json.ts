/**
 * Values of Json columns (jsonb on PostgreSQL, JSON text on SQLite). Prisma reads
 * them as JsonValue and writes InputJsonValue, with SQL NULL spelled
 * Prisma.DbNull: the conversions live here, the types of each column beside the
 * code that owns it (merge rules, customizations, documents, jobs...).
 */
import { Prisma } from './client.ts';

/** JSON data (what JSON.stringify writes: members that are undefined are left out) as a Json column's value. */
export function jsonInput(value: unknown): Prisma.InputJsonValue {
  return value as Prisma.InputJsonValue;
}

/** For a nullable Json column: null or undefined is SQL NULL, anything else JSON data. */
export function nullableJsonInput(value: unknown): Prisma.InputJsonValue | typeof Prisma.DbNull {
  return value === null || value === undefined ? Prisma.DbNull : jsonInput(value);
}

/** A JSON object as read from a Json column; any other value (array, scalar, null) reads as null. */
export function jsonObject(value: Prisma.JsonValue | null | undefined): Record<string, unknown> | null {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
}

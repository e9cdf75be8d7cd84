/** Translations: loading one the caller may act on, and checking instructions. */
import { authorize, type Action } from '../auth/policies.ts';
import type { JSONDocument } from '../content/document/model.ts';
import type { Context } from '../context.ts';
import type { Prisma } from '../db/client.ts';
import { InvalidInputError, NotFoundError } from '../errors/index.ts';
import { loadOrganization } from './organization.ts';

export const EMPTY_DOCUMENT: JSONDocument = { object: 'document', data: {}, nodes: [] };

/** `value` if it is a JSON document of at most 100,000 characters of JSON; a 400 naming `field` otherwise. */
export function checkDocument(value: unknown, field: string): JSONDocument {
  const d = value as { object?: unknown; nodes?: unknown } | null;
  if (!d || typeof d !== 'object' || d.object !== 'document' || !Array.isArray(d.nodes)) throw new InvalidInputError(`${field}: must be a JSON document`);
  if (JSON.stringify(d).length > 100_000) throw new InvalidInputError(`${field}: at most 100,000 characters of JSON`);
  return d as JSONDocument;
}

/** Translation.instructions as stored: written only after checkDocument accepted it. */
export function storedInstructions(value: Prisma.JsonValue): JSONDocument {
  return value as unknown as JSONDocument;
}

export async function loadTranslation<Q extends object>(ctx: Context, organizationId: string, id: string, action: Action, query?: Q) {
  await loadOrganization(ctx, organizationId, 'organization:read');
  const translation = await ctx.db.translation.findUnique({ ...(query ?? {}), where: { id } });
  if (!translation || translation.organizationId !== organizationId) throw new NotFoundError('Translation', id);
  authorize(ctx.access.organization(organizationId), action, { type: 'Translation', id });
  return translation;
}

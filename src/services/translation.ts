/** Translations: loading one the caller may act on, and checking instructions. */
import { authorize, type Action } from '../auth/policies.ts';
import type { Context } from '../context.ts';
import { InvalidInputError, NotFoundError } from '../errors/index.ts';
import { loadOrganization } from './organization.ts';

export const EMPTY_DOCUMENT = { object: 'document', data: {}, nodes: [] };

export function checkDocument(value: unknown, field: string): string {
  const d = value as { object?: unknown; nodes?: unknown } | null;
  if (!d || typeof d !== 'object' || d.object !== 'document' || !Array.isArray(d.nodes)) throw new InvalidInputError(`${field}: must be a JSON document`);
  const text = JSON.stringify(d);
  if (text.length > 100_000) throw new InvalidInputError(`${field}: at most 100,000 characters of JSON`);
  return text;
}

export async function loadTranslation<Q extends object>(ctx: Context, organizationId: string, id: string, action: Action, query?: Q) {
  await loadOrganization(ctx, organizationId, 'organization:read');
  const translation = await ctx.db.translation.findUnique({ ...(query ?? {}), where: { id } });
  if (!translation || translation.organizationId !== organizationId) throw new NotFoundError('Translation', id);
  authorize(ctx.access.organization(organizationId), action, { type: 'Translation', id });
  return translation;
}

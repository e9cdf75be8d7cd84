/** Organizations: loading one the caller may act on, reading its stored settings. */
import { authorize, type Action } from '../auth/policies.ts';
import type { Context } from '../context.ts';
import type { Prisma } from '../db/client.ts';
import { NotFoundError } from '../errors/index.ts';

/** Loads an organization the caller may act on, or answers 404/403. */
export async function loadOrganization<Q extends object>(ctx: Context, id: string, action: Action, query?: Q) {
  // Non-members learn nothing: check membership before touching the database.
  authorize(ctx.access.organization(id), action, { type: 'Organization', id });
  const org = await ctx.db.organization.findUnique({ ...(query ?? {}), where: { id } });
  if (!org) throw new NotFoundError('Organization', id);
  return org;
}

/** Organization.emailDomains: the e-mail domains whose users may join (an array of strings). */
export function storedEmailDomains(value: Prisma.JsonValue): string[] {
  return Array.isArray(value) ? value.filter((domain): domain is string => typeof domain === 'string') : [];
}

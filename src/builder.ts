/**
 * The one Pothos builder: plugins and options, no types. Resource modules
 * under src/schema/ add their types to it; src/schema/index.ts builds the schema.
 */
import SchemaBuilder from '@pothos/core';
import PrismaPlugin from '@pothos/plugin-prisma';
import ScopeAuthPlugin from '@pothos/plugin-scope-auth';
import ValidationPlugin from '@pothos/plugin-validation';
import type { Context } from './context.ts';
import type PrismaTypes from './db/generated/pothos-types.ts';
import { getDatamodel } from './db/generated/pothos-types.ts';
import type { MemberRole } from './db/value-sets.ts';
import { InvalidInputError, UnauthenticatedError } from './errors/index.ts';

export const builder = new SchemaBuilder<{
  Context: Context;
  PrismaTypes: PrismaTypes;
  AuthScopes: {
    /** A user: an API token. */
    authenticated: boolean;
    /** A user, or the visitor of a site token (src/auth/site-tokens.ts): the reads of a published site. */
    caller: boolean;
  };
  Scalars: {
    DateTime: { Input: Date; Output: Date | string };
    JSON: { Input: unknown; Output: unknown };
    ContentVisibility: { Input: string; Output: string };
    TranslationLanguage: { Input: string; Output: string };
    SiteVisibility: { Input: string; Output: string };
    SiteType: { Input: string; Output: string };
    TokenScope: { Input: string; Output: string };
    ContentReferenceStatus: { Input: string; Output: string };
    TeamMemberships: { Input: Record<string, { role: 'owner' | 'member' }>; Output: Record<string, { role: 'owner' | 'member' }> };
    OrganizationInvitee: { Input: { email: string; role?: MemberRole | null }; Output: never };
  };
}>({
  // scope-auth first, so unauthenticated calls stop before any other plugin runs
  plugins: [ScopeAuthPlugin, PrismaPlugin, ValidationPlugin],
  scopeAuth: {
    authScopes: (ctx) => ({ authenticated: ctx.viewer !== null, caller: ctx.viewer !== null || ctx.access.siteVisitor !== null }),
    unauthorizedError: () => new UnauthenticatedError(),
  },
  prisma: {
    client: (ctx) => ctx.db,
    dmmf: getDatamodel(),
    exposeDescriptions: false,
    onUnusedQuery: null,
  },
  validation: {
    validationError: (result) =>
      new InvalidInputError(
        result.issues
          .map((issue) => {
            const path = (issue.path ?? []).map((p) => (typeof p === 'object' ? p.key : p));
            // The REST body is the `input` argument: name the field as the caller sent it (`changes[0].title`).
            const field = (path[0] === 'input' ? path.slice(1) : path).map((k, i) => (typeof k === 'number' ? `[${k}]` : `${i ? '.' : ''}${String(k)}`)).join('');
            return field ? `${field}: ${issue.message}` : issue.message;
          })
          .join('; '),
      ),
  },
});

builder.queryType({});
builder.mutationType({});
builder.subscriptionType({});

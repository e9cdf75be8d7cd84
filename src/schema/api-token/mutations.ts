/** Creating and revoking the caller's own API tokens. */
import { z } from 'zod';
import { authorize } from '../../auth/policies.ts';
import { issueApiToken, parseExpiry, parseScopes, revokeApiToken, type ApiTokenView } from '../../auth/tokens.ts';
import { builder } from '../../builder.ts';
import { InvalidInputError } from '../../errors/index.ts';
import { TokenScope } from '../shared/enums.ts';
import { ApiToken } from './type.ts';

const CreateApiTokenInput = builder.inputType('CreateApiTokenInput', {
  fields: (t) => ({
    label: t.string({ validate: z.string().max(200, 'must be at most 200 characters') }),
    expiresAt: t.field({ type: 'DateTime', description: 'When the token stops working; default: never' }),
    expiresIn: t.string({ description: 'Or a duration from now: 30d, 12h, 90m, 2w', validate: z.string().max(32, 'must be at most 32 characters') }),
    scopes: t.field({ type: [TokenScope], description: "Limit the token to these scopes; none: it acts with the caller's roles" }),
  }),
});

const CreatedApiToken = builder.objectRef<{ token: string; apiToken: ApiTokenView }>('CreatedApiToken').implement({
  fields: (t) => ({
    token: t.exposeString('token', { description: 'The secret: shown this once, never again' }),
    apiToken: t.field({ type: ApiToken, resolve: (created) => created.apiToken }),
  }),
});

builder.mutationFields((t) => ({
  createApiToken: t.field({
    type: CreatedApiToken,
    description: 'Issue an API token for the caller (needs a token without scopes)',
    authScopes: { authenticated: true },
    args: { input: t.arg({ type: CreateApiTokenInput, required: true }) },
    resolve: async (_root, { input }, ctx) => {
      const viewer = ctx.access.requireViewer();
      authorize(ctx.access.account(), 'account:manage-tokens', { type: 'User', id: viewer.userId });
      if (input.expiresAt && input.expiresIn) throw new InvalidInputError('Give expiresAt or expiresIn, not both');
      const expiresAt = input.expiresIn ? parseExpiry(input.expiresIn, new Date(), 'expiresIn') : (input.expiresAt ?? null);
      return issueApiToken(ctx.db, viewer.userId, { label: input.label, expiresAt, scopes: parseScopes(input.scopes ?? []) });
    },
  }),
  revokeApiToken: t.field({
    type: ApiToken,
    description: "Revoke one of the caller's API tokens: the next request with it answers 401 (needs a token without scopes)",
    authScopes: { authenticated: true },
    args: { id: t.arg.id({ required: true }) },
    resolve: async (_root, { id }, ctx) => {
      const viewer = ctx.access.requireViewer();
      authorize(ctx.access.account(), 'account:manage-tokens', { type: 'User', id: viewer.userId });
      return revokeApiToken(ctx.db, viewer.userId, String(id));
    },
  }),
}));

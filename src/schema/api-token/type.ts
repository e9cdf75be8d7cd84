/** API tokens as their owner sees them: `viewer { tokens }`. Never the secret or its hash. */
import { authorize } from '../../auth/policies.ts';
import { listApiTokens, type ApiTokenView } from '../../auth/tokens.ts';
import { builder } from '../../builder.ts';
import { TokenScope } from '../shared/enums.ts';
import { User } from '../user/type.ts';

export const ApiToken = builder.objectRef<ApiTokenView>('ApiToken').implement({
  description: 'A personal API token (its secret is shown once, by createApiToken)',
  fields: (t) => ({
    id: t.exposeID('id'),
    label: t.exposeString('label', { nullable: true }),
    scopes: t.field({
      type: [TokenScope],
      description: "The scopes the token is limited to; empty: it acts with its user's roles",
      resolve: (token) => token.scopes,
    }),
    createdAt: t.field({ type: 'DateTime', resolve: (token) => token.createdAt }),
    expiresAt: t.field({ type: 'DateTime', nullable: true, description: 'null: never expires', resolve: (token) => token.expiresAt }),
    lastUsedAt: t.field({
      type: 'DateTime',
      nullable: true,
      description: 'When it was last used, to the minute (it is written at most once a minute)',
      resolve: (token) => token.lastUsedAt,
    }),
  }),
});

builder.objectField(User, 'tokens', (t) =>
  t.field({
    type: [ApiToken],
    nullable: true,
    description: "The user's API tokens, newest first: the caller's own only (null for anyone else); needs a token without scopes",
    resolve: async (user, _args, ctx) => {
      const viewer = ctx.access.requireViewer();
      if (user.id !== viewer.userId) return null;
      authorize(ctx.access.account(), 'account:manage-tokens', { type: 'User', id: viewer.userId });
      return listApiTokens(ctx.db, viewer.userId);
    },
  }),
);

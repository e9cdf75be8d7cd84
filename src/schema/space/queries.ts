import { builder } from '../../builder.ts';
import { authorize, can, type Action } from '../../auth/policies.ts';
import type { Context } from '../../context.ts';
import { NotFoundError } from '../../errors/index.ts';
import { Collection } from '../collection/type.ts';
import { Organization } from '../organization/type.ts';
import { itemsQuery, listType, pageArgs, paginate } from '../shared/pagination.ts';
import { openSpaceWithShareKey } from '../site-structure/access.ts';
import { withColumns } from '../shared/select.ts';
import { Space, SPACE_ACCESS_SELECT } from './type.ts';

export const SpaceList = listType('Space', Space);

/** List orders (paginate's sort keys). */
const CREATION_ORDER = [['createdAt', 'asc'], ['id', 'asc']] as const;
const POSITION_ORDER = [['position', 'asc'], ['id', 'asc']] as const;

/** Deleted spaces stay in the bin this long, restorable, before the sweep removes them. */
export const SPACE_RETENTION_MS = 7 * 24 * 60 * 60 * 1000;

/**
 * Loads a space the caller may act on, or answers 404/403. Spaces in the bin
 * are invisible except to `restore` (`inBin: true`). For `space:read` only, a
 * caller who may not read the space otherwise may with `shareKey`, the key of
 * an active share link of a published share-link site that publishes it
 * (read-only: the key opens nothing else).
 */
export async function loadSpace<Q extends object>(
  ctx: Context,
  id: string,
  action: Action,
  query?: Q,
  options: { inBin?: boolean; shareKey?: string | null } = {},
) {
  ctx.access.requireViewer();
  // What the checks below read, besides what the document selects (Space is in select mode).
  const space = await ctx.db.space.findUnique({ ...withColumns(query ?? {}, { deletedAt: true, ...SPACE_ACCESS_SELECT }), where: { id } });
  if (!space || Boolean(space.deletedAt) !== Boolean(options.inBin)) throw new NotFoundError('Space', id);
  const subject = await ctx.access.content(space);
  // A key opening a site that publishes the space also puts the key into its published URL (members included).
  const opened = action === 'space:read' && options.shareKey ? await openSpaceWithShareKey(ctx, space, options.shareKey) : false;
  if (opened && !can(subject, action)) return space;
  authorize(subject, action, { type: 'Space', id });
  return space;
}

builder.queryField('space', (t) =>
  t.prismaField({
    type: Space,
    authScopes: { authenticated: true },
    args: {
      id: t.arg.id({ required: true }),
      shareKey: t.arg.string({
        description: 'Share key of a share-link site publishing the space: lets a non-member read it, and goes into `urls.published`',
      }),
    },
    resolve: (query, _root, { id, shareKey }, ctx) => loadSpace(ctx, String(id), 'space:read', query, { shareKey }),
  }),
);

builder.prismaObjectFields(Organization, (t) => ({
  spaces: t.field({
    type: SpaceList,
    description: 'Spaces of the organization (not those in the bin)',
    args: pageArgs,
    resolve: (org, args, ctx, info) => {
      const subject = ctx.access.organization(org.id);
      authorize(subject, 'organization:read', { type: 'Organization', id: org.id });
      const where = can(subject, 'space:read') ? { organizationId: org.id, deletedAt: null } : { id: { in: [] as string[] } };
      const query = itemsQuery(ctx, info, CREATION_ORDER);
      return paginate({
        ...args,
        orderBy: CREATION_ORDER,
        where,
        findMany: (a) => ctx.db.space.findMany({ ...query, ...a }),
        count: (a) => ctx.db.space.count(a),
      });
    },
  }),
}));

builder.prismaObjectFields(Collection, (t) => ({
  spaces: t.field({
    type: SpaceList,
    description: 'Spaces directly in the collection, in their order',
    args: pageArgs,
    resolve: (collection, args, ctx, info) => {
      const query = itemsQuery(ctx, info, POSITION_ORDER);
      return paginate({
        ...args,
        orderBy: POSITION_ORDER,
        where: { parentId: collection.id, deletedAt: null },
        findMany: (a) => ctx.db.space.findMany({ ...query, ...a }),
        count: (a) => ctx.db.space.count(a),
      });
    },
  }),
}));

/**
 * `Space.links`: every link of the space's current revision (GET /v1/spaces/{spaceId}/links),
 * one per target with the pages it is found on; computed as pageLinks' (src/content/links.ts).
 */
import { builder } from '../../builder.ts';
import { NotFoundError } from '../../errors/index.ts';
import { Space } from '../space/type.ts';
import { ContentReferenceUsageList, linkListArgs, revisionLinkList } from './queries.ts';

builder.prismaObjectFields(Space, (t) => ({
  links: t.field({
    type: ContentReferenceUsageList,
    description: 'Every link of the current content: one per target, with the pages it is found on and its status',
    args: linkListArgs,
    select: { id: true, organizationId: true, revisionId: true },
    resolve: async (space, args, ctx) => {
      const row = await ctx.loaders.revisionById.load(space.revisionId);
      if (!row) throw new NotFoundError('Revision', space.revisionId);
      return revisionLinkList(ctx, { space, revision: { ...row, organizationId: space.organizationId }, changeRequest: null }, args);
    },
  }),
}));

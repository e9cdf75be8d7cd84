import { builder } from '../../builder.ts';
import { loadReadableSite } from '../../services/site.ts';
import { readableSiteArgs } from '../site/args.ts';
import { PublishedContentSite, SiteStructure } from './type.ts';

builder.queryField('siteStructure', (t) =>
  t.prismaField({
    type: SiteStructure,
    description: 'The ordered tree of sections, section groups and site spaces of a site',
    authScopes: { authenticated: true },
    args: readableSiteArgs,
    resolve: (query, _root, args, ctx) => loadReadableSite(ctx, String(args.organizationId), String(args.siteId), args.shareKey, query),
  }),
);

builder.queryField('publishedContentSite', (t) =>
  t.prismaField({
    type: PublishedContentSite,
    description:
      'What the site renderer serves to a visitor: the site, the structure visitors see, customizations and scripts. ' +
      'Members who can read the site get it while the site is unpublished too (a preview); a share key opens only a published site.',
    authScopes: { caller: true },
    args: readableSiteArgs,
    resolve: (query, _root, args, ctx) => loadReadableSite(ctx, String(args.organizationId), String(args.siteId), args.shareKey, query),
  }),
);

/** The arguments that name a site, shared by every field of the site family. */
import { builder } from '../../builder.ts';

/** A site of an organization (REST: the path's `organizationId` and `siteId`). */
export const siteArgs = builder.args((t) => ({
  organizationId: t.id({ required: true }),
  siteId: t.id({ required: true }),
}));

/** The arguments of every read of a site's structure (REST: the path, and `shareKey` from the query string). */
export const readableSiteArgs = builder.args((t) => ({
  organizationId: t.id({ required: true }),
  siteId: t.id({ required: true }),
  shareKey: t.string({ description: 'Share key of a share-link site: lets a non-member read it, and goes into the published URLs' }),
}));

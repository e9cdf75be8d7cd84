/**
 * Reading OpenAPI specs: the organization's list (also `Organization.openAPISpecs`), one by slug,
 * its versions, one version (`latest` names the last) and a version's content. Members read
 * every spec, private ones included (`openapi:read`); a published site's token reads the content
 * of the specs its published pages reference.
 */
import { authorize } from '../../auth/policies.ts';
import { builder } from '../../builder.ts';
import type { Context } from '../../context.ts';
import { paginate } from '../../db/pagination.ts';
import { loadOpenAPISpec, loadOpenAPISpecVersion, openAPIVersionContent } from '../../services/openapi-spec.ts';
import { loadOrganization } from '../../services/organization.ts';
import { Organization } from '../organization/type.ts';
import { itemsQuery, listType, pageArgs } from '../shared/pagination.ts';
import { OpenAPISpec, OpenAPISpecVersion } from './type.ts';
import type { GraphQLResolveInfo } from 'graphql';

export const OpenAPISpecList = listType('OpenAPISpec', OpenAPISpec);
export const OpenAPISpecVersionList = listType('OpenAPISpecVersion', OpenAPISpecVersion);

/** The arguments naming a spec: its organization and slug. */
export const specArgs = builder.args((t) => ({
  organizationId: t.id({ required: true }),
  specSlug: t.string({ required: true }),
}));

/** A page of the organization's specs, oldest first. */
async function listSpecs(ctx: Context, info: GraphQLResolveInfo, organizationId: string, args: { page?: string | null; limit?: number | null }) {
  const org = await loadOrganization(ctx, organizationId, 'organization:read');
  authorize(ctx.access.organization(org.id), 'openapi:read', { type: 'Organization', id: org.id });
  const query = itemsQuery(ctx, info);
  return paginate({
    ...args,
    orderBy: [['createdAt', 'asc'], ['id', 'asc']],
    where: { organizationId: org.id },
    findMany: (a) => ctx.db.openAPISpec.findMany({ ...query, ...a }),
    count: (a) => ctx.db.openAPISpec.count(a),
  });
}

builder.objectField(Organization, 'openAPISpecs', (t) =>
  t.field({
    type: OpenAPISpecList,
    description: "The organization's OpenAPI specs, oldest first",
    args: { ...pageArgs },
    resolve: (org, args, ctx, info) => listSpecs(ctx, info, org.id, args),
  }),
);

builder.queryFields((t) => ({
  openAPISpecs: t.field({
    type: OpenAPISpecList,
    authScopes: { authenticated: true },
    args: { organizationId: t.arg.id({ required: true }), ...pageArgs },
    resolve: (_root, { organizationId, ...args }, ctx, info) => listSpecs(ctx, info, String(organizationId), args),
  }),
  openAPISpec: t.prismaField({
    type: OpenAPISpec,
    authScopes: { authenticated: true },
    args: { ...specArgs },
    resolve: (query, _root, args, ctx) => loadOpenAPISpec(ctx, String(args.organizationId), String(args.specSlug), 'openapi:read', query),
  }),
  openAPISpecVersions: t.field({
    type: OpenAPISpecVersionList,
    description: "A spec's versions, newest first",
    authScopes: { authenticated: true },
    args: { ...specArgs, ...pageArgs },
    resolve: async (_root, { organizationId, specSlug, ...args }, ctx, info) => {
      const spec = await loadOpenAPISpec(ctx, String(organizationId), String(specSlug), 'openapi:read');
      const query = itemsQuery(ctx, info);
      return paginate({
        ...args,
        orderBy: [['createdAt', 'desc'], ['id', 'desc']],
        where: { specId: spec.id },
        findMany: (a) => ctx.db.openAPISpecVersion.findMany({ ...query, ...a }),
        count: (a) => ctx.db.openAPISpecVersion.count(a),
      });
    },
  }),
  openAPISpecVersion: t.prismaField({
    type: OpenAPISpecVersion,
    description: 'A version of a spec; `latest` names its last',
    authScopes: { authenticated: true },
    args: { ...specArgs, versionId: t.arg.string({ required: true }) },
    resolve: async (query, _root, args, ctx) => {
      const { version } = await loadOpenAPISpecVersion(ctx, String(args.organizationId), String(args.specSlug), String(args.versionId));
      return ctx.db.openAPISpecVersion.findUniqueOrThrow({ ...query, where: { id: version.id } });
    },
  }),
  openAPISpecVersionContent: t.field({
    type: 'JSON',
    description:
      "A version's content (`latest`: the last version's): its files by path, and where it came from. A published site's token reads the specs the site's published pages reference, its files as a list (the renderer's Filesystem)",
    authScopes: { caller: true },
    args: { ...specArgs, versionId: t.arg.string({ required: true }) },
    resolve: async (_root, args, ctx) => {
      const { spec, version } = await loadOpenAPISpecVersion(ctx, String(args.organizationId), String(args.specSlug), String(args.versionId));
      return openAPIVersionContent(ctx, { ...version, spec });
    },
  }),
}));

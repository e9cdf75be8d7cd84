/**
 * OpenAPI specs and their versions (GitBook's `OpenAPISpec`, `OpenAPISpecVersion`,
 * `OpenAPISpecContent`). A version's content is its files read back from the storage.
 */
import { can } from '../../auth/policies.ts';
import { builder } from '../../builder.ts';
import { openAPISpecLocation, openAPIVersionContent, openAPIVersionSource, storedFiles } from '../../services/openapi-spec.ts';
import { OpenAPISpecProcessingErrorCode, OpenAPISpecProcessingState, OpenAPISpecVisibility } from '../shared/enums.ts';

const OpenAPISpecPermissions = builder.objectRef<{ view: boolean; edit: boolean }>('OpenAPISpecPermissions').implement({
  fields: (t) => ({ view: t.exposeBoolean('view'), edit: t.exposeBoolean('edit') }),
});

const OpenAPIProblem = builder.objectRef<{ message: string; code?: string | null }>('OpenAPIProblem').implement({
  description: 'Something wrong with a spec, for a person: the file, line and JSON path where known',
  fields: (t) => ({
    message: t.exposeString('message'),
    code: t.string({ nullable: true, resolve: (p) => p.code ?? null }),
  }),
});

export const OpenAPISpec = builder.prismaObject('OpenAPISpec', {
  description: "An OpenAPI document the organization keeps under a slug, processed into versions; pages reference it as `{kind: 'openapi', spec: slug}`",
  fields: (t) => ({
    object: t.string({ resolve: () => 'openapi-spec' }),
    id: t.exposeID('id'),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
    slug: t.exposeString('slug'),
    sourceURL: t.exposeString('sourceURL', { nullable: true, description: 'Where it is fetched from (none for a spec sent as text)' }),
    processingState: t.field({ type: OpenAPISpecProcessingState, resolve: (spec) => spec.processingState as never }),
    visibility: t.field({ type: OpenAPISpecVisibility, resolve: (spec) => spec.visibility as never }),
    lastVersion: t.exposeString('lastVersionId', { nullable: true, description: 'The id of its latest version' }),
    lastProcessedAt: t.expose('lastProcessedAt', { type: 'DateTime', nullable: true }),
    lastProcessErrorCode: t.field({ type: OpenAPISpecProcessingErrorCode, nullable: true, resolve: (spec) => spec.lastProcessErrorCode as never }),
    lastProcessedErrors: t.field({
      type: [OpenAPIProblem],
      description: `Why the last processing failed (at most 20; lastProcessedErrorCount counts them all)`,
      resolve: (spec) => (Array.isArray(spec.lastProcessedErrors) ? (spec.lastProcessedErrors as never) : []),
    }),
    lastProcessedErrorCount: t.exposeInt('lastProcessedErrorCount'),
    processingJob: t.exposeString('processingJobId', {
      nullable: true,
      description: 'The id of the job processing it now or last: follow it with `jobUpdated(id)`',
    }),
    permissions: t.field({
      type: OpenAPISpecPermissions,
      resolve: (spec, _a, ctx) => {
        const subject = ctx.access.organization(spec.organizationId);
        return { view: can(subject, 'openapi:read'), edit: can(subject, 'openapi:update') };
      },
    }),
    urls: t.field({
      type: 'JSON',
      resolve: (spec, _a, ctx) => ({
        location: openAPISpecLocation(ctx, spec),
        app: ctx.urls.app(`/o/${spec.organizationId}/openapi/${encodeURIComponent(spec.slug)}`),
        ...(spec.visibility === 'public' ? { published: ctx.urls.publishedOpenAPISpec(spec.organizationId, spec.slug) } : {}),
      }),
    }),
    versions: t.relation('versions', {
      description: 'Its versions, newest first',
      args: { limit: t.arg.int({ required: false, description: 'At most this many (default 100)' }) },
      query: (args) => ({ orderBy: [{ createdAt: 'desc' }, { id: 'desc' }], take: Math.min(Math.max(args.limit ?? 100, 1), 1000) }),
    }),
  }),
});

export const OpenAPISpecVersion = builder.prismaObject('OpenAPISpecVersion', {
  description: 'One processed state of a spec: made when what its source gave differed from the latest version',
  fields: (t) => ({
    object: t.string({ resolve: () => 'openapi-spec-version' }),
    id: t.exposeID('id'),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    url: t.string({
      description: 'Where the document came from; for a spec sent as text, where this API serves its content',
      select: { sourceURL: true, spec: { select: { organizationId: true, slug: true } } },
      resolve: (version, _a, ctx) => openAPIVersionSource(ctx, version),
    }),
    urls: t.field({
      type: 'JSON',
      select: { spec: { select: { organizationId: true, slug: true } } },
      resolve: (version, _a, ctx) => ({ location: openAPISpecLocation(ctx, version.spec, 'versions', version.id) }),
    }),
    files: t.int({ description: 'How many files it has (its entry and those its $refs name)', select: { files: true }, resolve: (version) => storedFiles(version.files).length }),
    content: t.field({
      type: 'JSON',
      description: 'Its files (`filesystem`, by path, entry first), where it came from (`url`, `urls.source`) and its public URL (`urls.public`, public specs only)',
      select: { sourceURL: true, files: true, spec: { select: { organizationId: true, slug: true, visibility: true } } },
      resolve: (version, _a, ctx) => openAPIVersionContent(ctx, version),
    }),
  }),
});

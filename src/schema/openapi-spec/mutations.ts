/**
 * Keeping OpenAPI specs: create (the slug must be free), put (create or give a new source: the
 * same URL again fetches it again), set the visibility, delete. Creating and putting queue the
 * spec's processing: follow `processingJob` with `jobUpdated(id)`, or the organization's jobs
 * with `organizationJobs`.
 */
import { builder } from '../../builder.ts';
import { createOpenAPISpec, deleteOpenAPISpec, putOpenAPISpec, setOpenAPISpecVisibility } from '../../services/openapi-spec.ts';
import { OpenAPISpecVisibility } from '../shared/enums.ts';
import { specArgs } from './queries.ts';
import { OpenAPISpec } from './type.ts';

const OpenAPISpecSourceInput = builder.inputType('OpenAPISpecSourceInput', {
  description: 'Where the document comes from: exactly one of `url` (fetched, with the files its $refs name) and `text` (the document itself)',
  fields: (t) => ({
    url: t.string({ required: false, description: 'An http or https URL, at most 2048 characters' }),
    text: t.string({ required: false, description: 'The document as YAML or JSON, at most OPENAPI_MAX_BYTES bytes' }),
  }),
});

const CreateOpenAPISpecInput = builder.inputType('CreateOpenAPISpecInput', {
  fields: (t) => ({
    slug: t.string({ required: true, description: '1 to 100 letters and digits, in words joined by single dashes' }),
    source: t.field({ type: OpenAPISpecSourceInput, required: true }),
  }),
});

const PutOpenAPISpecInput = builder.inputType('PutOpenAPISpecInput', {
  fields: (t) => ({ source: t.field({ type: OpenAPISpecSourceInput, required: true }) }),
});

const UpdateOpenAPISpecInput = builder.inputType('UpdateOpenAPISpecInput', {
  fields: (t) => ({ visibility: t.field({ type: OpenAPISpecVisibility, required: true }) }),
});

const PutOpenAPISpecResult = builder.objectRef<{ created: boolean; spec: typeof OpenAPISpec.$inferType }>('PutOpenAPISpecResult').implement({
  description: 'The spec, and whether the put created it',
  fields: (t) => ({
    created: t.exposeBoolean('created'),
    spec: t.field({ type: OpenAPISpec, resolve: (result) => result.spec }),
  }),
});

builder.mutationFields((t) => ({
  createOpenAPISpec: t.field({
    type: OpenAPISpec,
    description: 'Creates a spec and queues its processing; 409 when the organization has one of that slug',
    authScopes: { authenticated: true },
    args: { organizationId: t.arg.id({ required: true }), input: t.arg({ type: CreateOpenAPISpecInput, required: true }) },
    resolve: (_root, { organizationId, input }, ctx) => createOpenAPISpec(ctx, String(organizationId), input.slug, input.source),
  }),
  putOpenAPISpec: t.field({
    type: PutOpenAPISpecResult,
    description: 'Creates the spec or gives it a new source, and queues its processing (a version is made only when the document changed)',
    authScopes: { authenticated: true },
    args: { ...specArgs, input: t.arg({ type: PutOpenAPISpecInput, required: true }) },
    resolve: (_root, { organizationId, specSlug, input }, ctx) => putOpenAPISpec(ctx, String(organizationId), specSlug, input.source),
  }),
  updateOpenAPISpec: t.field({
    type: OpenAPISpec,
    description: "Sets a spec's visibility",
    authScopes: { authenticated: true },
    args: { ...specArgs, input: t.arg({ type: UpdateOpenAPISpecInput, required: true }) },
    resolve: (_root, { organizationId, specSlug, input }, ctx) => setOpenAPISpecVisibility(ctx, String(organizationId), specSlug, input.visibility),
  }),
  deleteOpenAPISpec: t.boolean({
    description: 'Deletes a spec, its versions and the stored files nothing else uses. False when there was nothing to delete.',
    authScopes: { authenticated: true },
    args: { ...specArgs },
    resolve: (_root, { organizationId, specSlug }, ctx) => deleteOpenAPISpec(ctx, String(organizationId), specSlug),
  }),
}));

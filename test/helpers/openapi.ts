/**
 * Validates response bodies against the response schemas of GitBook's
 * OpenAPI document (`@gitbook/api@0.146.0`, or 0.202.0 for the extras shaped
 * by that version), with ajv, as the acceptance suite does.
 */
import { createRequire } from 'node:module';
import Ajv, { type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';

const require = createRequire(import.meta.url);

type Spec = { paths: Record<string, Record<string, { operationId?: string; responses: Record<string, any> }>>; components: any };

function load(pkg: string) {
  const spec = require(`${pkg}/spec/openapi.json`) as Spec;
  const ajv = new Ajv({ strict: false, allErrors: true, validateFormats: true });
  addFormats(ajv);
  ajv.addFormat('emoji', true);
  ajv.addFormat('icon', true);
  ajv.addSchema({ $id: 'spec', components: normalize(spec.components, false) });
  const operations = new Map<string, Record<string, any>>();
  for (const methods of Object.values(spec.paths)) {
    for (const op of Object.values(methods)) if (op?.operationId) operations.set(op.operationId, op.responses);
  }
  return { spec, ajv, operations, cache: new Map<string, ValidateFunction>() };
}

const specs = { current: load('@gitbook/api'), next: load('gitbook-api-next') };

/**
 * Makes an OpenAPI 3.0 schema plain JSON Schema for ajv: `nullable` without a
 * `type` becomes `anyOf [..., null]`, and (for response schemas) local refs
 * point at the registered spec document.
 */
function normalize(schema: unknown, rebaseRefs: boolean): unknown {
  if (Array.isArray(schema)) return schema.map((s) => normalize(s, rebaseRefs));
  if (!schema || typeof schema !== 'object') return schema;
  const out: Record<string, unknown> = Object.fromEntries(
    Object.entries(schema).map(([k, v]) => [k, k === '$ref' && typeof v === 'string' && rebaseRefs ? `spec${v}` : normalize(v, rebaseRefs)]),
  );
  if (out.nullable === true && out.type === undefined) {
    delete out.nullable;
    return { anyOf: [out, { type: 'null' }] };
  }
  return out;
}

const rebase = (schema: unknown) => normalize(schema, true);

/** Throws with ajv's errors unless `body` matches the operation's response schema for `status`. */
export function assertMatchesSpec(operationId: string, status: number, body: unknown, version: 'current' | 'next' = 'current') {
  const s = specs[version];
  const responses = s.operations.get(operationId);
  if (!responses) throw new Error(`No operation ${operationId} in the OpenAPI document`);
  const key = `${operationId}:${status}`;
  let validate = s.cache.get(key);
  if (!validate) {
    let response = responses[String(status)];
    if (!response) throw new Error(`${operationId} has no ${status} response in the OpenAPI document`);
    if (response.$ref) response = s.spec.components.responses[response.$ref.split('/').pop()];
    const schema = response.content ? (Object.values(response.content)[0] as { schema: unknown }).schema : null;
    if (!schema) {
      if (body !== null && body !== '') throw new Error(`${operationId} ${status} has no body in the OpenAPI document, got ${JSON.stringify(body)}`);
      return;
    }
    validate = s.ajv.compile(rebase(schema) as object);
    s.cache.set(key, validate);
  }
  if (!validate(body)) {
    throw new Error(`${operationId} ${status} does not match the OpenAPI schema: ${s.ajv.errorsText(validate.errors)}\n${JSON.stringify(body, null, 2).slice(0, 2000)}`);
  }
}

/**
 * Throws with ajv's errors unless `value` matches the component schema at
 * `pointer` (`SiteSpace`, `PublishedContentSite/properties/customizations`):
 * for a part of a body whose other parts keep the shape of another version.
 */
export function assertMatchesComponent(pointer: string, value: unknown, version: 'current' | 'next' = 'current') {
  const s = specs[version];
  const key = `#${pointer}`;
  let validate = s.cache.get(key);
  if (!validate) {
    validate = s.ajv.compile({ $ref: `spec#/components/schemas/${pointer}` });
    s.cache.set(key, validate);
  }
  if (!validate(value)) {
    throw new Error(`${pointer} does not match the OpenAPI schema: ${s.ajv.errorsText(validate.errors)}\n${JSON.stringify(value, null, 2).slice(0, 2000)}`);
  }
}

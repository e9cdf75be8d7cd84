/**
 * Validates a value against one named schema of GitBook's OpenAPI document
 * (`components.schemas`), with ajv, normalized as in `openapi.ts`: OpenAPI's
 * `nullable` becomes JSON Schema's `null` type.
 */
import { createRequire } from 'node:module';
import Ajv, { type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';

const require = createRequire(import.meta.url);

type Version = 'current' | 'next';
const packages: Record<Version, string> = { current: '@gitbook/api', next: 'gitbook-api-next' };
const loaded = new Map<Version, { ajv: Ajv; cache: Map<string, ValidateFunction> }>();

function normalize(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(normalize);
  if (!schema || typeof schema !== 'object') return schema;
  const out: Record<string, unknown> = Object.fromEntries(Object.entries(schema).map(([k, v]) => [k, normalize(v)]));
  if (out.nullable === true && out.type === undefined) {
    delete out.nullable;
    return { anyOf: [out, { type: 'null' }] };
  }
  return out;
}

function load(version: Version) {
  let entry = loaded.get(version);
  if (!entry) {
    const spec = require(`${packages[version]}/spec/openapi.json`) as { components: unknown };
    const ajv = new Ajv({ strict: false, allErrors: true, validateFormats: true });
    addFormats(ajv);
    ajv.addFormat('emoji', true);
    ajv.addFormat('icon', true);
    // Local refs (`#/components/schemas/X`) resolve inside the registered document.
    ajv.addSchema({ $id: 'spec', components: normalize(spec.components) });
    entry = { ajv, cache: new Map() };
    loaded.set(version, entry);
  }
  return entry;
}

/** Throws with ajv's errors unless `value` matches `components.schemas[name]`. */
export function validateSchema(name: string, value: unknown, version: Version = 'current'): void {
  const { ajv, cache } = load(version);
  let validate = cache.get(name);
  if (!validate) {
    validate = ajv.compile({ $ref: `spec#/components/schemas/${name}` });
    cache.set(name, validate);
  }
  if (!validate(value)) {
    throw new Error(`Value does not match ${name}: ${ajv.errorsText(validate.errors?.slice(0, 10))}\n${JSON.stringify(value, null, 2).slice(0, 3000)}`);
  }
}

/**
 * Throws unless `change` is a RevisionSemanticChange. `page_edited` cannot match that schema as
 * written: its `attributes` is a oneOf of three schemas that allow any property, so every
 * non-empty object matches all three and none is "exactly one" (docs/decisions.md, "Semantic
 * changes"); its attributes are checked against the schema of the page's type instead.
 */
export function validateSemanticChange(change: { type?: unknown; page?: { type?: unknown }; attributes?: unknown }, version: Version = 'current'): void {
  if (change.type !== 'page_edited') return validateSchema('RevisionSemanticChange', change, version);
  const kind = { document: 'Document', group: 'Group', link: 'Link' }[String(change.page?.type)];
  if (!kind) throw new Error(`page_edited of a page of type ${String(change.page?.type)}`);
  validateSchema('ChangedRevisionPage', change.page, version);
  validateSchema(`RevisionPage${kind}ChangeAttributes`, change.attributes, version);
  if (Object.keys(change).some((key) => !['type', 'page', 'attributes'].includes(key))) throw new Error(`page_edited has members beyond type, page and attributes: ${JSON.stringify(change)}`);
}

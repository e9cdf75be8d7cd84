/**
 * Extracts the JSON Schema of GitBook's site customization settings
 * (SiteCustomizationSettings and every schema it references) and of adaptive
 * visitor-attribute schemas (SiteAdaptiveJSONSchema) from @gitbook/api's OpenAPI
 * document into src/schema/site/customization-settings.schema.json and
 * src/schema/site/adaptive-json-schema.schema.json,
 * as plain draft-07 JSON Schema (refs to #/definitions, OpenAPI `nullable` and
 * `example` rewritten/dropped). The runtime validates against the checked-in file, so
 * @gitbook/api stays a devDependency.
 *
 * GitBook's site renderer reads a few members of a later version that 0.146.0
 * lacks; those (NEXT_MEMBERS) are grafted onto SiteCustomizationSettings from
 * @gitbook/api@0.202.0 (the devDependency `gitbook-api-next`), with the schemas
 * they reference, and made required: reads always fill them in.
 *
 *   node --import tsx scripts/extract-site-customization-schema.ts
 */
import { createRequire } from 'node:module';
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';

const require = createRequire(import.meta.url);
type Schemas = Record<string, unknown>;

function load(pkg: string): { schemas: Schemas; version: string } {
  const spec = require(`${pkg}/spec/openapi.json`) as { components: { schemas: Schemas } };
  const specPath = require.resolve(`${pkg}/spec/openapi.json`);
  const version = (JSON.parse(readFileSync(new URL('../package.json', pathToFileURL(specPath)), 'utf8')) as { version: string }).version;
  return { schemas: spec.components.schemas, version };
}

const current = load('@gitbook/api');
const next = load('gitbook-api-next');

/**
 * Members of 0.202.0's SiteCustomizationSettingsBase grafted onto 0.146.0's
 * SiteCustomizationSettings: a path of properties, the last one the member.
 */
const NEXT_MEMBERS: string[][] = [['socialAccounts'], ['styling', 'codeTheme'], ['pageActions', 'items']];
const PREFIX = '#/components/schemas/';

function refsOf(node: unknown, out: Set<string>) {
  if (Array.isArray(node)) node.forEach((n) => refsOf(n, out));
  else if (node && typeof node === 'object') {
    for (const [k, v] of Object.entries(node)) {
      if (k === '$ref' && typeof v === 'string' && v.startsWith(PREFIX)) out.add(v.slice(PREFIX.length));
      else refsOf(v, out);
    }
  }
}

function convert(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(convert);
  if (!node || typeof node !== 'object') return node;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(node)) {
    if (k === 'example') continue;
    if (k === 'properties' && v && typeof v === 'object') {
      out[k] = Object.fromEntries(Object.entries(v).map(([p, s]) => [p, convert(s)]));
    } else if (k === '$ref' && typeof v === 'string') {
      out[k] = `#/definitions/${v.slice(PREFIX.length)}`;
    } else out[k] = convert(v);
  }
  if (out.nullable === true) {
    delete out.nullable;
    if (typeof out.type === 'string') out.type = [out.type, 'null'];
    else return { anyOf: [out, { type: 'null' }] };
  } else delete out.nullable;
  // draft-07 ignores siblings of $ref; keep the description only.
  if (typeof out.$ref === 'string' && Object.keys(out).some((k) => !['$ref', 'description', 'deprecated'].includes(k))) {
    const { $ref, ...rest } = out;
    return { ...rest, allOf: [{ $ref }] };
  }
  return out;
}

type ObjectSchema = { properties: Record<string, unknown>; required?: string[] };

/** The object schema at `path` (property names) under `root`. */
function objectAt(root: unknown, path: string[], where: string): ObjectSchema {
  let node = root as ObjectSchema;
  for (const name of path) node = node.properties?.[name] as ObjectSchema;
  if (!node?.properties) throw new Error(`${where}: no object schema at ${path.join('.') || 'the root'}`);
  return node;
}

/**
 * 0.146.0's schemas with NEXT_MEMBERS added to SiteCustomizationSettings (as
 * required members) and the 0.202.0 schemas they reference (which must be
 * absent from 0.146.0, or the same).
 */
function withNextMembers(): Schemas {
  const schemas: Schemas = structuredClone(current.schemas);
  const settings = schemas.SiteCustomizationSettings;
  const found = new Set<string>();
  for (const path of NEXT_MEMBERS) {
    const member = path.at(-1)!;
    const source = objectAt(next.schemas.SiteCustomizationSettingsBase, path.slice(0, -1), `@gitbook/api@${next.version}`).properties[member];
    if (!source) throw new Error(`@gitbook/api@${next.version} has no SiteCustomizationSettingsBase member ${path.join('.')}`);
    const target = objectAt(settings, path.slice(0, -1), `@gitbook/api@${current.version}`);
    target.properties[member] = structuredClone(source);
    target.required = [...new Set([...(target.required ?? []), member])];
    refsOf(source, found);
  }
  const todo = [...found];
  while (todo.length) {
    const name = todo.pop()!;
    const schema = next.schemas[name];
    if (!schema) throw new Error(`No schema ${name} in @gitbook/api@${next.version}`);
    if (name in schemas) {
      if (JSON.stringify(schemas[name]) !== JSON.stringify(schema)) throw new Error(`${name} differs between @gitbook/api@${current.version} and ${next.version}`);
      continue;
    }
    schemas[name] = schema;
    const refs = new Set<string>();
    refsOf(schema, refs);
    todo.push(...refs);
  }
  return schemas;
}

/** The closure of `roots` under $ref, as one draft-07 document of definitions. */
function extract(schemas: Schemas, roots: string[], id: string, what: string, from: string) {
  const names = new Set<string>();
  const todo = [...roots];
  while (todo.length) {
    const name = todo.pop()!;
    if (names.has(name)) continue;
    if (!schemas[name]) throw new Error(`No schema ${name} in the OpenAPI document`);
    names.add(name);
    const found = new Set<string>();
    refsOf(schemas[name], found);
    todo.push(...found);
  }
  return {
    $schema: 'http://json-schema.org/draft-07/schema#',
    $id: id,
    $comment: `${what}. Generated by scripts/extract-site-customization-schema.ts from ${from}; do not edit.`,
    definitions: Object.fromEntries([...names].sort().map((n) => [n, convert(schemas[n])])),
  };
}

const outputs = [
  {
    file: 'customization-settings.schema.json',
    roots: ['SiteCustomizationSettings', 'SiteSpaceCustomizationSettings'],
    id: 'https://docs-publishing-api/site-customization-settings.json',
    what: 'Site and site space customization settings',
    schemas: withNextMembers(),
    from: `@gitbook/api@${current.version}, with ${NEXT_MEMBERS.map((p) => p.join('.')).join(', ')} from @gitbook/api@${next.version}`,
  },
  {
    file: 'adaptive-json-schema.schema.json',
    roots: ['SiteAdaptiveJSONSchema'],
    id: 'https://docs-publishing-api/site-adaptive-json-schema.json',
    what: 'The shape of a site adaptive (visitor attributes) JSON schema',
    schemas: current.schemas,
    from: `@gitbook/api@${current.version}`,
  },
];

for (const output of outputs) {
  const target = fileURLToPath(new URL(`../src/schema/site/${output.file}`, import.meta.url));
  const document = extract(output.schemas, output.roots, output.id, output.what, output.from);
  writeFileSync(target, JSON.stringify(document, null, 2) + '\n');
  console.log(`wrote ${target} (${Object.keys(document.definitions).length} definitions)`);
}

/**
 * Adaptive content: the JSON Schema of a site's visitor attributes (claims),
 * and the template conditions derived from it.
 *
 * A schema is accepted when it is a valid draft-07 JSON Schema that compiles,
 * and has GitBook's SiteAdaptiveJSONSchema shape: an object schema whose
 * `properties` are claims (boolean; string, optionally with an `enum`;
 * number; arrays of those; nested objects of claims), each with a
 * `description`, `additionalProperties: false`, and an optional `unsigned`
 * object holding the unsigned claims. The shape is checked member by member
 * (for messages that name the bad path), then against the schema extracted
 * from GitBook's OpenAPI document (./adaptive-json-schema.schema.json).
 */
import { readFileSync } from 'node:fs';
import { Ajv } from 'ajv';
import { builder } from '../../builder.ts';
import type { Prisma } from '../../db/client.ts';
import { jsonInput, jsonObject } from '../../db/json.ts';
import { InvalidInputError, NotFoundError } from '../../errors/index.ts';
import { loadSite } from '../../services/site.ts';
import { siteArgs } from './args.ts';

type Json = Record<string, unknown>;

export const UNSIGNED_DESCRIPTION = 'Unsigned claims of the site visitor.';

const isObject = (v: unknown): v is Json => !!v && typeof v === 'object' && !Array.isArray(v);

// ------------------------------------------------------------------ checks

const shapeDocument = JSON.parse(readFileSync(new URL('./adaptive-json-schema.schema.json', import.meta.url), 'utf8')) as Json & { $id: string };
let ajvInstance: Ajv | null = null;
let shapeValidator: ReturnType<Ajv['compile']> | null = null;

function ajv(): Ajv {
  if (!ajvInstance) {
    ajvInstance = new Ajv({ strict: false, allErrors: false });
    ajvInstance.addSchema(shapeDocument);
    shapeValidator = ajvInstance.compile({ $ref: `${shapeDocument.$id}#/definitions/SiteAdaptiveJSONSchema` });
  }
  return ajvInstance;
}

function fail(path: string, message: string): never {
  throw new InvalidInputError(`${path}: ${message}`);
}

function allowOnly(node: Json, path: string, allowed: readonly string[]) {
  const extra = Object.keys(node).find((k) => !allowed.includes(k));
  if (extra) fail(path, `unexpected member ${JSON.stringify(extra)} (allowed: ${allowed.join(', ')})`);
}

function checkDescription(node: Json, path: string) {
  if (typeof node.description !== 'string') fail(`${path}.description`, 'must be a string describing the claim');
}

function checkPrimitive(node: unknown, path: string) {
  if (!isObject(node)) fail(path, 'must be an object describing a claim');
  switch (node.type) {
    case 'boolean':
    case 'number':
      allowOnly(node, path, ['type', 'description']);
      break;
    case 'string':
      allowOnly(node, path, ['type', 'description', 'enum']);
      if (node.enum !== undefined && (!Array.isArray(node.enum) || node.enum.some((v) => typeof v !== 'string'))) {
        fail(`${path}.enum`, 'must be an array of strings');
      }
      break;
    default:
      fail(`${path}.type`, `must be "boolean", "string" or "number" (got ${JSON.stringify(node.type)})`);
  }
  checkDescription(node, path);
}

function checkClaims(properties: unknown, path: string, allowUnsigned: boolean) {
  if (!isObject(properties)) fail(path, 'must be an object mapping claim names to their schemas');
  for (const [name, claim] of Object.entries(properties)) {
    const at = `${path}.${name}`;
    if (allowUnsigned && name === 'unsigned') {
      if (!isObject(claim) || claim.type !== 'object') fail(at, 'must be an object schema (type "object") holding the unsigned claims');
      allowOnly(claim, at, ['type', 'description', 'properties', 'additionalProperties']);
      if (claim.description !== UNSIGNED_DESCRIPTION) fail(`${at}.description`, `must be ${JSON.stringify(UNSIGNED_DESCRIPTION)}`);
      if (claim.additionalProperties !== false) fail(`${at}.additionalProperties`, 'must be false');
      checkClaims(claim.properties, `${at}.properties`, false);
      continue;
    }
    if (!isObject(claim)) fail(at, 'must be an object describing a claim');
    if (claim.type === 'array') {
      allowOnly(claim, at, ['type', 'description', 'items']);
      checkDescription(claim, at);
      checkPrimitive(claim.items, `${at}.items`);
    } else if (claim.type === 'object') {
      allowOnly(claim, at, ['type', 'description', 'properties', 'additionalProperties']);
      checkDescription(claim, at);
      if (claim.additionalProperties !== false) fail(`${at}.additionalProperties`, 'must be false');
      checkClaims(claim.properties, `${at}.properties`, false);
    } else {
      checkPrimitive(claim, at);
    }
  }
}

/** Throws a 400 naming what is wrong unless `jsonSchema` is an acceptable visitor attribute schema. */
export function assertValidAdaptiveSchema(jsonSchema: unknown): asserts jsonSchema is Json {
  const root = 'jsonSchema';
  if (!isObject(jsonSchema)) fail(root, 'must be a JSON Schema object');
  // Before validateSchema, which throws on a meta-schema it does not know.
  if (jsonSchema.$schema !== undefined && jsonSchema.$schema !== 'http://json-schema.org/draft-07/schema#') {
    fail(`${root}.$schema`, 'must be "http://json-schema.org/draft-07/schema#" when given');
  }
  const instance = ajv();
  if (!instance.validateSchema(jsonSchema)) {
    fail(root, `is not a valid draft-07 JSON Schema: ${instance.errorsText(instance.errors, { dataVar: root })}`);
  }
  allowOnly(jsonSchema, root, ['$schema', 'type', 'properties', 'additionalProperties']);
  if (jsonSchema.type !== 'object') fail(`${root}.type`, 'must be "object"');
  if (jsonSchema.additionalProperties !== false) fail(`${root}.additionalProperties`, 'must be false');
  checkClaims(jsonSchema.properties, `${root}.properties`, true);
  if (!shapeValidator!(jsonSchema)) {
    fail(root, `does not have the shape of a visitor attribute schema: ${instance.errorsText(shapeValidator!.errors, { dataVar: root })}`);
  }
  try {
    // A throwaway instance: ajv caches every schema it compiles.
    new Ajv({ strict: false }).compile(jsonSchema);
  } catch (error) {
    fail(root, `does not compile as a JSON Schema: ${(error as Error).message}`);
  }
}

// ------------------------------------------------------- template conditions

export interface TemplateCondition {
  description: string;
  condition: string;
}

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;
const member = (base: string, name: string) => (IDENTIFIER.test(name) ? `${base}.${name}` : `${base}[${JSON.stringify(name)}]`);

function exampleOf(node: Json): string | number | boolean {
  if (node.type === 'boolean') return true;
  if (node.type === 'number') return 1;
  return Array.isArray(node.enum) && typeof node.enum[0] === 'string' ? node.enum[0] : 'value';
}

function conditionsFor(properties: Json, base: string, label: string, out: TemplateCondition[]) {
  for (const [name, node] of Object.entries(properties)) {
    if (!isObject(node)) continue;
    const access = member(base, name);
    const what = label ? `${label}.${name}` : name;
    if (base === 'visitor.claims' && name === 'unsigned' && isObject(node.properties)) {
      conditionsFor(node.properties, access, 'unsigned', out);
      continue;
    }
    switch (node.type) {
      case 'boolean':
        out.push({ description: `Visitor is ${what}`, condition: `${access} === true` });
        break;
      case 'string': {
        const values = Array.isArray(node.enum) && node.enum.length ? (node.enum as string[]) : ['value'];
        for (const value of values) out.push({ description: `Visitor's ${what} is ${JSON.stringify(value)}`, condition: `${access} === ${JSON.stringify(value)}` });
        break;
      }
      case 'number':
        out.push({ description: `Visitor's ${what} is greater than 0`, condition: `${access} > 0` });
        break;
      case 'array': {
        const example = isObject(node.items) ? exampleOf(node.items) : 'value';
        out.push({ description: `Visitor's ${what} includes ${JSON.stringify(example)}`, condition: `${access}.includes(${JSON.stringify(example)})` });
        break;
      }
      case 'object':
        if (isObject(node.properties)) conditionsFor(node.properties, access, what, out);
        break;
    }
  }
}

/** Suggested conditions (JavaScript expressions on `visitor.claims`) for the claims a schema describes. */
export function templateConditions(jsonSchema: unknown): TemplateCondition[] {
  const out: TemplateCondition[] = [];
  if (isObject(jsonSchema) && isObject(jsonSchema.properties)) conditionsFor(jsonSchema.properties, 'visitor.claims', '', out);
  return out;
}

// ------------------------------------------------------------------ GraphQL

interface AdaptiveSchemaShape {
  jsonSchema: Json;
  updatedAt: Date;
}

const SiteAdaptiveSchema = builder.objectRef<AdaptiveSchemaShape>('SiteAdaptiveSchema').implement({
  description: 'The JSON Schema of the attributes (claims) expected from visitors of an adaptive site',
  fields: (t) => ({
    object: t.string({ resolve: () => 'site-adaptive-schema' }),
    jsonSchema: t.field({ type: 'JSON', resolve: (s) => s.jsonSchema }),
    updatedAt: t.field({ type: 'DateTime', resolve: (s) => s.updatedAt }),
  }),
});

const SiteAdaptiveTemplateCondition = builder.objectRef<TemplateCondition>('SiteAdaptiveTemplateCondition').implement({
  description: 'A condition suggested from the visitor attribute schema',
  fields: (t) => ({ description: t.exposeString('description'), condition: t.exposeString('condition') }),
});

const SiteAdaptiveTemplateConditions = builder.objectRef<{ items: TemplateCondition[] }>('SiteAdaptiveTemplateConditions').implement({
  fields: (t) => ({ items: t.field({ type: [SiteAdaptiveTemplateCondition], resolve: (l) => l.items }) }),
});

const UpdateSiteAdaptiveSchemaInput = builder.inputType('UpdateSiteAdaptiveSchemaInput', {
  fields: (t) => ({ jsonSchema: t.field({ type: 'JSON', required: true, description: 'A SiteAdaptiveJSONSchema (draft-07)' }) }),
});

/** Site.adaptiveSchema as stored (a JSON object, written only after assertValidAdaptiveSchema accepted it), null when none is set. */
function readSchema(site: { adaptiveSchema: Prisma.JsonValue | null; adaptiveSchemaUpdatedAt: Date | null; updatedAt: Date }): AdaptiveSchemaShape | null {
  const jsonSchema = jsonObject(site.adaptiveSchema);
  return jsonSchema && { jsonSchema, updatedAt: site.adaptiveSchemaUpdatedAt ?? site.updatedAt };
}

builder.queryFields((t) => ({
  siteAdaptiveSchema: t.field({
    type: SiteAdaptiveSchema,
    description: 'The visitor attribute schema of a site (404 when none is set)',
    authScopes: { authenticated: true },
    args: siteArgs,
    resolve: async (_root, { organizationId, siteId }, ctx) => {
      const site = await loadSite(ctx, String(organizationId), String(siteId), 'site:read');
      const schema = readSchema(site);
      if (!schema) throw new NotFoundError('The visitor attribute schema of site', site.id, 'set one with PUT .../adaptive-schema');
      return schema;
    },
  }),
  siteAdaptiveTemplateConditions: t.field({
    type: SiteAdaptiveTemplateConditions,
    description: 'Conditions suggested from the visitor attribute schema of a site (none without a schema)',
    authScopes: { authenticated: true },
    args: siteArgs,
    resolve: async (_root, { organizationId, siteId }, ctx) => {
      const site = await loadSite(ctx, String(organizationId), String(siteId), 'site:read');
      return { items: templateConditions(readSchema(site)?.jsonSchema) };
    },
  }),
}));

builder.mutationField('updateSiteAdaptiveSchema', (t) =>
  t.field({
    type: SiteAdaptiveSchema,
    description: 'Set the visitor attribute schema of a site',
    authScopes: { authenticated: true },
    args: { ...siteArgs, input: t.arg({ type: UpdateSiteAdaptiveSchemaInput, required: true }) },
    resolve: async (_root, { organizationId, siteId, input }, ctx) => {
      const site = await loadSite(ctx, String(organizationId), String(siteId), 'site:configure');
      assertValidAdaptiveSchema(input.jsonSchema);
      const updated = await ctx.db.site.update({
        where: { id: site.id },
        data: { adaptiveSchema: jsonInput(input.jsonSchema), adaptiveSchemaUpdatedAt: new Date() },
      });
      return readSchema(updated)!;
    },
  }),
);

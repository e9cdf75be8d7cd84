/**
 * The limits of the wire contract's request bodies, for every route that
 * takes one: each string field with `maxLength`/`minLength`, number with
 * `minimum`/`maximum` and array with `maxItems`/`minItems` in GitBook's
 * OpenAPI request schema is sent a value just outside the limit, on an
 * otherwise valid request against real resources; the answer is a 400 naming
 * the field, and nothing is written. The schema is walked beside the route's
 * GraphQL input type and the fixture's valid bodies: where the contract
 * branches (`oneOf`, `anyOf`), the branches the valid body takes are followed.
 */
import {
  getNamedType,
  isInputObjectType,
  isListType,
  isNonNullType,
  type GraphQLInputObjectType,
  type GraphQLInputType,
} from 'graphql';
import { describe, expect, it } from 'vitest';
import { restRoutes } from '../../src/rest/generated/routes.ts';
import { schema } from '../../src/schema/index.ts';
import { assertMatchesSpec } from '../helpers/openapi.ts';
import {
  contentSchema,
  contractOperation,
  databaseFingerprint,
  deref,
  fieldName,
  fillPath,
  namesField,
  useFixtureServer,
  withValueAt,
  type BodyPath,
  type OpenApi,
} from '../helpers/rest-fixture.ts';
import { expectError } from '../helpers/server.ts';

type Schema = OpenApi;
type Spec = OpenApi;

/** `node` with its `$ref` followed and its `allOf` parts merged (properties, required, limits). */
function resolve(spec: Spec, node: Schema | undefined): Schema {
  const at = deref(spec, node) ?? {};
  if (!at.allOf) return at;
  const merged: Schema = { ...at, allOf: undefined, properties: { ...at.properties }, required: [...(at.required ?? [])] };
  for (const part of at.allOf as Schema[]) {
    const resolved = resolve(spec, part);
    for (const [k, v] of Object.entries(resolved)) {
      if (k === 'properties') Object.assign(merged.properties, v);
      else if (k === 'required') merged.required.push(...(v as string[]));
      else if (merged[k] === undefined) merged[k] = v;
    }
  }
  return merged;
}

const jsonType = (value: unknown) => (value === null ? 'null' : Array.isArray(value) ? 'array' : Number.isInteger(value) ? 'integer' : typeof value);

/** Whether a branch of a `oneOf`/`anyOf` is the one `value` takes (by type, required members and single-value enums). */
function takes(spec: Spec, branch: Schema, value: unknown, leafType: string): boolean {
  const types = ([] as string[]).concat(branch.type ?? (branch.properties ? 'object' : []));
  if (value === undefined) return types.length === 0 || types.includes(leafType);
  const actual = jsonType(value);
  if (types.length && !types.includes(actual) && !(actual === 'integer' && types.includes('number'))) return false;
  if (branch.enum && !branch.enum.includes(value)) return false;
  if (actual !== 'object') return true;
  const object = value as Record<string, unknown>;
  if ((branch.required ?? []).some((k: string) => object[k] === undefined)) return false;
  return Object.entries((branch.properties ?? {}) as Record<string, Schema>).every(([k, p]) => {
    const prop = resolve(spec, p);
    return object[k] === undefined || !Array.isArray(prop.enum) || prop.enum.length !== 1 || prop.enum[0] === object[k];
  });
}

interface LimitCase {
  path: BodyPath;
  value: unknown;
  limit: string;
}

/** `base` made `length` code points long, keeping its shape (characters are added at its end). */
function withLength(base: unknown, length: number): string {
  const text = typeof base === 'string' ? base : '';
  const points = [...text];
  return points.length >= length ? points.slice(0, length).join('') : text + 'a'.repeat(length - points.length);
}

function limitCases(node: Schema, value: unknown, path: BodyPath): LimitCase[] {
  const out: LimitCase[] = [];
  if (typeof node.maxLength === 'number') out.push({ path, value: withLength(value, node.maxLength + 1), limit: `maxLength ${node.maxLength}` });
  if (typeof node.minLength === 'number' && node.minLength > 0) out.push({ path, value: withLength(value, node.minLength - 1), limit: `minLength ${node.minLength}` });
  if (typeof node.maximum === 'number') out.push({ path, value: node.maximum + 1, limit: `maximum ${node.maximum}` });
  if (typeof node.minimum === 'number') out.push({ path, value: node.minimum - 1, limit: `minimum ${node.minimum}` });
  if (Array.isArray(value) && value.length > 0) {
    if (typeof node.maxItems === 'number') out.push({ path, value: Array.from({ length: node.maxItems + 1 }, (_, i) => value[i % value.length]), limit: `maxItems ${node.maxItems}` });
    if (typeof node.minItems === 'number' && node.minItems > 0) out.push({ path, value: value.slice(0, node.minItems - 1), limit: `minItems ${node.minItems}` });
  }
  return out;
}

const nullableOf = (type: GraphQLInputType) => (isNonNullType(type) ? type.ofType : type);
const leafJsonType = (type: GraphQLInputType | null) => {
  const name = type ? getNamedType(type).name : '';
  return name === 'Int' ? 'integer' : name === 'Float' ? 'number' : name === 'Boolean' ? 'boolean' : 'string';
};

/**
 * The limit cases of `node` and beneath it. `type` is the GraphQL input type
 * of the value (null inside a JSON field, where only what `value` holds is
 * followed); `value` the valid body's value there (undefined: none, and only
 * a scalar field is then sent).
 */
function walk(spec: Spec, raw: Schema | undefined, type: GraphQLInputType | null, value: unknown, path: BodyPath, depth = 0): LimitCase[] {
  if (!raw || depth > 40) return [];
  const node = resolve(spec, raw);
  const named = type ? getNamedType(type) : null;
  const isJson = named?.name === 'JSON';
  if (type && !isJson && isInputObjectType(named) && !isListType(nullableOf(type)) && value === undefined) return [];
  const cases = limitCases(node, value, path);
  for (const key of ['oneOf', 'anyOf'] as const) {
    for (const branch of (node[key] ?? []) as Schema[]) {
      const resolved = resolve(spec, branch);
      if (takes(spec, resolved, value, leafJsonType(type))) cases.push(...walk(spec, resolved, type, value, path, depth + 1));
    }
  }
  const list = type && !isJson ? nullableOf(type) : null;
  if (Array.isArray(value) && node.items) {
    const itemType = list && isListType(list) ? list.ofType : null;
    value.forEach((item, i) => cases.push(...walk(spec, node.items, itemType, item, [...path, i], depth + 1)));
    return cases;
  }
  if (!node.properties) return cases;
  if (type && !isJson && isInputObjectType(named)) {
    for (const field of Object.values((named as GraphQLInputObjectType).getFields())) {
      const fieldValue = (value as Record<string, unknown>)[field.name];
      cases.push(...walk(spec, node.properties[field.name], field.type, fieldValue, [...path, field.name], depth + 1));
    }
  } else if (value && typeof value === 'object' && !Array.isArray(value)) {
    for (const [k, v] of Object.entries(value)) cases.push(...walk(spec, node.properties[k], null, v, [...path, k], depth + 1));
  }
  return cases;
}

const bodyRoutes = restRoutes.filter((r) => r.variables.some((v) => v.source === 'body'));

const env = useFixtureServer();

describe('contract limits of request bodies', () => {
  it.each(bodyRoutes.map((r) => [`${r.method} ${r.path}`, r] as const))('%s: just outside a limit is a 400 naming the field, nothing written', async (_name, route) => {
    const { spec, operation } = contractOperation(route);
    const bodySchema = contentSchema(spec, operation.requestBody);
    const inputType = schema.getType(route.variables.find((v) => v.source === 'body')!.type.replace(/[[\]!]/g, '')) as GraphQLInputObjectType;
    const seen = new Set<string>();
    const failures: string[] = [];
    let before = await databaseFingerprint(env.server);
    for (const body of env.fixture.bodies[route.operationName] ?? []) {
      for (const c of walk(spec, bodySchema, inputType, body, [])) {
        const key = `${c.path.map((p) => (typeof p === 'number' ? '[]' : p)).join('.')} ${c.limit}`;
        if (seen.has(key)) continue;
        seen.add(key);
        const res = await env.server.request(route.method, fillPath(route, env.fixture.params), { token: env.fixture.user.token, body: withValueAt(body, c.path, c.value) });
        const message: unknown = res.body?.error?.message;
        if (res.status !== 400 || typeof message !== 'string' || !namesField(message, fieldName(c.path))) {
          failures.push(`${fieldName(c.path)} (${c.limit}): ${res.status} ${JSON.stringify(res.body).slice(0, 160)}`);
        }
        const after = await databaseFingerprint(env.server);
        const changed = Object.keys(after).filter((k) => after[k] !== before[k]);
        if (changed.length) failures.push(`${fieldName(c.path)} (${c.limit}) wrote: ${changed.join(', ')}`);
        before = after;
      }
    }
    expect(failures).toEqual([]);
  });
});

describe('change request subjects', () => {
  it('are at most 100 characters on creation too, as the replies carry them (ChangeRequestSubject), so lists keep to the contract', async () => {
    const { spaceId, changeRequestId } = env.fixture.params;
    const token = env.fixture.user.token;
    const before = await databaseFingerprint(env.server);
    expectError(await env.server.request('POST', `/v1/spaces/${spaceId}/change-requests`, { token, body: { subject: 's'.repeat(101) } }), 400, /^subject: /);
    expectError(await env.server.request('PATCH', `/v1/spaces/${spaceId}/change-requests/${changeRequestId}`, { token, body: { subject: 's'.repeat(101) } }), 400, /^subject: /);
    expect(await databaseFingerprint(env.server)).toEqual(before);
    const created = await env.server.request('POST', `/v1/spaces/${spaceId}/change-requests`, { token, body: { subject: 's'.repeat(100) } });
    expect(created.status).toBe(201);
    const list = await env.server.request('GET', `/v1/spaces/${spaceId}/change-requests`, { token });
    assertMatchesSpec('listChangeRequestsForSpace', 200, list.body);
  });
});

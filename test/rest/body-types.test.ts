/**
 * Every body field of every REST route, sent with a value of the wrong type
 * on an otherwise valid request against real resources: a 400 naming the
 * field as the caller sent it, and nothing written. The wrong values are
 * derived from each field's GraphQL input type, so a new route or field is
 * covered without a new case.
 */
import {
  GraphQLError,
  getNamedType,
  isEnumType,
  isInputObjectType,
  isListType,
  isNonNullType,
  isScalarType,
  type GraphQLInputObjectType,
  type GraphQLInputType,
} from 'graphql';
import { describe, expect, it } from 'vitest';
import { restRoutes } from '../../src/rest/generated/routes.ts';
import { restErrorResponse } from '../../src/rest/runtime.ts';
import { schema } from '../../src/schema/index.ts';
import {
  REMOVE,
  databaseFingerprint,
  fieldName,
  fillPath,
  namesField,
  useFixtureServer,
  withValueAt,
  type BodyPath,
} from '../helpers/rest-fixture.ts';
import { expectError } from '../helpers/server.ts';

/**
 * `JSON` fields take any JSON by type: each is sent a value its own
 * validation refuses, or is listed as accepting anything, with the reason.
 */
const JSON_FIELDS: Record<string, { refused: unknown } | { acceptsAnything: string }> = {
  'CreateOrganizationInput.onboardingPreferences': { acceptsAnything: 'accepted for compatibility with GitBook and not stored' },
  'ApplySpaceTemplateInput.params': { acceptsAnything: 'accepted for compatibility: the built-in templates take no parameters' },
  'UpdateOrganizationInput.mergeRules': { refused: 'none' },
  'ConversationMetadataInput.attributes': { refused: ['plan'] },
  'UpdateSpaceInput.mergeRules': { refused: 'inherit' },
  'UpdateAgentInstructionsInput.instructions': { refused: 'Keep answers short.' },
  'SiteVisitorPayloadInput.unsignedClaims': { refused: 'pro' },
  'CreateTranslationInput.instructions': { refused: 'Translate carefully.' },
  'UpdateTranslationInput.instructions': { refused: 'Translate carefully.' },
  'UpdateChangeRequestInput.description': { refused: 'A description' },
  'RequestReviewersInput.description': { refused: 'A description' },
  'ChangeRequestContentChangeInput.document': { refused: { markdown: 42 } },
  'ChangeRequestContentChangeInput.cover': { refused: { ref: { kind: 'page', page: 'x' } } },
  'ChangeRequestContentChangeInput.layout': { refused: { width: 'huge' } },
  'ChangeRequestContentChangeInput.metaLinks': { refused: { canonical: 'x' } },
  'ChangeRequestContentChangeInput.variables': { refused: { 'bad name': 1 } },
  'ChangeRequestContentChangeInput.computed': { refused: { type: 'nope' } },
  'ChangeRequestContentChangeInput.redirects': { refused: { '../up': 'x' } },
  'ChangeRequestContentChangeInput.tags': { refused: { tag: 'beta' } },
  'UpdateSiteInput.customizations': { refused: ['title'] },
  'UpdateSiteSpaceInput.customizations': { refused: ['title'] },
  'SearchSiteContentInput.scope': { refused: { mode: 'everywhere' } },
  'CreateSiteRedirectInput.destination': { refused: { kind: 'external', url: 'https://example.com' } },
  'UpdateSiteRedirectInput.destination': { refused: { kind: 'site-space', siteSpaceId: 'no-such-site-space' } },
  'UpdateSiteAdaptiveSchemaInput.jsonSchema': { refused: 'object' },
  'CommentBodyInput.document': { refused: 'A comment' },
};

/** Custom scalars whose values are a fixed set of strings, and DateTime. */
const WRONG_CUSTOM_SCALAR: Record<string, unknown> = {
  ContentVisibility: 'everyone',
  TranslationLanguage: 'klingon',
  SiteVisibility: 'everyone',
  SiteType: 'gold',
  ContentReferenceStatus: 'fine',
  DateTime: 'yesterday',
  TeamMemberships: { someone: { role: 'boss' } },
};

interface Case {
  /** The field as the caller sent it: `parent.title`, `changes[0].files[0].name`. */
  field: string;
  /** The body with the wrong value in place. */
  body: unknown;
  why: string;
}

const nullableOf = (type: GraphQLInputType) => (isNonNullType(type) ? type.ofType : type);
/** A value of the wrong type for `type` (a valid item alone, for a list: no single-value-to-list coercion). */
function wrongValue(type: GraphQLInputType, base: unknown, where: string): unknown {
  const inner = nullableOf(type);
  if (isListType(inner)) {
    if (!Array.isArray(base) || base.length === 0) throw new Error(`The fixture's body has no item in the list ${where}`);
    return base[0];
  }
  if (isInputObjectType(inner)) return [base ?? {}];
  if (isEnumType(inner)) return 'not-a-value';
  const name = (inner as { name: string }).name;
  switch (name) {
    case 'String':
    case 'ID':
      return 42;
    case 'Int':
      return 1.5;
    case 'Float':
      return '1.5';
    case 'Boolean':
      return 'true';
  }
  if (name in WRONG_CUSTOM_SCALAR) return WRONG_CUSTOM_SCALAR[name];
  throw new Error(`No wrong value for the scalar ${name} (${where})`);
}

/**
 * The cases of one input type over the fixture's bodies: each field of the
 * type, and of the input objects beneath it wherever a body holds one.
 * `reached` collects `Type.field` for the coverage check.
 */
function casesFor(type: GraphQLInputObjectType, bodies: Record<string, unknown>[], reached: Set<string>, jsonSeen: Set<string>): Case[] {
  const cases: Case[] = [];
  const seen = new Set<string>();
  const walk = (objectType: GraphQLInputObjectType, body: unknown, path: BodyPath, value: Record<string, unknown>) => {
    for (const field of Object.values(objectType.getFields())) {
      const fieldPath = [...path, field.name];
      const key = `${objectType.name}.${field.name}`;
      const shapeKey = fieldPath.map((p) => (typeof p === 'number' ? '[]' : p)).join('.');
      const base = value[field.name];
      const named = getNamedType(field.type);
      if (!seen.has(shapeKey)) {
        if (isScalarType(named) && named.name === 'JSON') {
          const entry = JSON_FIELDS[key];
          if (!entry) throw new Error(`${key} is a JSON field: add it to JSON_FIELDS (a value its validation refuses, or why it accepts anything)`);
          // A refused value goes in a body that sends the field: in another, the field may not apply (an operation that takes no `redirects`).
          if ('refused' in entry && base === undefined) continue;
          jsonSeen.add(key);
          if ('refused' in entry) cases.push({ field: fieldName(fieldPath), body: withValueAt(body, fieldPath, entry.refused), why: 'refused by its validation' });
          seen.add(shapeKey);
          reached.add(key);
        } else if (!isListType(nullableOf(field.type)) || (Array.isArray(base) && base.length > 0)) {
          seen.add(shapeKey);
          reached.add(key);
          cases.push({ field: fieldName(fieldPath), body: withValueAt(body, fieldPath, wrongValue(field.type, base, key)), why: `wrong type for ${String(field.type)}` });
          if (isNonNullType(field.type)) {
            cases.push({ field: fieldName(fieldPath), body: withValueAt(body, fieldPath, null), why: 'null for a required field' });
            if (field.defaultValue === undefined) cases.push({ field: fieldName(fieldPath), body: withValueAt(body, fieldPath, REMOVE), why: 'a required field left out' });
          }
          const list = nullableOf(field.type);
          if (isListType(list) && isNonNullType(list.ofType)) {
            cases.push({ field: fieldName([...fieldPath, 0]), body: withValueAt(body, [...fieldPath, 0], null), why: 'a null item in a list of non-null items' });
          }
        }
      }
      if (base === null || base === undefined || !isInputObjectType(named)) continue;
      if (Array.isArray(base)) base.forEach((item, i) => walk(named, body, [...fieldPath, i], item as Record<string, unknown>));
      else walk(named, body, fieldPath, base as Record<string, unknown>);
    }
  };
  for (const body of bodies) walk(type, body, [], body);
  return cases;
}

/** `Type.field` of every input field reachable from `type`. */
function reachableFields(type: GraphQLInputObjectType, into = new Set<string>()): Set<string> {
  for (const field of Object.values(type.getFields())) {
    const key = `${type.name}.${field.name}`;
    if (into.has(key)) continue;
    into.add(key);
    const named = getNamedType(field.type);
    if (isInputObjectType(named)) reachableFields(named, into);
  }
  return into;
}

const bodyRoutes = restRoutes.filter((r) => r.variables.some((v) => v.source === 'body'));
const inputTypeOf = (route: (typeof restRoutes)[number]) =>
  schema.getType(route.variables.find((v) => v.source === 'body')!.type.replace(/[[\]!]/g, '')) as GraphQLInputObjectType;

const env = useFixtureServer();

describe('body fields of the wrong type', () => {
  it('the env.fixture has a valid body for every route that takes one', () => {
    expect(bodyRoutes.filter((r) => !env.fixture.bodies[r.operationName]).map((r) => r.operationName)).toEqual([]);
  });

  it.each(bodyRoutes.map((r) => [`${r.method} ${r.path}`, r] as const))('%s: 400 naming the field, nothing written', async (_name, route) => {
    const cases = casesFor(inputTypeOf(route), env.fixture.bodies[route.operationName] ?? [], new Set(), new Set());
    const failures: string[] = [];
    let before = await databaseFingerprint(env.server);
    for (const c of cases) {
      const res = await env.server.request(route.method, fillPath(route, env.fixture.params), { token: env.fixture.user.token, body: c.body });
      const after = await databaseFingerprint(env.server);
      const message: unknown = res.body?.error?.message;
      if (res.status !== 400 || typeof message !== 'string' || !namesField(message, c.field)) {
        failures.push(`${c.field} (${c.why}): ${res.status} ${JSON.stringify(res.body).slice(0, 200)}`);
      }
      const changed = Object.keys(after).filter((k) => after[k] !== before[k]);
      if (changed.length) failures.push(`${c.field} (${c.why}) wrote: ${changed.join(', ')}`);
      before = after;
    }
    expect(failures).toEqual([]);
  });

  it('reached every field of every body type, and every JSON field listed', () => {
    // The cases the route tests send, made again here: the coverage of all routes, whichever tests ran.
    const reached = new Set<string>();
    const jsonSeen = new Set<string>();
    for (const route of bodyRoutes) casesFor(inputTypeOf(route), env.fixture.bodies[route.operationName] ?? [], reached, jsonSeen);
    const all = new Set(bodyRoutes.flatMap((r) => [...reachableFields(inputTypeOf(r))]));
    expect([...all].filter((k) => !reached.has(k)).sort()).toEqual([]);
    expect(Object.keys(JSON_FIELDS).filter((k) => !jsonSeen.has(k))).toEqual([]);
  });
});

describe('query-string and path values', () => {
  it('go through the same checker: a 400 naming the parameter', async () => {
    const { spaceId } = env.fixture.params;
    const get = (path: string) => env.server.request('GET', path, { token: env.fixture.user.token });
    expectError(await get(`/v1/spaces/${spaceId}/links?status=fine`), 400, /^status: must be one of ok, broken, in-app$/);
    expectError(await get(`/v1/spaces/${spaceId}/links?limit=1.5`), 400, /^limit: must be an integer$/);
    expectError(await get(`/v1/spaces/${spaceId}/links?limit=99999999999`), 400, /^limit: must be an integer from -2147483648 to 2147483647$/);
    expectError(await get(`/v1/spaces/${spaceId}/search`), 400, /^query: is required$/);
    expectError(await get(`/v1/orgs/${env.fixture.params.organizationId}/members?role=owner`), 400, /^role: must be one of /);
  });
});

describe('messages', () => {
  it('a GraphQL error that carries no AppError answers its own status and message', async () => {
    const plain = restErrorResponse(new GraphQLError('Variable "$input" got invalid value 42; String cannot represent a non string value: 42'));
    expect(plain.status).toBe(400);
    expect(await plain.json()).toEqual({ error: { code: 400, message: 'Variable "$input" got invalid value 42; String cannot represent a non string value: 42' } });
    const withStatus = restErrorResponse(new GraphQLError('Not acceptable here', { extensions: { http: { status: 406 } } }));
    expect(withStatus.status).toBe(406);
    expect(await withStatus.json()).toEqual({ error: { code: 406, message: 'Not acceptable here' } });
  });
});

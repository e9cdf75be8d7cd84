/**
 * Text no database stores (U+0000, an unpaired UTF-16 surrogate) in every
 * place a REST route takes input: each path parameter, each query parameter
 * and each text field of each body (the JSON values' strings included), on an
 * otherwise valid request against real resources. The answer is a 400 in the
 * API's error shape naming the parameter or field as the caller sent it, the
 * same on SQLite and PostgreSQL, and nothing is written. Walks the generated
 * route table, so a new route or field is covered without a new case.
 */
import { getNamedType, isInputObjectType, isListType, isNonNullType, type GraphQLInputObjectType, type GraphQLInputType } from 'graphql';
import { describe, expect, it } from 'vitest';
import { restRoutes } from '../../src/rest/generated/routes.ts';
import type { RestRoute } from '../../src/rest/route.ts';
import { schema } from '../../src/schema/index.ts';
import { databaseFingerprint, fieldName, fillPath, namesField, useFixtureServer, withValueAt, type BodyPath } from '../helpers/rest-fixture.ts';

/** The two kinds of text refused, taken in turn. */
const UNSTORABLE = ['x\u0000y', 'x\uDC00y'];
/** Routes that take no input at all. */
const NO_INPUT = new Set(['GET /v1/user']);

interface Case {
  /** The parameter or body field, as the caller sent it. */
  field: string;
  /** Other names the answer may give it (`authors[0]` for the list parameter `authors`). */
  also?: string[];
  path: string;
  body?: unknown;
}

const nullableOf = (type: GraphQLInputType) => (isNonNullType(type) ? type.ofType : type);
const isText = (type: GraphQLInputType) => ['String', 'ID'].includes(getNamedType(type).name);

/** The string leaves of a JSON value, with their paths. */
function stringLeaves(value: unknown, path: BodyPath): BodyPath[] {
  if (typeof value === 'string') return [path];
  if (Array.isArray(value)) return value.flatMap((item, i) => stringLeaves(item, [...path, i]));
  if (value && typeof value === 'object') return Object.entries(value).flatMap(([key, member]) => stringLeaves(member, [...path, key]));
  return [];
}

/**
 * The body cases of one input type over the fixture's bodies: every String
 * and ID field (set whether or not the body has it), every string inside a
 * JSON field's value (or the JSON field itself, when the body has none), in
 * the input objects beneath wherever a body holds one. `reached` collects
 * `Type.field` for the coverage check.
 */
function bodyCases(type: GraphQLInputObjectType, bodies: Record<string, unknown>[], reached: Set<string>): { field: string; body: unknown }[] {
  const cases: { field: string; body: unknown }[] = [];
  const seen = new Set<string>();
  const add = (body: unknown, path: BodyPath, value: unknown) => {
    const field = fieldName(Array.isArray(value) ? [...path, 0] : path);
    if (seen.has(field)) return;
    seen.add(field);
    cases.push({ field, body: withValueAt(body, path, value) });
  };
  const text = () => UNSTORABLE[cases.length % UNSTORABLE.length]!;
  const walk = (objectType: GraphQLInputObjectType, body: unknown, path: BodyPath, value: Record<string, unknown>) => {
    for (const field of Object.values(objectType.getFields())) {
      const fieldPath = [...path, field.name];
      const base = value[field.name];
      const named = getNamedType(field.type);
      const key = `${objectType.name}.${field.name}`;
      if (isText(field.type)) {
        reached.add(key);
        add(body, fieldPath, isListType(nullableOf(field.type)) ? [text()] : text());
      } else if (named.name === 'JSON') {
        reached.add(key);
        const leaves = base === undefined || base === null ? [] : stringLeaves(base, fieldPath);
        if (leaves.length === 0) add(body, fieldPath, text());
        for (const leaf of leaves) add(body, leaf, text());
      }
      if (base === null || base === undefined || !isInputObjectType(named)) continue;
      if (Array.isArray(base)) base.forEach((item, i) => walk(named, body, [...fieldPath, i], item as Record<string, unknown>));
      else walk(named, body, fieldPath, base as Record<string, unknown>);
    }
  };
  for (const body of bodies) walk(type, body, [], body);
  return cases;
}

/** `Type.field` of every String, ID and JSON input field reachable from `type`. */
function textFields(type: GraphQLInputObjectType, into = new Set<string>(), visited = new Set<string>()): Set<string> {
  if (visited.has(type.name)) return into;
  visited.add(type.name);
  for (const field of Object.values(type.getFields())) {
    const named = getNamedType(field.type);
    if (isText(field.type) || named.name === 'JSON') into.add(`${type.name}.${field.name}`);
    if (isInputObjectType(named)) textFields(named, into, visited);
  }
  return into;
}

const bodyVariable = (route: RestRoute) => route.variables.find((v) => v.source === 'body');
const inputTypeOf = (route: RestRoute) => schema.getType(bodyVariable(route)!.type.replace(/[[\]!]/g, '')) as GraphQLInputObjectType;

const env = useFixtureServer();

/** Every case of `route`: each path parameter, each query parameter, each body text. */
function casesOf(route: RestRoute, reached = new Set<string>()): Case[] {
  const { params, bodies } = env.fixture;
  const validBody = bodies[route.operationName]?.[0];
  // Required query parameters get a valid value, so that only the case's own place is wrong.
  const required = Object.fromEntries(route.variables.filter((v) => v.source === 'query' && v.type.endsWith('!')).map((v) => [v.name, 'docs']));
  const withQuery = (path: string, query: Record<string, string> = {}) => {
    const search = new URLSearchParams({ ...required, ...query }).toString();
    return search ? `${path}?${search}` : path;
  };
  const path = withQuery(fillPath(route, params));
  const cases: Case[] = [];
  // A URL cannot carry an unpaired surrogate (percent-decoding makes it U+FFFD): NUL there.
  const text = UNSTORABLE[0]!;
  for (const variable of route.variables) {
    if (variable.source === 'path') {
      cases.push({ field: variable.name, path: withQuery(fillPath(route, { ...params, [variable.name]: `${params[variable.name]}${text}` })), body: validBody });
    } else if (variable.source === 'query') {
      // A list parameter (`authors=a&authors=b`) may be named with the index of the value refused.
      const also = variable.type.startsWith('[') ? [`${variable.name}[0]`] : [];
      cases.push({ field: variable.name, also, path: withQuery(fillPath(route, params), { [variable.name]: text }), body: validBody });
    } else {
      for (const c of bodyCases(inputTypeOf(route), bodies[route.operationName] ?? [], reached)) cases.push({ field: c.field, path, body: c.body });
    }
  }
  return cases;
}

describe('text no database stores', () => {
  it.each(restRoutes.filter((r) => !NO_INPUT.has(`${r.method} ${r.path}`)).map((r) => [`${r.method} ${r.path}`, r] as const))(
    '%s: 400 naming the parameter or field, nothing written',
    async (_name, route) => {
      const cases = casesOf(route);
      expect(cases.length).toBeGreaterThan(0);
      const failures: string[] = [];
      const before = await databaseFingerprint(env.server);
      for (const c of cases) {
        const res = await env.server.request(route.method, c.path, { token: env.fixture.user.token, body: c.body });
        const message: unknown = res.body?.error?.message;
        const shaped = res.body && Object.keys(res.body).join() === 'error' && Object.keys(res.body.error).sort().join() === 'code,message' && res.body.error.code === res.status;
        if (res.status !== 400 || !shaped || typeof message !== 'string' || ![c.field, ...(c.also ?? [])].some((field) => namesField(message, field))) {
          failures.push(`${c.field}: ${res.status} ${JSON.stringify(res.body).slice(0, 200)}`);
        }
      }
      const after = await databaseFingerprint(env.server);
      expect(failures).toEqual([]);
      expect(Object.keys(after).filter((k) => after[k] !== before[k]), 'tables written').toEqual([]);
    },
  );

  it('reached every String, ID and JSON field of every body type; only routes without input are left out', () => {
    const reached = new Set<string>();
    for (const route of restRoutes) casesOf(route, reached);
    const all = new Set(restRoutes.filter(bodyVariable).flatMap((r) => [...textFields(inputTypeOf(r))]));
    expect([...all].filter((k) => !reached.has(k)).sort()).toEqual([]);
    expect(restRoutes.filter((r) => r.variables.length === 0).map((r) => `${r.method} ${r.path}`)).toEqual([...NO_INPUT]);
  });

  it('names the refused character', async () => {
    const { organizationId } = env.fixture.params;
    const search = await env.server.request('GET', `/v1/orgs/${organizationId}/search?query=x%00y`, { token: env.fixture.user.token });
    expect(search.body).toEqual({ error: { code: 400, message: 'query: must not contain U+0000 (NUL), which cannot be stored' } });
    const title = await env.server.request('POST', '/v1/orgs', { token: env.fixture.user.token, body: { title: 'Docs \uD83D' } });
    expect(title.body).toEqual({ error: { code: 400, message: 'title: must not contain the unpaired surrogate U+D83D, which is not a character' } });
    // A surrogate pair is a character like any other.
    const emoji = await env.server.request('POST', '/v1/orgs', { token: env.fixture.user.token, body: { title: 'Docs \uD83D\uDCD8' } });
    expect(emoji.status).toBe(201);
    expect(emoji.body.title).toBe('Docs 📘');
  });
});

/**
 * Every 201 route of the route table, over real HTTP: the answer carries a
 * `Location` header with the API URL of what was created (the body's
 * `urls.location` where the contract's body has one), and that URL answers.
 */
import { Kind, parse, type FragmentDefinitionNode, type OperationDefinitionNode } from 'graphql';
import { describe, expect, it } from 'vitest';
import { restRoutes } from '../../src/rest/generated/routes.ts';
import { pruneNulls, replyShape } from '../../src/rest/runtime.ts';
import { contentSchema, contractOperation, deref, fillPath, useFixtureServer } from '../helpers/rest-fixture.ts';

const createRoutes = restRoutes.filter((r) => r.status === 201);

const env = useFixtureServer();

/** Whether the contract's 201 body of `route` has `urls.location`. */
function contractHasLocation(route: (typeof restRoutes)[number]): boolean {
  const { spec, operation } = contractOperation(route);
  const body = deref(spec, contentSchema(spec, operation.responses['201']));
  return Boolean(deref(spec, body?.properties?.urls)?.properties?.location);
}

/** 201 routes that create nothing addressable: applying a template writes pages into existing content (docs/decisions.md, "Location"). */
const NOTHING_CREATED = new Set(['ApplyTemplateToSpace']);

describe('Location', () => {
  it.each(createRoutes.map((r) => [`${r.method} ${r.path}`, r] as const))('%s answers 201 with Location', async (_name, route) => {
    const takesBody = route.variables.some((v) => v.source === 'body');
    const body = takesBody ? env.fixture.bodies[route.operationName]![0] : undefined;
    const res = await env.server.request(route.method, fillPath(route, env.fixture.params), { token: env.fixture.user.token, body });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const location = res.headers.get('location');
    if (NOTHING_CREATED.has(route.operationName)) {
      expect(res.body).toBeNull();
      expect(location).toBeNull();
      return;
    }
    expect(location, `${route.operationName}: no Location header`).toMatch(new RegExp(`^${env.server.baseUrl}/v1/`));
    // The body keeps to the contract: `urls.location` only where the contract has it, and then it is the Location.
    if (contractHasLocation(route)) expect(res.body.urls.location).toBe(location);
    else expect(res.body.urls?.location).toBeUndefined();
    // The URL names the new resource: a path of the route table with its id, answering GET where there is one.
    const path = location!.slice(env.server.baseUrl.length);
    // OpenAPI specs are addressed by their slug, everything else by its id.
    const key = res.body.object === 'openapi-spec' ? res.body.slug : res.body.id;
    expect(path.endsWith(`/${key}`), path).toBe(true);
    const methods = restRoutes.filter((r) => new RegExp(`^${r.path.replace(/\{\w+\}/g, '[^/]+')}$`).test(path)).map((r) => r.method);
    expect(methods.length, `${path} is no route`).toBeGreaterThan(0);
    if (methods.includes('GET')) expect((await env.server.request('GET', path, { token: env.fixture.user.token })).status).toBe(200);
  });

  it('is readable by browser clients of an allowed origin: CORS exposes it (with the rate limit and request id headers)', async () => {
    const res = await env.server.request('POST', '/v1/orgs', { token: env.fixture.user.token, body: { title: 'Cross origin' }, headers: { origin: 'https://app.example.com' } });
    expect(res.status).toBe(201);
    const exposed = (res.headers.get('access-control-expose-headers') ?? '').toLowerCase().split(/,\s*/);
    expect(exposed).toEqual(expect.arrayContaining(['location', 'retry-after', 'ratelimit-limit', 'ratelimit-remaining', 'ratelimit-reset', 'x-request-id']));
  });
});

describe('@omit', () => {
  const shapeOf = (document: string) => {
    const parsed = parse(document);
    const operation = parsed.definitions.find((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION)!;
    const fragments = new Map(parsed.definitions.filter((d): d is FragmentDefinitionNode => d.kind === Kind.FRAGMENT_DEFINITION).map((f) => [f.name.value, f]));
    return replyShape([operation.selectionSet], fragments);
  };
  const reply = { section: { id: 's1', urls: { published: 'https://docs.example.com/a', location: 'https://api.example.com/v1/s1' } } };

  it('leaves a field out of the body', () => {
    const shape = shapeOf('query { section { ...Section urls { location @omit } } } fragment Section on S { id urls { published } }');
    expect(pruneNulls(reply, shape)).toEqual({ section: { id: 's1', urls: { published: 'https://docs.example.com/a' } } });
  });

  it('keeps a field another selection asks for without @omit', () => {
    const shape = shapeOf('query { section { ...Section urls { location @omit } } } fragment Section on S { id urls { published location } }');
    expect(pruneNulls(reply, shape)).toEqual(reply);
  });
});

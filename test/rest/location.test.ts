/**
 * Every 201 route of the route table, over real HTTP: the answer carries a
 * `Location` header with the API URL of what was created (the body's
 * `urls.location` where the contract's body has one), and that URL answers.
 */
import fs from 'node:fs';
import { createRequire } from 'node:module';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { restRoutes } from '../../src/rest/generated/routes.ts';
import { FIXTURE_SERVER_ENV, buildRestFixture, fillPath, type RestFixture } from '../helpers/rest-fixture.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

const createRoutes = restRoutes.filter((r) => r.status === 201);
const require = createRequire(import.meta.url);
const specs = [require('@gitbook/api/spec/openapi.json'), require('gitbook-api-next/spec/openapi.json')];
const endpoints = JSON.parse(fs.readFileSync(new URL('../../spec/endpoints.json', import.meta.url), 'utf8')) as Array<{ method: string; path: string; operationId: string }>;

/** Whether the contract's 201 body of `route` has `urls.location`. */
function contractHasLocation(route: (typeof restRoutes)[number]): boolean {
  const operationId = endpoints.find((e) => e.method === route.method && e.path === route.path)!.operationId;
  const deref = (spec: any, node: any): any => (node?.$ref ? deref(spec, node.$ref.split('/').slice(1).reduce((o: any, k: string) => o[k], spec)) : node);
  for (const spec of specs) {
    for (const methods of Object.values(spec.paths) as any[]) {
      const op = Object.values(methods).find((o: any) => o?.operationId === operationId) as any;
      if (!op) continue;
      const content = Object.values(deref(spec, op.responses['201']).content ?? {}) as Array<{ schema?: unknown }>;
      const body = deref(spec, content[0]?.schema);
      return Boolean(deref(spec, body?.properties?.urls)?.properties?.location);
    }
  }
  throw new Error(`No operation ${operationId} in the OpenAPI documents`);
}

let server: TestServer;
let fixture: RestFixture;
beforeAll(async () => {
  server = await startTestServer(FIXTURE_SERVER_ENV);
  fixture = await buildRestFixture(server);
}, 60_000);
afterAll(() => server.close());

/** 201 routes that create nothing addressable: applying a template writes pages into existing content (docs/decisions.md, "Location"). */
const NOTHING_CREATED = new Set(['ApplyTemplateToSpace']);

describe('Location', () => {
  it.each(createRoutes.map((r) => [`${r.method} ${r.path}`, r] as const))('%s answers 201 with Location', async (_name, route) => {
    const takesBody = route.variables.some((v) => v.source === 'body');
    const body = takesBody ? fixture.bodies[route.operationName]![0] : undefined;
    const res = await server.request(route.method, fillPath(route, fixture.params), { token: fixture.user.token, body });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const location = res.headers.get('location');
    if (NOTHING_CREATED.has(route.operationName)) {
      expect(res.body).toBeNull();
      expect(location).toBeNull();
      return;
    }
    expect(location, `${route.operationName}: no Location header`).toMatch(new RegExp(`^${server.baseUrl}/v1/`));
    // The body keeps to the contract: `urls.location` only where the contract has it, and then it is the Location.
    if (contractHasLocation(route)) expect(res.body.urls.location).toBe(location);
    else expect(res.body.urls?.location).toBeUndefined();
    // The URL names the new resource: a path of the route table with its id, answering GET where there is one.
    const path = location!.slice(server.baseUrl.length);
    expect(path.endsWith(`/${res.body.id}`), path).toBe(true);
    const methods = restRoutes.filter((r) => new RegExp(`^${r.path.replace(/\{\w+\}/g, '[^/]+')}$`).test(path)).map((r) => r.method);
    expect(methods.length, `${path} is no route`).toBeGreaterThan(0);
    if (methods.includes('GET')) expect((await server.request('GET', path, { token: fixture.user.token })).status).toBe(200);
  });

  it('is readable by browser clients: CORS exposes it (with the rate limit and request id headers)', async () => {
    const res = await server.request('POST', '/v1/orgs', { token: fixture.user.token, body: { title: 'Cross origin' }, headers: { origin: 'https://app.example.com' } });
    expect(res.status).toBe(201);
    const exposed = (res.headers.get('access-control-expose-headers') ?? '').toLowerCase().split(/,\s*/);
    expect(exposed).toEqual(expect.arrayContaining(['location', 'retry-after', 'ratelimit-limit', 'ratelimit-remaining', 'ratelimit-reset', 'x-request-id']));
  });
});

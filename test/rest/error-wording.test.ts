/**
 * A REST caller never reads GraphQL's words: over every route, a table of bad
 * requests (bodies missing their fields, of the wrong JSON kind, with unknown
 * or wrongly typed fields and unknown enum values; query-string values that
 * are not of their parameter's type; path ids that name nothing or cannot be
 * ids) answers 4xx in the API's error shape, with no message of graphql-js
 * (`Variable "$query" of required type "String!" was not provided`) and no
 * GraphQL type name. The REST runtime checks values before execution
 * (src/rest/check-input.ts) and speaks of the fields as sent.
 */
import { describe, expect, it } from 'vitest';
import { restRoutes } from '../../src/rest/generated/routes.ts';
import { fillPath, useFixtureServer } from '../helpers/rest-fixture.ts';
import { expectError } from '../helpers/server.ts';

/** What graphql-js's messages say, and never a REST answer. */
const GRAPHQL_WORDING = [
  'Variable "$',
  'of required type',
  'Field "',
  'Expected type',
  'Expected value of type',
  'cannot represent',
  'got invalid value',
  'was not provided',
  'is not defined by type',
  'String!',
  'ID!',
  'Int!',
  'Boolean!',
  'Input!',
  'Did you mean',
];

const state = useFixtureServer();

interface BadRequest {
  method: string;
  path: string;
  body?: unknown;
  why: string;
}

/** The bad requests of one route. */
function badRequests(route: (typeof restRoutes)[number], params: Record<string, string>): BadRequest[] {
  const path = fillPath(route, params);
  const cases: BadRequest[] = [];
  const hasBody = route.variables.some((v) => v.source === 'body');
  if (hasBody) {
    cases.push(
      { method: route.method, path, body: {}, why: 'an empty body (its required fields left out)' },
      { method: route.method, path, body: [], why: 'an array for a body' },
      { method: route.method, path, body: '"text"', why: 'a JSON string for a body' },
      { method: route.method, path, body: '{not json', why: 'a body that is not JSON' },
      {
        method: route.method,
        path,
        body: { title: 5, name: [], role: 'overlord', type: 'gold', visibility: 'everyone', unknownField: true, spaceId: 7, parent: 3 },
        why: 'wrong types, unknown enum values and an unknown field',
      },
    );
  }
  for (const variable of route.variables.filter((v) => v.source === 'query')) {
    for (const bad of ['abc', '', '1.5', '-1', '99999999999', 'true1']) {
      cases.push({ method: route.method, path: `${path}${path.includes('?') ? '&' : '?'}${variable.name}=${encodeURIComponent(bad)}`, why: `${variable.name}=${bad}` });
    }
    cases.push({ method: route.method, path: `${path}?${variable.name}=1&${variable.name}=x`, why: `${variable.name} twice` });
  }
  for (const variable of route.variables.filter((v) => v.source === 'path')) {
    for (const bad of ['nope', ' ', 'a'.repeat(300), '%E2%9C%93']) {
      cases.push({
        method: route.method,
        path: fillPath(route, { ...params, [variable.name]: decodeURIComponent(bad) }),
        body: hasBody ? {} : undefined,
        why: `${variable.name} ${JSON.stringify(bad.slice(0, 10))}`,
      });
    }
  }
  return cases;
}

describe('REST error wording', () => {
  it('names a missing required query parameter and body field as sent', async () => {
    const { server, fixture } = state;
    const org = fixture.params.organizationId;
    expectError(await server.request('GET', `/v1/orgs/${org}/search`, { token: fixture.user.token }), 400, /^query: is required$/);
    expectError(await server.request('GET', `/v1/orgs/${org}/search?query=x&limit=ten`, { token: fixture.user.token }), 400, /^limit: must be an integer$/);
    expectError(await server.request('POST', `/v1/orgs/${org}/sites/${fixture.params.siteId}/sections`, { token: fixture.user.token, body: {} }), 400, /^spaceId: is required$/);
    expectError(
      await server.request('PATCH', `/v1/orgs/${org}/members/${fixture.params.userId}`, { token: fixture.user.token, body: { role: 'overlord' } }),
      400,
      /^role: must be one of /,
    );
  });

  it('answers every bad request of every route 4xx, without GraphQL wording', async () => {
    const { server, fixture } = state;
    const failures: string[] = [];
    let sent = 0;
    for (const route of restRoutes) {
      for (const bad of badRequests(route, fixture.params)) {
        const res = await server.request(bad.method, bad.path, { token: fixture.user.token, body: bad.body });
        sent++;
        if (res.status < 400) continue; // a value the route accepts (an ignored unknown field, `limit=-1` clamped)
        const message = String(res.body?.error?.message ?? '');
        const leaked = GRAPHQL_WORDING.filter((w) => message.includes(w));
        if (res.status >= 500 || res.body?.error?.code !== res.status || leaked.length) {
          failures.push(`${route.operationName} ${bad.why}: ${res.status} ${JSON.stringify(res.body).slice(0, 300)}`);
        }
      }
    }
    expect(sent).toBeGreaterThan(500);
    expect(failures).toEqual([]);
  }, 600_000);
});

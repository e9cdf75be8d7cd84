/**
 * The valid bodies of test/helpers/rest-fixture.ts are valid: each route's
 * bodies, sent in order, are accepted. The table-driven tests (body types,
 * contract limits, Location) change one field of these bodies, so a refusal
 * there is about that field alone.
 *
 * The routes share a fixture, as the table-driven tests do (one per file): a
 * fixture took 0.6 s to build and a fresh one per route a minute of each pass.
 * A route refused on the shared fixture, which the routes before it changed (a
 * space transferred away, a change request merged), gets a fresh fixture and
 * must be accepted there; its refusal is the test's failure only then.
 */
import { expect, it } from 'vitest';
import { restRoutes } from '../../src/rest/generated/routes.ts';
import { FIXTURE_SERVER_ENV, buildRestFixture, fillPath, type RestFixture } from '../helpers/rest-fixture.ts';
import { useTestServer } from '../helpers/server.ts';

/** Bodies the service refuses whatever their values, with the answer they get. */
const REFUSED: Record<string, { index: number; message: RegExp }> = {};

const { server } = useTestServer({ env: FIXTURE_SERVER_ENV });

const bodyRoutes = restRoutes.filter((r) => r.variables.some((v) => v.source === 'body'));
type Route = (typeof bodyRoutes)[number];

/** What went wrong sending the route's bodies on `fixture`, in words; empty when every answer was the expected one. */
async function send(route: Route, fixture: RestFixture): Promise<string[]> {
  const bodies = fixture.bodies[route.operationName] ?? [];
  if (bodies.length === 0) return [`${route.operationName} has no fixture bodies`];
  const problems: string[] = [];
  for (const [index, body] of bodies.entries()) {
    const res = await server.request(route.method, fillPath(route, fixture.params), { token: fixture.user.token, body });
    const refused = REFUSED[route.operationName];
    if (refused?.index === index) {
      if (res.status !== 400 || !refused.message.test(res.body?.error?.message ?? '')) problems.push(`body ${index}: expected 400 ${refused.message}, got ${res.status} ${JSON.stringify(res.body).slice(0, 300)}`);
    } else if (res.status >= 300) {
      problems.push(`${route.operationName} body ${index}: ${res.status} ${JSON.stringify(res.body).slice(0, 300)}`);
    }
  }
  return problems;
}

let shared: RestFixture | undefined;

it.each(bodyRoutes.map((r) => [`${r.method} ${r.path}`, r] as const))('%s accepts the fixture bodies', async (_name, route) => {
  shared ??= await buildRestFixture(server);
  if ((await send(route, shared)).length === 0) return;
  shared = await buildRestFixture(server);
  expect(await send(route, shared)).toEqual([]);
});

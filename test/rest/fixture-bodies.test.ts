/**
 * The valid bodies of test/helpers/rest-fixture.ts are valid: each route's
 * bodies, sent in order on a fresh fixture, are accepted. The table-driven
 * tests (body types, contract limits, Location) change one field of these
 * bodies, so a refusal there is about that field alone.
 */
import { expect, it } from 'vitest';
import { restRoutes } from '../../src/rest/generated/routes.ts';
import { FIXTURE_SERVER_ENV, buildRestFixture, fillPath } from '../helpers/rest-fixture.ts';
import { useTestServer } from '../helpers/server.ts';

/** Bodies the service refuses whatever their values, with the answer they get. */
const REFUSED: Record<string, { index: number; message: RegExp }> = {};

const { server } = useTestServer({ env: FIXTURE_SERVER_ENV });

const bodyRoutes = restRoutes.filter((r) => r.variables.some((v) => v.source === 'body'));

it.each(bodyRoutes.map((r) => [`${r.method} ${r.path}`, r] as const))('%s accepts the fixture bodies', async (_name, route) => {
  const fixture = await buildRestFixture(server);
  const bodies = fixture.bodies[route.operationName] ?? [];
  expect(bodies.length).toBeGreaterThan(0);
  for (const [index, body] of bodies.entries()) {
    const res = await server.request(route.method, fillPath(route, fixture.params), { token: fixture.user.token, body });
    const refused = REFUSED[route.operationName];
    if (refused?.index === index) {
      expect(res.status).toBe(400);
      expect(res.body.error.message).toMatch(refused.message);
    } else {
      expect(res.status, `${route.operationName} body ${index}: ${JSON.stringify(res.body).slice(0, 300)}`).toBeLessThan(300);
    }
  }
});

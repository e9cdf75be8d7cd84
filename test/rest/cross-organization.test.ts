/**
 * Another organization's data is never visible: every route of the route table, called by an
 * admin of another organization (with a token that works on their own) on the fixture's
 * resources, with a valid body, is refused with a 4xx and changes nothing. Routes of the caller's
 * own account, and those that name nothing of an organization, are the only ones left out.
 */
import { describe, expect, it } from 'vitest';
import { restRoutes } from '../../src/rest/generated/routes.ts';
import { fillPath, useFixtureServer } from '../helpers/rest-fixture.ts';

const env = useFixtureServer();

/** Routes with nothing of another organization in their path: the caller's own account, their organizations, users by id, published URLs. */
const OWN_OR_PUBLIC = (route: (typeof restRoutes)[number]) => !/\{(organizationId|spaceId|collectionId|siteId|changeRequestId|teamId|inviteId|samlProviderId|translationId|jobId)\}/.test(route.path);

const swept = restRoutes.filter((route) => !OWN_OR_PUBLIC(route));

describe('another organization', () => {
  it('sweeps most of the route table', () => {
    expect(swept.length).toBeGreaterThan(restRoutes.length * 0.8);
  });

  it.each(swept.map((r) => [`${r.method} ${r.path}`, r] as const))("%s is refused to another organization's admin", async (_name, route) => {
    const outsider = await env.server.createUser('Mallory');
    const own = await env.server.createOrg(outsider, 'Elsewhere');
    expect((await env.server.request('GET', `/v1/orgs/${own}`, { token: outsider.token })).status).toBe(200);
    const takesBody = route.variables.some((v) => v.source === 'body');
    const body = takesBody ? env.fixture.bodies[route.operationName]?.[0] : undefined;
    const res = await env.server.request(route.method, fillPath(route, env.fixture.params), { token: outsider.token, body });
    expect(res.status, JSON.stringify(res.body)).toBeGreaterThanOrEqual(400);
    expect(res.status, JSON.stringify(res.body)).toBeLessThan(500);
  });
});

/**
 * Content edited as a member does it over REST: a change request opened, its content changed,
 * then merged. For the tests of what content holds (page settings, tags, reusable contents,
 * redirects), which each used to define these same steps.
 */
import { expect } from 'vitest';
import { assertMatchesSpec } from './openapi.ts';
import type { TestServer, TestUser } from './server.ts';

export function contentEdits(server: TestServer, user: TestUser, subject: string) {
  /** A request of `user` that must succeed; its body. */
  async function ok(method: string, path: string, body?: unknown) {
    const res = await server.request(method, path, { token: user.token, body });
    expect(res.status, `${method} ${path}: ${JSON.stringify(res.body)}`).toBeLessThan(300);
    return res.body;
  }
  return {
    ok,
    /** Opens a change request on the space; its id. */
    changeRequest: async (space: string) => (await ok('POST', `/v1/spaces/${space}/change-requests`, { subject })).id as string,
    /** Applies changes to the change request's content (the whole update, `compat=false`). */
    edit: (space: string, cr: string, changes: unknown[]) => ok('POST', `/v1/spaces/${space}/change-requests/${cr}/content?compat=false`, { changes }),
    /** Marks the change request open and merges it; the merge's answer, checked against the contract. */
    merge: async (space: string, cr: string) => {
      await ok('PATCH', `/v1/spaces/${space}/change-requests/${cr}`, { status: 'open' });
      const body = await ok('POST', `/v1/spaces/${space}/change-requests/${cr}/merge`);
      assertMatchesSpec('mergeChangeRequest', 200, body);
      return body;
    },
  };
}

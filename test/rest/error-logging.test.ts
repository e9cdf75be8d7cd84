/**
 * Errors the caller caused (4xx) are not the server's: they stay out of the error log, over REST
 * and GraphQL alike, while the answer still carries them.
 */
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { expectError, useTestServer } from '../helpers/server.ts';

let token: string;

const { server } = useTestServer();

beforeAll(async () => {
  token = (await server.createUser('Ada')).token;
});

describe('error log', () => {
  it('leaves out 4xx answers of REST and GraphQL (logged at debug level)', async () => {
    const error = vi.spyOn(server.app.log, 'error');
    const debug = vi.spyOn(server.app.log, 'debug');
    try {
      expectError(await server.request('GET', '/v1/spaces/no-such-space', { token }), 404);
      expectError(await server.request('PATCH', '/v1/orgs/no-such-org', { token, body: { title: 'x' } }), 400);
      const graphql = await server.request('POST', '/graphql', { token, body: { query: '{ space(id: "no-such-space") { id } }' } });
      expect(graphql.body.errors[0].extensions.code).toBe('NOT_FOUND');
      expect(error).not.toHaveBeenCalled();
      expect(debug.mock.calls.filter((call) => call[1] === 'client error').length).toBeGreaterThanOrEqual(3);
    } finally {
      error.mockRestore();
      debug.mockRestore();
    }
  });
});

/**
 * Request limits over the real server: the per-token rate limit (429 with
 * Retry-After and RateLimit-*) and the body size limit (413), including
 * chunked bodies that carry no Content-Length.
 */
import http from 'node:http';
import { describe, expect, it } from 'vitest';
import { useTestServer } from '../helpers/server.ts';

describe('rate limit', () => {
  const POINTS = 3;
  const { server, ada, bob } = useTestServer({ users: ['Ada', 'Bob'], env: { RATE_LIMIT_POINTS: String(POINTS), RATE_LIMIT_WINDOW_SECONDS: '60' } });

  function expectResetWithinWindow(headers: Headers) {
    const reset = Number(headers.get('ratelimit-reset'));
    expect(reset).toBeGreaterThanOrEqual(1);
    expect(reset).toBeLessThanOrEqual(60);
  }

  it('answers requests under the limit with RateLimit-* headers, then 429 with Retry-After, per token', async () => {
    for (let i = 1; i <= POINTS; i++) {
      const res = await server.request('GET', '/v1/user', { token: ada.token });
      expect(res.status).toBe(200);
      expect(res.body.id).toBe(ada.id);
      expect(res.headers.get('ratelimit-limit')).toBe(String(POINTS));
      expect(res.headers.get('ratelimit-remaining')).toBe(String(POINTS - i));
      expectResetWithinWindow(res.headers);
      expect(res.headers.get('retry-after')).toBeNull();
    }

    const limited = await server.request('GET', '/v1/user', { token: ada.token });
    expect(limited.status).toBe(429);
    expect(limited.body).toEqual({ error: { code: 429, message: expect.stringMatching(/^Too many requests: retry in \d+ seconds$/) } });
    const retryAfter = Number(limited.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(limited.headers.get('ratelimit-limit')).toBe(String(POINTS));
    expect(limited.headers.get('ratelimit-remaining')).toBe('0');
    expectResetWithinWindow(limited.headers);

    // GraphQL shares the budget and answers in its own error shape.
    const overGraphql = await server.request('POST', '/graphql', { token: ada.token, body: { query: '{ viewer { id } }' } });
    expect(overGraphql.status).toBe(429);
    expect(overGraphql.body.errors?.[0]?.extensions?.code).toBe('RATE_LIMITED');
    expect(overGraphql.headers.get('retry-after')).toMatch(/^\d+$/);

    // Another token has its own budget.
    const other = await server.request('GET', '/v1/user', { token: bob.token });
    expect(other.status).toBe(200);
    expect(other.body.id).toBe(bob.id);
    expect(other.headers.get('ratelimit-remaining')).toBe(String(POINTS - 1));
  });

  it('limits anonymous callers per address, and leaves /healthz out', async () => {
    for (let i = 1; i <= POINTS; i++) {
      const res = await server.request('GET', '/v1/user');
      expect(res.status).toBe(401);
      expect(res.headers.get('ratelimit-remaining')).toBe(String(POINTS - i));
    }
    const limited = await server.request('GET', '/v1/user');
    expect(limited.status).toBe(429);
    expect(limited.body).toEqual({ error: { code: 429, message: expect.any(String) } });
    expect(limited.headers.get('retry-after')).toMatch(/^\d+$/);

    const health = await server.request('GET', '/healthz');
    expect(health.status).toBe(200);
  });
});

describe('body size limit', () => {
  const LIMIT = 1024;
  const { server, ada } = useTestServer({ users: ['Ada'], env: { BODY_LIMIT_BYTES: String(LIMIT) } });

  interface RawResponse {
    status: number;
    headers: http.IncomingHttpHeaders;
    body: any;
  }

  /**
   * POSTs `chunks` with node:http and no Content-Length, so the body goes out
   * chunked. With `end: false` the request is left open after the chunks: the
   * answer must come without the rest of the body.
   */
  function postChunked(path: string, chunks: string[], options: { end?: boolean } = {}): Promise<RawResponse> {
    const url = new URL(path, server.baseUrl);
    return new Promise((resolve, reject) => {
      let answered = false;
      const req = http.request(url, {
        method: 'POST',
        headers: { authorization: `Bearer ${ada.token}`, 'content-type': 'application/json', accept: 'application/json' },
      });
      req.on('response', (res) => {
        answered = true;
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk) => {
          text += chunk;
        });
        res.on('end', () => {
          if (options.end === false) req.destroy();
          let body: unknown = text;
          try {
            body = JSON.parse(text);
          } catch {
            // not JSON: keep the text
          }
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body });
        });
        res.on('error', reject);
      });
      // The server may close the connection after an early 413 while we still write.
      req.on('error', (error) => {
        if (!answered) reject(error);
      });
      for (const chunk of chunks) req.write(chunk);
      if (options.end !== false) req.end();
    });
  }

  /** `json` cut into `size`-character chunks. */
  function chunked(json: unknown, size = 200): string[] {
    const text = JSON.stringify(json);
    const chunks: string[] = [];
    for (let i = 0; i < text.length; i += size) chunks.push(text.slice(i, i + size));
    return chunks;
  }

  const padding = 'x'.repeat(4 * LIMIT);

  it('takes a chunked REST body under the limit', async () => {
    /** The organizations created so far, by the request metric: counted under their route, which the limit must keep. */
    const created = async () => {
      const metrics = (await server.request('GET', '/metrics')).body as string;
      return Number(/^http_request_duration_seconds_count\{method="POST",route="\/v1\/orgs",status="201"\} (\d+)$/m.exec(metrics)?.[1] ?? 0);
    };
    const before = await created();
    const res = await postChunked('/v1/orgs', chunked({ title: 'Chunked org' }, 5));
    expect(res.status).toBe(201);
    expect(res.body.title).toBe('Chunked org');
    // The limit wraps the request in place: per-request state (the route label) survives it.
    expect(await created()).toBe(before + 1);
  });

  it('answers 413 in the REST error shape for a chunked body over the limit', async () => {
    const res = await postChunked('/v1/orgs', chunked({ title: 'Too big', padding }));
    expect(res.status).toBe(413);
    expect(res.body).toEqual({ error: { code: 413, message: `The request body is larger than ${LIMIT} bytes` } });
    expect(res.headers.connection).toBe('close');

    const orgs = await server.request('GET', '/v1/orgs', { token: ada.token });
    expect(orgs.body.items.map((o: { title: string }) => o.title)).not.toContain('Too big');
  });

  it('answers 413 without waiting for the rest of a chunked body', async () => {
    const res = await postChunked('/v1/orgs', [`{"title":"Endless","padding":"${'x'.repeat(2 * LIMIT)}`], { end: false });
    expect(res.status).toBe(413);
    expect(res.body.error.code).toBe(413);
  });

  it('takes a chunked GraphQL body under the limit', async () => {
    const res = await postChunked('/graphql', chunked({ query: '{ viewer { id displayName } }' }, 7));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ data: { viewer: { id: ada.id, displayName: 'Ada' } } });
  });

  it('answers 413 with PAYLOAD_TOO_LARGE for a chunked GraphQL body over the limit', async () => {
    const res = await postChunked('/graphql', chunked({ query: '{ viewer { id } }', variables: { padding } }));
    expect(res.status).toBe(413);
    expect(res.body.data).toBeUndefined();
    expect(res.body.errors).toEqual([{ message: `The request body is larger than ${LIMIT} bytes`, extensions: { code: 'PAYLOAD_TOO_LARGE' } }]);
    expect(res.headers.connection).toBe('close');

    const open = await postChunked('/graphql', [`{"query":"{ viewer { id } }","variables":{"padding":"${'x'.repeat(2 * LIMIT)}`], { end: false });
    expect(open.status).toBe(413);
  });

  it('answers 413 from Content-Length alone, before reading the body', async () => {
    const rest = await server.request('POST', '/v1/orgs', { token: ada.token, body: { title: 'Declared', padding } });
    expect(rest.status).toBe(413);
    expect(rest.body).toEqual({ error: { code: 413, message: `The request body is larger than ${LIMIT} bytes` } });

    const graphql = await server.request('POST', '/graphql', { token: ada.token, body: { query: '{ viewer { id } }', variables: { padding } } });
    expect(graphql.status).toBe(413);
    expect(graphql.body.errors?.[0]?.extensions?.code).toBe('PAYLOAD_TOO_LARGE');

    const small = await server.request('POST', '/v1/orgs', { token: ada.token, body: { title: 'Declared small' } });
    expect(small.status).toBe(201);
  });
});

/**
 * Per-token rate limiting (per client address when anonymous) and the
 * request body size limit, before any parsing: a declared Content-Length over
 * the limit is refused at once, a chunked body as soon as it has delivered
 * more than the limit (413, and the connection is closed). rate-limiter-flexible's
 * memory store can be swapped for its Redis store when several processes
 * must share the budget.
 */
import type { Plugin } from 'graphql-yoga';
import { RateLimiterMemory, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import { hashToken } from '../auth/viewer.ts';
import { PayloadTooLargeError, RateLimitedError, type AppError } from '../errors/index.ts';
import { toGraphQLError } from '../errors/mask.ts';

export interface RequestLimitsOptions {
  rateLimit: { points: number; windowSeconds: number };
  bodyLimitBytes: number;
  /** A larger body limit for some requests (the endpoints taking an OpenAPI document's text); `bodyLimitBytes` for the others. */
  bodyLimitFor?: (method: string, pathname: string) => number | undefined;
  /** Writes an error in the shape the path expects (REST or GraphQL). */
  errorResponse: (request: Request, error: AppError) => Response;
  limiter?: RateLimiterAbstract;
}

function clientKey(request: Request, serverContext: unknown): string {
  const auth = request.headers.get('authorization');
  const token = auth?.match(/^Bearer\s+(\S+)/i)?.[1];
  if (token) return `t:${hashToken(token)}`;
  const socket = (serverContext as { req?: { socket?: { remoteAddress?: string } } } | undefined)?.req?.socket;
  return `ip:${socket?.remoteAddress ?? 'unknown'}`;
}

function rateLimitHeaders(points: number, res: RateLimiterRes): Record<string, string> {
  return {
    'RateLimit-Limit': String(points),
    'RateLimit-Remaining': String(Math.max(0, res.remainingPoints)),
    'RateLimit-Reset': String(Math.ceil(res.msBeforeNext / 1000)),
  };
}

function tooLarge(limit: number): PayloadTooLargeError {
  return new PayloadTooLargeError(`The request body is larger than ${limit} bytes`);
}

/**
 * Makes every way of reading `request`'s body (`body`, `text()`, `json()`,
 * `formData()`, ...) go through a stream that counts bytes as they arrive and
 * fails once more than `limit` have come, without reading further. For bodies
 * without Content-Length (chunked): those with one were checked up front, and
 * Node's parser holds a body to its declared length.
 *
 * The request is changed in place rather than replaced (onRequest's
 * setRequest): other plugins and the REST runtime key per-request state on
 * this object. The error is a GraphQLError wrapping PayloadTooLargeError, so
 * yoga's request parser passes it on as is (413 through maskError), and the
 * REST runtime answers it as 413 in its error shape.
 */
function limitBody(request: Request, limit: number): void {
  const source = request.body;
  if (!source) return;
  let reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
  let received = 0;
  let used = false;
  const limited = new ReadableStream<Uint8Array>({
    async pull(controller) {
      reader ??= source.getReader();
      const { done, value } = await reader.read();
      if (done) {
        controller.close();
        return;
      }
      received += value.byteLength;
      if (received > limit) {
        // Not cancelled: cancelling would destroy the socket before the 413 is sent.
        // The 413 closes the connection instead (onResponse below).
        reader.releaseLock();
        controller.error(toGraphQLError(tooLarge(limit)));
        return;
      }
      controller.enqueue(value);
    },
    cancel(reason) {
      return (reader ?? source).cancel(reason);
    },
  });
  async function bytes(): Promise<Uint8Array<ArrayBuffer>> {
    if (used) throw new TypeError('Body is unusable: Body has already been read');
    used = true;
    const chunks: Uint8Array[] = [];
    let length = 0;
    const limitedReader = limited.getReader();
    for (let next = await limitedReader.read(); !next.done; next = await limitedReader.read()) {
      chunks.push(next.value);
      length += next.value.byteLength;
    }
    const all = new Uint8Array(length);
    let offset = 0;
    for (const chunk of chunks) {
      all.set(chunk, offset);
      offset += chunk.byteLength;
    }
    return all;
  }
  const text = async () => new TextDecoder().decode(await bytes());
  const contentType = request.headers.get('content-type') ?? '';
  Object.defineProperties(request, {
    body: { get: () => limited, configurable: true },
    bodyUsed: { get: () => used || limited.locked, configurable: true },
    bytes: { value: bytes, configurable: true },
    arrayBuffer: { value: async () => (await bytes()).buffer, configurable: true },
    text: { value: text, configurable: true },
    json: { value: async () => JSON.parse(await text()), configurable: true },
    blob: { value: async () => new Blob([await bytes()], { type: contentType }), configurable: true },
    formData: { value: async () => new Response(await bytes(), { headers: { 'content-type': contentType } }).formData(), configurable: true },
  });
}

export function useRequestLimits(options: RequestLimitsOptions): Plugin {
  const limiter = options.limiter ?? new RateLimiterMemory({ points: options.rateLimit.points, duration: options.rateLimit.windowSeconds });
  const headersFor = new WeakMap<Request, Record<string, string>>();
  return {
    async onRequest({ request, url, endResponse, serverContext }) {
      if (['/healthz', '/readyz', '/metrics'].includes(url.pathname)) return;
      const declared = request.headers.get('content-length');
      const bodyLimit = options.bodyLimitFor?.(request.method, url.pathname) ?? options.bodyLimitBytes;
      if (Number(declared ?? 0) > bodyLimit) {
        endResponse(options.errorResponse(request, tooLarge(bodyLimit)));
        return;
      }
      try {
        const res = await limiter.consume(clientKey(request, serverContext));
        headersFor.set(request, rateLimitHeaders(options.rateLimit.points, res));
      } catch (rejection) {
        if (!(rejection instanceof RateLimiterRes)) throw rejection;
        const headers = rateLimitHeaders(options.rateLimit.points, rejection);
        endResponse(options.errorResponse(request, new RateLimitedError(Math.max(1, Math.ceil(rejection.msBeforeNext / 1000)), headers)));
        return;
      }
      if (declared === null && request.method !== 'GET' && request.method !== 'HEAD') limitBody(request, bodyLimit);
    },
    onResponse({ request, response }) {
      const headers = headersFor.get(request);
      if (headers) for (const [k, v] of Object.entries(headers)) response.headers.set(k, v);
      // The rest of a body that is too large is not read: end the connection rather
      // than read (and drop) whatever the client still sends on it.
      if (response.status === 413) response.headers.set('connection', 'close');
    },
  };
}

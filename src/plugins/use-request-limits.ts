/**
 * Per-token rate limiting (per client address when anonymous) and the
 * request body size limit, before any parsing. rate-limiter-flexible's
 * memory store can be swapped for its Redis store when several processes
 * must share the budget.
 */
import type { Plugin } from 'graphql-yoga';
import { RateLimiterMemory, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import { hashToken } from '../auth/viewer.ts';
import { PayloadTooLargeError, RateLimitedError, type AppError } from '../errors/index.ts';

export interface RequestLimitsOptions {
  rateLimit: { points: number; windowSeconds: number };
  bodyLimitBytes: number;
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

export function useRequestLimits(options: RequestLimitsOptions): Plugin {
  const limiter = options.limiter ?? new RateLimiterMemory({ points: options.rateLimit.points, duration: options.rateLimit.windowSeconds });
  const headersFor = new WeakMap<Request, Record<string, string>>();
  return {
    async onRequest({ request, url, endResponse, serverContext }) {
      if (url.pathname === '/healthz' || url.pathname === '/metrics') return;
      const length = Number(request.headers.get('content-length') ?? 0);
      if (length > options.bodyLimitBytes) {
        endResponse(options.errorResponse(request, new PayloadTooLargeError(`The request body is larger than ${options.bodyLimitBytes} bytes`)));
        return;
      }
      try {
        const res = await limiter.consume(clientKey(request, serverContext));
        headersFor.set(request, rateLimitHeaders(options.rateLimit.points, res));
      } catch (rejection) {
        if (!(rejection instanceof RateLimiterRes)) throw rejection;
        const headers = rateLimitHeaders(options.rateLimit.points, rejection);
        endResponse(options.errorResponse(request, new RateLimitedError(Math.max(1, Math.ceil(rejection.msBeforeNext / 1000)), headers)));
      }
    },
    onResponse({ request, response }) {
      const headers = headersFor.get(request);
      if (headers) for (const [k, v] of Object.entries(headers)) response.headers.set(k, v);
    },
  };
}

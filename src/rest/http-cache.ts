/**
 * Conditional GETs: every successful GET answer (a REST resource, a GraphQL query sent with GET)
 * carries a strong `ETag`, the hash of its bytes, and a request whose `If-None-Match` names it
 * gets `304 Not Modified` without the body. The answer is still computed (a body depends on more
 * than one row's version: counts, permissions, published URLs), so what a 304 saves is the
 * transfer and the client's parsing; docs/decisions.md, "Conditional GETs", says why.
 *
 * Answers depend on who asks: `Cache-Control: private, no-cache` (a browser may keep one, but asks
 * again every time; no shared cache keeps it) and `Vary: Authorization`.
 */
import { createHash } from 'node:crypto';

/** What GET answers say about caching. */
export const GET_CACHE_HEADERS = { 'cache-control': 'private, no-cache', vary: 'Authorization' } as const;

/** The strong entity tag of a body: a hash of its bytes. */
export function entityTag(body: string): string {
  return `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`;
}

/**
 * Whether `If-None-Match` (its list, or `*`) names `etag`. Weak comparison, as RFC 9110 says for
 * this header: `W/"x"` matches `"x"`.
 */
export function noneMatch(header: string | null, etag: string): boolean {
  if (!header) return false;
  const wanted = etag.replace(/^W\//, '');
  return header.split(',').some((candidate) => {
    const tag = candidate.trim();
    return tag === '*' || tag.replace(/^W\//, '') === wanted;
  });
}

type ResponseClass = typeof Response;

/**
 * The answer to a successful GET of `body`: 200 with the body and its ETag, or 304 with the
 * ETag alone when the request already holds it.
 */
export function conditionalGet(request: Request, body: string, headers: Record<string, string>, ResponseOf: ResponseClass): Response {
  const etag = entityTag(body);
  const cacheHeaders = { ...GET_CACHE_HEADERS, etag };
  if (noneMatch(request.headers.get('if-none-match'), etag)) return new ResponseOf(null, { status: 304, headers: cacheHeaders });
  return new ResponseOf(body, { status: 200, headers: { ...headers, ...cacheHeaders } });
}

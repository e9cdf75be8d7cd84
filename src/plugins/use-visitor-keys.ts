/**
 * `GET /.well-known/jwks/{organizationId}.json`: the organization's public
 * signing keys as a JSON Web Key Set (RFC 7517), without a token, so that a
 * site renderer verifies the visitor claims `POST /v1/orgs/{id}/ping` hands out
 * (src/auth/visitor-claims.ts). Public keys only; an organization without keys
 * (none made yet, or no such organization) answers an empty set, so the path
 * tells nobody which organizations exist.
 */
import type { Plugin } from 'graphql-yoga';
import { JWKS_PATH, organizationJwks } from '../auth/visitor-claims.ts';
import type { Db } from '../db/client.ts';
import { unstorableText } from '../db/storable-text.ts';
import { errorResponse } from '../rest/runtime.ts';
import { setRouteLabel } from './use-http-observability.ts';

const PREFIX = JWKS_PATH.slice(0, JWKS_PATH.indexOf('{'));
const SUFFIX = JWKS_PATH.slice(JWKS_PATH.indexOf('}') + 1);

export function useVisitorKeys(options: { db: Pick<Db, 'organizationSigningKey'> }): Plugin {
  return {
    async onRequest({ request, url, endResponse, fetchAPI }) {
      if (!url.pathname.startsWith(PREFIX) || !url.pathname.endsWith(SUFFIX)) return;
      setRouteLabel(request, JWKS_PATH);
      if (request.method !== 'GET' && request.method !== 'HEAD') {
        return endResponse(errorResponse(405, `${request.method} is not allowed here`, { allow: 'GET, HEAD' }, fetchAPI.Response));
      }
      let organizationId: string;
      try {
        organizationId = decodeURIComponent(url.pathname.slice(PREFIX.length, url.pathname.length - SUFFIX.length));
      } catch {
        return endResponse(errorResponse(404, 'Not found', {}, fetchAPI.Response));
      }
      if (!organizationId || organizationId.includes('/')) return endResponse(errorResponse(404, 'Not found', {}, fetchAPI.Response));
      const problem = unstorableText(organizationId);
      if (problem) return endResponse(errorResponse(400, `organizationId: ${problem}`, {}, fetchAPI.Response));
      const jwks = await organizationJwks(options.db, organizationId);
      endResponse(
        new fetchAPI.Response(JSON.stringify(jwks), {
          status: 200,
          // Verifiers cache it; a rotation is seen within five minutes (retired keys stay published meanwhile).
          headers: { 'content-type': 'application/jwk-set+json', 'cache-control': 'public, max-age=300' },
        }),
      );
    },
  };
}

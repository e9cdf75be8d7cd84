/**
 * `GET /openapi/<organizationId>/<slug>/[<file path>]`: the published address of a public OpenAPI
 * spec (its `urls.published`), for anyone: the latest version's entry file at the folder's
 * address, the files its relative `$ref`s name beneath it, so a tool given the URL resolves them
 * as it would on the spec's own server. Private specs, and specs without a version, are 404 (their
 * existence is nobody else's business); members read them through the API.
 */
import type { Plugin } from 'graphql-yoga';
import type { Db } from '../db/client.ts';
import { errorResponse } from '../rest/runtime.ts';
import { publishedOpenAPIFile } from '../services/openapi-spec.ts';
import type { ObjectStorage } from '../storage/object-storage.ts';
import { PUBLISHED_OPENAPI_PREFIX } from '../urls.ts';
import { setRouteLabel } from './use-http-observability.ts';

/** How long a client may reuse an answer: a new version shows within a minute. */
const MAX_AGE_SECONDS = 60;

function contentTypeOf(path: string): string {
  return /\.json$/i.test(path) ? 'application/json; charset=utf-8' : 'application/yaml; charset=utf-8';
}

export function usePublishedOpenAPI(options: { db: Db; storage: ObjectStorage }): Plugin {
  return {
    async onRequest({ request, url, endResponse, fetchAPI }) {
      if (!url.pathname.startsWith(PUBLISHED_OPENAPI_PREFIX)) return;
      setRouteLabel(request, `${PUBLISHED_OPENAPI_PREFIX}{organizationId}/{slug}/{path}`);
      const cors = { 'access-control-allow-origin': '*' };
      const fail = (status: number, message: string, headers: Record<string, string> = {}) =>
        endResponse(errorResponse(status, message, { ...cors, 'cache-control': 'no-store', ...headers }, fetchAPI.Response));
      if (request.method !== 'GET' && request.method !== 'HEAD') return fail(405, `${request.method} is not allowed here`, { allow: 'GET, HEAD' });
      const [organizationId, slug, ...rest] = url.pathname.slice(PUBLISHED_OPENAPI_PREFIX.length).split('/');
      if (!organizationId || !slug) return fail(404, 'OpenAPI spec not found');
      // The spec's address is its folder: a relative $ref of its entry resolves beneath it.
      if (rest.length === 0) return endResponse(new fetchAPI.Response(null, { status: 308, headers: { ...cors, location: `${url.pathname}/` } }));
      let decoded: string[];
      try {
        decoded = [organizationId, slug, rest.join('/')].map(decodeURIComponent);
      } catch {
        return fail(404, 'File not found');
      }
      const [organization, specSlug, path] = decoded as [string, string, string];
      const file = await publishedOpenAPIFile(options.db, options.storage, organization, specSlug, path);
      if (!file) return fail(404, path ? `No file ${path} in this OpenAPI spec` : 'OpenAPI spec not found');
      endResponse(
        new fetchAPI.Response(request.method === 'HEAD' ? null : (file.bytes as Uint8Array<ArrayBuffer>), {
          status: 200,
          headers: {
            ...cors,
            'content-type': contentTypeOf(file.path),
            'content-length': String(file.bytes.byteLength),
            'x-content-type-options': 'nosniff',
            'cache-control': `public, max-age=${MAX_AGE_SECONDS}`,
          },
        }),
      );
    },
  };
}

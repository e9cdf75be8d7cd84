/**
 * Conditional GETs for GraphQL: a query sent with GET whose result has no errors answers an ETag
 * and `Cache-Control`, and 304 to a client that holds the tag, as REST GETs do
 * (src/rest/http-cache.ts says how and why). Done on the finished answer, whatever media type
 * yoga chose for it (JSON or GraphQL over HTTP's); event streams are left alone.
 */
import type { Plugin } from 'graphql-yoga';
import { conditionalGet } from '../rest/http-cache.ts';

const JSON_TYPES = /^application\/(graphql-response\+)?json\b/;

export function useConditionalGraphqlGets(options: { graphqlEndpoint: string }): Plugin {
  return {
    async onResponse({ request, response, setResponse, fetchAPI }) {
      if (request.method !== 'GET' || response.status !== 200 || response.headers.has('etag')) return;
      if (!JSON_TYPES.test(response.headers.get('content-type') ?? '')) return;
      if (new URL(request.url).pathname !== options.graphqlEndpoint) return;
      const body = await response.text();
      const headers = Object.fromEntries(response.headers);
      let failed = true;
      try {
        failed = (JSON.parse(body) as { errors?: unknown[] }).errors !== undefined;
      } catch {
        // not JSON after all: answered as it was
      }
      setResponse(failed ? new fetchAPI.Response(body, { status: response.status, headers }) : conditionalGet(request, body, headers, fetchAPI.Response));
    },
  };
}

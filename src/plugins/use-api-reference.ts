/**
 * The API reference: `GET /v1/openapi.json`, the OpenAPI document of exactly
 * the REST routes this server serves (generated with the route table by
 * `npm run codegen`, codegen/openapi-document.cjs), and `/docs`, a page that
 * renders it with Redoc's standalone bundle, served by this server from the
 * `redoc` package. Neither needs a token. The page carries a
 * Content-Security-Policy of its own origin: Redoc's sidebar shows a logo from
 * Redocly's CDN, which the browser then never fetches.
 */
import fs from 'node:fs';
import { createRequire } from 'node:module';
import type { Plugin } from 'graphql-yoga';
import type { AppConfig } from '../config.ts';
import { MethodNotAllowedError } from '../errors/index.ts';
import { REST_PREFIX, restErrorResponse } from '../rest/runtime.ts';
import { setRouteLabel } from './use-http-observability.ts';

export const OPENAPI_PATH = `${REST_PREFIX}/openapi.json`;
export const DOCS_PATH = '/docs';

const require = createRequire(import.meta.url);
const REDOC_VERSION = (require('redoc/package.json') as { version: string }).version;
/** Where the page's scripts are served; the version in the path lets browsers keep them for good. */
const ASSETS = `${DOCS_PATH}/assets/${REDOC_VERSION}`;

/** What the page says this service is. */
export const DOCS_TITLE = 'Docs publishing API · REST reference';
const DOCS_DESCRIPTION =
  'Reference of the REST API of this documentation publishing service (GitBook-compatible, under /v1), rendered from its OpenAPI document at /v1/openapi.json.';

/**
 * Redoc's options: the theme's fonts are the system's (nothing is loaded for them). GitBook's
 * document schemas nest into each other: Redoc's generated examples stop at a small depth, or
 * building them takes the browser's whole memory.
 */
const REDOC_OPTIONS = {
  generatedPayloadSamplesMaxDepth: 3,
  hideLoading: true,
  theme: { typography: { fontFamily: 'system-ui, sans-serif', headings: { fontFamily: 'system-ui, sans-serif' }, code: { fontFamily: 'ui-monospace, monospace' } } },
};

/** Starts Redoc on the document. A file rather than an inline script, so the policy allows scripts of this origin only. */
const START = `(function () {
  Redoc.init(${JSON.stringify(OPENAPI_PATH)}, ${JSON.stringify(REDOC_OPTIONS)}, document.getElementById('redoc'));
})();
`;

const ASSET_FILES: Record<string, { type: string; body: () => string }> = {
  'redoc.standalone.js': { type: 'text/javascript; charset=utf-8', body: () => fs.readFileSync(require.resolve('redoc/bundles/redoc.standalone.js'), 'utf8') },
  'start.js': { type: 'text/javascript; charset=utf-8', body: () => START },
};

/** Same origin only; Redoc sets styles inline, runs its search in a worker made from a blob, and draws some icons as data: URLs. */
const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "worker-src 'self' blob:",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

const PAGE = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <title>${escapeHtml(DOCS_TITLE)}</title>
    <meta name="description" content="${escapeHtml(DOCS_DESCRIPTION)}">
    <style>body { margin: 0; }</style>
  </head>
  <body>
    <noscript>This reference needs JavaScript. The OpenAPI document it renders is at <a href="${OPENAPI_PATH}">${OPENAPI_PATH}</a>.</noscript>
    <div id="redoc"></div>
    <script src="${ASSETS}/redoc.standalone.js"></script>
    <script src="${ASSETS}/start.js"></script>
  </body>
</html>
`;

/**
 * The served document: the generated one with this server's URL and version. Read on first
 * request (about 0.5 MB that no start needs), next to this module in src/ and in dist/ alike.
 */
function servedDocument(publicUrl: string): string {
  const document = JSON.parse(fs.readFileSync(new URL('../rest/generated/openapi.json', import.meta.url), 'utf8')) as {
    openapi: string;
    info: Record<string, unknown>;
  } & Record<string, unknown>;
  const { version } = JSON.parse(fs.readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
  const { openapi, info, ...rest } = document;
  return JSON.stringify({ openapi, info: { ...info, version }, servers: [{ url: publicUrl, description: 'This server' }], ...rest });
}

/** `config.publicUrl` is read when the document is first served. */
export function useApiReference(options: { config: Pick<AppConfig, 'publicUrl'> }): Plugin {
  let openapi: string | undefined;
  const assets = new Map<string, string>();
  const security = { 'x-content-type-options': 'nosniff' };
  return {
    onRequest({ request, url, endResponse, fetchAPI }) {
      const path = url.pathname.replace(/(.)\/$/, '$1');
      const read = request.method === 'GET' || request.method === 'HEAD';
      if (path === OPENAPI_PATH) {
        setRouteLabel(request, OPENAPI_PATH);
        if (!read) {
          // As the REST runtime answers a method a served path does not take.
          endResponse(restErrorResponse(new MethodNotAllowedError(`${request.method} is not supported on ${url.pathname}`), undefined, fetchAPI.Response));
          return;
        }
        openapi ??= servedDocument(options.config.publicUrl);
        endResponse(new fetchAPI.Response(request.method === 'HEAD' ? null : openapi, { headers: { 'content-type': 'application/json; charset=utf-8', ...security } }));
      } else if (read && path === DOCS_PATH) {
        setRouteLabel(request, DOCS_PATH);
        endResponse(
          new fetchAPI.Response(request.method === 'HEAD' ? null : PAGE, {
            headers: { 'content-type': 'text/html; charset=utf-8', 'content-security-policy': CONTENT_SECURITY_POLICY, ...security },
          }),
        );
      } else if (read && path.startsWith(`${ASSETS}/`)) {
        const name = path.slice(ASSETS.length + 1);
        const asset = Object.hasOwn(ASSET_FILES, name) ? ASSET_FILES[name]! : undefined;
        if (!asset) return;
        setRouteLabel(request, `${DOCS_PATH}/assets/{version}/{asset}`);
        let body = assets.get(name);
        if (body === undefined) assets.set(name, (body = asset.body()));
        endResponse(
          new fetchAPI.Response(request.method === 'HEAD' ? null : body, {
            headers: { 'content-type': asset.type, 'cache-control': 'public, max-age=31536000, immutable', ...security },
          }),
        );
      }
    },
  };
}

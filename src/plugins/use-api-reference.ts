/**
 * The API reference: `GET /v1/openapi.json`, the OpenAPI document of exactly
 * the REST routes this server serves (generated with the route table by
 * `npm run codegen`, codegen/openapi-document.cjs), and `/docs`, a page that
 * renders it with Swagger UI's prebuilt bundle, served by this server from the
 * `swagger-ui-dist` package. Neither needs a token. The page carries a
 * Content-Security-Policy of its own origin: nothing it runs can reach another host.
 */
import fs from 'node:fs';
import { createRequire } from 'node:module';
import type { Plugin } from 'graphql-yoga';
import type { AppConfig } from '../config.ts';
import { MethodNotAllowedError } from '../errors/index.ts';
import { REST_PREFIX, restErrorResponse } from '../rest/runtime.ts';
import { setRouteLabel } from './use-http-observability.ts';
import { PAGE_CONTENT_SECURITY_POLICY, escapeHtml } from './browser-page.ts';

export const OPENAPI_PATH = `${REST_PREFIX}/openapi.json`;
export const DOCS_PATH = '/docs';

const require = createRequire(import.meta.url);
const SWAGGER_UI_VERSION = (require('swagger-ui-dist/package.json') as { version: string }).version;
/** Where the page's scripts are served; the version in the path lets browsers keep them for good. */
const ASSETS = `${DOCS_PATH}/assets/${SWAGGER_UI_VERSION}`;

/** What the page says this service is. */
export const DOCS_TITLE = 'Docs publishing API · REST reference';
const DOCS_DESCRIPTION =
  'Reference of the REST API of this documentation publishing service (GitBook-compatible, under /v1), rendered from its OpenAPI document at /v1/openapi.json.';

/**
 * Swagger UI's options. GitBook's document schemas (`Document*`) nest into each other at every
 * level: Swagger UI resolves and draws an operation's schemas only when it is opened, and here
 * no model is expanded unasked (the Schemas section is hidden, an operation's models show one
 * level), so the page never walks the recursion eagerly. Tags start closed (`docExpansion:
 * 'none'`): with every tag open, Swagger UI 5.35 drew the first tag of a 137-operation document
 * and then nothing for minutes (95 operations took a second); closed, the 23 tags draw in about a
 * second and each opens at once. No validator badge: it would ask
 * validator.swagger.io. Only the `apis` preset, without the standalone one's top bar (a URL box
 * for loading other documents).
 */
const SWAGGER_UI_OPTIONS = {
  url: OPENAPI_PATH,
  dom_id: '#swagger-ui',
  deepLinking: true,
  docExpansion: 'none',
  defaultModelsExpandDepth: -1,
  defaultModelExpandDepth: 1,
  displayRequestDuration: true,
  filter: true,
  validatorUrl: null,
};

/** Starts Swagger UI on the document. A file rather than an inline script, so the policy allows scripts of this origin only. */
const START = `(function () {
  var options = ${JSON.stringify(SWAGGER_UI_OPTIONS)};
  options.presets = [SwaggerUIBundle.presets.apis];
  window.ui = SwaggerUIBundle(options);
})();
`;

/** Each asset: its content type and where it is read from (on first request; the bundle is 1.7 MB). */
const ASSET_FILES: Record<string, { type: string; body: () => string | Uint8Array<ArrayBuffer> }> = {
  'swagger-ui-bundle.js': { type: 'text/javascript; charset=utf-8', body: () => fs.readFileSync(require.resolve('swagger-ui-dist/swagger-ui-bundle.js'), 'utf8') },
  'swagger-ui.css': { type: 'text/css; charset=utf-8', body: () => fs.readFileSync(require.resolve('swagger-ui-dist/swagger-ui.css'), 'utf8') },
  'start.js': { type: 'text/javascript; charset=utf-8', body: () => START },
  // Else the browser asks for /favicon.ico, which nothing serves.
  'favicon-32x32.png': { type: 'image/png', body: () => new Uint8Array(fs.readFileSync(require.resolve('swagger-ui-dist/favicon-32x32.png'))) },
};

/** The page's own styles: the intro above Swagger UI, in its layout's width and fonts. */
const PAGE_STYLE = `body { margin: 0; }
.intro { max-width: 1460px; box-sizing: border-box; margin: 0 auto; padding: 20px 20px 0; font-family: sans-serif; color: #3b4151; }
.intro h1 { margin: 0 0 8px; font-size: 24px; }
.intro p { margin: 4px 0; line-height: 1.5; }`;

const PAGE = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <title>${escapeHtml(DOCS_TITLE)}</title>
    <meta name="description" content="${escapeHtml(DOCS_DESCRIPTION)}">
    <link rel="icon" href="${ASSETS}/favicon-32x32.png">
    <link rel="stylesheet" href="${ASSETS}/swagger-ui.css">
    <style>${PAGE_STYLE}</style>
  </head>
  <body>
    <header class="intro">
      <h1>Docs publishing API: REST reference</h1>
      <p>This self-hosted documentation publishing service serves a GitBook-compatible REST API under <code>/v1</code> (and GraphQL at <a href="/graphql">/graphql</a>). Below is every endpoint this server serves, from its OpenAPI document at <a href="${OPENAPI_PATH}">${OPENAPI_PATH}</a>.</p>
      <p>Most endpoints need an API token: click <strong>Authorize</strong> and enter it as the bearer token (the token alone, without <code>Bearer</code>); <strong>Try it out</strong> then sends requests to this server as you. The server's CLI makes a user with a token: <code>npm run cli -- user:create --email you@example.com --name You</code>.</p>
    </header>
    <noscript>This reference needs JavaScript. The OpenAPI document it renders is at <a href="${OPENAPI_PATH}">${OPENAPI_PATH}</a>.</noscript>
    <div id="swagger-ui"></div>
    <script src="${ASSETS}/swagger-ui-bundle.js"></script>
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
  const assets = new Map<string, string | Uint8Array<ArrayBuffer>>();
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
            headers: { 'content-type': 'text/html; charset=utf-8', 'content-security-policy': PAGE_CONTENT_SECURITY_POLICY, ...security },
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

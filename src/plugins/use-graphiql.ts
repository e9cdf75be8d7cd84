/**
 * GraphiQL served by this server alone. yoga's default page at `/graphql` loads every asset from
 * unpkg.com, so without internet it never leaves "Loading…". Here the page (`renderGraphiQL`,
 * given to createYoga) loads the same build of yoga's GraphiQL (React, Monaco and its workers,
 * fonts inlined in the CSS) from `@graphql-yoga/render-graphiql`, a dependency released with
 * graphql-yoga, through routes of this plugin under `GRAPHIQL_ASSETS_PATH/<version>/`. The page
 * carries a Content-Security-Policy of its own origin only: nothing it runs can reach another host.
 */
import { createRequire } from 'node:module';
import { promisify } from 'node:util';
import zlib from 'node:zlib';
import type { GraphiQLOptions, Plugin } from 'graphql-yoga';
import { setRouteLabel } from './use-http-observability.ts';
import { PAGE_CONTENT_SECURITY_POLICY, escapeHtml } from './browser-page.ts';

/** Where the assets are served; the version in the path lets browsers keep them for good. */
export const GRAPHIQL_ASSETS_PATH = '/graphiql';

const VERSION = (createRequire(import.meta.url)('@graphql-yoga/render-graphiql/package.json') as { version: string }).version;
const BASE = `${GRAPHIQL_ASSETS_PATH}/${VERSION}`;
const gzip = promisify(zlib.gzip);

type Bundle = typeof import('@graphql-yoga/render-graphiql/graphiql');

/** Each asset: its content type and how to read it from the bundle (strings of several MB, read on first use). */
const ASSETS: Record<string, { type: string; compress?: true; body: (bundle: Bundle) => string | Uint8Array<ArrayBuffer> }> = {
  'graphiql.js': { type: 'text/javascript; charset=utf-8', compress: true, body: (b) => b.js },
  'graphiql.css': { type: 'text/css; charset=utf-8', compress: true, body: (b) => b.css },
  'start.js': { type: 'text/javascript; charset=utf-8', body: () => START },
  // Monaco's workers, by the label Monaco asks for (`getWorkerUrl` in START).
  'editor.worker.js': { type: 'text/javascript; charset=utf-8', compress: true, body: (b) => b.editorWorkerService },
  'json.worker.js': { type: 'text/javascript; charset=utf-8', compress: true, body: (b) => b.jsonWorker },
  'graphql.worker.js': { type: 'text/javascript; charset=utf-8', compress: true, body: (b) => b.graphqlWorker },
  'favicon.ico': { type: 'image/x-icon', body: (b) => new Uint8Array(Buffer.from(b.favicon.slice(b.favicon.indexOf(',') + 1), 'base64')) },
};

/**
 * Runs GraphiQL with the options the page carries as JSON. A file rather than an inline script,
 * so that the page's policy allows scripts of its own origin only.
 */
const START = `(function () {
  var workers = { editorWorkerService: 'editor.worker.js', json: 'json.worker.js', graphql: 'graphql.worker.js' };
  self.MonacoEnvironment = {
    globalAPI: false,
    getWorkerUrl: function (_moduleId, label) { return ${JSON.stringify(`${BASE}/`)} + (workers[label] || workers.editorWorkerService); },
  };
  var options = JSON.parse(document.getElementById('graphiql-options').textContent);
  YogaGraphiQL.renderYogaGraphiQL(document.getElementById('root'), options);
})();
`;

/** What the page says this service is (its `<meta name="description">`). */
export const GRAPHIQL_DESCRIPTION =
  'GraphiQL for the documentation publishing API: GraphQL queries, mutations and subscriptions at /graphql, next to the GitBook-compatible REST API under /v1.';

/** What GraphiQL's first tab shows when the browser has none saved: what this is, and how to sign in. */
const DEFAULT_QUERY = `# Docs publishing API: organizations, spaces, pages,
# change requests, sites and jobs in GraphQL (the
# GitBook-compatible REST API is under /v1).
#
# Most fields need an API token. The server's CLI makes
# a user with one:
#
#   npm run cli -- user:create \\
#     --email you@example.com --name You
#
# Open the Headers tab below and enter
#
#   { "Authorization": "Bearer <your token>" }
#
# Queries, mutations and subscriptions then run as you.

query Viewer {
  viewer {
    id
    displayName
    email
  }
}
`;

/** yoga's GraphiQL options (`graphiql` of createYoga); subscriptions go over graphql-ws. */
export const GRAPHIQL_OPTIONS = {
  title: 'Docs publishing API · GraphiQL',
  subscriptionsProtocol: 'WS',
  defaultQuery: DEFAULT_QUERY,
} satisfies GraphiQLOptions;

/** The GraphiQL page: yoga's options as JSON, the assets from this server. */
export function renderGraphiQL(options: GraphiQLOptions): string {
  const title = options.title ?? 'GraphiQL';
  // `<` escaped so no text of the options can end the script element.
  const json = JSON.stringify(options).replace(/</g, '\\u003c');
  return `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <title>${escapeHtml(title)}</title>
    <meta name="description" content="${escapeHtml(GRAPHIQL_DESCRIPTION)}">
    <link rel="icon" href="${BASE}/favicon.ico">
    <link rel="stylesheet" href="${BASE}/graphiql.css">
  </head>
  <body id="body" class="no-focus-outline">
    <noscript>GraphiQL needs JavaScript. The API answers at POST /graphql and under /v1 without it.</noscript>
    <div id="root">Loading ${escapeHtml(title)}…</div>
    <script type="application/json" id="graphiql-options">${json}</script>
    <script src="${BASE}/graphiql.js"></script>
    <script src="${BASE}/start.js"></script>
  </body>
</html>
`;
}

/** Serves the assets `renderGraphiQL`'s page loads, and gives the page its policy. */
export function useGraphiQL(options: { graphqlEndpoint: string }): Plugin {
  let bundle: Promise<Bundle> | undefined;
  // Built on first request: the bundle is about 9 MB of JavaScript that no API call needs.
  const bodies = new Map<string, Promise<Uint8Array<ArrayBuffer>>>();
  // Gzipped too (a third of the size, for a browser away from the server), once, off the event loop.
  const gzipped = new Map<string, Promise<Uint8Array<ArrayBuffer>>>();
  const body = (name: string) => {
    let cached = bodies.get(name);
    if (!cached) {
      bundle ??= import('@graphql-yoga/render-graphiql/graphiql');
      cached = bundle.then((b) => {
        const content = ASSETS[name]!.body(b);
        return typeof content === 'string' ? new Uint8Array(Buffer.from(content)) : content;
      });
      bodies.set(name, cached);
    }
    return cached;
  };
  const gzippedBody = (name: string) => {
    let cached = gzipped.get(name);
    if (!cached) {
      cached = body(name).then(async (content) => new Uint8Array(await gzip(content)));
      gzipped.set(name, cached);
    }
    return cached;
  };
  return {
    async onRequest({ request, url, endResponse, fetchAPI }) {
      if (request.method !== 'GET' && request.method !== 'HEAD') return;
      if (!url.pathname.startsWith(`${BASE}/`)) return;
      const name = url.pathname.slice(BASE.length + 1);
      const asset = Object.hasOwn(ASSETS, name) ? ASSETS[name]! : undefined;
      if (!asset) return;
      setRouteLabel(request, `${GRAPHIQL_ASSETS_PATH}/{version}/{asset}`);
      const headers: Record<string, string> = {
        'content-type': asset.type,
        'cache-control': 'public, max-age=31536000, immutable',
        'x-content-type-options': 'nosniff',
        vary: 'accept-encoding',
      };
      const compressed = asset.compress && /\bgzip\b/.test(request.headers.get('accept-encoding') ?? '');
      if (compressed) headers['content-encoding'] = 'gzip';
      const content = await (compressed ? gzippedBody(name) : body(name));
      headers['content-length'] = String(content.byteLength);
      endResponse(new fetchAPI.Response(request.method === 'HEAD' ? null : content, { headers }));
    },
    onResponse({ request, response }) {
      // yoga's GraphiQL plugin answered a browser's GET of the endpoint with the page.
      if (request.method !== 'GET' || new URL(request.url).pathname.replace(/\/$/, '') !== options.graphqlEndpoint) return;
      if (!response.headers.get('content-type')?.startsWith('text/html')) return;
      response.headers.set('content-security-policy', PAGE_CONTENT_SECURITY_POLICY);
      response.headers.set('x-content-type-options', 'nosniff');
    },
  };
}

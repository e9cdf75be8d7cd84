/**
 * The SAML service provider endpoints of each provider, outside /v1 (a browser
 * goes there, not an API client; no token):
 *
 * - `GET /saml/{samlProviderId}/start[?RelayState=/path]`: 302 to the identity
 *   provider's ssoURL with a new AuthnRequest (HTTP-Redirect binding).
 * - `POST /saml/{samlProviderId}/acs`: the Assertion Consumer Service; takes the
 *   form the identity provider has the browser post (`SAMLResponse`,
 *   `RelayState`; HTTP-POST binding), signs the user in and hands back an API
 *   token: 303 to `<APP_URL><RelayState>#token=...` when RelayState is a path
 *   of the web app, else a page that shows it once.
 * - `GET /saml/{samlProviderId}/metadata`: the provider's service provider entity
 *   ID, which answers its metadata (ACS URL, NameID format) for configuring the
 *   identity provider.
 *
 * Errors are answered in the REST error shape, never cached.
 */
import type { Plugin } from 'graphql-yoga';
import type { Logger } from 'pino';
import { toAppError } from '../errors/to-app-error.ts';
import { errorResponse } from '../rest/runtime.ts';
import { completeSamlSignIn, samlMetadata, startSamlSignIn, type SamlSignIn, type SamlSignInDeps } from '../services/saml-sign-in.ts';
import { SAML_PATH_PREFIX } from '../urls.ts';
import { escapeHtml } from './browser-page.ts';
import { setRouteLabel } from './use-http-observability.ts';

const ENDPOINTS = { start: 'GET', acs: 'POST', metadata: 'GET' } as const;
type Endpoint = keyof typeof ENDPOINTS;

const NO_STORE = { 'cache-control': 'no-store', 'referrer-policy': 'no-referrer' };
/** The token page runs nothing and loads nothing. */
const TOKEN_PAGE_POLICY = "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/** The page that shows a sign-in's token once (no RelayState to send it to). */
function tokenPage(signIn: SamlSignIn): string {
  return `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <title>Signed in</title>
    <style>body { font-family: sans-serif; max-width: 40rem; margin: 3rem auto; padding: 0 1rem; color: #222; } code { display: block; padding: .75rem; background: #f3f3f3; word-break: break-all; }</style>
  </head>
  <body>
    <h1>Signed in</h1>
    <p>You are signed in as <strong>${escapeHtml(signIn.email)}</strong> to organization <strong>${escapeHtml(signIn.organizationId)}</strong>.</p>
    <p>Your API token, shown only this once (send it as <em>Authorization: Bearer &lt;token&gt;</em>); it works until ${escapeHtml(signIn.tokenExpiresAt.toISOString())}:</p>
    <code id="token">${escapeHtml(signIn.token)}</code>
  </body>
</html>
`;
}

/** The endpoint a path names (`/saml/<id>/<endpoint>`), or null. */
function parsePath(pathname: string): { providerId: string; endpoint: Endpoint } | null {
  const match = /^\/saml\/([^/]+)\/(start|acs|metadata)$/.exec(pathname);
  if (!match) return null;
  let providerId: string;
  try {
    providerId = decodeURIComponent(match[1]!);
  } catch {
    return null;
  }
  return { providerId, endpoint: match[2] as Endpoint };
}

export function useSaml(deps: SamlSignInDeps & { log: Logger }): Plugin {
  return {
    async onRequest({ request, url, endResponse, fetchAPI }) {
      if (!url.pathname.startsWith(SAML_PATH_PREFIX)) return;
      const fail = (status: number, message: string, headers: Record<string, string> = {}) =>
        endResponse(errorResponse(status, message, { ...NO_STORE, ...headers }, fetchAPI.Response));
      const target = parsePath(url.pathname);
      if (!target) return fail(404, `Not found: ${url.pathname} (the SAML endpoints are /saml/{samlProviderId}/start, /acs and /metadata)`);
      setRouteLabel(request, `${SAML_PATH_PREFIX}{samlProviderId}/${target.endpoint}`);
      const method = ENDPOINTS[target.endpoint];
      if (request.method !== method) return fail(405, `${request.method} is not allowed on ${url.pathname}: use ${method}`, { allow: method });
      try {
        if (target.endpoint === 'metadata') {
          const xml = await samlMetadata(deps, target.providerId);
          return endResponse(new fetchAPI.Response(xml, { status: 200, headers: { 'content-type': 'application/samlmetadata+xml; charset=utf-8' } }));
        }
        if (target.endpoint === 'start') {
          const location = await startSamlSignIn(deps, target.providerId, url.searchParams.get('RelayState'));
          return endResponse(new fetchAPI.Response(null, { status: 302, headers: { location, ...NO_STORE } }));
        }
        const contentType = (request.headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
        if (contentType !== 'application/x-www-form-urlencoded') {
          return fail(415, 'The identity provider posts its response as a form (application/x-www-form-urlencoded, HTTP-POST binding)');
        }
        const signIn = await completeSamlSignIn(deps, target.providerId, new URLSearchParams(await request.text()));
        if (signIn.relayState) {
          const fragment = new URLSearchParams({ token: signIn.token, organization: signIn.organizationId }).toString();
          return endResponse(new fetchAPI.Response(null, { status: 303, headers: { location: `${deps.urls.app(signIn.relayState)}#${fragment}`, ...NO_STORE } }));
        }
        return endResponse(
          new fetchAPI.Response(tokenPage(signIn), {
            status: 200,
            headers: { 'content-type': 'text/html; charset=utf-8', 'content-security-policy': TOKEN_PAGE_POLICY, 'x-content-type-options': 'nosniff', ...NO_STORE },
          }),
        );
      } catch (error) {
        const appError = toAppError(error);
        if (appError) return fail(appError.status, appError.message, appError.headers);
        deps.log.error({ err: error, path: url.pathname }, 'SAML endpoint failed');
        return fail(500, 'Unexpected error');
      }
    },
  };
}

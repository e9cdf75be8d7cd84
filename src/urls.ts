import type { AppConfig } from './config.ts';

/** Where the SAML service provider endpoints live: `/saml/<providerId>/{start,acs,metadata}`. */
export const SAML_PATH_PREFIX = '/saml/';

/** Where public OpenAPI specs are published: `/openapi/<organizationId>/<slug>[/<file path>]`. */
export const PUBLISHED_OPENAPI_PREFIX = '/openapi/';

/** Absolute URLs for the `urls` members of resources. */
export class Urls {
  constructor(private readonly config: Pick<AppConfig, 'publicUrl' | 'appUrl' | 'sitesUrl'>) {}

  /** A REST location: `api('/spaces/x')` -> `<PUBLIC_URL>/v1/spaces/x`. */
  api(path: string): string {
    return `${this.config.publicUrl}/v1${path}`;
  }

  /**
   * Where a client reads a job: GET /graphql running the `job(id)` query (no REST path of GitBook's
   * names jobs, and the route table serves only those). The same token reads it; `jobUpdated(id)`
   * follows it live.
   */
  job(id: string): string {
    const query = 'query Job($id: ID!) { job(id: $id) { id kind state step percent message error result sequence } }';
    const search = new URLSearchParams({ query, operationName: 'Job', variables: JSON.stringify({ id }) });
    return `${this.config.publicUrl}/graphql?${search.toString()}`;
  }

  /**
   * This service as a SAML service provider of one identity provider (`SamlProvider`): where
   * sign-in starts (redirects to the identity provider), its Assertion Consumer Service (where
   * the identity provider POSTs its response) and its entity ID (which serves its metadata).
   * Outside /v1: the browser goes there, not an API client (src/plugins/use-saml.ts).
   */
  saml(providerId: string, endpoint: 'start' | 'acs' | 'metadata'): string {
    return `${this.config.publicUrl}${SAML_PATH_PREFIX}${encodeURIComponent(providerId)}/${endpoint}`;
  }

  /**
   * The published address of a public OpenAPI spec: its latest version's entry file, anyone may
   * read it (src/plugins/use-published-openapi.ts); the files its relative `$ref`s name resolve beneath it.
   */
  publishedOpenAPISpec(organizationId: string, slug: string): string {
    return `${this.config.publicUrl}${PUBLISHED_OPENAPI_PREFIX}${encodeURIComponent(organizationId)}/${encodeURIComponent(slug)}/`;
  }

  /** A page of the web app. */
  app(path: string): string {
    return `${this.config.appUrl}${path}`;
  }

  /**
   * The published address of a site: its custom hostname, else its basename
   * under SITES_URL. `path` (a section or site space path) is appended.
   */
  publishedSite(site: { organizationId: string; basename: string; hostname: string | null }, ...paths: string[]): string {
    const base = site.hostname ? `https://${site.hostname}` : `${this.config.sitesUrl}/${site.organizationId}/${site.basename}`;
    const suffix = paths.filter(Boolean).map((p) => p.replace(/^\/+|\/+$/g, '')).join('/');
    return suffix ? `${base}/${suffix}` : `${base}/`;
  }
}

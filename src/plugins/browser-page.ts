/**
 * What the pages this server draws in a browser (GraphiQL at /graphql, the REST reference at
 * /docs) share: both load only assets served by this server, so one same-origin policy covers
 * them, and both write a few strings into their HTML.
 */

/**
 * Same origin only (ws: and wss: to it included); the styles React sets inline, and the fonts and
 * icons the CSS of GraphiQL and Swagger UI carries as data: URLs, are the exceptions they need.
 */
export const PAGE_CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "worker-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

/** `text` safe inside HTML text and attribute values. */
export const escapeHtml = (text: string): string => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

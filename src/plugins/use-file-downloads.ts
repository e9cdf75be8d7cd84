/**
 * `GET /storage/<key>?name=..&type=..&expires=..&signature=..`: serves a stored
 * object through a URL made by `signDownloadUrl`. A bad or expired signature is
 * 403 and a missing object 404, in the REST error shape. The bytes go out with
 * the signed Content-Type and `nosniff`; types a browser would run as active
 * content (HTML, SVG, XML, JavaScript) are sent as an attachment under
 * `Content-Security-Policy: sandbox`, so a user's upload cannot script this
 * origin.
 */
import type { Plugin } from 'graphql-yoga';
import { errorResponse } from '../rest/runtime.ts';
import { isStorageKey } from '../storage/local-storage.ts';
import { type ObjectStorage } from '../storage/object-storage.ts';
import { DOWNLOAD_PATH_PREFIX, verifyDownload } from '../storage/signed-url.ts';
import { setRouteLabel } from './use-http-observability.ts';

export interface FileDownloadsOptions {
  storage: ObjectStorage;
  /** The secret the URLs were signed with: `config.storage.urlSecret` after `loadUrlSecret`. */
  secret: string;
  /** Clock in milliseconds; for tests. */
  now?: () => number;
}

/** Whether a browser would render `contentType` as a document or run it as script. */
export function isActiveContentType(contentType: string): boolean {
  const essence = (contentType.split(';')[0] ?? '').trim().toLowerCase();
  return essence === '' || /html|xml|svg|xsl|script|x-mixed-replace/.test(essence);
}

/** `filename*` per RFC 8187: UTF-8, percent-encoded except attr-chars. */
function encodeFilename(name: string): string {
  // Buffer round trip replaces lone surrogates, which encodeURIComponent rejects.
  return encodeURIComponent(Buffer.from(name, 'utf8').toString('utf8')).replace(
    /['()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );
}

export function useFileDownloads(options: FileDownloadsOptions): Plugin {
  const now = options.now ?? Date.now;
  return {
    async onRequest({ request, url, endResponse, fetchAPI }) {
      if (!url.pathname.startsWith(DOWNLOAD_PATH_PREFIX)) return;
      setRouteLabel(request, `${DOWNLOAD_PATH_PREFIX}{key}`);
      const fail = (status: number, message: string, headers: Record<string, string> = {}) =>
        endResponse(errorResponse(status, message, { 'cache-control': 'no-store', ...headers }, fetchAPI.Response));

      if (request.method !== 'GET' && request.method !== 'HEAD') {
        return fail(405, `${request.method} is not allowed here`, { allow: 'GET, HEAD' });
      }
      const key = url.pathname.slice(DOWNLOAD_PATH_PREFIX.length);
      if (!isStorageKey(key)) return fail(404, 'File not found');

      const grant = verifyDownload({ key, query: url.searchParams }, { secret: options.secret, now });
      if (!grant.ok) return fail(403, grant.message);

      const bytes = await options.storage.get(grant.key);
      if (!bytes) return fail(404, 'File not found');

      const active = isActiveContentType(grant.contentType);
      const headers: Record<string, string> = {
        'content-type': grant.contentType,
        'content-length': String(bytes.byteLength),
        'content-disposition': `${active ? 'attachment' : 'inline'}; filename*=UTF-8''${encodeFilename(grant.name)}`,
        'x-content-type-options': 'nosniff',
        // Objects never change under a key; the URL stops working at its expiry, so caches must too.
        'cache-control': `private, max-age=${Math.max(0, grant.expiresAt - Math.floor(now() / 1000))}`,
      };
      if (active) headers['content-security-policy'] = 'sandbox';
      // Storage hands out ArrayBuffer-backed arrays (never shared memory).
      endResponse(new fetchAPI.Response(request.method === 'HEAD' ? null : (bytes as Uint8Array<ArrayBuffer>), { status: 200, headers }));
    },
  };
}

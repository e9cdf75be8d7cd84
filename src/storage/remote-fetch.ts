/**
 * Fetching a file a user points us at (an image URL in imported content), without
 * letting that URL reach the service's own network (SSRF):
 *
 * - only http: and https:, without credentials in the URL;
 * - the host name is resolved here and every address it resolves to must be
 *   public unicast (`isPublicAddress`), unless `allowPrivateAddresses`;
 * - the connection is pinned to the checked addresses: the undici Agent's
 *   `connect.lookup` answers with them instead of asking DNS again, so a name
 *   that resolves differently a moment later (DNS rebinding) cannot redirect
 *   the connection; TLS still verifies the certificate against the host name;
 * - redirects are followed here (at most 5), each hop checked like the first;
 * - the size limit holds while streaming (a larger Content-Length is refused
 *   before the body is read), and one timeout covers DNS, redirects and body.
 *
 * Failures are `RemoteFetchError`, an `InvalidInputError` (400) with a `reason`.
 */
import { lookup as dnsLookup } from 'node:dns/promises';
import type { LookupAddress, LookupOptions } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';
import { Agent, request } from 'undici';
import { RemoteFetchError, RemoteFetchFailure } from '../errors/external.ts';

export interface RemoteFetchOptions {
  /** Allow loopback, private, link-local, ... addresses (FETCH_ALLOW_PRIVATE_ADDRESSES); for development and tests. */
  allowPrivateAddresses: boolean;
  /** Largest body accepted, in bytes. */
  maxBytes: number;
  /** Time allowed for the whole fetch (DNS, redirects, body), in milliseconds. */
  timeoutMs: number;
  /**
   * Replaces the address policy (by default `isPublicAddress`, or any address
   * when `allowPrivateAddresses`); receives each resolved address. For tests.
   */
  isAllowedAddress?: (address: string) => boolean;
}

export interface RemoteFile {
  bytes: Uint8Array;
  /** The final response's Content-Type, as sent. */
  contentType: string | null;
}


/** Redirects followed at most (file fetches and Git's HTTP alike). */
export const MAX_REDIRECTS = 5;

/** The statuses that redirect. */
export const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

/** ::/96, the deprecated IPv4-compatible form (::a.b.c.d); `range()` calls most of it unicast. */
const IPV4_COMPATIBLE: [ipaddr.IPv6, number] = [ipaddr.IPv6.parse('::'), 96];
/** 64:ff9b::/96, NAT64's well-known prefix: the IPv4 address it reaches is in the last 32 bits. */
const NAT64_WELL_KNOWN: [ipaddr.IPv6, number] = [ipaddr.IPv6.parse('64:ff9b::'), 96];

function embeddedIPv4(address: ipaddr.IPv6): ipaddr.IPv4 {
  const [high, low] = address.parts.slice(6);
  return new ipaddr.IPv4([high >> 8, high & 0xff, low >> 8, low & 0xff]);
}

/**
 * Strict parsing: dotted-decimal IPv4 or IPv6 (a zone is dropped). IPv6 goes
 * through the WHATWG URL serializer first, because ipaddr.js reads any
 * dotted tail as IPv4-mapped (`::127.0.0.1` would become `::ffff:127.0.0.1`),
 * and resolvers print IPv4-compatible addresses that way.
 */
function parseAddress(address: string): ipaddr.IPv4 | ipaddr.IPv6 | null {
  const bare = address.replace(/%.*$/, '');
  try {
    if (isIP(bare) === 4) return ipaddr.IPv4.parse(bare);
    if (isIP(bare) === 6) return ipaddr.IPv6.parse(new URL(`http://[${bare}]/`).hostname.slice(1, -1));
  } catch {
    // Falls through to null.
  }
  return null;
}

/**
 * Why `address` may not be fetched from: the ipaddr.js range it falls in
 * (`loopback`, `private`, `linkLocal`, `uniqueLocal`, `multicast`,
 * `unspecified`, `reserved`, `carrierGradeNat`, `6to4`, ...), or null for a
 * public unicast address. IPv6 forms that carry an IPv4 address
 * (`::ffff:a.b.c.d`, `::ffff:0:a.b.c.d`, `64:ff9b::a.b.c.d`) are judged by that
 * IPv4 address; anything that does not parse is refused.
 */
export function refusedRange(address: string): string | null {
  const parsed = parseAddress(address);
  if (!parsed) return 'invalid';
  if (parsed.kind() === 'ipv6') {
    const v6 = parsed as ipaddr.IPv6;
    const range = v6.range();
    if (range === 'ipv4Mapped' || range === 'rfc6145' || v6.match(NAT64_WELL_KNOWN)) {
      const inner = embeddedIPv4(v6).range();
      return inner === 'unicast' ? null : inner;
    }
    if (range === 'unicast' && v6.match(IPV4_COMPATIBLE)) return 'ipv4Compatible';
    return range === 'unicast' ? null : range;
  }
  const range = (parsed as ipaddr.IPv4).range();
  return range === 'unicast' ? null : range;
}

/** Whether `address` is public unicast, the only kind fetched from by default. */
export function isPublicAddress(address: string): boolean {
  return refusedRange(address) === null;
}

function fail(reason: RemoteFetchFailure, message: string): never {
  throw new RemoteFetchError(reason, message);
}

function parseTarget(raw: string | URL, base?: URL): URL {
  let url: URL;
  try {
    url = new URL(raw, base);
  } catch {
    fail('invalid-url', 'The file URL is not a valid URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    fail('scheme', `Only http and https URLs can be fetched, not ${url.protocol.replace(/:$/, '')}`);
  }
  if (url.username || url.password) fail('invalid-url', 'File URLs may not contain credentials');
  return url;
}

/**
 * Rejects with the signal's reason once it fires (at once without a signal: `promise` as is);
 * `promise` itself goes on, as what cannot be cancelled (DNS) does.
 */
export function untilAborted<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return promise;
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}

/**
 * The address policy of `options`: `isAllowedAddress` when given, else any
 * address when `allowPrivateAddresses`, else only public unicast ones.
 */
export function addressPolicy(options: Pick<RemoteFetchOptions, 'allowPrivateAddresses' | 'isAllowedAddress'>): (address: string) => boolean {
  return options.isAllowedAddress ?? (options.allowPrivateAddresses ? () => true : isPublicAddress);
}

/**
 * The addresses `url`'s host resolves to (an IP literal is its own answer),
 * every one checked against `allowed`. Throws `RemoteFetchError` with reason
 * 'address' when any is refused, 'network' when the name does not resolve;
 * rejects with the signal's reason once `signal` fires. Shared with the Git
 * client (src/git-sync/git-client.ts), which connects with `pinnedLookup`.
 */
export async function resolveChecked(url: URL, allowed: (address: string) => boolean, signal: AbortSignal): Promise<LookupAddress[]> {
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  let addresses: LookupAddress[];
  if (isIP(host)) {
    addresses = [{ address: host, family: isIP(host) }];
  } else {
    try {
      addresses = await untilAborted(dnsLookup(host, { all: true }), signal);
    } catch (error) {
      if (signal.aborted) throw error;
      fail('network', `Could not resolve the host name ${JSON.stringify(host)}`);
    }
  }
  if (addresses.length === 0) fail('network', `Could not resolve the host name ${JSON.stringify(host)}`);
  // Every address, not just one: the pinned connection may try any of them.
  for (const { address } of addresses) {
    if (!allowed(address)) {
      const range = refusedRange(address) ?? 'refused';
      // Self-hosters on a private network meet this first: name the setting that lifts it.
      fail('address', `${url.host} resolves to a non-public address (${range}); fetching from it is not allowed unless FETCH_ALLOW_PRIVATE_ADDRESSES=true`);
    }
  }
  return addresses;
}

/**
 * A `lookup` for net/tls.connect (an undici Agent's `connect.lookup`) that
 * answers only `host`, with the addresses already checked by `resolveChecked`.
 */
export function pinnedLookup(host: string, addresses: LookupAddress[]): LookupFunction {
  return (hostname: string, options: LookupOptions, callback) => {
    if (hostname.toLowerCase() !== host.toLowerCase()) {
      callback(Object.assign(new Error(`Unexpected lookup of ${hostname}`), { code: 'ENOTFOUND' }), '', 0);
      return;
    }
    const family = options.family === 'IPv4' ? 4 : options.family === 'IPv6' ? 6 : options.family;
    const candidates = family === 4 || family === 6 ? addresses.filter((a) => a.family === family) : addresses;
    if (candidates.length === 0) {
      callback(Object.assign(new Error(`No IPv${family} address for ${hostname}`), { code: 'ENOTFOUND' }), '', 0);
    } else if (options.all) {
      callback(null, candidates);
    } else {
      callback(null, candidates[0]!.address, candidates[0]!.family);
    }
  };
}

/** A response header's (first) value, or null. */
export function header(headers: Record<string, string | string[] | undefined>, name: string): string | null {
  const value = headers[name];
  return (Array.isArray(value) ? value[0] : value) ?? null;
}

type Hop = { redirect: URL } | { file: RemoteFile };

/** Drops a body we will not read; undici reports the abort as an 'error' event nobody else listens to. */
export function discard(body: NodeJS.ReadableStream & { destroy(): void }): void {
  body.on('error', () => undefined);
  body.destroy();
}

/** One request over a connection pinned to `url`'s checked addresses. */
async function fetchHop(url: URL, options: RemoteFetchOptions, allowed: (address: string) => boolean, signal: AbortSignal): Promise<Hop> {
  const addresses = await resolveChecked(url, allowed, signal);
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  const agent = new Agent({ connect: { lookup: pinnedLookup(host, addresses) }, connections: 1, pipelining: 0 });
  try {
    const response = await request(url, {
      dispatcher: agent,
      method: 'GET',
      signal,
      // No compression: maxBytes then bounds what is held in memory, and no decoder runs on untrusted input.
      headers: { accept: '*/*', 'accept-encoding': 'identity', 'user-agent': 'docs-publishing-api (file import)' },
    });
    const { statusCode, headers, body } = response;

    if (REDIRECT_STATUSES.has(statusCode)) {
      discard(body);
      const location = header(headers, 'location');
      if (!location) fail('status', `${url.host} answered ${statusCode} without a Location`);
      return { redirect: parseTarget(location, url) };
    }
    if (statusCode < 200 || statusCode >= 300) {
      discard(body);
      fail('status', `${url.host} answered ${statusCode}`);
    }

    const tooLarge = () => fail('too-large', `The file is larger than the ${options.maxBytes} bytes allowed`);
    const declared = header(headers, 'content-length');
    if (declared !== null && /^\d+$/.test(declared.trim()) && Number(declared.trim()) > options.maxBytes) {
      discard(body);
      tooLarge();
    }
    const chunks: Buffer[] = [];
    let received = 0;
    for await (const chunk of body as AsyncIterable<Buffer>) {
      received += chunk.byteLength;
      if (received > options.maxBytes) {
        discard(body);
        tooLarge();
      }
      chunks.push(chunk);
    }
    const joined = Buffer.concat(chunks, received);
    return {
      file: {
        bytes: new Uint8Array(joined.buffer, joined.byteOffset, joined.byteLength),
        contentType: header(headers, 'content-type'),
      },
    };
  } finally {
    await agent.destroy().catch(() => undefined);
  }
}

/**
 * GETs `url` under the rules above and returns the body with its Content-Type.
 * Throws `RemoteFetchError` (400) for every refusal and failure.
 */
export async function fetchRemoteFile(url: string, options: RemoteFetchOptions): Promise<RemoteFile> {
  const allowed = addressPolicy(options);
  const signal = AbortSignal.timeout(options.timeoutMs);
  let current = parseTarget(url);
  try {
    for (let redirects = 0; ; redirects++) {
      const hop = await fetchHop(current, options, allowed, signal);
      if ('file' in hop) return hop.file;
      if (redirects >= MAX_REDIRECTS) fail('redirects', `More than ${MAX_REDIRECTS} redirects`);
      current = hop.redirect;
    }
  } catch (error) {
    if (error instanceof RemoteFetchError) throw error;
    if (signal.aborted) throw new RemoteFetchError('timeout', `Fetching the file took longer than ${options.timeoutMs} ms`);
    const code = (error as { code?: unknown })?.code;
    // The underlying message can name internal details; the code is enough to act on.
    throw new RemoteFetchError('network', `Could not fetch the file from ${current.host}${typeof code === 'string' ? ` (${code})` : ''}`);
  }
}

/**
 * Signed download URLs for stored objects:
 * `<PUBLIC_URL>/storage/<key>?name=..&type=..&expires=<unix seconds>&signature=..`.
 * The signature is HMAC-SHA256 (base64url) over the key, the file name, the
 * content type and the expiry, so none of them can be changed without the
 * secret; it is compared in constant time. `useFileDownloads` serves them.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { closeSync, fsyncSync, linkSync, mkdirSync, openSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { isStorageKey } from './local-storage.ts';

/** What a valid download URL grants: these bytes, under this name and type. */
export interface DownloadGrant {
  key: string;
  /** File name offered to the browser (any Unicode; encoded in Content-Disposition). */
  name: string;
  /** The Content-Type the bytes are served with. */
  contentType: string;
}

export interface SignDownloadParams extends DownloadGrant {
  /** How long the URL stays valid, in seconds from now. */
  expiresInSeconds: number;
}

/** What signing needs; `AppConfig` fits once `storage.urlSecret` holds `loadUrlSecret(config.storage)`. */
export interface UrlSigningConfig {
  /** The service's base URL (`AppConfig.publicUrl`). */
  publicUrl: string;
  storage: { urlSecret: string | undefined };
}

export interface VerifyOptions {
  secret: string;
  /** Clock in milliseconds; for tests. */
  now?: () => number;
}

export type VerifyFailure = 'malformed' | 'bad-signature' | 'expired';

export type VerifyResult =
  | ({ ok: true; expiresAt: number } & DownloadGrant)
  | { ok: false; reason: VerifyFailure; message: string };

/** The path downloads are served under; `useFileDownloads` matches it. */
export const DOWNLOAD_PATH_PREFIX = '/storage/';

/** Name of the generated secret's file inside STORAGE_DIR. */
export const URL_SECRET_FILE = '.url-secret';

const MAX_NAME_LENGTH = 1024;
const TOKEN = "[A-Za-z0-9!#$%&'*+.^_`|~-]+";
/** `type/subtype` with optional `; param=value` (token or quoted string), nothing a header cannot carry. */
const CONTENT_TYPE = new RegExp(`^${TOKEN}/${TOKEN}(?:\\s*;\\s*${TOKEN}=(?:${TOKEN}|"[^"\\\\\\x00-\\x1f\\x7f]*"))*$`);

/** Whether `value` is a Content-Type the signer accepts. */
export function isValidContentType(value: string): boolean {
  return value.length <= 255 && CONTENT_TYPE.test(value);
}

function signature(secret: string, grant: DownloadGrant, expires: number): string {
  // A JSON array keeps the fields apart whatever characters the name holds.
  const payload = JSON.stringify(['v1', grant.key, grant.name, grant.contentType, expires]);
  return createHmac('sha256', secret).update(payload).digest('base64url');
}

function sameString(a: string, b: string): boolean {
  const left = Buffer.from(a, 'utf8');
  const right = Buffer.from(b, 'utf8');
  // The expected signature's length is public (43 characters); only the content must not leak.
  return left.length === right.length && timingSafeEqual(left, right);
}

/**
 * A URL that serves `key` as `name` with `contentType` for `expiresInSeconds`.
 * Throws on a malformed key, name or type, and when no secret was loaded.
 */
export function signDownloadUrl(config: UrlSigningConfig, params: SignDownloadParams, now: () => number = Date.now): string {
  const { key, contentType, expiresInSeconds } = params;
  const secret = config.storage.urlSecret;
  if (!secret) throw new Error('signDownloadUrl: no URL secret; set config.storage.urlSecret = loadUrlSecret(config.storage) at startup');
  // The query string carries USVStrings: a lone surrogate would come back as U+FFFD and break the signature.
  const name = Buffer.from(params.name, 'utf8').toString('utf8');
  if (!isStorageKey(key)) throw new TypeError('signDownloadUrl: key must be 64 lowercase hexadecimal digits');
  if (name.length === 0 || name.length > MAX_NAME_LENGTH) throw new TypeError(`signDownloadUrl: name must have 1 to ${MAX_NAME_LENGTH} characters`);
  if (!isValidContentType(contentType)) throw new TypeError(`signDownloadUrl: invalid content type ${JSON.stringify(contentType)}`);
  if (!Number.isFinite(expiresInSeconds) || expiresInSeconds <= 0) throw new TypeError('signDownloadUrl: expiresInSeconds must be positive');
  const expires = Math.floor(now() / 1000) + Math.ceil(expiresInSeconds);
  const query = new URLSearchParams({
    name,
    type: contentType,
    expires: String(expires),
    signature: signature(secret, { key, name, contentType }, expires),
  });
  return `${config.publicUrl.replace(/\/+$/, '')}${DOWNLOAD_PATH_PREFIX}${key}?${query}`;
}

/** Checks a download request: `key` from the path, the rest from the query string. */
export function verifyDownload(request: { key: string; query: URLSearchParams }, options: VerifyOptions): VerifyResult {
  const { key, query } = request;
  const name = query.get('name');
  const contentType = query.get('type');
  const expiresText = query.get('expires');
  const given = query.get('signature');
  if (!isStorageKey(key) || name === null || contentType === null || expiresText === null || given === null || !/^\d{1,12}$/.test(expiresText)) {
    return { ok: false, reason: 'malformed', message: 'This download link is not valid' };
  }
  const expires = Number(expiresText);
  if (!sameString(given, signature(options.secret, { key, name, contentType }, expires))) {
    return { ok: false, reason: 'bad-signature', message: 'This download link is not valid' };
  }
  // Checked after the signature, so only links we issued are told they expired.
  const now = (options.now ?? Date.now)();
  if (now > expires * 1000) return { ok: false, reason: 'expired', message: 'This download link has expired' };
  // Signed types were checked when signed; a secret shared with an older signer must not smuggle header breaks.
  if (!isValidContentType(contentType)) return { ok: false, reason: 'malformed', message: 'This download link is not valid' };
  return { ok: true, key, name, contentType, expiresAt: expires };
}

function readSecret(file: string): string | null {
  let text: string;
  try {
    text = readFileSync(file, 'utf8').trim();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
  if (text.length < 32) throw new Error(`${file} holds no usable secret (under 32 characters); remove it to generate a new one`);
  return text;
}

/**
 * The secret download URLs are signed with: `urlSecret` (STORAGE_URL_SECRET)
 * when set, otherwise the one kept in `<dir>/.url-secret`, generated on first
 * use (32 random bytes, mode 0600) so URLs survive a restart. Several processes
 * starting at once agree on one secret: the file appears whole, through a hard
 * link that fails when another process made it first. Synchronous, for startup
 * (`createApp` is synchronous).
 */
export function loadUrlSecret(config: { dir: string; urlSecret?: string | undefined }): string {
  return config.urlSecret || keptSecret(config.dir, URL_SECRET_FILE);
}

/**
 * A random secret kept in `<dir>/<fileName>` (generated on first use: 32
 * random bytes, base64url, mode 0600). Several processes starting at once
 * agree on one: the file appears whole, through a hard link that fails when
 * another process made it first.
 */
export function keptSecret(dir: string, fileName: string): string {
  const file = path.join(dir, fileName);
  const existing = readSecret(file);
  if (existing) return existing;

  mkdirSync(dir, { recursive: true });
  const temp = `${file}.${randomBytes(6).toString('hex')}.tmp`;
  const fd = openSync(temp, 'wx', 0o600);
  try {
    writeFileSync(fd, `${randomBytes(32).toString('base64url')}\n`);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  try {
    linkSync(temp, file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  } finally {
    try {
      unlinkSync(temp);
    } catch {
      // Already gone; nothing to clean.
    }
  }
  const stored = readSecret(file);
  if (!stored) throw new Error(`Could not keep a secret in ${file}`);
  return stored;
}

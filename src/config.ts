/**
 * Every setting, read once from the environment. The README's configuration
 * table lists the same variables; keep them in step.
 */
import path from 'node:path';
import { z } from 'zod';
import { translationConfig, type TranslationConfig } from './translation/translator.ts';

/** "true"/"1" or "false"/"0", nothing else. */
const strictBoolean = z.enum(['true', '1', 'false', '0']).transform((v) => v === 'true' || v === '1');

const schema = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(8080),
  HOST: z.string().default('0.0.0.0'),
  DATABASE_URL: z.string().optional(),
  /** The base URL clients reach this service at; `urls.location` values start with it. */
  PUBLIC_URL: z.url().optional(),
  /** The web app's base URL, for `urls.app`. Defaults to PUBLIC_URL. */
  APP_URL: z.url().optional(),
  /**
   * Where published sites are served (by the site renderer, not by this API):
   * a site without a custom hostname is at `<SITES_URL>/<organizationId>/<basename>`.
   * Defaults to PUBLIC_URL + `/sites`.
   */
  SITES_URL: z.url().optional(),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /** Requests allowed per token (or per IP address when anonymous) in each window. */
  RATE_LIMIT_POINTS: z.coerce.number().int().min(1).default(600),
  RATE_LIMIT_WINDOW_SECONDS: z.coerce.number().int().min(1).default(60),
  /** Largest request body accepted, in bytes. */
  BODY_LIMIT_BYTES: z.coerce.number().int().min(1024).default(1_048_576),
  /** How often the bin of deleted spaces is swept, in seconds. */
  PURGE_INTERVAL_SECONDS: z.coerce.number().int().min(1).default(3600),
  /** How long SIGTERM waits for in-flight requests before closing, in milliseconds. */
  SHUTDOWN_TIMEOUT_MS: z.coerce.number().int().min(0).default(10_000),
  /** Where stored files (images, attachments, PDFs) are kept; relative paths are resolved against the working directory. */
  STORAGE_DIR: z.string().min(1).default('./data/files'),
  /** Signs download URLs. When unset, one is generated and kept in `<STORAGE_DIR>/.url-secret`. */
  STORAGE_URL_SECRET: z.string().min(32).optional(),
  /** Lets remote file fetches reach loopback, private and other non-public addresses (development only). */
  FETCH_ALLOW_PRIVATE_ADDRESSES: strictBoolean.default(false),
  /** Largest remote file fetched, in bytes. */
  FETCH_MAX_BYTES: z.coerce.number().int().min(1).default(10_485_760),
  /** Time allowed for a whole remote fetch (redirects included), in milliseconds. */
  FETCH_TIMEOUT_MS: z.coerce.number().int().min(1).default(10_000),
  /** Redis, for work shared across server processes: job dispatch (BullMQ) and job events. Unset: in-process. */
  REDIS_URL: z.string().url().optional(),
  /** Jobs one server process runs at once. */
  JOB_CONCURRENCY: z.coerce.number().int().min(1).max(64).default(2),
  /** How often the embedded dispatch looks for jobs (and BullMQ's sweep for lost ones), in milliseconds. */
  JOB_POLL_MS: z.coerce.number().int().min(50).default(1000),
  /** How long a worker holds a job without renewing its claim; a dead worker's job is taken over after it. */
  JOB_LEASE_MS: z.coerce.number().int().min(500).default(30_000),
  /** Encrypts stored Git credentials (32 bytes as 64 hex characters, or any passphrase, hashed). When unset, one is generated and kept in the data folder. */
  SECRETS_KEY: z.string().min(16).optional(),
});

export interface AppConfig {
  port: number;
  host: string;
  databaseUrl: string | undefined;
  publicUrl: string;
  appUrl: string;
  sitesUrl: string;
  logLevel: z.infer<typeof schema>['LOG_LEVEL'];
  rateLimit: { points: number; windowSeconds: number };
  bodyLimitBytes: number;
  purgeIntervalSeconds: number;
  shutdownTimeoutMs: number;
  /** `urlSecret` is STORAGE_URL_SECRET or undefined; `loadUrlSecret(storage)` supplies the kept one. */
  storage: { dir: string; urlSecret: string | undefined };
  fetch: { allowPrivateAddresses: boolean; maxBytes: number; timeoutMs: number };
  redisUrl: string | undefined;
  jobs: { concurrency: number; pollMs: number; leaseMs: number };
  secretsKey: string | undefined;
  /** TRANSLATION_* (see src/translation/translator.ts); `provider` null: translations cannot run. */
  translation: TranslationConfig;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): AppConfig {
  const parsed = schema.safeParse(env);
  if (!parsed.success) {
    throw new Error(`Invalid configuration: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
  }
  const e = parsed.data;
  const publicUrl = (e.PUBLIC_URL ?? `http://localhost:${e.PORT}`).replace(/\/+$/, '');
  return {
    port: e.PORT,
    host: e.HOST,
    databaseUrl: e.DATABASE_URL,
    publicUrl,
    appUrl: (e.APP_URL ?? publicUrl).replace(/\/+$/, ''),
    sitesUrl: (e.SITES_URL ?? `${publicUrl}/sites`).replace(/\/+$/, ''),
    logLevel: e.LOG_LEVEL,
    rateLimit: { points: e.RATE_LIMIT_POINTS, windowSeconds: e.RATE_LIMIT_WINDOW_SECONDS },
    bodyLimitBytes: e.BODY_LIMIT_BYTES,
    purgeIntervalSeconds: e.PURGE_INTERVAL_SECONDS,
    shutdownTimeoutMs: e.SHUTDOWN_TIMEOUT_MS,
    storage: { dir: path.resolve(process.cwd(), e.STORAGE_DIR), urlSecret: e.STORAGE_URL_SECRET },
    fetch: { allowPrivateAddresses: e.FETCH_ALLOW_PRIVATE_ADDRESSES, maxBytes: e.FETCH_MAX_BYTES, timeoutMs: e.FETCH_TIMEOUT_MS },
    redisUrl: e.REDIS_URL,
    jobs: { concurrency: e.JOB_CONCURRENCY, pollMs: e.JOB_POLL_MS, leaseMs: e.JOB_LEASE_MS },
    secretsKey: e.SECRETS_KEY,
    translation: translationConfig(env),
  };
}

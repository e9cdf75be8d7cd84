/**
 * Every setting, read once from the environment. The README's configuration
 * table lists the same variables; keep them in step.
 */
import path from 'node:path';
import { z } from 'zod';
import { DEFAULT_DATABASE_TIMEOUTS, type DatabaseTimeouts } from './db/provider/config.ts';

/**
 * The Markdown limits when MARKDOWN_* are unset (src/content/document/markdown-limits.ts
 * explains them); code converting outside a request (tests, templates) uses them too.
 */
export const MARKDOWN_LIMIT_DEFAULTS = Object.freeze({ maxCharacters: 1_000_000, maxNesting: 32, maxInlineDelimiters: 500, maxUnclosedInline: 16, maxLazyLines: 100, maxTableCells: 5_000, maxBlocks: 5_000 });

/** "true"/"1" or "false"/"0", nothing else. */
const strictBoolean = z.enum(['true', '1', 'false', '0']).transform((v) => v === 'true' || v === '1');

const schema = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(8080),
  HOST: z.string().default('0.0.0.0'),
  DATABASE_URL: z.string().optional(),
  /** PostgreSQL: time allowed to open a connection, in milliseconds. */
  DATABASE_CONNECT_TIMEOUT_MS: z.coerce.number().int().min(1).default(DEFAULT_DATABASE_TIMEOUTS.connectMs),
  /** PostgreSQL: time allowed for one statement (statement_timeout), in milliseconds. */
  DATABASE_STATEMENT_TIMEOUT_MS: z.coerce.number().int().min(1).default(DEFAULT_DATABASE_TIMEOUTS.statementMs),
  /** PostgreSQL: time allowed to get a connection from the pool (a busy pool included), in milliseconds. */
  DATABASE_POOL_TIMEOUT_MS: z.coerce.number().int().min(1).default(DEFAULT_DATABASE_TIMEOUTS.poolMs),
  /** SQLite: time a statement waits for another connection's lock (busy timeout), in milliseconds. */
  DATABASE_BUSY_TIMEOUT_MS: z.coerce.number().int().min(0).default(DEFAULT_DATABASE_TIMEOUTS.busyMs),
  /** PostgreSQL: named prepared statements, each planned once per connection; false behind a proxy that pools transactions (PgBouncer before 1.21). */
  DATABASE_PREPARED_STATEMENTS: strictBoolean.default(true),
  /** Time GET /readyz waits for the database (and for Redis) before answering 503, in milliseconds. */
  HEALTH_TIMEOUT_MS: z.coerce.number().int().min(1).default(2_000),
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
  /**
   * The site renderer (GitBook's open-source one) to tell when what a published site shows changes:
   * `POST <RENDERER_URL>/~gitbook/revalidate` with the cache tags to drop. Unset: nothing is sent.
   */
  RENDERER_URL: z.url({ protocol: /^https?$/ }).optional(),
  /** The renderer's GITBOOK_SECRET: revalidations are signed with it (`x-gitbook-signature`). Unset: sent unsigned. */
  RENDERER_SECRET: z.string().min(1).optional(),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /** Requests allowed per token (or per IP address when anonymous) in each window. */
  RATE_LIMIT_POINTS: z.coerce.number().int().min(1).default(600),
  RATE_LIMIT_WINDOW_SECONDS: z.coerce.number().int().min(1).default(60),
  /** Largest request body accepted, in bytes. */
  BODY_LIMIT_BYTES: z.coerce.number().int().min(1024).default(1_048_576),
  /** How often the bin of deleted spaces is swept, in seconds. */
  PURGE_INTERVAL_SECONDS: z.coerce.number().int().min(1).default(3600),
  /** How often stored objects nothing refers to are looked for and deleted, in seconds. */
  STORAGE_GC_INTERVAL_SECONDS: z.coerce.number().int().min(1).default(21_600),
  /**
   * Objects stored less than this long ago are kept even when nothing refers to them yet (an upload
   * or import between storing its bytes and writing its revision); at least an hour, the life of a
   * PDF's download link.
   */
  STORAGE_GC_GRACE_SECONDS: z.coerce.number().int().min(3600).default(86_400),
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
  /**
   * Largest OpenAPI document, in bytes: a spec's text sent in a request, each file fetched, and all
   * of a spec's files together. The request body limit of the endpoints that take a spec's text
   * follows it (docs/decisions.md, "OpenAPI specs").
   */
  OPENAPI_MAX_BYTES: z.coerce.number().int().min(1024).default(10_485_760),
  /** Most files one spec loads: its entry and the files its `$ref`s name. */
  OPENAPI_MAX_FILES: z.coerce.number().int().min(1).default(100),
  /** Time allowed for fetching all of a spec's files, in milliseconds. */
  OPENAPI_FETCH_TIMEOUT_MS: z.coerce.number().int().min(1).default(30_000),
  /** Time allowed for parsing and validating a spec on a worker thread, in milliseconds. */
  OPENAPI_PARSE_TIMEOUT_MS: z.coerce.number().int().min(1).default(60_000),
  /** Every so many seconds, each spec read from a URL is fetched again (a version only when it changed); 0: never. */
  OPENAPI_REFRESH_SECONDS: z.coerce.number().int().min(0).default(0),
  /**
   * How long ingested conversations wait before the job reading them starts, in milliseconds: the
   * conversations ingested meanwhile are read in the same run (docs/decisions.md, "Conversation insights").
   */
  INSIGHTS_BATCH_MS: z.coerce.number().int().min(0).default(2000),
  /**
   * Origins whose browser pages may call this API, comma-separated (`https://docs.example.com,https://admin.example.com`),
   * with credentials; `*`: any origin, without credentials. Unset: none (browsers refuse pages of other origins).
   */
  CORS_ORIGINS: z
    .string()
    .default('')
    .transform((value, ctx) => {
      const origins = value.split(',').map((o) => o.trim()).filter(Boolean);
      for (const origin of origins) {
        if (origin === '*') continue;
        let parsed: URL | null = null;
        try {
          parsed = new URL(origin);
        } catch {
          // reported below
        }
        if (!parsed || parsed.origin !== origin) {
          ctx.addIssue({ code: 'custom', message: `${JSON.stringify(origin)} is not an origin (scheme://host[:port], no path or trailing slash), nor *` });
        }
      }
      if (origins.includes('*') && origins.length > 1) ctx.addIssue({ code: 'custom', message: '* stands alone: it allows every origin' });
      return origins;
    }),
  /** Redis, for work shared across server processes: job dispatch (BullMQ) and job events. Unset: in-process. */
  REDIS_URL: z.string().url().optional(),
  /** Jobs one server process runs at once. */
  JOB_CONCURRENCY: z.coerce.number().int().min(1).max(64).default(2),
  /** How often the embedded dispatch looks for jobs (and BullMQ's sweep for lost ones), in milliseconds. */
  JOB_POLL_MS: z.coerce.number().int().min(50).default(1000),
  /** How long a worker holds a job without renewing its claim; a dead worker's job is taken over after it. */
  JOB_LEASE_MS: z.coerce.number().int().min(500).default(30_000),
  /** How long the answer to a POST sent with an Idempotency-Key is kept for its retries, in seconds. */
  IDEMPOTENCY_KEY_TTL_SECONDS: z.coerce.number().int().min(1).default(86_400),
  /** Longest Markdown a conversion accepts, in characters (a page's content, a repository file). */
  MARKDOWN_MAX_CHARACTERS: z.coerce.number().int().min(1).default(MARKDOWN_LIMIT_DEFAULTS.maxCharacters),
  /** Deepest nesting of block quotes, list items, footnote definitions, GitBook blocks and <details> in Markdown. */
  MARKDOWN_MAX_NESTING: z.coerce.number().int().min(1).max(200).default(MARKDOWN_LIMIT_DEFAULTS.maxNesting),
  /** Most inline delimiters (runs of `*`, `_`, `~` and backticks; `[`, `]`, `<`) in one Markdown paragraph. */
  MARKDOWN_MAX_INLINE_DELIMITERS: z.coerce.number().int().min(1).default(MARKDOWN_LIMIT_DEFAULTS.maxInlineDelimiters),
  /** Most inline constructs one Markdown paragraph leaves open (distinct backtick run lengths; `<?`, `<!--`, `<![CDATA[`, `<!x` without their end). */
  MARKDOWN_MAX_UNCLOSED_INLINE: z.coerce.number().int().min(1).default(MARKDOWN_LIMIT_DEFAULTS.maxUnclosedInline),
  /** Most lazy continuation lines (without the `>` or the indentation of their block quote or list item) in one Markdown paragraph. */
  MARKDOWN_MAX_LAZY_LINES: z.coerce.number().int().min(1).default(MARKDOWN_LIMIT_DEFAULTS.maxLazyLines),
  /** Most table cells in one Markdown document, a table counting its rows times its widest row. */
  MARKDOWN_MAX_TABLE_CELLS: z.coerce.number().int().min(1).default(MARKDOWN_LIMIT_DEFAULTS.maxTableCells),
  /** Most blocks in one Markdown document (paragraphs, headings, block quotes, list items, code and HTML blocks, GitBook tags). */
  MARKDOWN_MAX_BLOCKS: z.coerce.number().int().min(1).default(MARKDOWN_LIMIT_DEFAULTS.maxBlocks),
  /** Worker threads for the CPU-heavy conversions of requests (Markdown, PDF), started when first needed; jobs have a thread each besides. */
  WORKER_THREADS: z.coerce.number().int().min(1).max(64).default(2),
  /** Conversions waiting for a thread at most, beyond those running; more are answered 503. */
  WORKER_MAX_QUEUE: z.coerce.number().int().min(0).default(64),
  /** Deadline of one conversion of a request, from when a thread starts it, in milliseconds; past it the answer is 400. */
  WORKER_TASK_TIMEOUT_MS: z.coerce.number().int().min(1).default(10_000),
  /** Deadline of laying out a Git import or export on a worker thread, in milliseconds; past it the job fails. */
  GIT_LAYOUT_TIMEOUT_MS: z.coerce.number().int().min(1).default(300_000),
  /** Megabytes of repository files a process keeps between Git imports of the same space (with their bare clones on disk), so the next import fetches and reads only what changed (0: nothing kept). */
  GIT_KEPT_CLONES_MB: z.coerce.number().min(0).default(256),
  /** Page and file entries of revisions kept decoded in memory between requests (0: none); each costs roughly 0.5 KB. */
  REVISION_CACHE_ENTRIES: z.coerce.number().int().min(0).default(20_000),
  /** How long a request's caller (token, memberships, grants) is kept for the next requests at most, in milliseconds (0: read per request). Changes made through any server process, or the CLI with REDIS_URL, apply at once; this bounds what nothing announces (the CLI without REDIS_URL, SQL by hand). */
  VIEWER_CACHE_MAX_AGE_MS: z.coerce.number().int().min(0).default(5_000),
  /** Callers (tokens) kept at most; the least recently used go first. */
  VIEWER_CACHE_ENTRIES: z.coerce.number().int().min(1).default(10_000),
  /** Encrypts stored Git credentials (32 bytes as 64 hex characters, or any passphrase, hashed). When unset, one is generated and kept in the data folder. */
  SECRETS_KEY: z.string().min(16).optional(),
});

export interface AppConfig {
  port: number;
  host: string;
  databaseUrl: string | undefined;
  /** DATABASE_*_TIMEOUT_MS: a request waiting longer on the database answers 503. */
  databaseTimeouts: DatabaseTimeouts;
  /** DATABASE_PREPARED_STATEMENTS */
  databasePreparedStatements: boolean;
  healthTimeoutMs: number;
  /** CORS_ORIGINS: origins allowed with credentials, or `['*']` (any, without), or none. */
  corsOrigins: string[];
  publicUrl: string;
  appUrl: string;
  sitesUrl: string;
  /** RENDERER_*: the site renderer told of changes (src/services/renderer-revalidation.ts); `url` null: none. */
  renderer: { url: string | null; secret: string | null };
  logLevel: z.infer<typeof schema>['LOG_LEVEL'];
  rateLimit: { points: number; windowSeconds: number };
  bodyLimitBytes: number;
  purgeIntervalSeconds: number;
  storageGc: { intervalSeconds: number; graceSeconds: number };
  shutdownTimeoutMs: number;
  /** `urlSecret` is STORAGE_URL_SECRET or undefined; `loadUrlSecret(storage)` supplies the kept one. */
  storage: { dir: string; urlSecret: string | undefined };
  fetch: { allowPrivateAddresses: boolean; maxBytes: number; timeoutMs: number };
  /** OPENAPI_*: processing of OpenAPI specs. */
  openapi: { maxBytes: number; maxFiles: number; fetchTimeoutMs: number; parseTimeoutMs: number; refreshSeconds: number };
  /** INSIGHTS_*: docs insights over support conversations. */
  insights: InsightsConfig;
  redisUrl: string | undefined;
  jobs: { concurrency: number; pollMs: number; leaseMs: number };
  idempotencyKeyTtlSeconds: number;
  secretsKey: string | undefined;
  /** MARKDOWN_*: what a Markdown conversion refuses (the shape of MarkdownLimits). */
  markdownLimits: { maxCharacters: number; maxNesting: number; maxInlineDelimiters: number; maxUnclosedInline: number; maxLazyLines: number; maxTableCells: number; maxBlocks: number };
  /** WORKER_*: the worker pool (the shape of WorkerPoolConfig). */
  workers: { threads: number; maxQueue: number; taskTimeoutMs: number };
  gitLayoutTimeoutMs: number;
  /** GIT_KEPT_CLONES_MB in bytes. */
  gitKeptClonesBytes: number;
  /** REVISION_CACHE_ENTRIES: the bound of the process's RevisionChunkCache. */
  revisionCacheEntries: number;
  /** VIEWER_CACHE_*: the callers kept across requests (src/auth/viewer-cache.ts). */
  viewerCache: { maxAgeMs: number; maxEntries: number };
  /** TRANSLATION_* (below); `provider` null: translations cannot run. */
  translation: TranslationConfig;
}

/** Every environment variable `loadConfig` reads (the README's table and .env.example list the same; a test compares them). */
export function configVariables(): string[] {
  return [...Object.keys(schema.shape), ...Object.keys(translationSchema.shape), ...Object.keys(insightsSchema.shape)];
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
    databaseTimeouts: {
      connectMs: e.DATABASE_CONNECT_TIMEOUT_MS,
      statementMs: e.DATABASE_STATEMENT_TIMEOUT_MS,
      poolMs: e.DATABASE_POOL_TIMEOUT_MS,
      busyMs: e.DATABASE_BUSY_TIMEOUT_MS,
    },
    databasePreparedStatements: e.DATABASE_PREPARED_STATEMENTS,
    healthTimeoutMs: e.HEALTH_TIMEOUT_MS,
    corsOrigins: e.CORS_ORIGINS,
    publicUrl,
    appUrl: (e.APP_URL ?? publicUrl).replace(/\/+$/, ''),
    sitesUrl: (e.SITES_URL ?? `${publicUrl}/sites`).replace(/\/+$/, ''),
    renderer: { url: e.RENDERER_URL ? e.RENDERER_URL.replace(/\/+$/, '') : null, secret: e.RENDERER_SECRET ?? null },
    logLevel: e.LOG_LEVEL,
    rateLimit: { points: e.RATE_LIMIT_POINTS, windowSeconds: e.RATE_LIMIT_WINDOW_SECONDS },
    bodyLimitBytes: e.BODY_LIMIT_BYTES,
    purgeIntervalSeconds: e.PURGE_INTERVAL_SECONDS,
    storageGc: { intervalSeconds: e.STORAGE_GC_INTERVAL_SECONDS, graceSeconds: e.STORAGE_GC_GRACE_SECONDS },
    shutdownTimeoutMs: e.SHUTDOWN_TIMEOUT_MS,
    storage: { dir: path.resolve(process.cwd(), e.STORAGE_DIR), urlSecret: e.STORAGE_URL_SECRET },
    fetch: { allowPrivateAddresses: e.FETCH_ALLOW_PRIVATE_ADDRESSES, maxBytes: e.FETCH_MAX_BYTES, timeoutMs: e.FETCH_TIMEOUT_MS },
    openapi: {
      maxBytes: e.OPENAPI_MAX_BYTES,
      maxFiles: e.OPENAPI_MAX_FILES,
      fetchTimeoutMs: e.OPENAPI_FETCH_TIMEOUT_MS,
      parseTimeoutMs: e.OPENAPI_PARSE_TIMEOUT_MS,
      refreshSeconds: e.OPENAPI_REFRESH_SECONDS,
    },
    insights: { batchMs: e.INSIGHTS_BATCH_MS, model: insightsModelConfig(env) },
    redisUrl: e.REDIS_URL,
    jobs: { concurrency: e.JOB_CONCURRENCY, pollMs: e.JOB_POLL_MS, leaseMs: e.JOB_LEASE_MS },
    idempotencyKeyTtlSeconds: e.IDEMPOTENCY_KEY_TTL_SECONDS,
    secretsKey: e.SECRETS_KEY,
    markdownLimits: { maxCharacters: e.MARKDOWN_MAX_CHARACTERS, maxNesting: e.MARKDOWN_MAX_NESTING, maxInlineDelimiters: e.MARKDOWN_MAX_INLINE_DELIMITERS,
      maxUnclosedInline: e.MARKDOWN_MAX_UNCLOSED_INLINE,
      maxLazyLines: e.MARKDOWN_MAX_LAZY_LINES,
      maxTableCells: e.MARKDOWN_MAX_TABLE_CELLS,
      maxBlocks: e.MARKDOWN_MAX_BLOCKS,
    },
    workers: { threads: e.WORKER_THREADS, maxQueue: e.WORKER_MAX_QUEUE, taskTimeoutMs: e.WORKER_TASK_TIMEOUT_MS },
    gitLayoutTimeoutMs: e.GIT_LAYOUT_TIMEOUT_MS,
    gitKeptClonesBytes: Math.floor(e.GIT_KEPT_CLONES_MB * 1024 * 1024),
    revisionCacheEntries: e.REVISION_CACHE_ENTRIES,
    viewerCache: { maxAgeMs: e.VIEWER_CACHE_MAX_AGE_MS, maxEntries: e.VIEWER_CACHE_ENTRIES },
    translation: translationConfig(env),
  };
}

// ---- Translation (TRANSLATION_*)

export type TranslationProviderName = 'libretranslate' | 'openai';

/** The translation settings, validated. */
export interface TranslationConfig {
  /** null: no provider configured, translation is unavailable. */
  provider: TranslationProviderName | null;
  /** Base URL of the provider's API, without a trailing slash (null only without a provider). */
  url: string | null;
  apiKey: string | null;
  /** Chat model (openai only). */
  model: string;
  timeoutMs: number;
  /** Texts per request. */
  batchSize: number;
}

/** Default base URL of the openai provider. */
export const OPENAI_DEFAULT_URL = 'https://api.openai.com/v1';
/** Default chat model of the openai provider. */
export const OPENAI_DEFAULT_MODEL = 'gpt-4o-mini';
/** Texts per request when TRANSLATION_BATCH_SIZE is unset. */
export const DEFAULT_BATCH_SIZE: Record<TranslationProviderName, number> = { libretranslate: 25, openai: 20 };

/** An unset variable and an empty one (`TRANSLATION_API_KEY=` in an env file) mean the same. */
const unsetIfEmpty = (value: unknown) => (value === '' ? undefined : value);

const translationSchema = z
  .object({
    /** `libretranslate` or `openai`; unset disables translation. */
    TRANSLATION_PROVIDER: z.preprocess(unsetIfEmpty, z.enum(['libretranslate', 'openai']).optional()),
    /** Base URL of the provider's API. Required for libretranslate; openai defaults to https://api.openai.com/v1. */
    TRANSLATION_URL: z.preprocess(unsetIfEmpty, z.url({ protocol: /^https?$/ }).optional()),
    /** Sent as `api_key` (libretranslate) or `Authorization: Bearer` (openai). */
    TRANSLATION_API_KEY: z.preprocess(unsetIfEmpty, z.string().optional()),
    /** Chat model of the openai provider. */
    TRANSLATION_MODEL: z.preprocess(unsetIfEmpty, z.string().default(OPENAI_DEFAULT_MODEL)),
    /** Time allowed for one provider request, in milliseconds. */
    TRANSLATION_TIMEOUT_MS: z.preprocess(unsetIfEmpty, z.coerce.number().int().min(1).default(60_000)),
    /** Texts (segments) per provider request; defaults to 25 for libretranslate, 20 for openai. */
    TRANSLATION_BATCH_SIZE: z.preprocess(unsetIfEmpty, z.coerce.number().int().min(1).max(500).optional()),
  })
  .superRefine((env, ctx) => {
    if (env.TRANSLATION_PROVIDER === 'libretranslate' && !env.TRANSLATION_URL) {
      ctx.addIssue({ code: 'custom', path: ['TRANSLATION_URL'], message: 'required when TRANSLATION_PROVIDER is libretranslate' });
    }
  });

/** Reads and validates the TRANSLATION_* settings; throws "Invalid configuration: ..." like `loadConfig`. */
export function translationConfig(env: NodeJS.ProcessEnv = process.env): TranslationConfig {
  const parsed = translationSchema.safeParse(env);
  if (!parsed.success) {
    throw new Error(`Invalid configuration: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
  }
  const e = parsed.data;
  const provider = e.TRANSLATION_PROVIDER ?? null;
  const url = e.TRANSLATION_URL ?? (provider === 'openai' ? OPENAI_DEFAULT_URL : null);
  return {
    provider,
    url: url === null ? null : url.replace(/\/+$/, ''),
    apiKey: e.TRANSLATION_API_KEY ?? null,
    model: e.TRANSLATION_MODEL,
    timeoutMs: e.TRANSLATION_TIMEOUT_MS,
    batchSize: e.TRANSLATION_BATCH_SIZE ?? DEFAULT_BATCH_SIZE[provider ?? 'libretranslate'],
  };
}

// ---- The insights model engine (INSIGHTS_*)

/** The optional model engine of docs insights, validated (docs/decisions.md, "Conversation insights: the optional model engine"). */
export interface InsightsModelConfig {
  provider: 'openai';
  /** Base URL of the OpenAI-compatible API, without a trailing slash. */
  url: string;
  apiKey: string | null;
  /** Chat model. */
  model: string;
  /** Time allowed for one request, in milliseconds. */
  timeoutMs: number;
  /** Times a failed request is sent again before the round falls back to the default engine. */
  retries: number;
  /** The embedding model issues are placed by (null: by terms only). */
  embeddingModel: string | null;
  /** Cosine of embeddings at or above which issues join a cluster (null: the engine's default). */
  embeddingSimilarity: number | null;
}

/** INSIGHTS_*: docs insights over support conversations; `model` null: the default (offline) engine only. */
export interface InsightsConfig {
  batchMs: number;
  model: InsightsModelConfig | null;
}

const insightsSchema = z.object({
  /** `openai` (any OpenAI-compatible chat-completions API); unset: the default engine only. */
  INSIGHTS_PROVIDER: z.preprocess(unsetIfEmpty, z.enum(['openai']).optional()),
  /** Base URL of the API; defaults to https://api.openai.com/v1. */
  INSIGHTS_URL: z.preprocess(unsetIfEmpty, z.url({ protocol: /^https?$/ }).optional()),
  /** Sent as `Authorization: Bearer`; local servers may need none. */
  INSIGHTS_API_KEY: z.preprocess(unsetIfEmpty, z.string().optional()),
  /** Chat model reading conversations and describing clusters. */
  INSIGHTS_MODEL: z.preprocess(unsetIfEmpty, z.string().default(OPENAI_DEFAULT_MODEL)),
  /** Time allowed for one request, in milliseconds. */
  INSIGHTS_TIMEOUT_MS: z.preprocess(unsetIfEmpty, z.coerce.number().int().min(1).default(60_000)),
  /** Times a failed request is sent again (after a short backoff) before the default engine reads instead. */
  INSIGHTS_RETRIES: z.preprocess(unsetIfEmpty, z.coerce.number().int().min(0).max(10).default(2)),
  /** Embedding model of the same API issues are clustered by (`text-embedding-3-small`); unset: clustered by terms. */
  INSIGHTS_EMBEDDING_MODEL: z.preprocess(unsetIfEmpty, z.string().optional()),
  /** Cosine of two embeddings at or above which issues are one topic (0.5; models spread differently). */
  INSIGHTS_EMBEDDING_SIMILARITY: z.preprocess(unsetIfEmpty, z.coerce.number().gt(0).lt(1).optional()),
});

/** Reads and validates the INSIGHTS_* settings of the model engine; throws "Invalid configuration: ..." like `loadConfig`. */
export function insightsModelConfig(env: NodeJS.ProcessEnv = process.env): InsightsModelConfig | null {
  const parsed = insightsSchema.safeParse(env);
  if (!parsed.success) {
    throw new Error(`Invalid configuration: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
  }
  const e = parsed.data;
  if (!e.INSIGHTS_PROVIDER) return null;
  return {
    provider: e.INSIGHTS_PROVIDER,
    url: (e.INSIGHTS_URL ?? OPENAI_DEFAULT_URL).replace(/\/+$/, ''),
    apiKey: e.INSIGHTS_API_KEY ?? null,
    model: e.INSIGHTS_MODEL,
    timeoutMs: e.INSIGHTS_TIMEOUT_MS,
    retries: e.INSIGHTS_RETRIES,
    embeddingModel: e.INSIGHTS_EMBEDDING_MODEL ?? null,
    embeddingSimilarity: e.INSIGHTS_EMBEDDING_SIMILARITY ?? null,
  };
}

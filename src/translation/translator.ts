/**
 * Machine translation behind one small interface, and the settings that
 * choose a provider: LibreTranslate's HTTP API or an OpenAI-compatible
 * chat-completions API.
 *
 * Translators receive and return segment text (see ./segments.ts): prose
 * with `<m1>…</m1>`, `<a2>…</a2>` tags and `<x3/>` placeholders to keep.
 */
import { z } from 'zod';
import { createLibreTranslateTranslator } from './providers/libretranslate.ts';
import { createOpenAITranslator } from './providers/openai.ts';
import type { Translator } from './providers/provider.ts';

export { TranslationProviderError, type TranslationProviderFailure } from './providers/http.ts';
export type { TranslateOptions, Translator } from './providers/provider.ts';

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

const schema = z
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
  const parsed = schema.safeParse(env);
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

/** The configured translator, or null when no provider is configured. */
export function createTranslator(config: TranslationConfig): Translator | null {
  if (config.provider === null) return null;
  if (config.url === null) throw new Error(`Invalid configuration: TRANSLATION_URL: required when TRANSLATION_PROVIDER is ${config.provider}`);
  const common = { url: config.url, apiKey: config.apiKey, timeoutMs: config.timeoutMs, batchSize: config.batchSize };
  switch (config.provider) {
    case 'libretranslate':
      return createLibreTranslateTranslator(common);
    case 'openai':
      return createOpenAITranslator({ ...common, model: config.model });
  }
}

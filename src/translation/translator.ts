/**
 * Machine translation behind one small interface, with the provider the
 * settings choose (TRANSLATION_*, src/config.ts): LibreTranslate's HTTP API
 * or an OpenAI-compatible chat-completions API.
 *
 * Translators receive and return segment text (see ./segments.ts): prose
 * with `<m1>…</m1>`, `<a2>…</a2>` tags and `<x3/>` placeholders to keep.
 */
import type { TranslationConfig } from '../config.ts';
import { createLibreTranslateTranslator } from './providers/libretranslate.ts';
import { createOpenAITranslator } from './providers/openai.ts';
import type { Translator } from './providers/provider.ts';

export type { TranslateOptions, Translator } from './providers/provider.ts';

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

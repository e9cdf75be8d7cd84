/**
 * What the translation providers share: the error they throw, one JSON POST
 * with a time limit (src/json-http.ts's, throwing that error), and the loop that sends texts in batches.
 */
import { batches } from '../../batches.ts';
import { TranslationProviderError } from '../../errors/external.ts';
import { postJson as postJsonOf, snippet, type JsonPostOptions } from '../../json-http.ts';
import type { TranslateOptions, Translator } from './provider.ts';

/** Options of `postJson`. */
export interface PostJsonOptions extends Omit<JsonPostOptions, 'fail'> {
  /** Provider name, for errors. */
  provider: string;
}

/** The shared JSON POST (src/json-http.ts), its failures thrown as TranslationProviderErrors. */
export function postJson(url: string, body: unknown, options: PostJsonOptions): Promise<unknown> {
  const { provider, ...rest } = options;
  return postJsonOf(url, body, { ...rest, fail: (reason, message, details) => new TranslationProviderError(provider, reason, message, details) });
}

export { snippet };

/** A provider as `batchTranslator` drives it: what it is called, and how it translates one batch. */
export interface BatchProvider {
  /** Provider name, for errors (`libretranslate`, `openai`). */
  name: string;
  /** Its display name, for error messages. */
  label: string;
  batchSize: number;
  maxBatchChars: number;
  /** One request: a translation per text, in order. */
  translateBatch(texts: string[], options: TranslateOptions): Promise<string[]>;
}

/**
 * A Translator sending texts to a provider in batches (`batches`), one
 * request at a time, stopping between requests when the signal aborts. Blank
 * texts are answered as they are: there is nothing to translate (and
 * LibreTranslate rejects an empty `q`). An answer with another number of
 * translations than texts is malformed.
 */
export function batchTranslator(provider: BatchProvider): Translator {
  const { name, label, batchSize, maxBatchChars } = provider;
  return {
    name,
    batchSize,
    maxBatchChars,
    async translate(texts, opts) {
      const out = [...texts];
      const todo = texts.map((text, i) => ({ text, i })).filter(({ text }) => text.trim() !== '');
      let start = 0;
      for (const batch of batches(todo.map((t) => t.text), batchSize, maxBatchChars)) {
        opts.signal?.throwIfAborted();
        const translated = await provider.translateBatch(batch, opts);
        if (translated.length !== batch.length) {
          throw new TranslationProviderError(name, 'malformed', `${label} answered ${translated.length} translations for ${batch.length} texts: ${snippet(JSON.stringify(translated))}`);
        }
        translated.forEach((text, j) => (out[todo[start + j].i] = text));
        start += batch.length;
      }
      return out;
    },
  };
}

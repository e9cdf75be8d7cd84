/**
 * What a translation provider is: a Translator, and the options of one call.
 * Its own module, so the providers and what they share (http.ts) need not
 * import translator.ts, which imports them to choose one.
 */

/** Options of one `translate` call. */
export interface TranslateOptions {
  /** Language code of the texts; null lets the provider detect it. */
  source: string | null;
  /** Language code to translate to. */
  target: string;
  /** The space owner's guidance (tone, glossary, what not to translate); only LLM providers can follow it. */
  instructions?: string | null;
  signal?: AbortSignal;
}

export interface Translator {
  /** The provider (`libretranslate`, `openai`), for logs and errors. */
  readonly name: string;
  /** Texts per request: callers that report progress batch by it; `translate` splits larger calls itself. */
  readonly batchSize?: number;
  /** About how many characters a request may carry. */
  readonly maxBatchChars?: number;
  /** One translation per text, in order. Rejects with a TranslationProviderError, or the signal's reason when aborted. */
  translate(texts: string[], options: TranslateOptions): Promise<string[]>;
}

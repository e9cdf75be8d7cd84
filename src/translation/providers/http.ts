/**
 * What the translation providers share: the error they throw, one JSON POST
 * with a time limit, and the loop that sends texts in batches.
 */
import { batches } from '../../batches.ts';
import { TranslationProviderError } from '../../errors/external.ts';
import type { TranslateOptions, Translator } from './provider.ts';


/** Options of `postJson`. */
export interface PostJsonOptions {
  /** Provider name, for errors. */
  provider: string;
  /** Its display name, for error messages. */
  label: string;
  headers?: Record<string, string>;
  /** Time allowed for the whole exchange, body included. */
  timeoutMs: number;
  /** Aborting it rejects with its reason (not a provider error). */
  signal?: AbortSignal;
}

/**
 * POSTs JSON and returns the parsed JSON answer of a 2xx. Other statuses
 * throw with the provider's own message when its body has one
 * (`{"error": "..."}`, `{"error": {"message": "..."}}`, `{"message": "..."}`).
 */
export async function postJson(url: string, body: unknown, options: PostJsonOptions): Promise<unknown> {
  const { provider, label } = options;
  const timeout = AbortSignal.timeout(options.timeoutMs);
  const signal = options.signal ? AbortSignal.any([options.signal, timeout]) : timeout;
  let status: number;
  let text: string;
  try {
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json', ...options.headers },
      body: JSON.stringify(body),
      signal,
    });
    status = response.status;
    text = await response.text();
  } catch (error) {
    if (options.signal?.aborted) throw options.signal.reason;
    if (timeout.aborted) throw new TranslationProviderError(provider, 'timeout', `${label} did not answer within ${options.timeoutMs} ms`, { cause: error });
    const detail = error instanceof Error ? ((error.cause as { code?: string } | undefined)?.code ?? error.message) : String(error);
    throw new TranslationProviderError(provider, 'network', `${label} could not be reached at ${new URL(url).origin}: ${detail}`, { cause: error });
  }
  if (status < 200 || status > 299) {
    throw new TranslationProviderError(provider, 'http', `${label} answered ${status}: ${errorMessage(text)}`, { httpStatus: status });
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new TranslationProviderError(provider, 'malformed', `${label} answered ${status} with a body that is not JSON: ${snippet(text)}`, { cause: error });
  }
}

function errorMessage(body: string): string {
  try {
    const parsed = JSON.parse(body) as unknown;
    if (parsed && typeof parsed === 'object') {
      const { error, message } = parsed as { error?: unknown; message?: unknown };
      if (typeof error === 'string' && error) return error;
      if (error && typeof error === 'object' && typeof (error as { message?: unknown }).message === 'string') return (error as { message: string }).message;
      if (typeof message === 'string' && message) return message;
    }
  } catch {
    // Not JSON: the body itself says what happened.
  }
  return snippet(body) || '(empty body)';
}

/** The start of a body, on one line, for an error message. */
export function snippet(text: string, max = 300): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > max ? `${line.slice(0, max)}…` : line;
}

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

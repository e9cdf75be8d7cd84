/**
 * An OpenAI-compatible chat-completions API (OpenAI, Azure OpenAI's v1 API,
 * Mistral, Ollama, vLLM, LiteLLM...): `POST <url>/chat/completions` with the
 * segments as a JSON user message and `response_format: json_object`; the
 * model answers `{"translations": [...]}`, one string per segment.
 *
 * The base URL is the API root as providers document it, usually ending in
 * `/v1` (`chatCompletionsUrl`, src/json-http.ts, says how it is completed).
 *
 * An answer that is not that JSON (bad JSON, a wrong count, a non-string,
 * truncated by the token limit) is asked again once, then fails.
 */
import { z } from 'zod';
import { TranslationProviderError } from '../../errors/external.ts';
import { chatCompletionsUrl, stripJsonFence } from '../../json-http.ts';
import { batchTranslator, postJson, snippet } from './http.ts';
import type { TranslateOptions, Translator } from './provider.ts';

/** Options of `createOpenAITranslator`. */
export interface OpenAITranslatorOptions {
  /** API root, e.g. `https://api.openai.com/v1`. */
  url: string;
  /** Sent as `Authorization: Bearer`; local servers may need none. */
  apiKey?: string | null;
  model: string;
  timeoutMs: number;
  batchSize: number;
  /** About how many characters one request may carry, so the answer fits the model's output limit. */
  maxBatchChars?: number;
}

const LABEL = 'The translation model API';

const completionSchema = z.object({
  choices: z.array(z.object({ message: z.object({ content: z.string().nullable().optional(), refusal: z.string().nullable().optional() }), finish_reason: z.string().nullable().optional() })).min(1),
});
const translationsSchema = z.object({ translations: z.array(z.string()) });

export { chatCompletionsUrl };

/** A language code as English words for the prompt (`fr` -> `French (fr)`); the code alone when unknown. */
function languageName(code: string): string {
  try {
    const name = new Intl.DisplayNames(['en'], { type: 'language' }).of(code);
    return name && name.toLowerCase() !== code.toLowerCase() ? `${name} (${code})` : code;
  } catch {
    return code;
  }
}

/** The system prompt of a batch. */
export function systemPrompt(options: Pick<TranslateOptions, 'source' | 'target' | 'instructions'>): string {
  const from = options.source ? languageName(options.source) : 'the language it is written in';
  const lines = [
    `You are a professional translator of software documentation. Translate each segment from ${from} to ${languageName(options.target)}.`,
    'The user message is a JSON object {"segments": [...]}. Translate every segment on its own, in order.',
    'Segments contain tags that you must keep:',
    '- <m1>…</m1> (formatting) and <a2>…</a2> (a link) wrap words: translate the words inside and keep every tag, with its number, exactly once; move a tag pair with its words when the sentence order changes.',
    '- <x3/> stands for something that is not translated (code, a variable, an emoji, a mention): keep it exactly once, unchanged, at the right place in the sentence.',
    'Never add, remove, rename or renumber tags. Keep &lt; and &amp; as they are written. Keep code identifiers, URLs, file names and product names unchanged. Keep line breaks.',
    'Answer with only a JSON object {"translations": [...]} holding one translated string per segment, in the same order, as many strings as there are segments.',
  ];
  if (options.instructions?.trim()) {
    lines.push('Follow these instructions from the documentation owner (they never change the answer format above):', options.instructions.trim());
  }
  return lines.join('\n');
}

export function createOpenAITranslator(options: OpenAITranslatorOptions): Translator {
  const endpoint = chatCompletionsUrl(options.url);
  const maxBatchChars = options.maxBatchChars ?? 12_000;
  const headers: Record<string, string> = options.apiKey ? { authorization: `Bearer ${options.apiKey}` } : {};

  /** One request; a string saying what was wrong when the answer is unusable. */
  async function request(texts: string[], opts: TranslateOptions): Promise<string[] | string> {
    const body = {
      model: options.model,
      messages: [
        { role: 'system', content: systemPrompt(opts) },
        { role: 'user', content: JSON.stringify({ segments: texts }) },
      ],
      response_format: { type: 'json_object' },
    };
    let json: unknown;
    try {
      json = await postJson(endpoint, body, { provider: 'openai', label: LABEL, headers, timeoutMs: options.timeoutMs, signal: opts.signal });
    } catch (error) {
      // A body that is not JSON is asked again like any malformed answer; HTTP errors and timeouts fail at once.
      if (error instanceof TranslationProviderError && error.reason === 'malformed') return error.message;
      throw error;
    }
    const answer = completionSchema.safeParse(json);
    if (!answer.success) return 'the answer has no choices[0].message';
    const [choice] = answer.data.choices;
    if (choice.message.refusal) return `the model refused: ${snippet(choice.message.refusal)}`;
    if (choice.finish_reason === 'length') return 'the answer was cut at the token limit (lower TRANSLATION_BATCH_SIZE)';
    const content = choice.message.content ?? '';
    let parsed: unknown;
    try {
      parsed = JSON.parse(stripJsonFence(content));
    } catch {
      return `the answer is not JSON: ${snippet(content)}`;
    }
    const result = translationsSchema.safeParse(parsed);
    if (!result.success) return `the answer is not {"translations": [strings]}: ${snippet(content)}`;
    if (result.data.translations.length !== texts.length) return `the answer has ${result.data.translations.length} translations for ${texts.length} segments`;
    return result.data.translations;
  }

  async function translateBatch(texts: string[], opts: TranslateOptions): Promise<string[]> {
    const first = await request(texts, opts);
    if (typeof first !== 'string') return first;
    opts.signal?.throwIfAborted();
    const second = await request(texts, opts);
    if (typeof second !== 'string') return second;
    throw new TranslationProviderError('openai', 'malformed', `${LABEL} (${options.model}) gave no usable answer twice: ${second}`);
  }

  return batchTranslator({ name: 'openai', label: LABEL, batchSize: options.batchSize, maxBatchChars, translateBatch });
}

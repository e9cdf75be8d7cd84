/**
 * LibreTranslate (https://libretranslate.com, self-hostable):
 * `POST <url>/translate` with JSON `{ q: string[], source, target, format, api_key? }`,
 * answered by `{ translatedText: string[] }` (a string when `q` is one) or,
 * on failure, an error status with `{ error: "..." }`.
 *
 * Texts go as `format: 'html'`, so LibreTranslate keeps the segment tags as
 * elements and translates the text around them: segment text is turned into
 * HTML (text escaped, tags as elements) and the answer back into segment
 * text. LibreTranslate writes a placeholder `<x3/>` back as `<x3></x3>`,
 * which segments read as the placeholder. Recent versions unescape their
 * HTML answer and older ones do not; entities are decoded either way.
 */
import { z } from 'zod';
import { TranslationProviderError } from '../../errors/external.ts';
import { escapeSegmentText, tokenize } from '../segments.ts';
import { batchTranslator, postJson } from './http.ts';
import type { TranslateOptions, Translator } from './provider.ts';

/** Options of `createLibreTranslateTranslator`. */
export interface LibreTranslateOptions {
  /** Base URL of the API, e.g. `http://localhost:5000`. */
  url: string;
  apiKey?: string | null;
  timeoutMs: number;
  batchSize: number;
  /** About how many characters one request may carry (LibreTranslate servers may set a `--char-limit`). */
  maxBatchChars?: number;
}

const LABEL = 'LibreTranslate';
const answerSchema = z.object({ translatedText: z.union([z.string(), z.array(z.string())]) });

export function createLibreTranslateTranslator(options: LibreTranslateOptions): Translator {
  const endpoint = `${options.url.replace(/\/+$/, '')}/translate`;
  const maxBatchChars = options.maxBatchChars ?? 5_000;

  async function translateBatch(texts: string[], opts: TranslateOptions): Promise<string[]> {
    const body: Record<string, unknown> = { q: texts.map(segmentToHtml), source: opts.source ?? 'auto', target: opts.target, format: 'html' };
    if (options.apiKey) body.api_key = options.apiKey;
    const answer = answerSchema.safeParse(await postJson(endpoint, body, { provider: 'libretranslate', label: LABEL, timeoutMs: options.timeoutMs, signal: opts.signal }));
    if (!answer.success) {
      throw new TranslationProviderError('libretranslate', 'malformed', `${LABEL} answered without translatedText: ${answer.error.issues[0]?.message ?? 'invalid answer'}`);
    }
    const { translatedText } = answer.data;
    return (typeof translatedText === 'string' ? [translatedText] : translatedText).map(htmlToSegment);
  }

  return batchTranslator({ name: 'libretranslate', label: LABEL, batchSize: options.batchSize, maxBatchChars, translateBatch });
}

/** Segment text -> HTML: text escaped, tags as elements. */
export function segmentToHtml(segment: string): string {
  return tokenize(segment)
    .map((t) => (t.kind === 'tag' ? canonicalTag(t.name, t.n, t.form) : escapeHtml(t.text)))
    .join('');
}

/**
 * HTML LibreTranslate wrote -> segment text: our tags kept (a placeholder
 * written as an element, `<x3></x3>`, becomes `<x3/>` again), entities
 * decoded, text escaped again as segments need.
 */
export function htmlToSegment(html: string): string {
  return tokenize(html)
    .map((t) => {
      if (t.kind === 'text') return escapeSegmentText(t.text);
      if (t.name === 'x') return t.form === 'close' ? '' : `<x${t.n}/>`;
      return canonicalTag(t.name, t.n, t.form);
    })
    .join('');
}

function canonicalTag(name: string, n: number, form: 'open' | 'close' | 'self'): string {
  return form === 'close' ? `</${name}${n}>` : form === 'self' ? `<${name}${n}/>` : `<${name}${n}>`;
}

function escapeHtml(text: string): string {
  return text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');
}

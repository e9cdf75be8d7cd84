import { describe, expect, it } from 'vitest';
import { TranslationProviderError } from '../../src/errors/external.ts';
import { createLibreTranslateTranslator, htmlToSegment, segmentToHtml } from '../../src/translation/providers/libretranslate.ts';
import { useLocalServers, type Reply } from './local-server.ts';

/**
 * What a recent LibreTranslate does with `format: 'html'`: translates the
 * text between elements (here: upper-cases it), writes an empty element
 * `<x1/>` as `<x1></x1>` (BeautifulSoup) and unescapes the result.
 */
function fakeLibreTranslate(html: string): string {
  return html
    .split(/(<\/?[a-z]+\d*\s*\/?>)/)
    .map((part, i) => {
      if (i % 2 === 1) return part.replace(/^<([a-z]+\d*)\s*\/>$/, '<$1></$1>');
      return part.replaceAll('&lt;', '<').replaceAll('&gt;', '>').replaceAll('&amp;', '&').toUpperCase();
    })
    .join('');
}

const start = useLocalServers();

const translateOk = (request: { body: unknown }): Reply => {
  const { q } = request.body as { q: string[] };
  return { json: { translatedText: q.map(fakeLibreTranslate) } };
};

describe('LibreTranslate translator', () => {
  it('posts batches of HTML to /translate and reads the translations back as segment text', async () => {
    const { url, requests } = await start(translateOk);
    const translator = createLibreTranslateTranslator({ url: `${url}/`, apiKey: 'secret', timeoutMs: 5_000, batchSize: 2 });
    const texts = ['Run <x1/> then <m2>see <a3>the guide</a3></m2>.', 'a < b &amp;lt; c', 'Third', '  '];
    const out = await translator.translate(texts, { source: 'en', target: 'fr' });

    expect(out).toEqual(['RUN <x1/> THEN <m2>SEE <a3>THE GUIDE</a3></m2>.', 'A < B &LT; C', 'THIRD', '  ']);
    expect(requests).toHaveLength(2);
    expect(requests[0].method).toBe('POST');
    expect(requests[0].path).toBe('/translate');
    expect(requests[0].headers['content-type']).toBe('application/json');
    expect(requests[0].body).toEqual({
      q: ['Run <x1/> then <m2>see <a3>the guide</a3></m2>.', 'a &lt; b &amp;lt; c'],
      source: 'en',
      target: 'fr',
      format: 'html',
      api_key: 'secret',
    });
    expect(requests[1].body).toMatchObject({ q: ['Third'] });
    expect(translator.name).toBe('libretranslate');
  });

  it('asks LibreTranslate to detect the language when the source is unknown, and sends no key it does not have', async () => {
    const { url, requests } = await start(() => ({ json: { translatedText: 'HALLO', detectedLanguage: { confidence: 90, language: 'en' } } }));
    const translator = createLibreTranslateTranslator({ url, timeoutMs: 5_000, batchSize: 10 });
    // One text may be answered with a string.
    expect(await translator.translate(['Hello'], { source: null, target: 'de' })).toEqual(['HALLO']);
    expect(requests[0].body).toEqual({ q: ['Hello'], source: 'auto', target: 'de', format: 'html' });
  });

  it('fails with the status and LibreTranslate’s message', async () => {
    const { url } = await start(() => ({ status: 500, json: { error: 'Cannot translate text: model crashed' } }));
    const translator = createLibreTranslateTranslator({ url, timeoutMs: 5_000, batchSize: 10 });
    const error = await translator.translate(['Hello'], { source: 'en', target: 'fr' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TranslationProviderError);
    expect(error).toMatchObject({ reason: 'http', httpStatus: 500, provider: 'libretranslate', status: 502, code: 'TRANSLATION_PROVIDER_ERROR' });
    expect((error as Error).message).toBe('LibreTranslate answered 500: Cannot translate text: model crashed');
  });

  it('fails on a 400 with a plain-text body', async () => {
    const { url } = await start(() => ({ status: 400, text: 'xx is not supported' }));
    const translator = createLibreTranslateTranslator({ url, timeoutMs: 5_000, batchSize: 10 });
    await expect(translator.translate(['Hello'], { source: 'en', target: 'xx' })).rejects.toThrow('LibreTranslate answered 400: xx is not supported');
  });

  it('fails on an answer that is not JSON, or not one translation per text', async () => {
    const { url } = await start((_request, index) => (index === 0 ? { text: '<html>gateway</html>' } : { json: { translatedText: ['only one'] } }));
    const translator = createLibreTranslateTranslator({ url, timeoutMs: 5_000, batchSize: 10 });
    await expect(translator.translate(['Hello'], { source: 'en', target: 'fr' })).rejects.toMatchObject({ reason: 'malformed', message: expect.stringContaining('not JSON: <html>gateway</html>') });
    await expect(translator.translate(['Hello', 'World'], { source: 'en', target: 'fr' })).rejects.toMatchObject({ reason: 'malformed', message: expect.stringContaining('1 translations for 2 texts') });
  });

  it('gives up after the timeout', async () => {
    const { url } = await start(() => 'hang');
    const translator = createLibreTranslateTranslator({ url, timeoutMs: 150, batchSize: 10 });
    await expect(translator.translate(['Hello'], { source: 'en', target: 'fr' })).rejects.toMatchObject({ reason: 'timeout', message: 'LibreTranslate did not answer within 150 ms' });
  });

  it('stops when aborted, with the signal’s reason', async () => {
    const { url } = await start(() => 'hang');
    const translator = createLibreTranslateTranslator({ url, timeoutMs: 10_000, batchSize: 10 });
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error('cancelled by the user')), 50);
    await expect(translator.translate(['Hello'], { source: 'en', target: 'fr', signal: controller.signal })).rejects.toThrow('cancelled by the user');
  });

  it('says where it could not connect', async () => {
    const server = await start(translateOk);
    const { url } = server;
    await server.close();
    const translator = createLibreTranslateTranslator({ url, timeoutMs: 5_000, batchSize: 10 });
    await expect(translator.translate(['Hello'], { source: 'en', target: 'fr' })).rejects.toMatchObject({ reason: 'network', message: expect.stringContaining(`could not be reached at ${url}`) });
  });
});

describe('segment text as HTML', () => {
  it('escapes text and keeps tags as elements, both ways', () => {
    const segment = 'If a < b & c, see <m1>this &lt;m2></m1> <x2/>';
    expect(segmentToHtml(segment)).toBe('If a &lt; b &amp; c, see <m1>this &lt;m2&gt;</m1> <x2/>');
    // An older LibreTranslate answers escaped HTML: entities are decoded.
    expect(htmlToSegment(segmentToHtml(segment))).toBe(segment);
    expect(htmlToSegment('Si a &lt; b &amp; c, <m1>ceci</m1> <x2></x2>')).toBe('Si a < b & c, <m1>ceci</m1> <x2/>');
  });
});

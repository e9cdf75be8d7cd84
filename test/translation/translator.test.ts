import { describe, expect, it } from 'vitest';
import { translationConfig } from '../../src/config.ts';
import { createTranslator } from '../../src/translation/translator.ts';
import { useLocalServers } from './local-server.ts';

const start = useLocalServers();

describe('translationConfig', () => {
  it('has no provider when TRANSLATION_PROVIDER is unset or empty', () => {
    for (const env of [{}, { TRANSLATION_PROVIDER: '' }]) {
      const config = translationConfig(env);
      expect(config).toEqual({ provider: null, url: null, apiKey: null, model: 'gpt-4o-mini', timeoutMs: 60_000, batchSize: 25 });
      expect(createTranslator(config)).toBeNull();
    }
  });

  it('reads the libretranslate settings and requires its URL', () => {
    expect(translationConfig({ TRANSLATION_PROVIDER: 'libretranslate', TRANSLATION_URL: 'http://translate.internal:5000/', TRANSLATION_API_KEY: 'k', TRANSLATION_TIMEOUT_MS: '5000', TRANSLATION_BATCH_SIZE: '10' })).toEqual({
      provider: 'libretranslate',
      url: 'http://translate.internal:5000',
      apiKey: 'k',
      model: 'gpt-4o-mini',
      timeoutMs: 5000,
      batchSize: 10,
    });
    expect(() => translationConfig({ TRANSLATION_PROVIDER: 'libretranslate' })).toThrow('Invalid configuration: TRANSLATION_URL: required when TRANSLATION_PROVIDER is libretranslate');
  });

  it('defaults the openai URL, model and batch size', () => {
    expect(translationConfig({ TRANSLATION_PROVIDER: 'openai', TRANSLATION_API_KEY: 'sk', TRANSLATION_URL: '', TRANSLATION_MODEL: '' })).toEqual({
      provider: 'openai',
      url: 'https://api.openai.com/v1',
      apiKey: 'sk',
      model: 'gpt-4o-mini',
      timeoutMs: 60_000,
      batchSize: 20,
    });
  });

  it('rejects invalid values', () => {
    expect(() => translationConfig({ TRANSLATION_PROVIDER: 'deepl' })).toThrow(/Invalid configuration: TRANSLATION_PROVIDER/);
    expect(() => translationConfig({ TRANSLATION_PROVIDER: 'openai', TRANSLATION_URL: 'ftp://x' })).toThrow(/TRANSLATION_URL/);
    expect(() => translationConfig({ TRANSLATION_TIMEOUT_MS: '0' })).toThrow(/TRANSLATION_TIMEOUT_MS/);
    expect(() => translationConfig({ TRANSLATION_BATCH_SIZE: 'ten' })).toThrow(/TRANSLATION_BATCH_SIZE/);
  });
});

describe('createTranslator', () => {
  it('builds the configured provider', async () => {
    const server = await start((request) => {
      if (request.path === '/translate') return { json: { translatedText: ['Bonjour'] } };
      return { json: { choices: [{ message: { content: '{"translations": ["Hallo"]}' }, finish_reason: 'stop' }] } };
    });
    const libre = createTranslator(translationConfig({ TRANSLATION_PROVIDER: 'libretranslate', TRANSLATION_URL: server.url }))!;
    expect(libre).toMatchObject({ name: 'libretranslate', batchSize: 25 });
    expect(await libre.translate(['Hello'], { source: 'en', target: 'fr' })).toEqual(['Bonjour']);
    const openai = createTranslator(translationConfig({ TRANSLATION_PROVIDER: 'openai', TRANSLATION_URL: `${server.url}/v1`, TRANSLATION_MODEL: 'local-model' }))!;
    expect(openai).toMatchObject({ name: 'openai', batchSize: 20 });
    expect(await openai.translate(['Hello'], { source: 'en', target: 'de' })).toEqual(['Hallo']);
    expect(server.requests.map((r) => r.path)).toEqual(['/translate', '/v1/chat/completions']);
    expect((server.requests[1].body as { model: string }).model).toBe('local-model');
  });
});

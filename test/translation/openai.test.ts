import { describe, expect, it } from 'vitest';
import { TranslationProviderError } from '../../src/errors/external.ts';
import { chatCompletionsUrl, createOpenAITranslator, systemPrompt } from '../../src/translation/providers/openai.ts';
import { useLocalServers, type RecordedRequest, type Reply } from './local-server.ts';

const start = useLocalServers();

interface ChatBody {
  model: string;
  messages: { role: string; content: string }[];
  response_format: unknown;
}

function segmentsOf(request: RecordedRequest): string[] {
  return (JSON.parse((request.body as ChatBody).messages[1].content) as { segments: string[] }).segments;
}

/** A chat-completions answer whose message is `content`. */
function completion(content: string, finishReason = 'stop'): Reply {
  return { json: { id: 'chatcmpl-1', object: 'chat.completion', choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: finishReason }] } };
}

const translateOk = (request: RecordedRequest): Reply => completion(JSON.stringify({ translations: segmentsOf(request).map((s) => `FR:${s}`) }));

describe('OpenAI-compatible translator', () => {
  it('sends each batch as a JSON chat request and reads {"translations": [...]}', async () => {
    const { url, requests } = await start(translateOk);
    const translator = createOpenAITranslator({ url: `${url}/v1`, apiKey: 'sk-test', model: 'test-model', timeoutMs: 5_000, batchSize: 2 });
    const out = await translator.translate(['Hello <m1>world</m1>', 'Run <x1/>.', 'Third'], { source: 'en', target: 'fr', instructions: 'Use "vous". Never translate "GitBook".' });

    expect(out).toEqual(['FR:Hello <m1>world</m1>', 'FR:Run <x1/>.', 'FR:Third']);
    expect(requests).toHaveLength(2);
    const [first] = requests;
    expect(first.method).toBe('POST');
    expect(first.path).toBe('/v1/chat/completions');
    expect(first.headers.authorization).toBe('Bearer sk-test');
    expect(first.headers['content-type']).toBe('application/json');
    const body = first.body as ChatBody;
    expect(body.model).toBe('test-model');
    expect(body.response_format).toEqual({ type: 'json_object' });
    expect(body.messages.map((m) => m.role)).toEqual(['system', 'user']);
    expect(body.messages[0].content).toContain('from English (en) to French (fr)');
    expect(body.messages[0].content).toContain('<x3/>');
    expect(body.messages[0].content).toContain('{"translations": [...]}');
    expect(body.messages[0].content).toContain('Use "vous". Never translate "GitBook".');
    expect(segmentsOf(first)).toEqual(['Hello <m1>world</m1>', 'Run <x1/>.']);
    expect(segmentsOf(requests[1])).toEqual(['Third']);
  });

  it('sends no Authorization header without a key', async () => {
    const { url, requests } = await start(translateOk);
    const translator = createOpenAITranslator({ url, model: 'local', timeoutMs: 5_000, batchSize: 10 });
    await translator.translate(['Hello'], { source: null, target: 'de' });
    expect(requests[0].path).toBe('/v1/chat/completions');
    expect(requests[0].headers.authorization).toBeUndefined();
    expect((requests[0].body as ChatBody).messages[0].content).toContain('from the language it is written in to German (de)');
  });

  it('asks again once when the answer is malformed', async () => {
    const { url, requests } = await start((request, index) =>
      index === 0 ? completion('Here are your translations: ...') : completion(`\`\`\`json\n${JSON.stringify({ translations: segmentsOf(request).map((s) => s.toUpperCase()) })}\n\`\`\``),
    );
    const translator = createOpenAITranslator({ url: `${url}/v1/`, model: 'm', timeoutMs: 5_000, batchSize: 10 });
    expect(await translator.translate(['Hello', 'World'], { source: 'en', target: 'fr' })).toEqual(['HELLO', 'WORLD']);
    expect(requests).toHaveLength(2);
  });

  it('fails clearly after a second malformed answer', async () => {
    const { url, requests } = await start(() => completion(JSON.stringify({ translations: ['only one'] })));
    const translator = createOpenAITranslator({ url, model: 'm', timeoutMs: 5_000, batchSize: 10 });
    const error = await translator.translate(['Hello', 'World'], { source: 'en', target: 'fr' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TranslationProviderError);
    expect(error).toMatchObject({ provider: 'openai', reason: 'malformed' });
    expect((error as Error).message).toBe('The translation model API (m) gave no usable answer twice: the answer has 1 translations for 2 segments');
    expect(requests).toHaveLength(2);
  });

  it('retries a body that is not JSON, and an answer cut at the token limit', async () => {
    const { url, requests } = await start((_request, index) => (index === 0 ? { text: 'upstream error' } : completion('{"translations": ["Bon', 'length')));
    const translator = createOpenAITranslator({ url, model: 'm', timeoutMs: 5_000, batchSize: 10 });
    await expect(translator.translate(['Good'], { source: 'en', target: 'fr' })).rejects.toThrow(/cut at the token limit \(lower TRANSLATION_BATCH_SIZE\)/);
    expect(requests).toHaveLength(2);
  });

  it('rejects non-string translations', async () => {
    const { url } = await start(() => completion(JSON.stringify({ translations: [1] })));
    const translator = createOpenAITranslator({ url, model: 'm', timeoutMs: 5_000, batchSize: 10 });
    await expect(translator.translate(['One'], { source: 'en', target: 'fr' })).rejects.toThrow('the answer is not {"translations": [strings]}');
  });

  it('fails at once on an HTTP error, with the API’s message', async () => {
    const { url, requests } = await start(() => ({ status: 500, json: { error: { message: 'The server had an error', type: 'server_error' } } }));
    const translator = createOpenAITranslator({ url, model: 'm', timeoutMs: 5_000, batchSize: 10 });
    await expect(translator.translate(['Hello'], { source: 'en', target: 'fr' })).rejects.toMatchObject({
      reason: 'http',
      httpStatus: 500,
      message: 'The translation model API answered 500: The server had an error',
    });
    expect(requests).toHaveLength(1);
  });

  it('gives up after the timeout', async () => {
    const { url } = await start(() => 'hang');
    const translator = createOpenAITranslator({ url, model: 'm', timeoutMs: 150, batchSize: 10 });
    await expect(translator.translate(['Hello'], { source: 'en', target: 'fr' })).rejects.toMatchObject({ reason: 'timeout' });
  });
});

describe('chatCompletionsUrl', () => {
  it('appends the endpoint to an API root', () => {
    expect(chatCompletionsUrl('https://api.openai.com/v1')).toBe('https://api.openai.com/v1/chat/completions');
    expect(chatCompletionsUrl('https://api.openai.com/v1/')).toBe('https://api.openai.com/v1/chat/completions');
    expect(chatCompletionsUrl('http://localhost:11434')).toBe('http://localhost:11434/v1/chat/completions');
    expect(chatCompletionsUrl('https://gateway.example.com/openai/v1')).toBe('https://gateway.example.com/openai/v1/chat/completions');
    expect(chatCompletionsUrl('https://proxy.example.com/custom/chat/completions')).toBe('https://proxy.example.com/custom/chat/completions');
  });
});

describe('systemPrompt', () => {
  it('names the languages and leaves instructions out when there are none', () => {
    const prompt = systemPrompt({ source: 'pt-BR', target: 'ja', instructions: '  ' });
    expect(prompt).toContain('from Brazilian Portuguese (pt-BR) to Japanese (ja)');
    expect(prompt).not.toContain('documentation owner');
  });
});

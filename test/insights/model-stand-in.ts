/**
 * A local OpenAI-compatible API standing in for the insights model engine's (chat completions and
 * embeddings): it answers the reading and describing prompts of src/insights/model-engine.ts
 * deterministically from the request, embeds texts with `embedText` (by default a bag of words
 * hashed into 64 dimensions: crude, real and deterministic), and can be told to fail (an error status, a hang past the
 * client's timeout, a dropped connection, a body or content that is not JSON, JSON that is not the
 * answer asked for) the next N times or until told otherwise.
 *
 * Its answers: each conversation has one issue, titled `» <subject>` (or the first words of the
 * user's first message; the mark is punctuation, so it adds no term that would pull every issue
 * together), its details the user's first message, impact `high` when the subject says "urgent";
 * a cluster is labelled `Model label: <its first issue's title without the mark>` and summarised
 * `Model summary of <issueCount> issues.`.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Conversation } from '../../src/insights/types.ts';

/** What starts the title of every issue the stand-in reads. */
export const MARK = '» ';

export type Failure = 'status-500' | 'status-429' | 'hang' | 'drop' | 'not-json' | 'content-not-json' | 'wrong-shape' | 'missing-conversation';

/** A reading request (conversations), a describing one (a cluster), or an embedding one (texts). */
export type RequestKind = 'read' | 'describe' | 'embed';

export interface ChatRequest {
  kind: RequestKind;
  path: string;
  authorization: string | undefined;
  model: string;
  /** The system prompt ('' for an embedding request). */
  system: string;
  /** The user message's JSON, or an embedding request's `input`. */
  user: any;
  /** What the stand-in did: answered, or the failure it played. */
  outcome: 'answered' | Failure;
}

export interface ModelStandIn {
  /** `http://127.0.0.1:<port>/v1` */
  url: string;
  requests: ChatRequest[];
  /** The next `times` requests fail with `failure`. */
  failNext(times: number, failure: Failure): void;
  /** Every request (or every request of `kind`) fails with `failure` until `failAlways(null)`. */
  failAlways(failure: Failure | null, kind?: RequestKind): void;
  /** How texts are embedded from now on (the default: `hashedWords`). */
  embedText: (text: string) => number[];
  close(): Promise<void>;
}

/** A bag of lowercase words, each counted in one of 64 dimensions chosen by its hash. */
export function hashedWords(text: string): number[] {
  const vector: number[] = new Array<number>(64).fill(0);
  for (const word of text.toLowerCase().match(/[a-z0-9]+/g) ?? []) {
    let hash = 2166136261;
    for (let i = 0; i < word.length; i++) hash = Math.imul(hash ^ word.charCodeAt(i), 16777619);
    vector[(hash >>> 0) % 64] += 1;
  }
  if (!vector.some((value) => value !== 0)) vector[0] = 1;
  return vector;
}

/** The stand-in's embedding of an issue it read: the text is `<title>\n\n<details>`, the details the opening's first words. */
const detailsOf = (text: string) => text.split('\n\n').slice(1).join('\n\n');

/**
 * Embeddings that place issues by `groupOf` their conversation, whatever their words say: one
 * direction per group, and a little of the text's own hashed words so no two are the same.
 */
export function groupEmbedding(conversations: Conversation[], groupOf: (index: number) => number, groups: number) {
  const openings = conversations.map((c) => c.parts.find((p) => p.role === 'user')!.body.replace(/<[^>]+>/g, ' ').replace(/\s+/g, ' ').trim());
  return (text: string) => {
    const details = detailsOf(text);
    const index = openings.findIndex((opening) => opening.startsWith(details.slice(0, 200)));
    if (index < 0) throw new Error(`no conversation opens with ${details.slice(0, 60)}`);
    const words = hashedWords(text);
    const norm = Math.hypot(...words);
    return [...Array.from({ length: groups }, (_, g) => (g === groupOf(index) ? 1 : 0)), ...words.map((w) => (0.2 * w) / norm)];
  };
}

/** The stand-in's answer to an embedding request (OpenAI's shape; the wrong shape leaves out the vectors, a missing conversation one text). */
function embeddingsAnswer(input: string[], embed: (text: string) => number[], failure: Failure | null): unknown {
  const texts = failure === 'missing-conversation' ? input.slice(0, -1) : input;
  const data = texts.map((text, index) => (failure === 'wrong-shape' ? { index, object: 'embedding' } : { index, object: 'embedding', embedding: embed(text) }));
  return { object: 'list', data, model: 'stand-in-embedding', usage: { prompt_tokens: 0, total_tokens: 0 } };
}

function completion(content: string) {
  return { id: 'chatcmpl-stand-in', object: 'chat.completion', choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }] };
}

function firstWords(text: string, count: number): string {
  return text.replace(/<[^>]+>/g, ' ').replace(/\s+/g, ' ').trim().split(' ').slice(0, count).join(' ');
}

/** The stand-in's answer to a reading or describing request. */
function answer(system: string, user: any, failure: Failure | null): unknown {
  if (system.includes('{"conversations"')) {
    const conversations = (user.conversations as { id: string; subject: string; messages: { role: string; text: string }[] }[])
      .slice(0, failure === 'missing-conversation' ? -1 : undefined)
      .map((conversation) => {
        const opening = conversation.messages.find((m) => m.role === 'user')?.text ?? '';
        return {
          id: conversation.id,
          issues: [
            {
              title: `${MARK}${conversation.subject || firstWords(opening, 8)}`,
              details: firstWords(opening, 80),
              impact: /urgent/i.test(conversation.subject) ? 'high' : 'medium',
            },
          ],
        };
      });
    return failure === 'wrong-shape' ? { conversations: conversations.map((c) => ({ ...c, issues: [{ title: 'no details' }] })) } : { conversations };
  }
  const first = String(user.issues[0]?.title ?? '').replace(MARK, '');
  return failure === 'wrong-shape' ? { name: first } : { label: `Model label: ${first}`, summary: `Model summary of ${user.issueCount} issues.` };
}

export async function startModelStandIn(): Promise<ModelStandIn> {
  const requests: ChatRequest[] = [];
  let failNext: { times: number; failure: Failure } = { times: 0, failure: 'status-500' };
  let failAlways: { failure: Failure; kind: RequestKind | undefined } | null = null;
  const standIn = { embedText: hashedWords };
  const server = http.createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { model: string; messages?: { role: string; content: string }[]; input?: string[] };
    const system = body.messages?.[0]?.content ?? '';
    const kind: RequestKind = req.url === '/v1/embeddings' ? 'embed' : system.includes('{"conversations"') ? 'read' : 'describe';
    const always = failAlways && (failAlways.kind ?? kind) === kind ? failAlways.failure : null;
    const failure = always ?? (failNext.times > 0 ? (failNext.times--, failNext.failure) : null);
    const user = kind === 'embed' ? body.input : (JSON.parse(body.messages![1]!.content) as unknown);
    requests.push({ kind, path: req.url ?? '', authorization: req.headers.authorization, model: body.model, system, user, outcome: failure ?? 'answered' });
    const send = (status: number, text: string) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(text);
    };
    if (req.url !== '/v1/chat/completions' && req.url !== '/v1/embeddings') return send(404, JSON.stringify({ error: { message: `no route ${req.url}` } }));
    switch (failure) {
      case 'hang':
        return;
      case 'drop':
        return req.socket.destroy();
      case 'status-500':
        return send(500, JSON.stringify({ error: { message: 'The server had an error', type: 'server_error' } }));
      case 'status-429':
        return send(429, JSON.stringify({ error: { message: 'Rate limit reached', type: 'rate_limit' } }));
      case 'not-json':
        return send(200, '<html>Bad gateway</html>');
      case 'content-not-json':
        if (kind === 'embed') return send(200, JSON.stringify({ object: 'list', data: 'not a list' }));
        return send(200, JSON.stringify(completion('Here are the issues I found: ...')));
      default:
        if (kind === 'embed') {
          try {
            return send(200, JSON.stringify(embeddingsAnswer(user as string[], standIn.embedText, failure)));
          } catch (error) {
            return send(500, JSON.stringify({ error: { message: `the stand-in could not embed: ${(error as Error).message}` } }));
          }
        }
        return send(200, JSON.stringify(completion(JSON.stringify(answer(system, user, failure)))));
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  let closed: Promise<void> | undefined;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    get embedText() {
      return standIn.embedText;
    },
    set embedText(embed) {
      standIn.embedText = embed;
    },
    failNext: (times, failure) => (failNext = { times, failure }),
    failAlways: (failure, kind) => (failAlways = failure && { failure, kind }),
    close: () =>
      (closed ??= new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      })),
  };
}

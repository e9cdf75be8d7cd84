/**
 * A local OpenAI-compatible API standing in for the insights model engine's (chat completions
 * only): it answers the reading and describing prompts of src/insights/model-engine.ts
 * deterministically from the request, and can be told to fail (an error status, a hang past the
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

/** What starts the title of every issue the stand-in reads. */
export const MARK = '» ';

export type Failure = 'status-500' | 'status-429' | 'hang' | 'drop' | 'not-json' | 'content-not-json' | 'wrong-shape' | 'missing-conversation';

/** A reading request (conversations) or a describing one (a cluster). */
export type RequestKind = 'read' | 'describe';

export interface ChatRequest {
  path: string;
  authorization: string | undefined;
  model: string;
  system: string;
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
  close(): Promise<void>;
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
  const server = http.createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { model: string; messages: { role: string; content: string }[] };
    const system = body.messages[0]!.content;
    const kind: RequestKind = system.includes('{"conversations"') ? 'read' : 'describe';
    const always = failAlways && (failAlways.kind ?? kind) === kind ? failAlways.failure : null;
    const failure = always ?? (failNext.times > 0 ? (failNext.times--, failNext.failure) : null);
    const user = JSON.parse(body.messages[1]!.content) as unknown;
    requests.push({ path: req.url ?? '', authorization: req.headers.authorization, model: body.model, system, user, outcome: failure ?? 'answered' });
    const send = (status: number, text: string) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(text);
    };
    if (req.url !== '/v1/chat/completions') return send(404, JSON.stringify({ error: { message: `no route ${req.url}` } }));
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
        return send(200, JSON.stringify(completion('Here are the issues I found: ...')));
      default:
        return send(200, JSON.stringify(completion(JSON.stringify(answer(system, user, failure)))));
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  let closed: Promise<void> | undefined;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    failNext: (times, failure) => (failNext = { times, failure }),
    failAlways: (failure, kind) => (failAlways = failure && { failure, kind }),
    close: () =>
      (closed ??= new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      })),
  };
}

/**
 * Following a subscription over GraphQL over SSE, as graphql-yoga serves it (distinct
 * connections mode: POST or GET /graphql with `Accept: text/event-stream`).
 */
import type { JobEventBody } from './graphql-ws.ts';

const FINAL_STATES = ['succeeded', 'failed', 'cancelled'];

export interface SseFollow {
  /** The payloads under `field`, in order. */
  events: JobEventBody[];
  /** The `id:` line of each `next` message, in order (null: it had none). */
  ids: Array<string | null>;
  /** GraphQL errors in results, and a failed request or stream. */
  errors: unknown[];
  /** The HTTP status and content type of the answer, once it came. */
  response: Promise<{ status: number; contentType: string | null }>;
  /** Resolves at the first final job state, at an error, or when the stream ends. */
  done: Promise<void>;
  /** Resolves when the stream ends (the server completed it, or it failed). */
  ended: Promise<void>;
  close(): void;
}

/** Subscribes with `query` as `token`'s user (and `headers`, such as Last-Event-ID), collecting the payloads under `field`. */
export function followSse(baseUrl: string, query: string, variables: Record<string, unknown>, field: string, options: { token?: string; headers?: Record<string, string> } = {}): SseFollow {
  const controller = new AbortController();
  const events: JobEventBody[] = [];
  const ids: Array<string | null> = [];
  const errors: unknown[] = [];
  let finish!: () => void;
  const done = new Promise<void>((resolve) => (finish = resolve));
  let answered!: (value: { status: number; contentType: string | null }) => void;
  const response = new Promise<{ status: number; contentType: string | null }>((resolve) => (answered = resolve));
  const ended = (async () => {
    try {
      const res = await fetch(`${baseUrl}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'text/event-stream', ...(options.token ? { authorization: `Bearer ${options.token}` } : {}), ...options.headers },
        body: JSON.stringify({ query, variables }),
        signal: controller.signal,
      });
      answered({ status: res.status, contentType: res.headers.get('content-type') });
      if (!res.body) return;
      const reader = res.body.getReader();
      const decoder = new TextDecoder();
      let buffer = '';
      for (let read = await reader.read(); !read.done; read = await reader.read()) {
        buffer += decoder.decode(read.value, { stream: true });
        for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
          const lines = buffer.slice(0, end).split('\n');
          buffer = buffer.slice(end + 2);
          const value = (name: string) => lines.find((line) => line.startsWith(`${name}:`))?.slice(name.length + 1).trim() ?? null;
          if (value('event') !== 'next') continue;
          const body = JSON.parse(value('data') ?? 'null') as { data?: Record<string, JobEventBody>; errors?: unknown } | null;
          if (body?.errors) errors.push(body.errors);
          const event = body?.data?.[field];
          ids.push(value('id'));
          if (event) events.push(event);
          if (event && FINAL_STATES.includes(event.state)) finish();
        }
      }
    } catch (error) {
      if (!controller.signal.aborted) errors.push(error);
    } finally {
      answered({ status: 0, contentType: null });
      finish();
    }
  })();
  return { events, ids, errors, response, done, ended, close: () => controller.abort() };
}

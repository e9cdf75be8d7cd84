/**
 * `id:` lines in GraphQL over SSE. graphql-yoga's SSE answer (`Accept: text/event-stream`)
 * writes each result as an `event: next` message without an id, and has no option for one.
 * A subscription whose resolver names the id of the event it resolves
 * (`ctx.eventIds.current`; jobUpdated: the job event's `sequence`) gets an `id:` line in
 * that message here, so that an EventSource that reconnects sends the last one back as
 * `Last-Event-ID`, which the context reads (`ctx.eventIds.lastEventId`) and jobUpdated
 * resumes after.
 *
 * The ids are taken, in order, as the results leave the execution (envelop's
 * `onSubscribeResult`), and written into the response's text as its messages pass
 * (one `event: next` message per result, in the same order).
 */
import type { Plugin } from 'graphql-yoga';
import type { Context } from '../context.ts';

export function useSseEventIds(): Plugin<Context> {
  /** Per request answered over SSE: the ids of the results not written yet (null: none). */
  const pending = new WeakMap<Request, Array<string | null>>();
  return {
    onSubscribe({ args }) {
      const context = args.contextValue as Context;
      // graphql-ws operations have no request: nothing to do.
      const request = context.request as Request | undefined;
      if (!request) return;
      const ids: Array<string | null> = [];
      pending.set(request, ids);
      return {
        onSubscribeResult: () => ({
          onNext: () => {
            ids.push(context.eventIds.current);
            context.eventIds.current = null;
          },
        }),
      };
    },
    onResponse({ request, response, setResponse, fetchAPI }) {
      const ids = pending.get(request);
      if (!ids || !response.body || !response.headers.get('content-type')?.startsWith('text/event-stream')) return;
      setResponse(new fetchAPI.Response(response.body.pipeThrough(withEventIds(ids)), { status: response.status, statusText: response.statusText, headers: response.headers }));
    },
  };
}

/** Writes `id: <id>` into each `event: next` message, taking the ids in order. */
function withEventIds(ids: Array<string | null>): TransformStream<Uint8Array, Uint8Array> {
  const decoder = new TextDecoder();
  const encoder = new TextEncoder();
  let buffer = '';
  return new TransformStream({
    transform(chunk, controller) {
      buffer += decoder.decode(chunk, { stream: true });
      // A message ends with a blank line; JSON data never holds one (its newlines are escaped).
      for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
        let message = buffer.slice(0, end + 2);
        buffer = buffer.slice(end + 2);
        if (message.startsWith('event: next\n')) {
          const id = ids.shift();
          if (id !== null && id !== undefined) message = `id: ${id}\n${message}`;
        }
        controller.enqueue(encoder.encode(message));
      }
    },
    flush(controller) {
      if (buffer) controller.enqueue(encoder.encode(buffer));
    },
  });
}

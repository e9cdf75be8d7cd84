/**
 * Ends the subscriptions answered over SSE when the server shuts down. A subscription never
 * finishes by itself, so its response would otherwise hold `server.close()` until
 * SHUTDOWN_TIMEOUT_MS and then be cut mid-stream. Ended here, graphql-yoga writes its
 * `event: complete` message and ends the response, which a client reads as a clean end.
 * (graphql-ws connections are closed by graphql-ws's own dispose, 1001 "Going away".)
 */
import type { Plugin } from 'graphql-yoga';

export interface SubscriptionShutdown {
  plugin: Plugin;
  /** Ends every SSE subscription in progress and any started later; how many were ended. */
  endEventStreams(): number;
}

export function createSubscriptionShutdown(): SubscriptionShutdown {
  const controller = new AbortController();
  /** The SSE subscriptions in progress, each with the function that ends it. */
  const open = new Set<() => void>();
  return {
    plugin: {
      onSubscribe({ args }) {
        // graphql-ws operations have no request (see use-sse-event-ids.ts): they close with their socket.
        if (!(args.contextValue as { request?: Request }).request) return;
        return {
          onSubscribeResult({ result, setResult }) {
            if (isAsyncIterable(result)) setResult(endingOnAbort(result, controller.signal, open));
          },
        };
      },
    },
    endEventStreams() {
      const count = open.size;
      for (const end of open) end();
      open.clear();
      controller.abort();
      return count;
    },
  };
}

function isAsyncIterable<T>(value: unknown): value is AsyncIterable<T> {
  return typeof value === 'object' && value !== null && Symbol.asyncIterator in value;
}

/** `source`, done as soon as `signal` aborts (its pending `next()` answered done, the source returned). */
function endingOnAbort<T>(source: AsyncIterable<T>, signal: AbortSignal, open: Set<() => void>): AsyncIterableIterator<T> {
  const iterator = source[Symbol.asyncIterator]();
  const finished: IteratorReturnResult<undefined> = { done: true, value: undefined };
  let end!: () => void;
  const ended = new Promise<IteratorReturnResult<undefined>>((resolve) => {
    end = () => {
      open.delete(end);
      resolve(finished);
      void iterator.return?.().catch(() => undefined);
    };
  });
  if (signal.aborted) end();
  else open.add(end);
  const stop = () => {
    open.delete(end);
  };
  return {
    next: async () => {
      const result = await Promise.race([iterator.next(), ended]);
      if (result.done) stop();
      return result as IteratorResult<T>;
    },
    return: async (value?: unknown) => {
      stop();
      return (await iterator.return?.(value)) ?? finished;
    },
    throw: async (error?: unknown) => {
      stop();
      if (iterator.throw) return iterator.throw(error);
      throw error;
    },
    [Symbol.asyncIterator]() {
      return this;
    },
  };
}

/**
 * One execution and one serialisation per event for a group of subscribers, instead of one per
 * subscriber.
 *
 * A subscription field whose result depends only on its event, the document and the variables
 * declares it (`extensions: { sharedResults: true }`, the job subscriptions): its feed authorizes
 * every subscriber per event and hands the very same event object to each one it allows. The
 * subscribers that receive the same event object with the same document, operation name and
 * variables then share one execution of their selection and one JSON text of its result: the
 * first to need it executes it, the others take it. A subscriber refused for the event does not
 * receive it at all; an event read for one subscriber alone (a catch-up from the store) is an
 * object of its own and executes for it alone.
 *
 * Over graphql-ws (the context holds the operation's `socket` and `operationId`, server.ts), a
 * shared result is written straight to the socket as the operation's `next` message, the
 * payload's JSON spliced after its id: the same bytes for every subscriber of the group but the
 * id, without a message object, a `JSON.stringify` or a promise per subscriber. A result with
 * errors goes the usual way (yoga masks them, graphql-ws writes them); so does every result over
 * SSE, where the id of the event a resolver names (`ctx.eventIds.current`,
 * src/plugins/use-sse-event-ids.ts) is passed on to each subscriber sharing it.
 *
 * Other subscriptions (the comment events, whose selections read the caller's permissions) run
 * as yoga runs them.
 */
import { createSourceEventStream, execute, getOperationAST, type DocumentNode, type ExecutionArgs, type ExecutionResult } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import type { WebSocket } from 'ws';
import type { Context } from '../context.ts';

interface Shared {
  result: ExecutionResult;
  /** The result's JSON, for a result without errors. */
  json: string | null;
  eventId: string | null;
}

/** Per event object: the shared result of each (document, operation name, variables). */
type Results = WeakMap<object, Map<string, Promise<Shared>>>;

/** A graphql-ws operation: its socket, and the start of its `next` messages. */
interface Target {
  socket: WebSocket;
  prefix: string;
}

export function useSharedSubscriptionResults(): Plugin<Context> {
  const results: Results = new WeakMap();
  /** A number per parsed document (yoga parses a query text once and keeps the document). */
  const documentIds = new WeakMap<DocumentNode, number>();
  let nextDocumentId = 0;
  return {
    onSubscribe({ args, setSubscribeFn }) {
      if (!sharesResults(args)) return;
      let documentId = documentIds.get(args.document);
      if (documentId === undefined) documentIds.set(args.document, (documentId = nextDocumentId++));
      const key = `${documentId}:${args.operationName ?? ''}:${JSON.stringify(args.variableValues ?? {})}`;
      setSubscribeFn(async (subscribeArgs) => {
        const stream = await createSourceEventStream(subscribeArgs);
        if (!isAsyncIterable(stream)) return stream;
        return sharedStream(stream, (event) => resultFor(results, key, subscribeArgs, event), targetOf(subscribeArgs.contextValue));
      });
    },
  };
}

/** Whether the operation's one root field declares that its result depends only on its event. */
function sharesResults(args: ExecutionArgs): boolean {
  const operation = getOperationAST(args.document, args.operationName);
  if (!operation || operation.operation !== 'subscription') return false;
  const [field] = operation.selectionSet.selections;
  if (operation.selectionSet.selections.length !== 1 || field?.kind !== 'Field') return false;
  return args.schema.getSubscriptionType()?.getFields()[field.name.value]?.extensions?.sharedResults === true;
}

/** The graphql-ws operation of a context (server.ts passes its socket and id), or null (SSE, HTTP). */
function targetOf(context: unknown): Target | null {
  const { socket, operationId } = (context ?? {}) as { socket?: WebSocket; operationId?: unknown };
  if (!socket || typeof socket.send !== 'function' || typeof operationId !== 'string') return null;
  return { socket, prefix: `{"id":${JSON.stringify(operationId)},"type":"next","payload":` };
}

async function resultFor(results: Results, key: string, args: ExecutionArgs, event: unknown): Promise<Shared> {
  const context = args.contextValue as Context;
  if (typeof event !== 'object' || event === null) return shared(await execute({ ...args, rootValue: event }), null);
  let byKey = results.get(event);
  if (!byKey) results.set(event, (byKey = new Map()));
  let result = byKey.get(key);
  if (!result) {
    result = Promise.resolve(execute({ ...args, rootValue: event })).then((executed) => shared(executed, context.eventIds.current));
    byKey.set(key, result);
  }
  const found = await result;
  context.eventIds.current = found.eventId;
  return found;
}

function shared(result: ExecutionResult, eventId: string | null): Shared {
  return { result, json: result.errors?.length ? null : JSON.stringify(result), eventId };
}

function isAsyncIterable(value: unknown): value is AsyncIterable<unknown> {
  return typeof value === 'object' && value !== null && Symbol.asyncIterator in value;
}

/**
 * The results of `source`'s events: over graphql-ws, those without errors are written to the
 * socket here and the iterator yields only the others; return() reaches the source at once.
 */
function sharedStream<T>(source: AsyncIterable<T>, resultOf: (event: T) => Promise<Shared>, target: Target | null): AsyncGenerator<ExecutionResult, void, void> {
  const iterator = source[Symbol.asyncIterator]();
  const done = { value: undefined, done: true } as const;
  let ended = false;
  const stream = {
    async next(): Promise<IteratorResult<ExecutionResult, void>> {
      for (;;) {
        const next = await iterator.next();
        if (next.done || ended) return done;
        const { result, json } = await resultOf(next.value);
        if (!target || json === null) return { value: result, done: false };
        // A socket closing or closed takes nothing more (graphql-ws ends the operation with it).
        if (!ended && target.socket.readyState === target.socket.OPEN) target.socket.send(target.prefix + json + '}');
      }
    },
    async return(): Promise<IteratorResult<ExecutionResult, void>> {
      ended = true;
      await iterator.return?.();
      return done;
    },
    async throw(error: unknown): Promise<IteratorResult<ExecutionResult, void>> {
      ended = true;
      await iterator.return?.();
      throw error;
    },
    [Symbol.asyncIterator]() {
      return stream;
    },
  };
  return stream as AsyncGenerator<ExecutionResult, void, void>;
}

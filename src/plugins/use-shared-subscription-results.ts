/**
 * One execution per event for a group of subscribers, instead of one per subscriber.
 *
 * A subscription field whose result depends only on its event, the document and the variables
 * declares it (`extensions: { sharedResults: true }`, the job subscriptions): its feed authorizes
 * every subscriber per event and hands the very same event object to each one it allows. The
 * subscribers that receive the same event object with the same document, operation name and
 * variables then share one execution of their selection: the first to need it executes it, the
 * others take its result (the same object, answered by graphql-ws and SSE as before). A
 * subscriber refused for the event does not receive it at all; an event read for one subscriber
 * alone (a catch-up from the store) is an object of its own and executes for it alone.
 *
 * Other subscriptions (the comment events, whose selections read the caller's permissions) run
 * as yoga runs them. The id of the event a resolver names for SSE (`ctx.eventIds.current`,
 * src/plugins/use-sse-event-ids.ts) is passed on to each subscriber sharing the result.
 */
import { createSourceEventStream, execute, getOperationAST, type DocumentNode, type ExecutionArgs, type ExecutionResult } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import type { Context } from '../context.ts';

interface Shared {
  result: ExecutionResult;
  eventId: string | null;
}

/** Per event object: the shared result of each (document, operation name, variables). */
type Results = WeakMap<object, Map<string, Promise<Shared>>>;

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
        return mapIterator(stream, (event) => resultFor(results, key, subscribeArgs, event));
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

async function resultFor(results: Results, key: string, args: ExecutionArgs, event: unknown): Promise<ExecutionResult> {
  const context = args.contextValue as Context;
  if (typeof event !== 'object' || event === null) return execute({ ...args, rootValue: event }) as Promise<ExecutionResult>;
  let byKey = results.get(event);
  if (!byKey) results.set(event, (byKey = new Map()));
  let shared = byKey.get(key);
  if (!shared) {
    shared = Promise.resolve(execute({ ...args, rootValue: event })).then((result) => ({ result, eventId: context.eventIds.current }));
    byKey.set(key, shared);
  }
  const { result, eventId } = await shared;
  context.eventIds.current = eventId;
  return result;
}

function isAsyncIterable(value: unknown): value is AsyncIterable<unknown> {
  return typeof value === 'object' && value !== null && Symbol.asyncIterator in value;
}

/** `source` mapped by `map`; return() reaches the source at once (a generator would wait for its next event). */
function mapIterator<T, U>(source: AsyncIterable<T>, map: (value: T) => Promise<U>): AsyncGenerator<U, void, void> {
  const iterator = source[Symbol.asyncIterator]();
  const done = { value: undefined, done: true } as const;
  const mapped: AsyncGenerator<U, void, void> = {
    async next() {
      const next = await iterator.next();
      return next.done ? done : { value: await map(next.value), done: false };
    },
    async return() {
      await iterator.return?.();
      return done;
    },
    async throw(error: unknown) {
      await iterator.return?.();
      throw error;
    },
    [Symbol.asyncIterator]() {
      return mapped;
    },
  } as AsyncGenerator<U, void, void>;
  return mapped;
}

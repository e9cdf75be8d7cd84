/**
 * GraphQL operations by name and outcome, and open subscriptions by
 * transport, for /metrics. Every operation passes here: /graphql over HTTP,
 * SSE and graphql-ws, and the REST routes (under their documents' operation
 * names). A document that does not validate counts as an error of its
 * operation; an execution answering any error counts as an error.
 */
import { getOperationAST, type DocumentNode, type ExecutionResult } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import type { Metrics } from '../metrics.ts';

type Transport = 'graphql-ws' | 'sse' | 'http';

/** How a subscription reaches its client: graphql-ws puts the socket in the context (server.ts), SSE asks for an event stream. */
function transportOf(context: Record<string, unknown>): Transport {
  if (context.socket || context.extra) return 'graphql-ws';
  const accept = (context.request as Request | undefined)?.headers.get('accept') ?? '';
  return accept.includes('text/event-stream') ? 'sse' : 'http';
}

function isAsyncIterable(value: unknown): value is AsyncIterable<unknown> {
  return typeof value === 'object' && value !== null && Symbol.asyncIterator in value;
}

export function useOperationMetrics(metrics: Metrics): Plugin {
  const labels = (document: DocumentNode, operationName: string | null | undefined) => {
    const operation = getOperationAST(document, operationName);
    return { operation: metrics.operationLabel(operation?.name?.value ?? operationName), type: operation?.operation ?? 'unknown' };
  };
  return {
    onValidate({ params, context }) {
      const operationName = (context as { params?: { operationName?: string } }).params?.operationName;
      return ({ valid }) => {
        if (!valid) metrics.operations.inc({ ...labels(params.documentAST, operationName), outcome: 'error' });
      };
    },
    onExecute({ args }) {
      const operation = labels(args.document, args.operationName);
      return {
        onExecuteDone({ result }) {
          // An incremental result (@defer) counts once, as ok: its later errors are the fields'.
          const failed = !isAsyncIterable(result) && Boolean((result as ExecutionResult).errors?.length);
          metrics.operations.inc({ ...operation, outcome: failed ? 'error' : 'ok' });
        },
      };
    },
    onSubscribe({ args }) {
      const operation = labels(args.document, args.operationName);
      return {
        onSubscribeResult({ result }) {
          if (!isAsyncIterable(result)) {
            // Refused when it started (not found, forbidden): an error answer, no stream.
            metrics.operations.inc({ ...operation, outcome: 'error' });
            return;
          }
          metrics.operations.inc({ ...operation, outcome: 'ok' });
          const transport = transportOf(args.contextValue as unknown as Record<string, unknown>);
          metrics.subscriptionsOpen.inc({ transport });
          let ended = false;
          return {
            // When the stream ends, or the client leaves (the iterator's return()).
            onEnd() {
              if (ended) return;
              ended = true;
              metrics.subscriptionsOpen.dec({ transport });
            },
          };
        },
        onSubscribeError() {
          metrics.operations.inc({ ...operation, outcome: 'error' });
        },
      };
    },
  };
}

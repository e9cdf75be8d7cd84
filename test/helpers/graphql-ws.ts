/** graphql-ws clients of a test server, and following a job's events over a subscription. */
import { createClient, type Client, type ClientOptions } from 'graphql-ws';
import { afterAll } from 'vitest';
import WebSocket from 'ws';

/**
 * Registers an `afterAll` that disposes every client made; returns the function that makes a
 * client of the server at `baseUrl()`, authenticated with `token` (anonymous without one).
 */
export function useWsClients(baseUrl: () => string): (token?: string, options?: Partial<ClientOptions>) => Client {
  const clients: Client[] = [];
  afterAll(async () => {
    await Promise.all(clients.map((client) => client.dispose()));
  });
  return (token, options = {}) => {
    const client = createClient({
      url: `${baseUrl().replace(/^http/, 'ws')}/graphql`,
      webSocketImpl: WebSocket,
      connectionParams: token === undefined ? {} : { authorization: `Bearer ${token}` },
      retryAttempts: 0,
      lazy: true,
      ...options,
    });
    clients.push(client);
    return client;
  };
}

/** A job event as the subscriptions answer it (the fields a test selects). */
export interface JobEventBody {
  id: string;
  kind: string;
  state: string;
  step: string | null;
  percent: number;
  result?: Record<string, any> | null;
  error?: string | null;
  sequence?: number;
}

const FINAL_STATES = ['succeeded', 'failed', 'cancelled'];

/**
 * Subscribes and collects the events under `field`, and the errors; `first` resolves at the
 * first event (the subscription runs), `done` at the first final job state, and both at an
 * error or when the server completes the subscription; `ended` only then.
 */
export function follow(client: Client, query: string, variables: Record<string, unknown>, field: string) {
  const events: JobEventBody[] = [];
  const errors: unknown[] = [];
  let finish!: () => void;
  const done = new Promise<void>((resolve) => (finish = resolve));
  let end!: () => void;
  const ended = new Promise<void>((resolve) => (end = resolve));
  let received!: () => void;
  const first = new Promise<void>((resolve) => (received = resolve));
  void ended.then(received);
  const unsubscribe = client.subscribe(
    { query, variables },
    {
      next: (value) => {
        if (value.errors) errors.push(value.errors);
        const event = (value.data as Record<string, JobEventBody> | null | undefined)?.[field];
        if (event) events.push(event);
        if (event) received();
        if (event && FINAL_STATES.includes(event.state)) finish();
      },
      error: (error) => {
        errors.push(error);
        finish();
        end();
      },
      complete: () => {
        finish();
        end();
      },
    },
  );
  return { events, errors, first, done, ended, unsubscribe };
}

/**
 * Wiring only: yoga with its plugins, the REST runtime, graphql-ws on the
 * same path and port, and the HTTP server. `createApp` is used by main.ts,
 * the tests and the benchmarks alike.
 */
import http from 'node:http';
import { EnvelopArmorPlugin } from '@escape.tech/graphql-armor';
import { GraphQLError, type ValidationContext } from 'graphql';
import { createYoga, type YogaInitialContext } from 'graphql-yoga';
import { CloseCode } from 'graphql-ws';
import { useServer } from 'graphql-ws/use/ws';
import pino, { type Logger } from 'pino';
import { WebSocketServer, type WebSocket } from 'ws';
import { bearerToken } from './auth/viewer.ts';
import { ViewerCache, type ViewerMessage } from './auth/viewer-cache.ts';
import type { AppConfig } from './config.ts';
import { buildContext, createAccess, type Context } from './context.ts';
import { createDb, type Db } from './db/client.ts';
import { RevisionChunkCache } from './db/revision-chunks.ts';
import { parseDatabaseUrl, type Provider } from './db/provider/config.ts';
import type { AppError } from './errors/index.ts';
import { maskError, toGraphQLError } from './errors/mask.ts';
import { isClientError, toAppError } from './errors/to-app-error.ts';
import { createConversions } from './content/conversions.ts';
import { createEventHub, deploymentNamespace } from './event-bus.ts';
import { createJobs, type Jobs } from './jobs/jobs.ts';
import { CommentFeed, type CommentEvent } from './services/comment-feed.ts';
import type { JobKind } from './jobs/events.ts';
import type { JobHandler } from './jobs/runner.ts';
import { LiveLoaders } from './loaders.ts';
import { createMetrics, type Metrics } from './metrics.ts';
import { useApiReference } from './plugins/use-api-reference.ts';
import { useFileDownloads } from './plugins/use-file-downloads.ts';
import { GRAPHIQL_OPTIONS, renderGraphiQL, useGraphiQL } from './plugins/use-graphiql.ts';
import { useHealthAndMetrics } from './plugins/use-health-and-metrics.ts';
import { useConditionalGraphqlGets } from './plugins/use-conditional-gets.ts';
import { IDEMPOTENT_REPLAYED_HEADER, createIdempotency } from './plugins/use-idempotency.ts';
import { setRouteLabel, useHttpObservability } from './plugins/use-http-observability.ts';
import { useLiveLoaders } from './plugins/use-live-loaders.ts';
import { useMemberActivity } from './plugins/use-member-activity.ts';
import { useViewerChanges } from './plugins/use-viewer-changes.ts';
import { useOperationMetrics } from './plugins/use-operation-metrics.ts';
import { usePublishedOpenAPI } from './plugins/use-published-openapi.ts';
import { useRequestLimits } from './plugins/use-request-limits.ts';
import { useSaml } from './plugins/use-saml.ts';
import { useSharedSubscriptionResults } from './plugins/use-shared-subscription-results.ts';
import { useSseEventIds } from './plugins/use-sse-event-ids.ts';
import { useStorableText } from './plugins/use-storable-text.ts';
import { useVisitorKeys } from './plugins/use-visitor-keys.ts';
import { createSubscriptionShutdown } from './plugins/use-subscription-shutdown.ts';
import { restRoutes } from './rest/generated/routes.ts';
import { REST_PREFIX, errorResponse, useRestRoutes } from './rest/runtime.ts';
import { schema } from './schema/index.ts';
import { upgradeSearchIndex } from './search/search-index.ts';
import { KeptClones } from './git-sync/kept-clones.ts';
import { jobHandlers } from './services/job-handlers.ts';
import { signingKeySealer } from './services/member.ts';
import { openAPIRefreshTask } from './services/openapi-refresh.ts';
import { startPeriodic } from './services/periodic.ts';
import { spacePurgeTask } from './services/space-purge.ts';
import { storageCollectionTask } from './services/storage-collection.ts';
import { loadUrlSecret } from './storage/signed-url.ts';
import type { ObjectStorage } from './storage/object-storage.ts';
import { createStorage } from './storage/storage.ts';
import { Urls } from './urls.ts';
import { createWorkerPool, type WorkerPool } from './worker-pool.ts';

export const GRAPHQL_ENDPOINT = '/graphql';

/** POST /v1/orgs/{organizationId}/openapi and PUT /v1/orgs/{organizationId}/openapi/{specSlug}: they take a document's text. */
const OPENAPI_SOURCE_PATH = /^\/v1\/orgs\/[^/]+\/openapi(?:\/[^/]+)?\/?$/;

/**
 * The body limit of the endpoints that take an OpenAPI document's text: OPENAPI_MAX_BYTES of text,
 * which JSON's escaping can make up to twice as long, with room for the rest of the body. The
 * text itself is held to OPENAPI_MAX_BYTES when read (services/openapi-spec.ts).
 */
function openAPIBodyLimit(config: AppConfig): (method: string, pathname: string) => number | undefined {
  const limit = Math.max(config.bodyLimitBytes, 2 * config.openapi.maxBytes + 65_536);
  return (method, pathname) => ((method === 'POST' || method === 'PUT') && OPENAPI_SOURCE_PATH.test(pathname) ? limit : undefined);
}
/** WebSocket close code 1013, "Try Again Later" (RFC 6455's registry). */
const WS_TRY_AGAIN_LATER = 1013;

export interface AppOptions {
  config: AppConfig;
  /** Also told every SQL statement the app's database client sends (benchmarks record them). */
  onQuery?: (sql: string) => void;
  metrics?: Metrics;
  log?: Logger;
  /** Handlers of job kinds instead of the app's own (a test runs a job whose steps it controls). */
  jobHandlers?: Partial<Record<JobKind, JobHandler>>;
}

export interface App {
  config: AppConfig;
  db: Db;
  /** Which database `db` talks to. */
  provider: Provider;
  metrics: Metrics;
  log: Logger;
  yoga: ReturnType<typeof createYoga<Record<string, unknown>, Context>>;
  server: http.Server;
  jobs: Jobs;
  /** The stored files (content-addressed). */
  storage: ObjectStorage;
  /** Live comment events: what the mutations publish and `commentEvents` follows. */
  commentFeed: CommentFeed;
  /** The callers kept across requests. */
  viewers: ViewerCache;
  /**
   * The worker threads of CPU-heavy work: a request's conversions, and the Git layout of jobs, apart so
   * that neither waits behind the other (no thread starts before the first task).
   */
  workers: { requests: WorkerPool; jobs: WorkerPool };
  /** Listens on config.port/host (0 picks a free port); resolves to the base URL. */
  listen(): Promise<string>;
  /**
   * Stops accepting, closes graphql-ws connections (1001 "Going away") and ends SSE subscriptions at
   * once, finishes in-flight requests (up to the shutdown timeout), then closes the database; how many
   * WebSocket connections and SSE streams it closed.
   */
  close(): Promise<ShutdownSummary>;
}

/** What `App.close()` closed that was still open. */
export interface ShutdownSummary {
  webSockets: number;
  eventStreams: number;
}

/** The `authorization` entry of a headers-like object, whatever its case (a string, else null). */
function authorizationIn(headers: unknown): string | null {
  if (!headers || typeof headers !== 'object') return null;
  for (const [name, value] of Object.entries(headers)) {
    if (name.toLowerCase() === 'authorization' && typeof value === 'string') return value;
  }
  return null;
}

/**
 * The `Authorization` of a graphql-ws operation: its own, from the subscribe message's
 * `extensions.headers` (GraphiQL sends its Headers tab there, after an empty `connection_init`),
 * else the connection's `connectionParams`. Like an HTTP request's header, an operation's own
 * value decides for that operation.
 */
function socketAuthorization(params: { extensions?: unknown } | undefined, connectionParams: Record<string, unknown> | undefined): { value: string | null; fromOperation: boolean } {
  const extensions = params?.extensions;
  const own = extensions && typeof extensions === 'object' ? authorizationIn((extensions as { headers?: unknown }).headers) : null;
  if (own !== null) return { value: own, fromOperation: true };
  return { value: authorizationIn(connectionParams), fromOperation: false };
}

/**
 * The `Authorization` value of an HTTP request (its header only: a body's `extensions` never
 * authenticates), or of a graphql-ws operation (`socketAuthorization`).
 */
function authorizationOf(initial: Partial<YogaInitialContext> & { connectionParams?: Record<string, unknown>; socket?: unknown }): string | null {
  if (initial.socket) return socketAuthorization(initial.params, initial.connectionParams).value;
  return initial.request?.headers.get('authorization') ?? null;
}

/**
 * graphql-armor's validation rules throw by default, which skips graphql-js's
 * error collection (and yoga's 400 for validation errors). Reported instead,
 * they are validation errors like any other. Their messages start with
 * "Syntax Error: " although the query parsed; that prefix is dropped.
 */
function reportArmorRejection() {
  return {
    propagateOnRejection: false,
    onReject: [(ctx: ValidationContext | null, error: GraphQLError) => ctx?.reportError(new GraphQLError(error.message.replace(/^Syntax Error: /, '')))],
  };
}

function errorResponseFor(request: Request, error: AppError): Response {
  const path = new URL(request.url).pathname;
  if (path === REST_PREFIX || path.startsWith(`${REST_PREFIX}/`)) return errorResponse(error.status, error.message, error.headers);
  return Response.json(
    { errors: [{ message: error.message, extensions: { code: error.code } }] },
    { status: error.status, headers: error.headers },
  );
}

/** Headers a browser page may read of our answers (a 201's Location, rate limits). */
const EXPOSED_HEADERS = ['Location', IDEMPOTENT_REPLAYED_HEADER, 'Retry-After', 'RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset', 'X-Request-Id'];

/**
 * CORS_ORIGINS as yoga's `cors` option (yoga's default reflects any origin with credentials): no
 * headers at all for an origin not listed, so the browser refuses the page; a listed origin with
 * credentials (tokens in cookies or headers); `*` any origin, never with credentials.
 */
function corsOptions(origins: readonly string[]) {
  // A function even when none is allowed: a preflight is still answered (204, without CORS headers).
  if (origins.length === 0) return () => false as const;
  if (origins.includes('*')) return { origin: '*', credentials: false, exposedHeaders: EXPOSED_HEADERS };
  return (request: Request) => {
    const origin = request.headers.get('origin');
    if (!origin || !origins.includes(origin)) return false as const;
    // Of several origins, whatwg-node answers the request's own, with `Vary: Origin`.
    return { origin: [...origins], credentials: true, exposedHeaders: EXPOSED_HEADERS };
  };
}

export function createApp(options: AppOptions): App {
  // Download URLs are signed with STORAGE_URL_SECRET, or a secret kept beside the files (see src/storage/signed-url.ts).
  const config = { ...options.config, storage: { ...options.config.storage, urlSecret: loadUrlSecret(options.config.storage) } };
  const storage = createStorage(config.storage);
  const log = options.log ?? pino({ level: config.logLevel });
  const metrics = options.metrics ?? createMetrics();
  const database = parseDatabaseUrl(config.databaseUrl);
  // Every write makes the loaders of the executions in progress forget what they cached of the table it wrote.
  const liveLoaders = new LiveLoaders();
  const db = createDb(database, {
    timeouts: config.databaseTimeouts,
    preparedStatements: config.databasePreparedStatements,
    onQuery: (sql) => {
      metrics.dbQueries.inc();
      options.onQuery?.(sql);
    },
    onWrite: (table, sql) => {
      liveLoaders.invalidate(table);
      idempotency.noteWrite(table);
      viewers.noteWrite(table, sql);
    },
    onPool: (pool) => metrics.observePool(pool),
  });
  // The queued jobs of the whole deployment, counted when /metrics is scraped (within the health timeout).
  metrics.countQueuedJobsWith(async () => {
    const counting = db.job.groupBy({ by: ['kind'], where: { state: 'queued' }, _count: { _all: true } });
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error('timeout')), config.healthTimeoutMs);
    });
    try {
      const rows = await Promise.race([counting, deadline]);
      return rows.map((row) => ({ kind: row.kind, count: row._count._all }));
    } finally {
      clearTimeout(timer);
    }
  });
  // Idempotency-Key: answers kept in the database (the write hook above counts writes for it).
  const idempotency = createIdempotency({ db, log, ttlSeconds: config.idempotencyKeyTtlSeconds, errorResponse: errorResponseFor });
  // Markdown, PDF and Git layout work runs on worker threads, so the event loop keeps answering meanwhile.
  const workers = {
    requests: createWorkerPool(config.workers),
    // A thread per job that may run at once.
    jobs: createWorkerPool({ threads: config.jobs.concurrency, maxQueue: config.jobs.concurrency, taskTimeoutMs: config.gitLayoutTimeoutMs }),
  };
  const conversions = createConversions({ pool: workers.requests, limits: config.markdownLimits, storage: config.storage });
  const revisionChunks = new RevisionChunkCache(config.revisionCacheEntries);
  // Job and comment events: in-process, or across processes through Redis (one pair of connections for both).
  const events = createEventHub(config.redisUrl, { namespace: deploymentNamespace(config.databaseUrl), log });
  // Callers kept across requests; with Redis, a change to one is announced to the other processes (src/auth/viewer-cache.ts).
  const viewers = new ViewerCache(db, { ...config.viewerCache, bus: events.shared ? events.topic<ViewerMessage>('viewer') : undefined, log, sealer: signingKeySealer(config) });
  // Git imports keep each space's repository for its next import (fetching and reading only what changed).
  const gitClones = new KeptClones(config.gitKeptClonesBytes);
  const jobs = createJobs({ db, provider: database.provider, storage, config, log, workers: workers.jobs, handlers: { ...jobHandlers({ gitClones }), ...options.jobHandlers }, metrics, events });

  const commentFeed = new CommentFeed({
    db,
    revisionChunks,
    bus: events.topic<CommentEvent>('comment'),
    accessFor: createAccess,
    onError: (error) => log.error({ err: error }, 'comment events: delivery failed'),
  });

  // Subscriptions never end by themselves: shutdown ends those answered over SSE.
  const subscriptionShutdown = createSubscriptionShutdown();
  const yoga = createYoga<Record<string, unknown>, Context>({
    schema,
    graphqlEndpoint: GRAPHQL_ENDPOINT,
    landingPage: false,
    // Served from this server (plugins/use-graphiql.ts), so it works without internet.
    graphiql: GRAPHIQL_OPTIONS,
    renderGraphiQL,
    logging: {
      debug: (...args) => log.debug(args),
      info: (...args) => log.info(args),
      warn: (...args) => log.warn(args),
      // Errors the caller caused (4xx) are not the server's: keep them out of the error log.
      error: (...args) => (args.every(isClientError) ? log.debug({ errors: args }, 'client error') : log.error({ errors: args }, 'error')),
    },
    maskedErrors: { maskError },
    cors: corsOptions(config.corsOrigins),
    context: async (initial) => {
      try {
        const lastEventId = initial.request?.headers.get('last-event-id') ?? null;
        return (await buildContext({ db, provider: database.provider, config, log, storage, jobs, commentFeed, conversions, revisionChunks, viewers }, authorizationOf(initial), lastEventId)) as Context;
      } catch (error) {
        const appError = toAppError(error);
        if (appError) throw toGraphQLError(appError);
        throw error;
      }
    },
    plugins: [
      // First: text no database stores stops an operation before any other plugin's execution starts.
      useStorableText(),
      useLiveLoaders(liveLoaders),
      // Member.lastSeenAt from real use: at most one write per member per minute.
      useMemberActivity(),
      // A write that changes callers answers once every process forgot its kept ones.
      useViewerChanges(viewers),
      useHttpObservability({ log, metrics, graphqlEndpoint: GRAPHQL_ENDPOINT }),
      useHealthAndMetrics({ db, metrics, timeoutMs: config.healthTimeoutMs, pingRedis: config.redisUrl ? () => events.ping() : undefined }),
      useOperationMetrics(metrics),
      useFileDownloads({ storage, secret: config.storage.urlSecret }),
      usePublishedOpenAPI({ db, storage }),
      // GET /.well-known/jwks/{organizationId}.json, without a token: the keys visitor claims verify with.
      useVisitorKeys({ db }),
      useGraphiQL({ graphqlEndpoint: GRAPHQL_ENDPOINT }),
      // GET /v1/openapi.json and /docs, without a token; before the REST runtime, which answers 404 for any other /v1 path.
      useApiReference({ config }),
      useSseEventIds(),
      // GraphQL queries sent with GET answer an ETag, and 304 to a client that holds it.
      useConditionalGraphqlGets({ graphqlEndpoint: GRAPHQL_ENDPOINT }),
      // Job subscriptions: one execution per event for the subscribers of the same document and variables.
      useSharedSubscriptionResults(),
      subscriptionShutdown.plugin,
      useRequestLimits({
        rateLimit: config.rateLimit,
        bodyLimitBytes: config.bodyLimitBytes,
        bodyLimitFor: openAPIBodyLimit(config),
        errorResponse: errorResponseFor,
      }),
      // After the limits (a replay counts against the rate limit, the body limit holds), before the REST routes.
      idempotency.plugin,
      // The SAML service provider endpoints (/saml/...): browsers, not API clients; after the limits.
      useSaml({ db, urls: new Urls(config), log }),
      // The validation-rule limits report their rejection as a validation error
      // (yoga: 400 GRAPHQL_VALIDATION_FAILED) instead of throwing out of validate().
      // The token limit runs inside the parser, which has to stop there: its throw
      // becomes a parse error (400 GRAPHQL_PARSE_FAILED).
      EnvelopArmorPlugin({
        maxDepth: { n: 12, ...reportArmorRejection() },
        maxAliases: { n: 30, ...reportArmorRejection() },
        maxDirectives: { n: 50, ...reportArmorRejection() },
        maxTokens: { n: 5000 },
        costLimit: { maxCost: 20000, ...reportArmorRejection() },
      }),
      // Validates each REST document once, on its route's first request, not per request.
      useRestRoutes({ routes: restRoutes, onMatch: setRouteLabel }),
    ],
  });

  const server = http.createServer(yoga);
  // Idle keep-alive connections stay open longer than the usual proxy's (60 s): a server that closes one
  // first races the next request sent on it, which then fails with ECONNRESET (Node's default is 5 s).
  server.keepAliveTimeout = 65_000;
  server.headersTimeout = 66_000;
  // Upgrades are handed to ws here rather than through its `server` option, with which ws also re-emits
  // the HTTP server's errors (a port in use) as its own, and graphql-ws prints those on stderr as internal errors.
  const wsServer = new WebSocketServer({ noServer: true, path: GRAPHQL_ENDPOINT });
  server.on('upgrade', (request, socket, head) => wsServer.handleUpgrade(request, socket, head, (ws) => wsServer.emit('connection', ws, request)));
  /**
   * The one check of a graphql-ws caller's token, at connection_init (`connectionParams`) and at an
   * operation that brings its own (`extensions.headers`): the error of a token that is not valid,
   * or null when the caller may go on. No token at all is anonymous: operations that need a caller
   * then answer UNAUTHENTICATED.
   */
  async function tokenRefusal(authorization: string | null): Promise<AppError | null> {
    if (!authorization) return null;
    try {
      const token = bearerToken(authorization);
      if (token) await viewers.callerFor(token);
      return null;
    } catch (error) {
      const appError = toAppError(error);
      if (!appError || (appError.status !== 401 && appError.status !== 503)) throw error;
      return appError;
    }
  }
  /** Closes a refused connection: 4403 with the reason, or 1013 ("try again later") when the database was unavailable, as the token may well be fine. */
  const refuse = (socket: WebSocket, error: AppError) =>
    socket.close(error.status === 503 ? WS_TRY_AGAIN_LATER : CloseCode.Forbidden, error.message.slice(0, 120));
  const wsCleanup = useServer(
    {
      onConnect: async (ctx: { connectionParams?: Record<string, unknown>; extra: { socket: WebSocket } }) => {
        const refused = await tokenRefusal(socketAuthorization(undefined, ctx.connectionParams).value);
        if (refused) refuse(ctx.extra.socket, refused);
        return !refused;
      },
      execute: (args: { rootValue: { execute: (a: unknown) => unknown } }) => args.rootValue.execute(args),
      subscribe: (args: { rootValue: { subscribe: (a: unknown) => unknown } }) => args.rootValue.subscribe(args),
      onSubscribe: async (
        ctx: { connectionParams?: Record<string, unknown>; extra: { request: unknown; socket: WebSocket } },
        id: string,
        params: { query: string; operationName?: string; variables?: Record<string, unknown>; extensions?: Record<string, unknown> },
      ) => {
        const authorization = socketAuthorization(params, ctx.connectionParams);
        // An operation's own token is checked as connectionParams are, before its context: a bad one refuses the connection.
        const refused = authorization.fromOperation ? await tokenRefusal(authorization.value) : null;
        if (refused) {
          const error = toGraphQLError(refused);
          const socket = ctx.extra.socket;
          // The operation is told why before the close frame: its client gives up at once, where a
          // close alone (4403) would have it reconnect and retry. Once closing, graphql-ws sends nothing.
          if (socket.readyState === socket.OPEN) socket.send(JSON.stringify({ id, type: 'error', payload: [error.toJSON()] }));
          refuse(socket, refused);
          return [error];
        }
        const { schema: envSchema, execute, subscribe, contextFactory, parse, validate } = yoga.getEnveloped({
          ...ctx,
          req: ctx.extra.request,
          socket: ctx.extra.socket,
          params,
          // The operation's id: a shared subscription result is written to the socket under it (use-shared-subscription-results.ts).
          operationId: id,
        });
        // Everything that can fail for this operation alone stays inside the try:
        // an error returned here is answered as an `error` message for this id,
        // whereas a throw would close the whole socket (4500).
        try {
          const document = parse(params.query);
          const errors = validate(envSchema, document);
          if (errors.length) return errors;
          return {
            schema: envSchema,
            operationName: params.operationName,
            document,
            variableValues: params.variables,
            contextValue: await contextFactory(),
            rootValue: { execute, subscribe },
          };
        } catch (error) {
          if (error instanceof GraphQLError) return [error];
          log.error({ err: error }, 'graphql-ws subscribe failed');
          return [new GraphQLError('Unexpected error')];
        }
      },
    } as never,
    wsServer,
  );

  const stopPeriodic = [
    startPeriodic(spacePurgeTask({ db, provider: database.provider, log, intervalSeconds: config.purgeIntervalSeconds }), log),
    startPeriodic(storageCollectionTask({ db, storage, log, intervalSeconds: config.storageGc.intervalSeconds, graceSeconds: config.storageGc.graceSeconds }), log),
    ...(config.openapi.refreshSeconds > 0 ? [startPeriodic(openAPIRefreshTask({ db, jobs, log, intervalSeconds: config.openapi.refreshSeconds }), log)] : []),
  ];

  return {
    config,
    db,
    provider: database.provider,
    metrics,
    log,
    yoga,
    server,
    jobs,
    storage,
    commentFeed,
    viewers,
    workers,
    listen: async () => {
      // Before the first search: rows written by older indexing rules are rewritten (once, after an upgrade).
      const upgraded = await upgradeSearchIndex(db, database.provider, (message, spaces) => log.info({ spaces }, message));
      if (upgraded.spaces) log.info({ spaces: upgraded.spaces }, 'search index: rewritten');
      return new Promise<string>((resolve, reject) => {
        server.once('error', reject);
        server.listen(config.port, config.host, () => {
          const address = server.address();
          const port = typeof address === 'object' && address ? address.port : config.port;
          const host = config.host === '0.0.0.0' || config.host === '::' ? '127.0.0.1' : config.host;
          // Workers start with the server: jobs left running by a previous process are taken over here.
          jobs.startWorkers();
          resolve(`http://${host}:${port}`);
        });
      });
    },
    close: async () => {
      // Held until close() ends: once the server stopped listening, what close() waits for last (worker
      // threads exiting, the database) holds no handle of its own, and the process would end mid-close
      // with exit code 0 and nothing logged after.
      const held = setInterval(() => {}, 60_000);
      try {
        return await closeAll();
      } finally {
        clearInterval(held);
      }
    },
  };

  async function closeAll(): Promise<ShutdownSummary> {
    for (const stop of stopPeriodic) stop();
    // Open subscriptions are closed first, at once: otherwise they hold server.close() for the whole
    // SHUTDOWN_TIMEOUT_MS and are then cut without a close code.
    const eventStreams = subscriptionShutdown.endEventStreams();
    const webSockets = wsServer.clients.size;
    // dispose() sends 1001 "Going away" to every client and waits for their closing handshakes; a
    // client that does not answer within a second is cut off rather than held for ws's 30 s.
    const disposed = Promise.resolve(wsCleanup.dispose());
    const answered = await Promise.race([disposed.then(() => true), new Promise<false>((resolve) => setTimeout(resolve, 1_000, false).unref())]);
    if (!answered) {
      for (const socket of wsServer.clients) socket.terminate();
      await disposed;
    }
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeIdleConnections();
    const timeout = new Promise<void>((resolve) => setTimeout(resolve, config.shutdownTimeoutMs).unref());
    await Promise.race([closed, timeout]);
    server.closeAllConnections();
    await yoga.dispose();
    // After the subscriptions ended (they unsubscribe from the event bus as they close).
    await jobs.close();
    commentFeed.close();
    viewers.close();
    await events.close();
    await Promise.all([workers.requests.close(), workers.jobs.close(), gitClones.close()]);
    await db.$disconnect();
    return { webSockets, eventStreams };
  }
}

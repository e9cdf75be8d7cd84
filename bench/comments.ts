/**
 * Comments benchmark (issue 17): listing a space's discussions, and the delivery of comment
 * events to the subscribers of one space, on the app (bench/app-server.ts) over SQLite, or over
 * PostgreSQL with BENCH_DATABASE_URL.
 *
 *   npm run bench:comments
 *   BENCH_DATABASE_URL=postgresql://postgres@127.0.0.1:5432/postgres npm run bench:comments
 *
 * Setup (not timed): a fresh database, an admin with a token, an organization and a space through
 * the API, then THREADS threads (default 100) of REPLIES replies each (default 5), each thread with
 * a reaction, all posted through REST.
 *
 * 1. Listing (BENCH_LIST_RUNS requests each, default 50, one at a time, after 5 unmeasured):
 *    - REST `GET /v1/spaces/{spaceId}/comments?limit=100` (the threads, with their reply counts,
 *      repliers and reactions);
 *    - GraphQL: the 100 threads with their replies and reactions nested, in one query.
 *    Per request: latency (client side, p50/p95) and statements (`db_queries_total` delta).
 * 2. Fan-out (BENCH_COMMENT_SUBSCRIBERS, default 100): that many members of the organization
 *    (role read, each their own user and token: the per-event authorization reads them all)
 *    subscribe to `commentEvents(spaceId)` over graphql-ws, selecting the event's type, thread id,
 *    actor and time. Then BENCH_EVENT_RUNS comments (default 20) are posted one at a time through
 *    REST; per post, every subscriber's receipt time minus the time the POST was sent (same
 *    process clock), the spread over the subscribers, events delivered vs expected, and the
 *    statements the server sent for the post and its deliveries.
 *
 * Before each measured phase: waits for a quiet machine (harness machineLoad.settle). Results:
 * bench/results/<date>-comments-<sqlite|postgresql>.md.
 */
import { createClient, type Client } from 'graphql-ws';
import WebSocket from 'ws';
import { createDb } from '../src/db/client.ts';
import { newId } from '../src/ids.ts';
import {
  api,
  count,
  createBenchDatabase,
  createBenchUser,
  databaseVersion,
  fmt,
  graphql,
  log,
  machineLoad,
  main,
  metricValue,
  reportHeader,
  sleep,
  startRun,
  stats,
  table,
  timedCalls,
  withChild,
  writeResults,
  type Stats,
} from './harness.ts';

const THREADS = Number(process.env.BENCH_COMMENT_THREADS ?? 100);
const REPLIES = Number(process.env.BENCH_COMMENT_REPLIES ?? 5);
const LIST_RUNS = Number(process.env.BENCH_LIST_RUNS ?? 50);
const SUBSCRIBERS = Number(process.env.BENCH_COMMENT_SUBSCRIBERS ?? 100);
const EVENT_RUNS = Number(process.env.BENCH_EVENT_RUNS ?? 20);
const WARM = 5;

/** The GraphQL listing: threads with their replies and reactions nested. */
export const THREADS_QUERY = `query($spaceId: ID!, $limit: Int) {
  space(id: $spaceId) {
    commentList(limit: $limit) {
      items {
        id status replies repliers { count user { id } }
        body(format: markdown) { markdown }
        postedBy { id displayName }
        reactions { emoji count users { user { id } reactedAt } }
        replyList(limit: 100) { items { id postedBy { id } body(format: markdown) { markdown } reactions { emoji count } } }
      }
      count
    }
  }
}`;

const SUBSCRIPTION = 'subscription($spaceId: ID!) { commentEvents(spaceId: $spaceId) { type commentId actor { id } at } }';

async function waitFor(what: string, predicate: () => boolean, timeoutMs: number): Promise<void> {
  const started = performance.now();
  while (!predicate()) {
    if (performance.now() - started > timeoutMs) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(5);
  }
}

function subscriber(baseUrl: string, token: string): Client {
  return createClient({ url: `${baseUrl.replace(/^http/, 'ws')}/graphql`, webSocketImpl: WebSocket, connectionParams: { authorization: `Bearer ${token}` }, retryAttempts: 0, lazy: true });
}

main(async () => {
  const run = startRun('comments');
  const database = await createBenchDatabase('comments');
  const admin = await createBenchUser(database, 'admin@bench.local');
  const env = { DATABASE_URL: database.url, LOG_LEVEL: 'silent', RATE_LIMIT_POINTS: '100000000', JOB_POLL_MS: '3600000' };
  let version = '';
  const results: Record<string, unknown> = {};
  const md: string[] = [];
  try {
    await withChild('app-server.ts', env, async (child) => {
      const baseUrl = child.baseUrl;
      version = await databaseVersion(database);
      const org = (await api(baseUrl, admin.token, 'POST', '/v1/orgs', { title: 'Bench comments org' }, 201)).body.id as string;
      const space = (await api(baseUrl, admin.token, 'POST', `/v1/orgs/${org}/spaces`, { title: 'Discussed' }, 201)).body.id as string;

      log(`posting ${THREADS} threads of ${REPLIES} replies`);
      for (let i = 0; i < THREADS; i++) {
        const thread = (await api(baseUrl, admin.token, 'POST', `/v1/spaces/${space}/comments`, { body: { markdown: `Thread ${i}: is **this** right? See \`code\`.` } })).body.id as string;
        for (let r = 0; r < REPLIES; r++) {
          await api(baseUrl, admin.token, 'POST', `/v1/spaces/${space}/comments/${thread}/replies`, { body: { markdown: `Reply ${r} to thread ${i}.` } });
        }
        await api(baseUrl, admin.token, 'PUT', `/v1/spaces/${space}/comments/${thread}`, { addedReactions: ['👍'] });
      }

      // 1. Listing.
      await machineLoad.settle('before the listings');
      const rest = await timedCalls(baseUrl, LIST_RUNS, WARM, async () => {
        const reply = await api(baseUrl, admin.token, 'GET', `/v1/spaces/${space}/comments?limit=100`);
        if ((reply.body.items as unknown[]).length !== Math.min(THREADS, 100)) throw new Error('the REST listing lost threads');
      });
      const gql = await timedCalls(baseUrl, LIST_RUNS, WARM, async () => {
        const data = await graphql(baseUrl, admin.token, THREADS_QUERY, { spaceId: space, limit: 100 });
        const items = (data as { space: { commentList: { items: Array<{ replyList: { items: unknown[] } }> } } }).space.commentList.items;
        if (items.length !== Math.min(THREADS, 100) || items.some((t) => t.replyList.items.length !== REPLIES)) throw new Error('the GraphQL listing lost threads or replies');
      });
      results.listing = { rest, graphql: gql, threads: THREADS, replies: REPLIES };
      log(`listing: REST p50 ${fmt(rest.latency.p50, 1)} ms, GraphQL p50 ${fmt(gql.latency.p50, 1)} ms; ${SUBSCRIBERS} members subscribing`);

      // 2. Fan-out: SUBSCRIBERS members, each with their own token.
      const db = createDb(database.config);
      const members: string[] = [];
      try {
        for (let i = 0; i < SUBSCRIBERS; i++) {
          const user = await createBenchUser(database, `reader-${i}@bench.local`);
          await db.member.create({ data: { id: newId(), organizationId: org, userId: user.userId, role: 'read' } });
          members.push(user.token);
        }
      } finally {
        await db.$disconnect();
      }
      const received: number[][] = members.map(() => []);
      const clients = members.map((token) => subscriber(baseUrl, token));
      const acked = clients.map(() => false);
      clients.forEach((client, i) => {
        client.on('connected', () => (acked[i] = true));
        client.subscribe({ query: SUBSCRIPTION, variables: { spaceId: space } }, { next: () => void received[i]!.push(performance.now()), error: (e) => log('subscription error', e), complete: () => undefined });
      });
      await waitFor('every subscriber connected', () => acked.every(Boolean), 60_000);
      log('subscribers connected');
      // A subscription is registered once its checks ran: wait until, over 400 ms, the server sends no
      // statement but the scrape's own (GET /metrics counts the queued jobs).
      for (let last = -10, now = await metricValue(baseUrl, 'db_queries_total'); now - last > 1; ) {
        await sleep(400);
        [last, now] = [now, await metricValue(baseUrl, 'db_queries_total')];
      }
      log('subscriptions registered');

      await machineLoad.settle('before the fan-out');
      const delays: number[] = [];
      const spreads: number[] = [];
      const statementsPerEvent: number[] = [];
      let delivered = 0;
      for (let e = 0; e < EVENT_RUNS; e++) {
        const before = await metricValue(baseUrl, 'db_queries_total');
        const counts = received.map((r) => r.length);
        const sent = performance.now();
        await api(baseUrl, admin.token, 'POST', `/v1/spaces/${space}/comments`, { body: { markdown: `Live ${e}` } });
        await waitFor(`event ${e} at every subscriber`, () => received.every((r, i) => r.length > counts[i]!), 30_000);
        const arrivals = received.map((r, i) => r[counts[i]!]! - sent);
        delivered += received.reduce((n, r, i) => n + (r.length - counts[i]!), 0);
        delays.push(...arrivals);
        spreads.push(Math.max(...arrivals) - Math.min(...arrivals));
        await sleep(50);
        statementsPerEvent.push((await metricValue(baseUrl, 'db_queries_total')) - before);
      }
      await Promise.all(clients.map((c) => c.dispose()));
      results.fanout = { subscribers: SUBSCRIBERS, events: EVENT_RUNS, delay: stats(delays), spread: stats(spreads), delivered, expected: SUBSCRIBERS * EVENT_RUNS, statementsPerEvent: stats(statementsPerEvent) };
    });
  } finally {
    await database.drop();
  }

  const listing = results.listing as { rest: { latency: Stats; statements: number }; graphql: { latency: Stats; statements: number } };
  const fanout = results.fanout as { delay: Stats; spread: Stats; delivered: number; expected: number; statementsPerEvent: Stats };
  md.push(...reportHeader(run, 'Comments: listing and live events', { description: database.description, version }));
  md.push(`## Listing ${THREADS} threads of ${REPLIES} replies (${LIST_RUNS} requests each, one at a time)`, '');
  md.push(
    ...table(
      ['request', 'p50 ms', 'p95 ms', 'statements/request'],
      [
        ['REST `GET /v1/spaces/{id}/comments?limit=100`', fmt(listing.rest.latency.p50, 1), fmt(listing.rest.latency.p95, 1), fmt(listing.rest.statements, 1)],
        [`GraphQL: ${THREADS} threads, replies and reactions nested`, fmt(listing.graphql.latency.p50, 1), fmt(listing.graphql.latency.p95, 1), fmt(listing.graphql.statements, 1)],
      ],
      ['l', 'r', 'r', 'r'],
    ),
    '',
  );
  md.push(`## Event delivery to ${SUBSCRIBERS} subscribers of one space (${EVENT_RUNS} comments posted one at a time)`, '');
  md.push(
    ...table(
      ['measure', 'p50', 'p99', 'max'],
      [
        ['POST sent → event received (ms)', fmt(fanout.delay.p50, 1), fmt(fanout.delay.p99, 1), fmt(fanout.delay.max, 1)],
        ['spread over the subscribers (ms)', fmt(fanout.spread.p50, 1), fmt(fanout.spread.p99, 1), fmt(fanout.spread.max, 1)],
        ['statements per post and its deliveries', fmt(fanout.statementsPerEvent.p50), fmt(fanout.statementsPerEvent.p99), fmt(fanout.statementsPerEvent.max)],
      ],
      ['l', 'r', 'r', 'r'],
    ),
    '',
    `Delivered ${count(fanout.delivered)} of ${count(fanout.expected)} events.`,
    '',
  );
  writeResults(run, results, md);
});

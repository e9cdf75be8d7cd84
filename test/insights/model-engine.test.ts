/**
 * The optional model engine against a local OpenAI-compatible stand-in (./model-stand-in.ts): the
 * prompts' contract, issues read a few conversations per request and clustered with terms of the
 * default engine's making, clusters named; every kind of failure retried, a retry that succeeds,
 * and a batch read by the default engine once the retries are spent.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { insightsModelConfig } from '../../src/config.ts';
import { InsightsModelError } from '../../src/errors/external.ts';
import { processConversationBatch } from '../../src/insights/batch.ts';
import { issueTerms } from '../../src/insights/extract.ts';
import {
  CONCURRENT_REQUESTS,
  CONVERSATIONS_PER_REQUEST,
  createInsightsModel,
  DESCRIBE_PROMPT,
  EMBEDDING_INPUTS_PER_REQUEST,
  EMBEDDING_SIMILARITY,
  READ_PROMPT,
  readRound,
  type InsightsModelOptions,
} from '../../src/insights/model-engine.ts';
import type { Conversation } from '../../src/insights/types.ts';
import { emptyCorpus } from '../../src/insights/vectors.ts';
import { createWorkerPool, type WorkerPool } from '../../src/worker-pool.ts';
import { loadLabelledSet } from './labelled-set.ts';
import { adjustedRandIndex } from './adjusted-rand-index.ts';
import { groupEmbedding, hashedWords, MARK, startModelStandIn, type Failure, type ModelStandIn } from './model-stand-in.ts';

let standIn: ModelStandIn;
let workers: WorkerPool;
beforeAll(async () => {
  standIn = await startModelStandIn();
  workers = createWorkerPool({ threads: 1, maxQueue: 4, taskTimeoutMs: 60_000 });
});
afterAll(async () => {
  await Promise.all([standIn.close(), workers.close()]);
});
afterEach(() => {
  standIn.requests.length = 0;
  standIn.failNext(0, 'status-500');
  standIn.failAlways(null);
  standIn.embedText = hashedWords;
});

const model = (options: Partial<InsightsModelOptions> = {}) =>
  createInsightsModel({ url: standIn.url, apiKey: 'sk-test', model: 'stand-in-model', timeoutMs: 5_000, retries: 2, retryDelayMs: 1, ...options });

const { conversations: labelled } = loadLabelledSet(['webhooks', 'custom-domains']);
const withIssues: Conversation[] = labelled.filter((c) => c.label.hasDocIssue).slice(0, 7);

describe('the insights model engine', () => {
  it('reads conversations a few per request, as the prompt says, and answers their issues in order', async () => {
    const read = await model().readIssues(withIssues);

    expect(read.map((r) => r.key)).toEqual(withIssues.map((c) => c.id));
    for (const [i, { issues }] of read.entries()) {
      expect(issues).toHaveLength(1);
      expect(issues[0]!.title).toBe(`${MARK}${withIssues[i]!.subject ?? issues[0]!.title.slice(MARK.length)}`);
      expect(issues[0]!.title.length).toBeGreaterThan(MARK.length + 3);
      expect(['medium', 'high']).toContain(issues[0]!.impact);
    }
    expect(standIn.requests).toHaveLength(Math.ceil(withIssues.length / CONVERSATIONS_PER_REQUEST));
    const [first] = standIn.requests;
    expect(first).toMatchObject({ path: '/v1/chat/completions', authorization: 'Bearer sk-test', model: 'stand-in-model', system: READ_PROMPT });
    const sent = standIn.requests.flatMap((r) => r.user.conversations.map((c: { id: string }) => c.id)).sort();
    expect(sent).toEqual(withIssues.map((c) => c.id).sort());
    expect(first!.user.conversations[0]).toEqual({
      id: withIssues[0]!.id,
      subject: withIssues[0]!.subject ?? '',
      messages: withIssues[0]!.parts.map((part) => ({ role: part.role, text: part.body })),
    });
  });

  it('clusters the issues it read with terms counted the default engine’s way', async () => {
    const { output, engine, failure } = await readRound(workers, { reader: model(), embedder: null }, { conversations: withIssues, clusters: [], corpus: emptyCorpus() });

    expect(engine).toBe('model');
    expect(failure).toBeNull();
    const issues = output.perConversation.flatMap((c) => c.issues);
    expect(issues).toHaveLength(withIssues.length);
    for (const issue of issues) {
      expect(issue.terms).toEqual(issueTerms(issue.title, issue.details));
      expect(Object.keys(issue.terms).length).toBeGreaterThan(0);
    }
    expect(output.corpus.documents).toBe(withIssues.length);
    expect(output.created.reduce((sum, c) => sum + c.issueCount, 0)).toBe(withIssues.length);
  });

  it('names a cluster from its latest issues', async () => {
    const named = await model().describeCluster(
      [
        { title: '» Webhook signature header', details: 'Which header carries the signature?' },
        { title: '» Verifying webhooks', details: 'How is the signature computed?' },
      ],
      12,
    );
    expect(named).toEqual({ label: 'Model label: Webhook signature header', summary: 'Model summary of 12 issues.' });
    expect(standIn.requests[0]).toMatchObject({ system: DESCRIBE_PROMPT, user: { issueCount: 12, issues: [{ title: '» Webhook signature header' }, { title: '» Verifying webhooks' }] } });
  });

  it('sends a failed request again and uses the answer that comes', async () => {
    standIn.failNext(2, 'status-500');
    const read = await model({ retries: 2 }).readIssues(withIssues.slice(0, 3));
    expect(read.map((r) => r.issues[0]!.title.startsWith(MARK))).toEqual([true, true, true]);
    expect(standIn.requests.map((r) => r.outcome)).toEqual(['status-500', 'status-500', 'answered']);
  });

  const failures: [Failure, InsightsModelError['reason'], RegExp][] = [
    ['status-500', 'http', /answered 500: The server had an error/],
    ['status-429', 'http', /answered 429: Rate limit reached/],
    ['hang', 'timeout', /did not answer within 200 ms/],
    ['drop', 'network', /could not be reached at http:\/\/127\.0\.0\.1/],
    ['not-json', 'malformed', /a body that is not JSON: <html>Bad gateway<\/html>/],
    ['content-not-json', 'malformed', /answer is not JSON: Here are the issues/],
    ['wrong-shape', 'invalid', /not the JSON asked for \(conversations\.0\.issues\.0\.details/],
    ['missing-conversation', 'invalid', /names no conversation/],
  ];
  for (const [failure, reason, message] of failures) {
    it(`retries, then fails with the reason: ${failure}`, async () => {
      standIn.failAlways(failure);
      const error = await model({ retries: 1, timeoutMs: 200 })
        .readIssues(withIssues.slice(0, 2))
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(InsightsModelError);
      expect(error).toMatchObject({ reason });
      expect((error as Error).message).toMatch(message);
      expect(standIn.requests.map((r) => r.outcome)).toEqual([failure, failure]);
    });
  }

  it('fails to name a cluster with an answer of another shape, after its retries', async () => {
    standIn.failAlways('wrong-shape');
    await expect(model({ retries: 2 }).describeCluster([{ title: '» x y', details: 'z' }], 1)).rejects.toMatchObject({ reason: 'invalid' });
    expect(standIn.requests).toHaveLength(3);
  });

  it('stops the other requests of a batch once one has failed', async () => {
    standIn.failAlways('status-500');
    const many = labelled.slice(0, CONVERSATIONS_PER_REQUEST * (CONCURRENT_REQUESTS + 2));
    await expect(model({ retries: 0 }).readIssues(many)).rejects.toMatchObject({ reason: 'http' });
    // The requests in flight at once failed (one may be stopped before the stand-in saw it); the batch's others were never sent.
    expect(standIn.requests.length).toBeLessThanOrEqual(CONCURRENT_REQUESTS);
  });

  it('falls back to the default engine once the retries are spent: every conversation is read', async () => {
    standIn.failAlways('status-500');
    const input = { conversations: withIssues, clusters: [], corpus: emptyCorpus() };
    const reading = await readRound(workers, { reader: model({ retries: 2 }), embedder: null }, input);

    expect(reading.engine).toBe('default');
    expect(reading.failure).toMatchObject({ reason: 'http', httpStatus: 500 });
    expect(reading.output).toEqual(processConversationBatch(input));
    expect(reading.output.perConversation.map((c) => c.key)).toEqual(withIssues.map((c) => c.id));
    expect(standIn.requests.filter((r) => r.outcome === 'status-500').length).toBeGreaterThanOrEqual(3);
  });

  it('reads with the default engine when there is no model', async () => {
    const input = { conversations: withIssues, clusters: [], corpus: emptyCorpus() };
    expect(await readRound(workers, { reader: null, embedder: null }, input)).toEqual({ output: processConversationBatch(input), engine: 'default', failure: null, embedded: false, embeddingFailure: null });
    expect(standIn.requests).toHaveLength(0);
  });
});

describe('the insights model engine’s embeddings', () => {
  const embedding = (options: Partial<InsightsModelOptions> = {}) => model({ embeddingModel: 'stand-in-embedding', ...options }).embedder!;

  it('is there only with an embedding model, with the default similarity unless one is given', () => {
    expect(model().embedder).toBeNull();
    expect(embedding()).toMatchObject({ model: 'stand-in-embedding', similarity: EMBEDDING_SIMILARITY });
    expect(embedding({ embeddingSimilarity: 0.7 }).similarity).toBe(0.7);
  });

  it('embeds texts a bounded number per request, answers in order', async () => {
    const texts = Array.from({ length: EMBEDDING_INPUTS_PER_REQUEST + 5 }, (_, i) => `text number ${i} about webhook ${i % 7}`);
    const vectors = await embedding().embed(texts);
    expect(vectors).toEqual(texts.map(hashedWords));
    expect(standIn.requests.map((r) => [r.kind, r.path, r.model, r.user.length])).toEqual([
      ['embed', '/v1/embeddings', 'stand-in-embedding', EMBEDDING_INPUTS_PER_REQUEST],
      ['embed', '/v1/embeddings', 'stand-in-embedding', 5],
    ]);
    expect(standIn.requests[0]!.authorization).toBe('Bearer sk-test');
  });

  const failures: [Failure | 'zeros' | 'lengths', RegExp][] = [
    ['status-500', /answered 500/],
    ['hang', /did not answer within 200 ms/],
    ['content-not-json', /embeddings not as asked \(data/],
    ['wrong-shape', /embeddings not as asked \(data\.0\.embedding/],
    ['missing-conversation', /answered 2 embeddings for 3 texts/],
    ['zeros', /an embedding of zeros/],
    ['lengths', /embeddings of different lengths/],
  ];
  for (const [failure, message] of failures) {
    it(`retries, then fails: ${failure}`, async () => {
      if (failure === 'zeros') standIn.embedText = () => [0, 0, 0];
      else if (failure === 'lengths') standIn.embedText = (text) => (text.includes('two') ? [1, 0] : [1, 0, 0]);
      else standIn.failAlways(failure, 'embed');
      const error = await embedding({ retries: 1, timeoutMs: 200 })
        .embed(['one', 'two', 'three'])
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(InsightsModelError);
      expect((error as Error).message).toMatch(message);
      // 'lengths' is judged over all the answers, after each request succeeded: nothing to send again.
      expect(standIn.requests).toHaveLength(failure === 'lengths' ? 1 : 2);
    });
  }

  it('places issues by their embeddings when a round has them, not by their words', async () => {
    const topics = ['webhooks', 'custom-domains', 'rate-limits'];
    const conversations = loadLabelledSet(topics).conversations.filter((c) => c.label.hasDocIssue).slice(0, 24);
    // Two groups that cut across the topics: only the embeddings say so.
    const groupOf = (index: number) => index % 2;
    standIn.embedText = groupEmbedding(conversations, groupOf, 2);
    const input = { conversations, clusters: [], corpus: emptyCorpus() };
    const reading = await readRound(workers, { reader: model(), embedder: embedding() }, input);

    expect(reading).toMatchObject({ engine: 'model', embedded: true, embeddingFailure: null });
    const assignments = reading.output.perConversation.map((c) => JSON.stringify(c.issues[0]!.cluster));
    expect(adjustedRandIndex(assignments, conversations.map((_, i) => String(groupOf(i))))).toBe(1);
    expect(reading.output.created.map((c) => [c.issueCount, c.embedding?.model, c.embedding?.count])).toEqual([
      [12, 'stand-in-embedding', 12],
      [12, 'stand-in-embedding', 12],
    ]);
    // The same issues without embeddings go by their words: the topics, not the two groups.
    const byTerms = await readRound(workers, { reader: model(), embedder: null }, input);
    const termAssignments = byTerms.output.perConversation.map((c) => JSON.stringify(c.issues[0]!.cluster));
    const byGroup = adjustedRandIndex(termAssignments, conversations.map((_, i) => String(groupOf(i))));
    expect(byGroup).toBeLessThan(0.5);
    expect(adjustedRandIndex(termAssignments, conversations.map((c) => c.label.topic))).toBeGreaterThan(byGroup);
  });

  it('places a round by terms among the same clusters when embedding fails, and embeds the default engine’s issues', async () => {
    const conversations = loadLabelledSet(['webhooks', 'custom-domains']).conversations.filter((c) => c.label.hasDocIssue);
    const [early, late] = [conversations.filter((_, i) => i % 2 === 0).slice(0, 10), conversations.filter((_, i) => i % 2 === 1).slice(0, 10)];
    const first = await readRound(workers, { reader: model(), embedder: embedding() }, { conversations: early, clusters: [], corpus: emptyCorpus() });
    expect(first.embedded).toBe(true);
    const clusters = first.output.created.map((cluster, i) => ({ ...cluster, id: `c${i}` }));

    standIn.failAlways('status-500', 'embed');
    const second = await readRound(workers, { reader: model(), embedder: embedding({ retries: 0 }) }, { conversations: late, clusters, corpus: first.output.corpus });
    expect(second).toMatchObject({ engine: 'model', embedded: false, embeddingFailure: { reason: 'http' } });
    // Every cluster kept its term centroid, so the later issues join the clusters the first round made.
    const joined = second.output.perConversation.flatMap((c) => c.issues.map((issue) => issue.cluster)).filter((cluster) => 'existing' in cluster);
    expect(joined.length).toBeGreaterThan(late.length / 2);
    // Clusters they joined keep the embedding centroid they had: nothing embedded joined them.
    for (const changed of second.output.clusters) expect(changed.embedding).toEqual(clusters.find((c) => c.id === changed.id)!.embedding);

    standIn.failAlways(null);
    standIn.requests.length = 0;
    const byDefault = await readRound(workers, { reader: null, embedder: embedding() }, { conversations: late, clusters: [], corpus: emptyCorpus() });
    expect(byDefault).toMatchObject({ engine: 'default', embedded: true });
    expect(standIn.requests.every((r) => r.kind === 'embed')).toBe(true);
  });
});

describe('insightsModelConfig', () => {
  it('is null without INSIGHTS_PROVIDER (an empty one included): the default engine only', () => {
    expect(insightsModelConfig({})).toBeNull();
    expect(insightsModelConfig({ INSIGHTS_PROVIDER: '', INSIGHTS_URL: 'http://ignored.example' })).toBeNull();
  });

  it('defaults to OpenAI, its default model, 60 s and 2 retries', () => {
    expect(insightsModelConfig({ INSIGHTS_PROVIDER: 'openai', INSIGHTS_API_KEY: '' })).toEqual({
      provider: 'openai',
      url: 'https://api.openai.com/v1',
      apiKey: null,
      model: 'gpt-4o-mini',
      timeoutMs: 60_000,
      retries: 2,
      embeddingModel: null,
      embeddingSimilarity: null,
    });
    expect(
      insightsModelConfig({ INSIGHTS_PROVIDER: 'openai', INSIGHTS_URL: 'http://localhost:11434/v1/', INSIGHTS_API_KEY: 'k', INSIGHTS_MODEL: 'llama3.1', INSIGHTS_TIMEOUT_MS: '5000', INSIGHTS_RETRIES: '0' }),
    ).toEqual({ provider: 'openai', url: 'http://localhost:11434/v1', apiKey: 'k', model: 'llama3.1', timeoutMs: 5000, retries: 0, embeddingModel: null, embeddingSimilarity: null });
  });

  it('takes an embedding model and its similarity', () => {
    expect(insightsModelConfig({ INSIGHTS_PROVIDER: 'openai', INSIGHTS_EMBEDDING_MODEL: 'text-embedding-3-small', INSIGHTS_EMBEDDING_SIMILARITY: '0.62' })).toMatchObject({
      embeddingModel: 'text-embedding-3-small',
      embeddingSimilarity: 0.62,
    });
    expect(insightsModelConfig({ INSIGHTS_PROVIDER: 'openai', INSIGHTS_EMBEDDING_MODEL: '', INSIGHTS_EMBEDDING_SIMILARITY: '' })).toMatchObject({ embeddingModel: null, embeddingSimilarity: null });
  });

  it('refuses what it cannot use', () => {
    expect(() => insightsModelConfig({ INSIGHTS_PROVIDER: 'anthropic' })).toThrow(/^Invalid configuration: INSIGHTS_PROVIDER/);
    expect(() => insightsModelConfig({ INSIGHTS_PROVIDER: 'openai', INSIGHTS_URL: 'ftp://x' })).toThrow(/INSIGHTS_URL/);
    expect(() => insightsModelConfig({ INSIGHTS_PROVIDER: 'openai', INSIGHTS_RETRIES: '-1' })).toThrow(/INSIGHTS_RETRIES/);
    for (const similarity of ['0', '1', '1.5', 'high']) {
      expect(() => insightsModelConfig({ INSIGHTS_PROVIDER: 'openai', INSIGHTS_EMBEDDING_SIMILARITY: similarity })).toThrow(/INSIGHTS_EMBEDDING_SIMILARITY/);
    }
  });
});

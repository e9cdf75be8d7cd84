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
import { CONCURRENT_REQUESTS, CONVERSATIONS_PER_REQUEST, createInsightsModel, DESCRIBE_PROMPT, READ_PROMPT, readConversations, type InsightsModelOptions } from '../../src/insights/model-engine.ts';
import type { Conversation } from '../../src/insights/types.ts';
import { emptyCorpus } from '../../src/insights/vectors.ts';
import { createWorkerPool, type WorkerPool } from '../../src/worker-pool.ts';
import { loadLabelledSet } from './labelled-set.ts';
import { MARK, startModelStandIn, type Failure, type ModelStandIn } from './model-stand-in.ts';

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
    const { output, engine, failure } = await readConversations(workers, model(), { conversations: withIssues, clusters: [], corpus: emptyCorpus() });

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
    const reading = await readConversations(workers, model({ retries: 2 }), input);

    expect(reading.engine).toBe('default');
    expect(reading.failure).toMatchObject({ reason: 'http', httpStatus: 500 });
    expect(reading.output).toEqual(processConversationBatch(input));
    expect(reading.output.perConversation.map((c) => c.key)).toEqual(withIssues.map((c) => c.id));
    expect(standIn.requests.filter((r) => r.outcome === 'status-500').length).toBeGreaterThanOrEqual(3);
  });

  it('reads with the default engine when there is no model', async () => {
    const input = { conversations: withIssues, clusters: [], corpus: emptyCorpus() };
    expect(await readConversations(workers, null, input)).toEqual({ output: processConversationBatch(input), engine: 'default', failure: null });
    expect(standIn.requests).toHaveLength(0);
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
    });
    expect(
      insightsModelConfig({ INSIGHTS_PROVIDER: 'openai', INSIGHTS_URL: 'http://localhost:11434/v1/', INSIGHTS_API_KEY: 'k', INSIGHTS_MODEL: 'llama3.1', INSIGHTS_TIMEOUT_MS: '5000', INSIGHTS_RETRIES: '0' }),
    ).toEqual({ provider: 'openai', url: 'http://localhost:11434/v1', apiKey: 'k', model: 'llama3.1', timeoutMs: 5000, retries: 0 });
  });

  it('refuses what it cannot use', () => {
    expect(() => insightsModelConfig({ INSIGHTS_PROVIDER: 'anthropic' })).toThrow(/^Invalid configuration: INSIGHTS_PROVIDER/);
    expect(() => insightsModelConfig({ INSIGHTS_PROVIDER: 'openai', INSIGHTS_URL: 'ftp://x' })).toThrow(/INSIGHTS_URL/);
    expect(() => insightsModelConfig({ INSIGHTS_PROVIDER: 'openai', INSIGHTS_RETRIES: '-1' })).toThrow(/INSIGHTS_RETRIES/);
  });
});

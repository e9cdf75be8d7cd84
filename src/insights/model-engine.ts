/**
 * The optional model engine of docs insights (INSIGHTS_PROVIDER=openai): an
 * OpenAI-compatible chat-completions API reads conversations (their
 * documentation issues: title, details, impact) and names clusters (label
 * and summary). Everything else stays the default engine's: the terms of an
 * issue (from its title and details, ./extract.ts `issueTerms`), the
 * clustering, a cluster's icon and impact. This is the one module of
 * insights/ that uses the network; it only waits, so it runs on the job's
 * thread, and the CPU work stays on the worker pool (./off-thread.ts).
 *
 * Contract of the prompts (each request asks for `response_format:
 * json_object`):
 * - reading: the user message is `{"conversations": [{"id", "subject",
 *   "messages": [{"role", "text"}]}]}` (CONVERSATIONS_PER_REQUEST at most);
 *   the answer `{"conversations": [{"id", "issues": [{"title", "details",
 *   "impact": "low" | "medium" | "high"}]}]}` names every id asked, an empty
 *   `issues` for a conversation without a documentation issue.
 * - describing: the user message is `{"issueCount", "issues": [{"title",
 *   "details"}]}` (the cluster's latest DESCRIBE_ISSUES); the answer
 *   `{"label", "summary"}`.
 * - embedding (only with an embedding model): `POST <url>/embeddings` with
 *   `{"model", "input": [texts]}` (EMBEDDING_INPUTS_PER_REQUEST at most), the
 *   answer `{"data": [{"index", "embedding": [numbers]}]}`, one per text, all
 *   of one length.
 *
 * Every failure (network, timeout, an HTTP error status, a body or content
 * that is not JSON, JSON that is not that answer, a refusal, an answer cut at
 * the token limit) is an InsightsModelError; a request is sent again
 * `retries` times, after retryDelayMs, then twice that, and so on, before
 * the error reaches the caller (which falls back to the default engine).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { z } from 'zod';
import { CONVERSATION_IMPACTS } from '../db/value-sets.ts';
import { InsightsModelError } from '../errors/external.ts';
import { chatCompletionsUrl, openAIEndpoint, postJson, snippet, stripJsonFence } from '../json-http.ts';
import type { WorkerPool } from '../worker-pool.ts';
import { embeddingText, type ConversationBatchInput, type ConversationBatchOutput, type PlaceIssuesInput, type ReadIssue } from './batch.ts';
import { extractIssuesOffThread, placeIssuesOffThread } from './off-thread.ts';
import type { Conversation, IssueEmbeddings } from './types.ts';

/** Options of `createInsightsModel`. */
export interface InsightsModelOptions {
  /** API root, e.g. `https://api.openai.com/v1`. */
  url: string;
  /** Sent as `Authorization: Bearer`; local servers may need none. */
  apiKey?: string | null;
  model: string;
  /** Time allowed for one request. */
  timeoutMs: number;
  /** Times a failed request is sent again. */
  retries: number;
  /** Pause before the first retry, doubled for each next one (default RETRY_DELAY_MS). */
  retryDelayMs?: number;
  /** The embedding model issues are placed by (null: by terms only). */
  embeddingModel?: string | null;
  /** Cosine at or above which embedded issues join a cluster or form one (default EMBEDDING_SIMILARITY). */
  embeddingSimilarity?: number;
}

export interface ReadOptions {
  signal?: AbortSignal;
  /** Told after each request answered (the caller renews its lock: a large round takes many requests). */
  onAnswer?: () => Promise<void> | void;
}

export interface InsightsModel {
  /** The issues of each conversation (`key` is its id), in the order given. */
  readIssues(conversations: Conversation[], options?: ReadOptions): Promise<{ key: string; issues: ReadIssue[] }[]>;
  /** A cluster's label and summary from its latest issues. */
  describeCluster(issues: { title: string; details: string }[], issueCount: number, options?: ReadOptions): Promise<{ label: string; summary: string }>;
  /** Embeds issues, when an embedding model is set (null otherwise). */
  embedder: IssueEmbedder | null;
}

export interface IssueEmbedder {
  model: string;
  similarity: number;
  /** One embedding per text, in order, all of one length. */
  embed(texts: string[], options?: ReadOptions): Promise<number[][]>;
}

/** Conversations per reading request: few enough that the answer fits a model's output limit. */
export const CONVERSATIONS_PER_REQUEST = 5;
/** Reading requests in flight at once. */
export const CONCURRENT_REQUESTS = 4;
/** Messages of a conversation sent (its first ones), and characters of each. */
export const MAX_MESSAGES = 40;
export const MAX_MESSAGE_CHARS = 4_000;
/** Issues of a cluster its description is asked from (its latest). */
export const DESCRIBE_ISSUES = 20;
/** Pause before the first retry when the options name none. */
export const RETRY_DELAY_MS = 500;
/** Texts per embedding request. */
export const EMBEDDING_INPUTS_PER_REQUEST = 64;
/** Characters of an issue's text sent to be embedded. */
export const MAX_EMBEDDING_CHARS = 8_000;
/**
 * Default cosine of embeddings at or above which an issue joins a cluster:
 * OpenAI's text-embedding-3 models put texts on one topic at about 0.5 and
 * above, unrelated ones at 0.1 to 0.3. Other models spread differently
 * (INSIGHTS_EMBEDDING_SIMILARITY).
 */
export const EMBEDDING_SIMILARITY = 0.5;

const LABEL = 'The insights model API';

const completionSchema = z.object({
  choices: z.array(z.object({ message: z.object({ content: z.string().nullable().optional(), refusal: z.string().nullable().optional() }), finish_reason: z.string().nullable().optional() })).min(1),
});
const clipped = (max: number) => z.string().trim().min(1).transform((text) => (text.length > max ? `${text.slice(0, max - 1)}…` : text));
const issueSchema = z.object({ title: clipped(200), details: clipped(2_000), impact: z.enum(CONVERSATION_IMPACTS) });
const readingSchema = z.object({ conversations: z.array(z.object({ id: z.string(), issues: z.array(issueSchema).max(10) })) });
const descriptionSchema = z.object({ label: clipped(80), summary: clipped(2_000) });
const embeddingsSchema = z.object({ data: z.array(z.object({ index: z.number().int().min(0), embedding: z.array(z.number().finite()).min(1) })) });

export const READ_PROMPT = [
  'You read support conversations between users of a product and its support team, to find gaps and errors in the product documentation.',
  'The user message is a JSON object {"conversations": [{"id": "...", "subject": "...", "messages": [{"role": "user" | "assistant" | "team-member", "text": "..."}]}]}.',
  'For each conversation, list the documentation issues it shows: something the documentation does not explain, explains wrongly, or explains where users cannot find it.',
  'A conversation without such an issue (a product bug, an account question answered by support, thanks) has none.',
  'Each issue has "title": a short phrase naming its topic (at most 12 words); "details": one to three sentences, drawn from the conversation, saying what is missing or wrong;',
  '"impact": "high" when the user is blocked, in production or at a deadline, "low" for a typo or a nice-to-have, "medium" otherwise.',
  'Answer with only a JSON object {"conversations": [{"id": "...", "issues": [{"title": "...", "details": "...", "impact": "medium"}]}]} naming every conversation id once, in the order given.',
].join('\n');

export const DESCRIBE_PROMPT = [
  'You name clusters of documentation issues found in support conversations, for the documentation team.',
  'The user message is a JSON object {"issueCount": n, "issues": [{"title": "...", "details": "..."}]}: the latest issues of one cluster and how many it holds.',
  'Answer with only a JSON object {"label": "...", "summary": "..."}: "label" names the theme in two to five words (e.g. "Webhook signature verification");',
  '"summary" says in one to three sentences what the documentation is missing or gets wrong.',
].join('\n');

/** A conversation as the reading prompt shows it. */
function promptConversation(conversation: Conversation) {
  return {
    id: conversation.id,
    subject: conversation.subject ?? '',
    messages: conversation.parts.slice(0, MAX_MESSAGES).map((part) => ({ role: part.role, text: (part.body ?? '').slice(0, MAX_MESSAGE_CHARS) })),
  };
}

function chunks<T>(items: T[], size: number): T[][] {
  const out: T[][] = [];
  for (let start = 0; start < items.length; start += size) out.push(items.slice(start, start + size));
  return out;
}

export function createInsightsModel(options: InsightsModelOptions): InsightsModel {
  const endpoint = chatCompletionsUrl(options.url);
  const headers: Record<string, string> = options.apiKey ? { authorization: `Bearer ${options.apiKey}` } : {};
  const retryDelayMs = options.retryDelayMs ?? RETRY_DELAY_MS;
  const fail = (reason: 'http' | 'timeout' | 'network' | 'malformed', message: string, details: { httpStatus?: number; cause?: unknown }) => new InsightsModelError(reason, message, details);

  /** One chat request; the answer's JSON content, checked against `schema`. */
  async function ask<T>(system: string, user: unknown, schema: z.ZodType<T>, signal?: AbortSignal): Promise<T> {
    const body = {
      model: options.model,
      messages: [
        { role: 'system', content: system },
        { role: 'user', content: JSON.stringify(user) },
      ],
      response_format: { type: 'json_object' },
    };
    const json = await postJson(endpoint, body, { label: LABEL, headers, timeoutMs: options.timeoutMs, signal, fail });
    const answer = completionSchema.safeParse(json);
    if (!answer.success) throw new InsightsModelError('invalid', `${LABEL} answered without choices[0].message: ${snippet(JSON.stringify(json))}`);
    const [choice] = answer.data.choices;
    if (choice.message.refusal) throw new InsightsModelError('invalid', `the model refused: ${snippet(choice.message.refusal)}`);
    if (choice.finish_reason === 'length') throw new InsightsModelError('invalid', 'the answer was cut at the token limit');
    const content = choice.message.content ?? '';
    let parsed: unknown;
    try {
      parsed = JSON.parse(stripJsonFence(content));
    } catch (error) {
      throw new InsightsModelError('malformed', `the model's answer is not JSON: ${snippet(content)}`, { cause: error });
    }
    const result = schema.safeParse(parsed);
    if (!result.success) throw new InsightsModelError('invalid', `the model's answer is not the JSON asked for (${result.error.issues[0]?.path.join('.') || 'root'}: ${result.error.issues[0]?.message}): ${snippet(content)}`);
    return result.data;
  }

  /** `attempt`, sent again after each InsightsModelError, `retries` times; an abort stops at once. */
  async function withRetries<T>(attempt: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    for (let tried = 0; ; tried++) {
      try {
        return await attempt();
      } catch (error) {
        signal?.throwIfAborted();
        if (!(error instanceof InsightsModelError) || tried >= options.retries) throw error;
        await sleep(retryDelayMs * 2 ** tried, undefined, { signal });
      }
    }
  }

  async function readChunk(conversations: Conversation[], signal?: AbortSignal): Promise<ReadIssue[][]> {
    const answer = await ask(READ_PROMPT, { conversations: conversations.map(promptConversation) }, readingSchema, signal);
    const byId = new Map(answer.conversations.map((c) => [c.id, c.issues]));
    const missing = conversations.filter((c) => !byId.has(c.id));
    if (missing.length > 0) throw new InsightsModelError('invalid', `the model's answer names no conversation ${missing.map((c) => JSON.stringify(c.id)).join(', ')}`);
    return conversations.map((c) => byId.get(c.id)!);
  }

  /**
   * `work` on each of `parts`, CONCURRENT_REQUESTS at once, answers in the
   * order of `parts`; the first failure (retries spent) stops the other
   * requests and is thrown: the caller does the whole round another way.
   */
  async function inLanes<P, A>(parts: P[], work: (part: P, signal: AbortSignal) => Promise<A>, { signal, onAnswer }: ReadOptions): Promise<A[]> {
    const answers: A[] = [];
    const stop = new AbortController();
    const linked = signal ? AbortSignal.any([signal, stop.signal]) : stop.signal;
    let next = 0;
    const lane = async () => {
      while (next < parts.length) {
        const index = next++;
        answers[index] = await withRetries(() => work(parts[index]!, linked), linked);
        await onAnswer?.();
      }
    };
    const lanes = Array.from({ length: Math.min(CONCURRENT_REQUESTS, parts.length) }, () =>
      lane().catch((error: unknown) => {
        stop.abort(error);
        throw error;
      }),
    );
    const settled = await Promise.allSettled(lanes);
    signal?.throwIfAborted();
    const failed = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected');
    // The lane that failed first holds the error (the others rejected with it as the abort's reason).
    if (failed) throw stop.signal.reason ?? failed.reason;
    return answers;
  }

  /** One embedding request: an embedding per text, in order. */
  async function embedChunk(model: string, texts: string[], signal: AbortSignal): Promise<number[][]> {
    const json = await postJson(embeddingsEndpoint, { model, input: texts }, { label: LABEL, headers, timeoutMs: options.timeoutMs, signal, fail });
    const answer = embeddingsSchema.safeParse(json);
    if (!answer.success) throw new InsightsModelError('invalid', `${LABEL} answered embeddings not as asked (${answer.error.issues[0]?.path.join('.') || 'root'}: ${answer.error.issues[0]?.message}): ${snippet(JSON.stringify(json))}`);
    const byIndex = new Map(answer.data.data.map((item) => [item.index, item.embedding]));
    const vectors = texts.map((_, index) => byIndex.get(index));
    const missing = vectors.findIndex((vector) => vector === undefined);
    if (missing >= 0 || byIndex.size !== texts.length) throw new InsightsModelError('invalid', `${LABEL} answered ${answer.data.data.length} embeddings for ${texts.length} texts`);
    if (vectors.some((vector) => vector!.every((value) => value === 0))) throw new InsightsModelError('invalid', `${LABEL} answered an embedding of zeros`);
    return vectors as number[][];
  }

  const embeddingsEndpoint = openAIEndpoint(options.url, 'embeddings');
  const embeddingModel = options.embeddingModel ?? null;
  const embedder: IssueEmbedder | null = embeddingModel
    ? {
        model: embeddingModel,
        similarity: options.embeddingSimilarity ?? EMBEDDING_SIMILARITY,
        async embed(texts, readOptions = {}) {
          const clippedTexts = texts.map((text) => text.slice(0, MAX_EMBEDDING_CHARS));
          const vectors = (await inLanes(chunks(clippedTexts, EMBEDDING_INPUTS_PER_REQUEST), (part, signal) => embedChunk(embeddingModel, part, signal), readOptions)).flat();
          const length = vectors[0]?.length;
          if (vectors.some((vector) => vector.length !== length)) throw new InsightsModelError('invalid', `${LABEL} answered embeddings of different lengths`);
          return vectors;
        },
      }
    : null;

  return {
    async readIssues(conversations, readOptions = {}) {
      const answers = await inLanes(chunks(conversations, CONVERSATIONS_PER_REQUEST), (part, signal) => readChunk(part, signal), readOptions);
      const issues = answers.flat();
      return conversations.map((conversation, i) => ({ key: conversation.id, issues: issues[i]! }));
    },

    async describeCluster(issues, issueCount, { signal } = {}) {
      const sample = issues.slice(0, DESCRIBE_ISSUES).map((issue) => ({ title: issue.title, details: issue.details.slice(0, MAX_MESSAGE_CHARS) }));
      return withRetries(() => ask(DESCRIBE_PROMPT, { issueCount, issues: sample }, descriptionSchema, signal), signal);
    },

    embedder,
  };
}

/** What `readRound` answers: the round placed, which engine read it and whether embeddings placed it, with the model's failures. */
export interface RoundReading {
  output: ConversationBatchOutput;
  engine: 'model' | 'default';
  /** Why the default engine read although a model was given (its retries spent). */
  failure: InsightsModelError | null;
  /** Whether the issues were placed by their embeddings. */
  embedded: boolean;
  /** Why the issues were placed by terms only although an embedder was given (its retries spent). */
  embeddingFailure: InsightsModelError | null;
}

/** What reads a round: `reader` its conversations (null: the default engine), `embedder` its issues' embeddings (null: none). */
export interface RoundEngines {
  reader: InsightsModel | null;
  embedder: IssueEmbedder | null;
}

/**
 * A batch read and placed: read by `reader`, or by the default engine when
 * there is none or it failed (retries spent), so every conversation is read
 * either way; its issues embedded by `embedder` and placed by their
 * embeddings, or by terms alone when there is none or it failed. The CPU
 * parts (the default engine's reading, the placing) run on the pool. An
 * abort, or any error other than the model's, is thrown.
 */
export async function readRound(workers: WorkerPool, { reader, embedder }: RoundEngines, input: ConversationBatchInput, options: ReadOptions = {}): Promise<RoundReading> {
  let failure: InsightsModelError | null = null;
  let perConversation: PlaceIssuesInput['perConversation'] | null = null;
  if (reader) {
    try {
      perConversation = await reader.readIssues(input.conversations, options);
    } catch (error) {
      options.signal?.throwIfAborted();
      if (!(error instanceof InsightsModelError)) throw error;
      failure = error;
    }
  }
  const engine = perConversation ? 'model' : 'default';
  perConversation ??= await extractIssuesOffThread(workers, input.conversations, options.signal);

  let embeddings: IssueEmbeddings | null = null;
  let embeddingFailure: InsightsModelError | null = null;
  const issues = perConversation.flatMap((conversation) => conversation.issues);
  if (embedder && issues.length > 0) {
    try {
      embeddings = { model: embedder.model, similarity: embedder.similarity, vectors: await embedder.embed(issues.map(embeddingText), options) };
    } catch (error) {
      options.signal?.throwIfAborted();
      if (!(error instanceof InsightsModelError)) throw error;
      embeddingFailure = error;
    }
  }
  const output = await placeIssuesOffThread(workers, { perConversation, clusters: input.clusters, corpus: input.corpus, embeddings }, options.signal);
  return { output, engine, failure, embedded: embeddings !== null, embeddingFailure };
}

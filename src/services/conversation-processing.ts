/**
 * The `conversation-processing` job: reads an organization's conversations waiting since they were
 * ingested (`processedAt` null), in batches of BATCH in the order they came, finds their
 * documentation issues and places them in clusters with the default engine (src/insights, on the
 * jobs' worker pool), then describes every cluster that changed. One job of an organization
 * clusters at a time (ConversationInsightsState's lock): two at once would each start a cluster
 * for the same new theme. Ingests gather into the job waiting to run (JobStore.gather), so a
 * burst of ingests is a few batches, not a job each.
 *
 * With INSIGHTS_PROVIDER set, the optional model engine (src/insights/model-engine.ts) reads each
 * round and names the clusters it changed; when it fails (its retries spent) the round is read by
 * the default engine instead, and so is the rest of the job (the next job asks the model again).
 * With INSIGHTS_EMBEDDING_MODEL too, each round's issues are embedded and placed by their
 * embeddings (clusters keep an embedding centroid beside their term centroid); when embedding fails,
 * the round and the rest of the job place by terms among the same clusters.
 * The job's result says which engine read each round and whether embeddings placed it (`rounds`),
 * how many rounds the default engine read although the model is configured (`fallbacks`), how many
 * rounds were placed by terms although embeddings are configured (`embeddingFallbacks`) and how
 * many clusters the model named (`clustersNamedByModel`).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { textDocument } from '../content/document/text.ts';
import type { Db, Prisma } from '../db/client.ts';
import { jsonInput } from '../db/json.ts';
import type { ConversationImpact } from '../db/value-sets.ts';
import { InsightsModelError } from '../errors/external.ts';
import { newId } from '../ids.ts';
import type { JobContext, JobHandler } from '../jobs/runner.ts';
import { createInsightsModel, readRound, type InsightsModel, type IssueEmbedder } from '../insights/model-engine.ts';
import { highestImpact } from '../insights/describe.ts';
import { describeClustersOffThread } from '../insights/off-thread.ts';
import type { ClusterAssignment, Conversation, CorpusStats, EmbeddingCentroid, Terms } from '../insights/types.ts';
import { emptyCorpus } from '../insights/vectors.ts';

/** Conversations read per round (one transaction of writes each). */
const BATCH = 200;
/** The most recent issues of a cluster its description is made from. */
const DESCRIBE_SAMPLE = 50;
/** How long the clustering lock holds without being renewed (a dead worker's lock expires). */
const LOCK_MS = 10 * 60_000;
/** How often a job waiting for another's lock looks again. */
const LOCK_POLL_MS = 200;

function storedCorpus(value: Prisma.JsonValue | undefined): CorpusStats {
  const corpus = value as Partial<CorpusStats> | null | undefined;
  return corpus && typeof corpus.documents === 'number' && corpus.frequencies && typeof corpus.frequencies === 'object' ? (corpus as CorpusStats) : emptyCorpus();
}

/** Takes (or renews) the organization's clustering lock for this job, waiting while another live job holds it. */
async function holdClustering(ctx: JobContext, organizationId: string): Promise<void> {
  for (;;) {
    const now = new Date();
    const taken = await ctx.db.conversationInsightsState.updateMany({
      where: { organizationId, OR: [{ lockJobId: null }, { lockJobId: ctx.job.id }, { lockExpiresAt: { lt: now } }] },
      data: { lockJobId: ctx.job.id, lockExpiresAt: new Date(now.getTime() + LOCK_MS) },
    });
    if (taken.count === 1) return;
    const exists = await ctx.db.conversationInsightsState.findUnique({ where: { organizationId }, select: { organizationId: true } });
    if (!exists) {
      // The organization's first processing: make its state (a job racing us to it makes it instead).
      await ctx.db.conversationInsightsState.create({ data: { organizationId } }).catch(() => undefined);
      continue;
    }
    await sleep(LOCK_POLL_MS, undefined, { signal: ctx.signal });
  }
}

async function releaseClustering(db: Db, organizationId: string, jobId: string): Promise<void> {
  await db.conversationInsightsState.updateMany({ where: { organizationId, lockJobId: jobId }, data: { lockJobId: null, lockExpiresAt: null } });
}

/**
 * Which engines a job's rounds use: the model reads until it fails, then the default engine for
 * the rest of the job; embeddings place issues until they fail, then terms for the rest of the job
 * (each on its own: a chat model that fails leaves the embeddings working, and the other way round).
 */
interface Engines {
  model: InsightsModel | null;
  embedder: IssueEmbedder | null;
  /** Whether INSIGHTS_PROVIDER is set (`model` goes null once it failed). */
  configured: boolean;
  /** Whether INSIGHTS_EMBEDDING_MODEL is set too (`embedder` goes null once it failed). */
  embeddingsConfigured: boolean;
  /** Rounds the default engine read although the model is configured (it had failed). */
  fallbacks: number;
  /** Rounds with issues placed by terms although embeddings are configured (they had failed). */
  embeddingFallbacks: number;
  /** Clusters the model named (label and summary). */
  clustersNamed: number;
}

function engines(ctx: JobContext): Engines {
  const settings = ctx.config.insights.model;
  const model = settings
    ? createInsightsModel({
        url: settings.url,
        apiKey: settings.apiKey,
        model: settings.model,
        timeoutMs: settings.timeoutMs,
        retries: settings.retries,
        embeddingModel: settings.embeddingModel,
        embeddingSimilarity: settings.embeddingSimilarity ?? undefined,
      })
    : null;
  return { model, embedder: model?.embedder ?? null, configured: model !== null, embeddingsConfigured: model?.embedder != null, fallbacks: 0, embeddingFallbacks: 0, clustersNamed: 0 };
}

/** Logs a model failure; `what` says what the default engine (or terms) does instead, for the rest of this job too. */
function modelFailed(ctx: JobContext, error: unknown, what: string): void {
  ctx.signal.throwIfAborted();
  const retries = ctx.config.insights.model?.retries ?? 0;
  ctx.log.warn({ err: error, jobId: ctx.job.id, organizationId: ctx.job.organizationId }, `The insights model failed (after ${retries} ${retries === 1 ? 'retry' : 'retries'}); ${what} and the rest of this job`);
}

/** A stored embedding centroid, or null for anything else (a column written by no embedding round). */
function storedEmbedding(value: Prisma.JsonValue | null): EmbeddingCentroid | null {
  const embedding = value as Partial<EmbeddingCentroid> | null;
  return embedding && typeof embedding.model === 'string' && typeof embedding.count === 'number' && Array.isArray(embedding.mean) ? (embedding as EmbeddingCentroid) : null;
}

export const conversationProcessingJob: JobHandler = async (ctx) => {
  const organizationId = ctx.job.organizationId;
  await ctx.progress('waiting for the clustering', 0);
  await holdClustering(ctx, organizationId);
  try {
    const waiting = await ctx.db.conversation.count({ where: { organizationId, processedAt: null } });
    const engine = engines(ctx);
    const totals = { conversations: 0, issues: 0, clustersCreated: 0, clustersDescribed: 0 };
    const rounds: { conversations: number; engine: 'model' | 'default'; embeddings: boolean }[] = [];
    for (;;) {
      ctx.signal.throwIfAborted();
      const batch = await ctx.db.conversation.findMany({
        where: { organizationId, processedAt: null },
        orderBy: [{ ingestedAt: 'asc' }, { id: 'asc' }],
        take: BATCH,
        select: { id: true, subject: true, parts: true, metadata: true, createdAt: true, source: true, contentHash: true },
      });
      if (batch.length === 0) break;
      await ctx.progress('finding documentation issues', Math.min(90, Math.round((totals.conversations / Math.max(waiting, 1)) * 90)), `${totals.conversations} of ${waiting} conversations`);
      const round = await processRound(ctx, organizationId, batch, engine);
      rounds.push({ conversations: round.conversations, engine: round.engine, embeddings: round.embedded });
      totals.conversations += round.conversations;
      totals.issues += round.issues;
      totals.clustersCreated += round.clustersCreated;
      totals.clustersDescribed += await describeClusters(ctx, round.touched, round.corpus, engine);
      await holdClustering(ctx, organizationId); // renews the lock between rounds
    }
    await ctx.progress('done', 100, `${totals.conversations} conversations, ${totals.issues} issues`);
    return { ...totals, rounds, fallbacks: engine.fallbacks, embeddingFallbacks: engine.embeddingFallbacks, clustersNamedByModel: engine.clustersNamed };
  } finally {
    await releaseClustering(ctx.db, organizationId, ctx.job.id);
  }
};

type BatchRow = { id: string; subject: string | null; parts: Prisma.JsonValue; metadata: Prisma.JsonValue; createdAt: Date; source: string; contentHash: string };

/** One round: the engine's reading of `batch`, written in one transaction. */
async function processRound(ctx: JobContext, organizationId: string, batch: BatchRow[], engine: Engines) {
  const [state, clusters] = await Promise.all([
    ctx.db.conversationInsightsState.findUnique({ where: { organizationId }, select: { corpus: true } }),
    ctx.db.issuesCluster.findMany({ where: { organizationId }, select: { id: true, centroid: true, issueCount: true, embedding: true }, orderBy: { id: 'asc' } }),
  ]);
  const conversations: Conversation[] = batch.map((row) => ({
    id: row.id,
    subject: row.subject,
    parts: row.parts as unknown as Conversation['parts'],
    metadata: row.metadata as Record<string, unknown>,
  }));
  const clusterStates = clusters.map((c) => ({ id: c.id, centroid: c.centroid as Terms, issueCount: c.issueCount, embedding: storedEmbedding(c.embedding) }));
  const corpus = storedCorpus(state?.corpus);
  // The model's requests wait on the network here; reading with the default engine, counting terms and clustering run on the pool.
  const reading = await readRound(ctx.workers, { reader: engine.model, embedder: engine.embedder }, { conversations, clusters: clusterStates, corpus }, { signal: ctx.signal, onAnswer: () => holdClustering(ctx, organizationId) });
  if (reading.failure) {
    engine.model = null;
    modelFailed(ctx, reading.failure, `the default engine reads these ${conversations.length} conversations`);
  }
  if (reading.embeddingFailure) {
    engine.embedder = null;
    modelFailed(ctx, reading.embeddingFailure, `the issues of these ${conversations.length} conversations are placed by their terms`);
  }
  if (reading.engine === 'default' && engine.configured) engine.fallbacks++;
  if (!reading.embedded && engine.embeddingsConfigured && reading.output.perConversation.some((c) => c.issues.length > 0)) engine.embeddingFallbacks++;
  const roundEngine = reading.engine;
  const roundEmbedded = reading.embedded;
  const out = reading.output;
  const createdIds = out.created.map(() => newId());
  const clusterOf = (assignment: ClusterAssignment) => ('existing' in assignment ? assignment.existing : createdIds[assignment.created]!);
  const rows = new Map(batch.map((row) => [row.id, row]));

  return ctx.db.$transaction(async (tx) => {
    // A conversation ingested again with other messages since it was read waits for the next round.
    const now = await tx.conversation.findMany({ where: { id: { in: batch.map((b) => b.id) } }, select: { id: true, contentHash: true, processedAt: true } });
    const unchanged = new Set(now.filter((c) => c.processedAt === null && c.contentHash === rows.get(c.id)!.contentHash).map((c) => c.id));
    const done = out.perConversation.filter((c) => unchanged.has(c.key));
    const doneIds = done.map((c) => c.key);

    // What these conversations held before (read again after an ingest changed them) goes.
    const previous = await tx.conversationIssue.findMany({ where: { conversationId: { in: doneIds } }, select: { clusterId: true } });
    await tx.conversationIssue.deleteMany({ where: { conversationId: { in: doneIds } } });
    const touched = new Set(previous.flatMap((issue) => (issue.clusterId ? [issue.clusterId] : [])));

    if (out.created.length > 0) {
      await tx.issuesCluster.createMany({
        data: out.created.map((cluster, i) => ({
          id: createdIds[i]!,
          organizationId,
          // Described once the round is written (describeClusters): these hold until then.
          label: 'New cluster',
          icon: 'circle-question',
          summary: jsonInput(textDocument('')),
          impact: 'low',
          centroid: jsonInput(cluster.centroid),
          embedding: cluster.embedding ? jsonInput(cluster.embedding) : undefined,
          issueCount: cluster.issueCount,
        })),
      });
    }
    for (const cluster of out.clusters) {
      await tx.issuesCluster.update({ where: { id: cluster.id }, data: { centroid: jsonInput(cluster.centroid), embedding: cluster.embedding ? jsonInput(cluster.embedding) : undefined }, select: { id: true } });
    }

    const issues = done.flatMap(({ key, issues }) =>
      issues.map((issue) => ({
        id: newId(),
        organizationId,
        conversationId: key,
        clusterId: clusterOf(issue.cluster),
        title: issue.title.slice(0, 500),
        details: jsonInput(textDocument(issue.details)),
        summary: issue.details,
        impact: issue.impact,
        terms: jsonInput(issue.terms),
        createdAt: rows.get(key)!.createdAt,
      })),
    );
    if (issues.length > 0) await tx.conversationIssue.createMany({ data: issues });
    for (const issue of issues) touched.add(issue.clusterId);

    const processedAt = new Date();
    for (const { key, issues: found } of done) {
      await tx.conversation.update({ where: { id: key }, data: { processedAt, impact: highestImpact(found.map((i) => i.impact)) } });
    }
    const counts = await recountClusters(tx, [...touched]);
    await tx.conversationInsightsState.update({ where: { organizationId }, data: { corpus: jsonInput(out.corpus) } });
    // What describing the changed clusters reads: their sizes and the corpus, as this round left them.
    const issueCounts = new Map([...counts].map(([id, count]) => [id, count.issues]));
    return { conversations: done.length, issues: issues.length, clustersCreated: out.created.length, touched: issueCounts, corpus: out.corpus, engine: roundEngine, embedded: roundEmbedded };
  });
}

/**
 * Counts the issues and conversations of `clusterIds` from their rows; a cluster left with no
 * issue (its conversations were read again and said otherwise) and no change request goes.
 */
async function recountClusters(tx: Prisma.TransactionClient, clusterIds: string[]): Promise<Map<string, { issues: number; conversations: number }>> {
  const counts = new Map<string, { issues: number; conversations: number }>();
  if (clusterIds.length === 0) return counts;
  const pairs = await tx.conversationIssue.groupBy({ by: ['clusterId', 'conversationId'], where: { clusterId: { in: clusterIds } }, _count: { _all: true } });
  for (const pair of pairs) {
    const count = counts.get(pair.clusterId!) ?? { issues: 0, conversations: 0 };
    count.issues += pair._count._all;
    count.conversations += 1;
    counts.set(pair.clusterId!, count);
  }
  for (const id of clusterIds) {
    const count = counts.get(id);
    if (count) await tx.issuesCluster.update({ where: { id }, data: { issueCount: count.issues, conversationCount: count.conversations } });
    else await tx.issuesCluster.deleteMany({ where: { id, changeRequests: { none: {} } } });
  }
  const emptied = clusterIds.filter((id) => !counts.has(id));
  if (emptied.length > 0) await tx.issuesCluster.updateMany({ where: { id: { in: emptied } }, data: { issueCount: 0, conversationCount: 0 } });
  return counts;
}

/**
 * Labels, icons, summaries and impacts of the clusters a round changed (`touched`: their issue
 * counts; a cluster the round emptied is not in it), from their latest issues.
 */
async function describeClusters(ctx: JobContext, touched: Map<string, number>, corpus: CorpusStats, engine: Engines): Promise<number> {
  const clusterIds = [...touched.keys()];
  if (clusterIds.length === 0) return 0;
  const samples = await Promise.all(
    clusterIds.map((id) =>
      ctx.db.conversationIssue.findMany({
        where: { clusterId: id },
        orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
        take: DESCRIBE_SAMPLE,
        select: { title: true, summary: true, terms: true, impact: true },
      }),
    ),
  );
  const kept = clusterIds.map((id, i) => ({ id, issues: samples[i]! })).filter((c) => c.issues.length > 0);
  if (kept.length === 0) return 0;
  const descriptions = await describeClustersOffThread(
    ctx.workers,
    {
      clusters: kept.map((c) => c.issues.map((issue) => ({ title: issue.title, details: issue.summary, terms: issue.terms as Terms, impact: issue.impact as ConversationImpact }))),
      corpus,
    },
    ctx.signal,
  );
  // The model names what it can (label and summary); icon and impact stay the default engine's rules.
  for (let i = 0; i < kept.length && engine.model; i++) {
    const { id, issues } = kept[i]!;
    try {
      const named = await engine.model.describeCluster(issues.map((issue) => ({ title: issue.title, details: issue.summary })), touched.get(id) ?? issues.length, { signal: ctx.signal });
      descriptions[i] = { ...descriptions[i]!, label: named.label, summary: named.summary };
      engine.clustersNamed++;
    } catch (error) {
      if (!(error instanceof InsightsModelError)) throw error;
      engine.model = null;
      modelFailed(ctx, error, `the default engine describes ${kept.length - i} clusters`);
    }
  }
  await ctx.db.$transaction(
    kept.map((cluster, i) => {
      const d = descriptions[i]!;
      return ctx.db.issuesCluster.update({
        where: { id: cluster.id },
        data: { label: d.label.slice(0, 200), icon: d.icon.slice(0, 50), summary: jsonInput(textDocument(d.summary)), impact: d.impact },
        select: { id: true },
      });
    }),
  );
  return kept.length;
}

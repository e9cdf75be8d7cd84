/**
 * The `openapi-processing` job: reads a spec's source (fetches its URL and the files its `$ref`s
 * name, or takes its stored text), parses and validates it on a worker thread
 * (src/openapi/process-source.ts), stores the files content-addressed and makes a version when
 * they differ from the latest one. The spec goes `pending` (queued) -> `progress` (running) ->
 * `complete`; a failure keeps the previous version as the latest and says why on the spec
 * (`lastProcessErrorCode`, `lastProcessedErrors`), and the job fails with the first reason.
 *
 * Only the spec's latest job (`processingJobId`) writes its outcome: a job a newer PUT superseded
 * read a source that is no longer the spec's.
 */
import { createHash } from 'node:crypto';
import type { AppConfig } from '../config.ts';
import { jsonInput } from '../db/json.ts';
import { newId } from '../ids.ts';
import type { JobContext, JobHandler } from '../jobs/runner.ts';
import { processOpenAPISourceOffThread, type OpenAPISource } from '../openapi/process-source.ts';
import { OPENAPI_ERRORS_KEPT, type StoredOpenAPIFile } from './openapi-spec.ts';
import { revalidateRenderer } from './renderer-revalidation.ts';

/** Processing limits from the configuration (OPENAPI_*, FETCH_ALLOW_PRIVATE_ADDRESSES). */
export function openAPIProcessingOptions(config: AppConfig) {
  return {
    maxBytes: config.openapi.maxBytes,
    maxFiles: config.openapi.maxFiles,
    timeoutMs: config.openapi.fetchTimeoutMs,
    allowPrivateAddresses: config.fetch.allowPrivateAddresses,
  };
}

/** Equal files (paths and contents), equal hash: what decides whether a version is new. */
function contentHash(files: readonly StoredOpenAPIFile[]): string {
  return createHash('sha256').update(JSON.stringify(files.map((file) => [file.path, file.key]))).digest('hex');
}

async function sourceOf(ctx: JobContext, spec: { sourceKind: string; sourceURL: string | null; sourceTextKey: string | null }): Promise<OpenAPISource> {
  if (spec.sourceKind === 'url') return { url: spec.sourceURL! };
  const bytes = await ctx.storage.get(spec.sourceTextKey!);
  if (!bytes) throw new Error('The text of this spec is missing from the storage');
  return { text: Buffer.from(bytes).toString('utf8') };
}

export const openAPIProcessingJob: JobHandler = async (ctx) => {
  const specId = ctx.job.openAPISpecId;
  const spec = specId ? await ctx.db.openAPISpec.findUnique({ where: { id: specId } }) : null;
  // Deleted since it was queued, or superseded by a newer PUT: nothing of this job's is wanted.
  if (!spec) return { deleted: true };
  if (spec.processingJobId !== ctx.job.id) return { superseded: true };
  const mine = { id: spec.id, processingJobId: ctx.job.id };
  await ctx.db.openAPISpec.updateMany({ where: mine, data: { processingState: 'progress' } });
  await ctx.progress(spec.sourceKind === 'url' ? 'fetching the document' : 'reading the document', 10);

  const result = await processOpenAPISourceOffThread(ctx.workers, await sourceOf(ctx, spec), {
    ...openAPIProcessingOptions(ctx.config),
    taskTimeoutMs: ctx.config.openapi.parseTimeoutMs,
    taskTimeoutSetting: 'OPENAPI_PARSE_TIMEOUT_MS',
    signal: ctx.signal,
  });
  const processedAt = new Date();
  if (!result.ok) {
    await ctx.db.openAPISpec.updateMany({
      where: mine,
      data: {
        processingState: 'complete',
        lastProcessedAt: processedAt,
        lastProcessErrorCode: result.code,
        lastProcessedErrors: jsonInput(result.errors.slice(0, OPENAPI_ERRORS_KEPT)),
        lastProcessedErrorCount: result.errorCount,
      },
    });
    const more = result.errorCount > 1 ? ` (and ${result.errorCount - 1} more)` : '';
    throw new Error(`${result.code}: ${result.errors[0]?.message ?? 'the document could not be processed'}${more}`);
  }

  await ctx.progress('storing the files', 80, `${result.files.length} file${result.files.length === 1 ? '' : 's'}`);
  const files: StoredOpenAPIFile[] = [];
  for (const file of result.files) {
    const { key, size } = await ctx.storage.put(Buffer.from(file.text, 'utf8'));
    files.push({ path: file.path, key, size, isEntrypoint: file.isEntrypoint, references: file.references });
  }
  const hash = contentHash(files);
  const outcome = await ctx.db.$transaction(async (tx) => {
    const current = await tx.openAPISpec.findUnique({ where: { id: spec.id } });
    if (!current || current.processingJobId !== ctx.job.id) {
      const superseded = { superseded: true };
      await ctx.complete(tx, superseded);
      return superseded;
    }
    const latest = current.lastVersionId ? await tx.openAPISpecVersion.findUnique({ where: { id: current.lastVersionId }, select: { id: true, contentHash: true } }) : null;
    let version = latest?.id ?? null;
    const changed = !latest || latest.contentHash !== hash;
    if (changed) {
      version = (
        await tx.openAPISpecVersion.create({
          data: { id: newId(), specId: spec.id, contentHash: hash, sourceURL: spec.sourceKind === 'url' ? spec.sourceURL : null, files: jsonInput(files) },
          select: { id: true },
        })
      ).id;
    }
    await tx.openAPISpec.update({
      where: { id: spec.id },
      data: {
        processingState: 'complete',
        lastVersionId: version,
        lastProcessedAt: processedAt,
        lastProcessErrorCode: null,
        lastProcessedErrors: jsonInput([]),
        lastProcessedErrorCount: 0,
      },
    });
    const done = { version, changed, files: files.length, openapi: result.version };
    await ctx.complete(tx, done);
    return done;
  });
  if ('changed' in outcome && outcome.changed) await revalidateRenderer(ctx, { kind: 'openapi-spec', spec });
  return outcome;
};

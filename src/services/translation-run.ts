/**
 * The translation-run job: translates the source space's current content
 * (segments cached by hash, so a second run sends only what changed) and
 * writes it as a new revision of the target space, with the translation's
 * statistics, in one transaction that also completes the job.
 */
import { documentPlainText } from '../content/document/text.ts';
import { loadSnapshot } from '../content/revision-store.ts';
import type { Db, Tx } from '../db/client.ts';
import type { JobHandler } from '../jobs/runner.ts';
import { translateRevision, type TranslationCache } from '../translation/translate-revision.ts';
import { createTranslator } from '../translation/translator.ts';
import { revalidateRenderer } from './renderer-revalidation.ts';
import { commitSpaceRevision } from './space-content.ts';
import { storedInstructions } from './translation.ts';

/** Keys per statement when reading the cache. */
const CACHE_READ_BATCH = 5000;

/** Translated segments in the database (TranslationSegment: the cache key, the target language, the text). */
export function databaseTranslationCache(db: Db | Tx, language: string): TranslationCache {
  return {
    async get(keys) {
      const found = new Map<string, string>();
      for (let i = 0; i < keys.length; i += CACHE_READ_BATCH) {
        const rows = await db.translationSegment.findMany({ where: { language, hash: { in: keys.slice(i, i + CACHE_READ_BATCH) } }, select: { hash: true, text: true } });
        for (const row of rows) found.set(row.hash, row.text);
      }
      return found;
    },
    async put(entries) {
      for (const [key, text] of entries) {
        await db.$executeRaw`INSERT INTO "TranslationSegment" ("hash", "language", "text") VALUES (${key}, ${language}, ${text}) ON CONFLICT DO NOTHING`;
      }
    },
  };
}

export const translationRunJob: JobHandler = async (ctx) => {
  const translation = await ctx.db.translation.findUniqueOrThrow({ where: { id: ctx.job.translationId! } });
  const translator = createTranslator(ctx.config.translation);
  if (!translator) throw new Error('No translation provider is configured (TRANSLATION_PROVIDER)');
  const started = Date.now();
  await ctx.progress('reading the source', 5);
  const [source, target] = await Promise.all([
    ctx.db.space.findUniqueOrThrow({ where: { id: translation.sourceSpaceId }, select: { revisionId: true, language: true } }),
    ctx.db.space.findUniqueOrThrow({ where: { id: translation.targetSpaceId }, select: { revisionId: true } }),
  ]);
  const [sourceContent, targetContent] = await Promise.all([
    loadSnapshot(ctx.db, source.revisionId, { documents: true }),
    loadSnapshot(ctx.db, target.revisionId, { documents: false }),
  ]);
  const instructions = documentPlainText(storedInstructions(translation.instructions)).trim() || null;
  let reported = 0;
  const { snapshot, stats } = await translateRevision({
    source: sourceContent,
    previousTarget: targetContent,
    translator,
    target: translation.language,
    sourceLanguage: translation.sourceLanguage ?? source.language,
    instructions,
    cache: databaseTranslationCache(ctx.db, translation.language),
    signal: ctx.signal,
    onProgress: (p) => {
      if (p.step !== 'translate' || p.total === 0) return;
      const percent = 10 + Math.floor((80 * p.done) / p.total);
      if (percent < reported + 5 && p.done !== p.total) return;
      reported = percent;
      void ctx.progress('translating', percent, `${p.done} of ${p.total} segments`).catch(() => undefined);
    },
  });
  await ctx.progress('writing the translation', 92, `${stats.pages} pages`);
  const seconds = Math.round((Date.now() - started) / 1000);
  await ctx.db.$transaction(async (tx) => {
    const revision = await commitSpaceRevision(tx, ctx.provider, {
      spaceId: translation.targetSpaceId,
      expectedRevisionId: target.revisionId,
      previous: targetContent,
      snapshot,
      type: 'edits',
      createdById: ctx.job.createdById,
    });
    await tx.translation.update({
      where: { id: translation.id },
      data: {
        resultRevisionId: revision,
        runs: { increment: 1 },
        totalWords: { increment: stats.words },
        totalPages: Math.max(translation.totalPages, stats.pages),
        totalDuration: { increment: seconds },
        latestRunDuration: seconds,
        latestPages: stats.pages,
        latestWords: stats.words,
      },
    });
    await ctx.complete(tx, { revision, space: translation.targetSpaceId, ...stats });
  });
  await revalidateRenderer(ctx, { kind: 'space', space: { id: translation.targetSpaceId, organizationId: ctx.job.organizationId } });
  return {};
};

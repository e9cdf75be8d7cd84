/**
 * The Git Sync jobs. Import: clone the branch, turn its files into the space's
 * content (src/git-sync/layout.ts), write it as a new revision. Export: write
 * the space's content in the same layout, commit and push. Both can run again
 * after a crash without doubling anything: the import's revision and the job's
 * success commit in one transaction, and an export of content already on the
 * branch makes no commit.
 */
import { createHash } from 'node:crypto';
import { stringify } from 'safe-stable-stringify';
import { loadSnapshot, writeRevision } from '../content/revision-store.ts';
import type { RevisionSnapshot } from '../content/snapshot.ts';
import type { Prisma, Tx } from '../db/client.ts';
import { decryptCredentials } from '../git-sync/credentials.ts';
import { importCacheKey, readImportCache } from '../git-sync/import-cache.ts';
import { KeptClones } from '../git-sync/kept-clones.ts';
import {
  readRepository,
  remoteBranchTip,
  splitCredentials,
  writeRepository,
  type GitProgress,
  type RemotePolicy,
} from '../git-sync/git-client.ts';
import { exportRepositoryOffThread, importRepositoryOffThread } from '../git-sync/layout-tasks.ts';
import type { RepositoryPaths } from '../git-sync/layout.ts';
import { joinPath } from '../git-sync/repo-paths.ts';
import type { JobContext, JobHandler } from '../jobs/runner.ts';
import { revalidateRenderer } from './renderer-revalidation.ts';
import { commitSpaceRevision } from './space-content.ts';

interface SyncInput {
  url: string;
  ref: string;
  projectDirectory: string | null;
  standalone?: boolean;
  commitMessage?: string | null;
  /** Prefix of a commit's web page (GitBook's `repoCommitURL`): the commit's URL is it followed by the commit id. */
  repoCommitURL?: string | null;
}

/**
 * Records where `revisionId` is in Git (RevisionGit): the commit, and each page's and file's path
 * and blob in it. `paths` and `blobs` key files the same way; `prefix` makes those keys paths from
 * the repository's top.
 */
async function recordRevisionGit(
  tx: Tx,
  revisionId: string,
  input: SyncInput,
  commit: { oid: string; message: string; createdByService: boolean },
  paths: RepositoryPaths,
  blobs: ReadonlyMap<string, string>,
  prefix: string | null,
) {
  const entries = (byId: Record<string, string>) =>
    Object.fromEntries(Object.entries(byId).flatMap(([id, path]) => (blobs.has(path) ? [[id, [prefix ? joinPath(prefix, path) : path, blobs.get(path)!]]] : [])));
  const data = {
    oid: commit.oid,
    message: commit.message,
    createdByService: commit.createdByService,
    url: input.repoCommitURL ? `${input.repoCommitURL}${commit.oid}` : null,
    ref: input.ref.startsWith('refs/') ? input.ref : `refs/heads/${input.ref}`,
    blobs: { pages: entries(paths.pages), files: entries(paths.files), reusableContents: entries(paths.reusableContents) },
  };
  await tx.revisionGit.upsert({ where: { revisionId }, create: { revisionId, ...data }, update: data });
}

function policy(ctx: JobContext): RemotePolicy {
  return { allowPrivateAddresses: ctx.config.fetch.allowPrivateAddresses, timeoutMs: ctx.config.fetch.timeoutMs };
}

async function credentialsOf(ctx: JobContext, spaceId: string) {
  const sync = await ctx.db.gitSync.findUnique({ where: { spaceId }, select: { credentials: true } });
  return sync?.credentials ? decryptCredentials(ctx.config, sync.credentials) : null;
}

/** Git's transfer progress as job steps, at most one update per 5 percent. */
function transferProgress(ctx: JobContext, step: string, from: number, to: number) {
  let last = -1;
  return (p: GitProgress) => {
    if (!p.total) return;
    const percent = Math.floor(from + ((to - from) * p.loaded) / p.total);
    if (percent < last + 5) return;
    last = percent;
    // Reported now, not after the previous report settled: the runner records steps in the order
    // they are reported, and a chain of our own here let the next phase's step (reported directly,
    // once the clone ended) overtake the last transfer steps still waiting in it.
    ctx.progress(step, percent, p.phase).catch(() => undefined);
  };
}

/**
 * The version of what an import makes of a commit (src/git-sync/layout.ts): raise it when the same
 * files would now import differently, so that fingerprints recorded before no longer match.
 */
const IMPORT_LAYOUT_VERSION = 1;

/**
 * What a successful sync leaves in agreement: this branch of this repository (directory included)
 * at `commit` holds the space's content at `revisionId`. An import that finds the same fingerprint
 * (the branch still at that commit, the space still at that revision) has nothing to do.
 */
function syncFingerprint(input: SyncInput, commit: string, revisionId: string): string {
  const key = [IMPORT_LAYOUT_VERSION, splitCredentials(input.url).url, input.ref, input.projectDirectory ?? '', commit, revisionId];
  return createHash('sha256').update(JSON.stringify(key)).digest('hex');
}

async function recordSync(
  db: JobContext['db'] | Tx,
  spaceId: string,
  jobId: string,
  data: { lastSyncStatus: string; lastSyncError?: string | null; lastCommit?: string; lastSyncFingerprint?: string | null },
) {
  await db.gitSync.updateMany({
    where: { spaceId, lastJobId: jobId },
    data: { ...data, lastSyncAt: new Date(), lastSyncError: data.lastSyncError ?? null },
  });
}

/** Runs `work`, recording a failure on the space's sync state before the job fails. */
async function recorded(ctx: JobContext, spaceId: string, work: () => Promise<Record<string, unknown>>) {
  await recordSync(ctx.db, spaceId, ctx.job.id, { lastSyncStatus: 'running' });
  try {
    return await work();
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    await recordSync(ctx.db, spaceId, ctx.job.id, { lastSyncStatus: ctx.signal.aborted ? 'cancelled' : 'failed', lastSyncError: message }).catch(() => undefined);
    throw error;
  }
}

/** Whether an import changes nothing (the same pages, fields and files; key order aside). */
function sameContent(a: RevisionSnapshot, b: RevisionSnapshot): boolean {
  if (a.pages.size !== b.pages.size || a.files.size !== b.files.size || stringify(a.variables) !== stringify(b.variables)) return false;
  if (stringify([...a.redirects]) !== stringify([...b.redirects])) return false;
  if (stringify([...a.tags.values()]) !== stringify([...b.tags.values()])) return false;
  if (stringify([...a.reusableContents.values()].sort((x, y) => (x.id < y.id ? -1 : 1))) !== stringify([...b.reusableContents.values()].sort((x, y) => (x.id < y.id ? -1 : 1)))) return false;
  for (const [id, page] of a.pages) if (stringify(page) !== stringify(b.pages.get(id))) return false;
  for (const [id, file] of a.files) if (stringify(file) !== stringify(b.files.get(id))) return false;
  return true;
}

/**
 * Completes the import job at once, as unchanged, when the branch is still at the commit the last
 * successful sync of this space left and the space still at the revision it left: the import would
 * clone and read every page to find nothing to change. One ls-refs exchange with the server.
 */
async function alreadyImported(ctx: JobContext, input: SyncInput, spaceId: string, revisionId: string): Promise<boolean> {
  const sync = await ctx.db.gitSync.findUnique({ where: { spaceId }, select: { lastSyncFingerprint: true } });
  if (!sync?.lastSyncFingerprint) return false;
  await ctx.progress('checking the branch', 5, input.url);
  let tip: string | null;
  try {
    tip = await remoteBranchTip({ url: input.url, ref: input.ref, credentials: await credentialsOf(ctx, spaceId), policy: policy(ctx), signal: ctx.signal });
  } catch (error) {
    if (ctx.signal.aborted) throw error;
    // Only a shortcut: a server that cannot list its refs alone (say, no ls-refs) still gets the full import, which reports its own failures.
    ctx.log.warn({ err: error, spaceId }, 'git import: could not read the branch tip, importing in full');
    return false;
  }
  if (!tip || syncFingerprint(input, tip, revisionId) !== sync.lastSyncFingerprint) return false;
  const content = await loadSnapshot(ctx.db, revisionId, { documents: false });
  const [pages, files] = [content.pages.size, content.files.size];
  await ctx.db.$transaction(async (tx) => {
    await recordSync(tx, spaceId, ctx.job.id, { lastSyncStatus: 'succeeded', lastCommit: tip });
    // Warnings are those of a full import; here nothing was read, so there are none to repeat.
    await ctx.complete(tx, { revision: revisionId, commit: tip, pages, files, unchanged: true, warnings: [] });
  });
  return true;
}

/** The import job; `clones` keeps each space's repository for its next import (src/git-sync/kept-clones.ts). */
export const importGitRepositoryJob = (clones: KeptClones | null): JobHandler => async (ctx) => {
  const input = ctx.input as unknown as SyncInput;
  const spaceId = ctx.job.spaceId!;
  return recorded(ctx, spaceId, async () => {
    const before = await ctx.db.space.findUniqueOrThrow({ where: { id: spaceId }, select: { revisionId: true } });
    if (!input.standalone && (await alreadyImported(ctx, input, spaceId, before.revisionId))) return {};
    await ctx.progress('cloning', 5, input.url);
    const repository = await readRepository({
      url: input.url,
      ref: input.ref,
      credentials: await credentialsOf(ctx, spaceId),
      policy: policy(ctx),
      signal: ctx.signal,
      onProgress: transferProgress(ctx, 'cloning', 5, 45),
      // A standalone import fills a new space once: nothing to keep for a next one.
      kept: clones && !input.standalone ? { clones, key: KeptClones.key(spaceId, splitCredentials(input.url).url, input.ref) } : null,
    });
    await ctx.progress('reading pages', 50, `commit ${repository.commit.slice(0, 7)}, ${repository.files.size} files`);
    // Read again after the clone: the space may have moved on while it ran, and the import builds on its latest revision.
    const space = await ctx.db.space.findUniqueOrThrow({ where: { id: spaceId }, select: { revisionId: true } });
    // Without its documents: a page the import cache keeps has its document stored already, and one converted brings its own.
    const previous = await loadSnapshot(ctx.db, space.revisionId, { documents: false });
    // What the last import made of each page file: pages whose file and links are the same keep their document unparsed.
    const cacheKey = importCacheKey(ctx.config.markdownLimits);
    const storedCache = await ctx.db.gitImportCache.findUnique({ where: { spaceId }, select: { entries: true } });
    const cache = readImportCache(storedCache?.entries, cacheKey);
    // Converting every page is CPU work: on a worker thread, which stores the files the pages use.
    const { snapshot, warnings, cache: nextCache, stats, paths } = await importRepositoryOffThread(ctx, {
      files: repository.files,
      projectDirectory: input.projectDirectory ?? null,
      previous,
      cache,
      now: new Date(),
    });
    await ctx.progress('writing the revision', 80, `${snapshot.pages.size} pages, ${snapshot.files.size} files${warnings.length ? `, ${warnings.length} warnings` : ''}`);
    const unchanged = !input.standalone && sameContent(previous, snapshot);
    let revision = space.revisionId;
    await ctx.db.$transaction(async (tx) => {
      if (!unchanged) {
        revision = input.standalone
          ? await writeRevision(tx, { spaceId, parentId: space.revisionId, type: 'edits', snapshot })
          : await commitSpaceRevision(tx, ctx.provider, {
              spaceId,
              expectedRevisionId: space.revisionId,
              previous,
              snapshot,
              type: 'edits',
              createdById: ctx.job.createdById,
            });
      }
      await recordRevisionGit(tx, revision, input, { oid: repository.commit, message: repository.message, createdByService: false }, paths, repository.blobs, null);
      // The cache goes with the revision its documents are in (an unchanged import's are the space's already).
      const entries = nextCache as unknown as Prisma.InputJsonObject;
      await tx.gitImportCache.upsert({ where: { spaceId }, create: { spaceId, entries }, update: { entries } });
      await recordSync(tx, spaceId, ctx.job.id, {
        lastSyncStatus: 'succeeded',
        lastCommit: repository.commit,
        // A standalone import (a new space's first content) is not the space's sync state.
        lastSyncFingerprint: input.standalone ? null : syncFingerprint(input, repository.commit, revision),
      });
      await ctx.complete(tx, {
        revision,
        commit: repository.commit,
        pages: snapshot.pages.size,
        files: snapshot.files.size,
        unchanged,
        // Page files converted, and those whose document the import cache gave.
        converted: stats.converted,
        reused: stats.reused,
        warnings,
      });
    });
    // A standalone import is a new space's first content: no site shows it yet.
    if (!unchanged && !input.standalone) await revalidateRenderer(ctx, { kind: 'space', space: { id: spaceId, organizationId: ctx.job.organizationId } });
    return {};
  });
};

export const exportToGitRepositoryJob: JobHandler = async (ctx) => {
  const input = ctx.input as unknown as SyncInput;
  const spaceId = ctx.job.spaceId!;
  return recorded(ctx, spaceId, async () => {
    await ctx.progress('reading content', 5);
    const space = await ctx.db.space.findUniqueOrThrow({ where: { id: spaceId }, select: { revisionId: true } });
    const snapshot = await loadSnapshot(ctx.db, space.revisionId, { documents: true });
    const { files, paths } = await exportRepositoryOffThread(ctx, { snapshot });
    const author = ctx.job.createdById ? await ctx.db.user.findUnique({ where: { id: ctx.job.createdById }, select: { displayName: true, email: true } }) : null;
    await ctx.progress('pushing', 30, `${files.size} files`);
    const pushed = await writeRepository({
      url: input.url,
      ref: input.ref,
      credentials: await credentialsOf(ctx, spaceId),
      projectDirectory: input.projectDirectory,
      files,
      message: input.commitMessage || 'Update from the docs API',
      author: { name: author?.displayName || 'Docs API', email: author?.email || 'docs-api@localhost' },
      policy: policy(ctx),
      signal: ctx.signal,
      onProgress: transferProgress(ctx, 'pushing', 30, 95),
    });
    await ctx.db.$transaction(async (tx) => {
      // A branch that already held this content keeps the commit it had: ours only if an earlier export made it.
      const known = pushed.changed ? null : await tx.revisionGit.findUnique({ where: { revisionId: space.revisionId }, select: { oid: true, createdByService: true } });
      const createdByService = pushed.changed || (known?.oid === pushed.commit && known.createdByService);
      await recordRevisionGit(tx, space.revisionId, input, { oid: pushed.commit, message: pushed.message, createdByService }, paths, pushed.blobs, input.projectDirectory);
      // The branch now holds the export of this revision, which imports back to the same content (layout.ts round trip).
      await recordSync(tx, spaceId, ctx.job.id, { lastSyncStatus: 'succeeded', lastCommit: pushed.commit, lastSyncFingerprint: syncFingerprint(input, pushed.commit, space.revisionId) });
      await ctx.complete(tx, { revision: space.revisionId, commit: pushed.commit, changed: pushed.changed, files: files.size });
    });
    return {};
  });
};

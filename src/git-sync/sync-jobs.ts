/**
 * The Git Sync jobs. Import: clone the branch, turn its files into the space's
 * content (src/git-sync/layout.ts), write it as a new revision. Export: write
 * the space's content in the same layout, commit and push. Both can run again
 * after a crash without doubling anything: the import's revision and the job's
 * success commit in one transaction, and an export of content already on the
 * branch makes no commit.
 */
import mime from 'mime-types';
import { stringify } from 'safe-stable-stringify';
import type { Tx } from '../db/client.ts';
import { loadSnapshot, writeRevision } from '../content/revision-store.ts';
import { commitSpaceRevision } from '../content/space-content.ts';
import type { RevisionSnapshot } from '../content/snapshot.ts';
import { imageDimensions } from '../storage/image-dimensions.ts';
import type { JobContext, JobHandler } from '../jobs/runner.ts';
import { decryptCredentials } from './credentials.ts';
import { readRepository, writeRepository, type GitProgress, type RemotePolicy } from './git-client.ts';
import { exportRepository, importRepository } from './layout.ts';

interface SyncInput {
  url: string;
  ref: string;
  projectDirectory: string | null;
  standalone?: boolean;
  commitMessage?: string | null;
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
  let pending: Promise<void> = Promise.resolve();
  return (p: GitProgress) => {
    if (!p.total) return;
    const percent = Math.floor(from + ((to - from) * p.loaded) / p.total);
    if (percent < last + 5) return;
    last = percent;
    pending = pending.then(() => ctx.progress(step, percent, p.phase)).catch(() => undefined);
  };
}

async function recordSync(db: JobContext['db'] | Tx, spaceId: string, jobId: string, data: { lastSyncStatus: string; lastSyncError?: string | null; lastCommit?: string }) {
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
  if (a.pages.size !== b.pages.size || a.files.size !== b.files.size) return false;
  for (const [id, page] of a.pages) if (stringify(page) !== stringify(b.pages.get(id))) return false;
  for (const [id, file] of a.files) if (stringify(file) !== stringify(b.files.get(id))) return false;
  return true;
}

export const importGitRepositoryJob: JobHandler = async (ctx) => {
  const input = ctx.input as unknown as SyncInput;
  const spaceId = ctx.job.spaceId!;
  return recorded(ctx, spaceId, async () => {
    await ctx.progress('cloning', 5, input.url);
    const repository = await readRepository({
      url: input.url,
      ref: input.ref,
      credentials: await credentialsOf(ctx, spaceId),
      policy: policy(ctx),
      signal: ctx.signal,
      onProgress: transferProgress(ctx, 'cloning', 5, 45),
    });
    await ctx.progress('reading pages', 50, `commit ${repository.commit.slice(0, 7)}, ${repository.files.size} files`);
    const space = await ctx.db.space.findUniqueOrThrow({ where: { id: spaceId }, select: { revisionId: true, deletedAt: true } });
    const previous = await loadSnapshot(ctx.db, space.revisionId, { documents: true });
    const { snapshot, warnings } = await importRepository(repository.files, {
      projectDirectory: input.projectDirectory,
      previous,
      now: new Date(),
      storeFile: async (bytes, name) => {
        const { key, size } = await ctx.storage.put(bytes);
        const contentType = mime.lookup(name) || 'application/octet-stream';
        const dimensions = contentType.startsWith('image/') ? imageDimensions(bytes, contentType) : null;
        return { storageKey: key, size, contentType, width: dimensions?.width ?? null, height: dimensions?.height ?? null };
      },
    });
    await ctx.progress('writing the revision', 80, `${snapshot.pages.size} pages, ${snapshot.files.size} files${warnings.length ? `, ${warnings.length} warnings` : ''}`);
    const unchanged = !input.standalone && sameContent(previous, snapshot);
    let revision = space.revisionId;
    await ctx.db.$transaction(async (tx) => {
      if (!unchanged) {
        revision = input.standalone
          ? await writeRevision(tx, { spaceId, parentId: space.revisionId, type: 'edits', snapshot, copyFrom: { revisionId: space.revisionId, snapshot: previous } })
          : await commitSpaceRevision(tx, ctx.provider, {
              spaceId,
              expectedRevisionId: space.revisionId,
              previous,
              snapshot,
              copyFrom: { revisionId: space.revisionId, snapshot: previous },
              type: 'edits',
              createdById: ctx.job.createdById,
            });
      }
      await recordSync(tx, spaceId, ctx.job.id, { lastSyncStatus: 'succeeded', lastCommit: repository.commit });
      await ctx.complete(tx, { revision, commit: repository.commit, pages: snapshot.pages.size, files: snapshot.files.size, unchanged, warnings });
    });
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
    const files = await exportRepository(snapshot, {
      readFile: async (key) => {
        const bytes = await ctx.storage.get(key);
        if (!bytes) throw new Error(`A file of the space is missing from storage (${key})`);
        return bytes;
      },
    });
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
      await recordSync(tx, spaceId, ctx.job.id, { lastSyncStatus: 'succeeded', lastCommit: pushed.commit });
      await ctx.complete(tx, { revision: space.revisionId, commit: pushed.commit, changed: pushed.changed, files: files.size });
    });
    return {};
  });
};

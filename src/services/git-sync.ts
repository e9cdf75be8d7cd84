/**
 * Git Sync: starting an import or an export of a space (a job, see
 * ./git-sync-jobs.ts) with the repository it syncs with, credentials kept encrypted.
 */
import type { Context } from '../context.ts';
import { InvalidInputError } from '../errors/index.ts';
import { encryptCredentials } from '../git-sync/credentials.ts';
import { jobEvent } from '../jobs/job-store.ts';
import { loadSpace } from './space.ts';

export interface SyncRequest {
  url: string;
  ref: string;
  repoProjectDirectory?: string | null;
  repoTreeURL?: string | null;
  repoCommitURL?: string | null;
  timestamp?: Date | null;
  force?: boolean | null;
  gitInfo?: { provider?: string | null; url?: string | null } | null;
}

/** The repository URL without its credentials, and the credentials. */
export function parseRepositoryUrl(raw: string): { url: string; credentials: { username: string; password: string } | null } {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new InvalidInputError('url: not a valid URL');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new InvalidInputError('url: only http and https repositories can be synced');
  const credentials = url.username || url.password ? { username: decodeURIComponent(url.username), password: decodeURIComponent(url.password) } : null;
  url.username = '';
  url.password = '';
  return { url: url.toString(), credentials };
}

/** `refs/heads/main`, or a bare branch name made into one. */
export function normalizeRef(ref: string): string {
  const value = ref.trim();
  const branch = value.startsWith('refs/heads/') ? value.slice('refs/heads/'.length) : value;
  if (!branch || branch.startsWith('refs/') || /[\s~^:?*[\\]|\.\.|@\{/.test(branch) || branch.endsWith('/') || branch.endsWith('.lock')) {
    throw new InvalidInputError('ref: a branch, as refs/heads/<branch>');
  }
  return `refs/heads/${branch}`;
}

function providerOf(url: string, info: SyncRequest['gitInfo']): string {
  if (info?.provider) return info.provider;
  const host = new URL(url).hostname;
  return host === 'github.com' ? 'github' : host === 'gitlab.com' || host.startsWith('gitlab.') ? 'gitlab' : 'git';
}

export async function startSync(ctx: Context, spaceId: string, kind: 'git-import' | 'git-export', input: SyncRequest & Record<string, unknown>) {
  const space = await loadSpace(ctx, spaceId, 'space:edit');
  const viewer = ctx.access.requireViewer();
  const { url, credentials } = parseRepositoryUrl(input.url);
  const ref = normalizeRef(input.ref);
  const projectDirectory = input.repoProjectDirectory?.replace(/^\/+|\/+$/g, '') || null;
  if (projectDirectory?.split('/').some((part) => part === '..' || part === '.')) throw new InvalidInputError('repoProjectDirectory: a path inside the repository');
  const common = {
    provider: providerOf(url, input.gitInfo),
    url,
    ref,
    projectDirectory,
    lastSyncKind: kind === 'git-import' ? 'import' : 'export',
    lastSyncStatus: 'queued',
    lastSyncError: null,
    // Credentials given with the URL replace the stored ones; without, the stored ones are kept for the same repository.
    ...(credentials ? { credentials: encryptCredentials(ctx.config, credentials) } : {}),
  };
  const existing = await ctx.db.gitSync.findUnique({ where: { spaceId: space.id } });
  await ctx.db.gitSync.upsert({
    where: { spaceId: space.id },
    create: { spaceId: space.id, ...common },
    update: { ...common, ...(!credentials && existing && existing.url !== url ? { credentials: null } : {}) },
  });
  const job = await ctx.jobs.start({
    organizationId: space.organizationId,
    spaceId: space.id,
    kind,
    createdById: viewer.userId,
    input: {
      url,
      ref,
      projectDirectory,
      standalone: input.standalone ?? false,
      force: input.force ?? false,
      commitMessage: input.commitMessage ?? null,
      repoTreeURL: input.repoTreeURL ?? null,
      repoCommitURL: input.repoCommitURL ?? null,
      timestamp: input.timestamp?.toISOString() ?? null,
    },
  });
  await ctx.db.gitSync.update({ where: { spaceId: space.id }, data: { lastJobId: job.id } });
  return jobEvent(job);
}

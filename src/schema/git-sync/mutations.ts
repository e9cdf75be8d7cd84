/**
 * Git Sync: importing a space's content from a Git repository and exporting
 * it back run as jobs (src/git-sync/jobs.ts); these fields start them, read
 * the sync state, and forget the repository.
 */
import { z } from 'zod';
import { builder } from '../../builder.ts';
import type { Context } from '../../context.ts';
import { InvalidInputError } from '../../errors/index.ts';
import { encryptCredentials } from '../../git-sync/credentials.ts';
import { jobEvent } from '../../jobs/job-store.ts';
import { Job } from '../job/type.ts';
import { loadSpace } from '../space/queries.ts';

const GitInfoInput = builder.inputType('UpdateSpaceGitInfoInput', {
  fields: (t) => ({
    provider: t.string({ validate: z.enum(['github', 'gitlab']) }),
    url: t.string({ description: "The repository's tree URL", validate: z.string().max(2048) }),
  }),
});

const gitSyncFields = (t: any) => ({
  url: t.string({ required: true, description: 'The repository URL; may carry basic-auth credentials (stored encrypted, never returned)', validate: z.string().max(2048) }),
  ref: t.string({ required: true, description: 'refs/heads/<branch>', validate: z.string().max(255) }),
  repoCacheID: t.string(),
  repoTreeURL: t.string({ validate: z.string().max(2048) }),
  repoCommitURL: t.string({ validate: z.string().max(2048) }),
  repoProjectDirectory: t.string({ validate: z.string().max(1024) }),
  timestamp: t.field({ type: 'DateTime' }),
  force: t.boolean(),
  gitInfo: t.field({ type: GitInfoInput }),
});

const ImportGitRepositoryInput = builder.inputType('ImportGitRepositoryInput', {
  fields: (t) => ({
    ...gitSyncFields(t),
    standalone: t.boolean({ description: 'Write a revision without making it the space content' }),
  }),
});

const ExportToGitRepositoryInput = builder.inputType('ExportToGitRepositoryInput', {
  fields: (t) => ({
    ...gitSyncFields(t),
    commitMessage: t.string({ required: true, validate: z.string().min(1).max(10_000) }),
  }),
});

interface SyncRequest {
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

async function startSync(ctx: Context, spaceId: string, kind: 'git-import' | 'git-export', input: SyncRequest & Record<string, unknown>) {
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

builder.mutationFields((t) => ({
  importGitRepository: t.field({
    type: Job,
    description: "Starts a job importing the space's content from a Git repository (GitBook's Git Sync layout)",
    authScopes: { authenticated: true },
    args: { spaceId: t.arg.id({ required: true }), input: t.arg({ type: ImportGitRepositoryInput, required: true }) },
    resolve: (_root, { spaceId, input }, ctx) => startSync(ctx, String(spaceId), 'git-import', input as never),
  }),
  exportToGitRepository: t.field({
    type: Job,
    description: "Starts a job writing the space's content to a Git repository, committing and pushing to the branch",
    authScopes: { authenticated: true },
    args: { spaceId: t.arg.id({ required: true }), input: t.arg({ type: ExportToGitRepositoryInput, required: true }) },
    resolve: (_root, { spaceId, input }, ctx) => startSync(ctx, String(spaceId), 'git-export', input as never),
  }),
  deleteGitSync: t.boolean({
    description: "Forgets the space's repository and its stored credentials; false when there was none",
    authScopes: { authenticated: true },
    args: { spaceId: t.arg.id({ required: true }) },
    resolve: async (_root, { spaceId }, ctx) => {
      const space = await loadSpace(ctx, String(spaceId), 'space:edit');
      const { count } = await ctx.db.gitSync.deleteMany({ where: { spaceId: space.id } });
      return count > 0;
    },
  }),
}));

/**
 * Git Sync: importing a space's content from a Git repository and exporting
 * it back run as jobs (src/git-sync/jobs.ts); these fields start them, read
 * the sync state, and forget the repository.
 */
import { z } from 'zod';
import { builder } from '../../builder.ts';
import { startSync } from '../../services/git-sync.ts';
import { loadSpace } from '../../services/space.ts';
import { Job } from '../job/type.ts';

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

import { builder } from '../../builder.ts';
import { NotFoundError } from '../../errors/index.ts';
import { installationProvider, repositoryName } from '../../git-sync/git-client.ts';
import { loadSpace } from '../../services/space.ts';

type GitSyncRow = NonNullable<Awaited<ReturnType<import('../../db/client.ts').Db['gitSync']['findUnique']>>>;

const GitSyncLastSync = builder.objectRef<GitSyncRow>('GitSyncLastSync').implement({
  fields: (t) => ({
    kind: t.string({ nullable: true, description: 'import | export', resolve: (g) => g.lastSyncKind }),
    status: t.string({ nullable: true, description: 'queued | running | succeeded | failed | cancelled', resolve: (g) => g.lastSyncStatus }),
    at: t.field({ type: 'DateTime', nullable: true, description: 'When it finished', resolve: (g) => g.lastSyncAt }),
    error: t.string({ nullable: true, resolve: (g) => g.lastSyncError }),
    job: t.string({ nullable: true, description: 'Id of its job', resolve: (g) => g.lastJobId }),
  }),
});

export const GitSyncState = builder.objectRef<GitSyncRow>('GitSyncState').implement({
  description: "A space's Git repository and how its last sync went",
  fields: (t) => ({
    repoName: t.string({
      description: 'owner/name of the repository',
      resolve: (g) => repositoryName(g.url),
    }),
    installationProvider: t.string({ nullable: true, resolve: (g) => installationProvider(g.provider) }),
    url: t.string({ description: 'The repository URL (without credentials)', resolve: (g) => g.url }),
    branch: t.string({ resolve: (g) => g.ref.replace(/^refs\/heads\//, '') }),
    ref: t.string({ resolve: (g) => g.ref }),
    projectDirectory: t.string({ nullable: true, resolve: (g) => g.projectDirectory }),
    lastCommit: t.string({ nullable: true, resolve: (g) => g.lastCommit }),
    lastSync: t.field({ type: GitSyncLastSync, resolve: (g) => g }),
    updatedAt: t.field({ type: 'DateTime', resolve: (g) => g.updatedAt }),
  }),
});

builder.queryField('gitSyncInfo', (t) =>
  t.field({
    type: GitSyncState,
    authScopes: { authenticated: true },
    args: { spaceId: t.arg.id({ required: true }) },
    resolve: async (_root, { spaceId }, ctx) => {
      const space = await loadSpace(ctx, String(spaceId), 'space:read');
      const state = await ctx.db.gitSync.findUnique({ where: { spaceId: space.id } });
      if (!state) throw new NotFoundError('Git Sync of the space', space.id);
      return state;
    },
  }),
);

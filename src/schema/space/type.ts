import { can, type Action } from '../../auth/policies.ts';
import { builder } from '../../builder.ts';
import { installationProvider, repositoryName } from '../../git-sync/git-client.ts';
import type { SpaceGitSync as SpaceGitSyncFacts } from '../../loaders.ts';
import { readableParent } from '../../services/content-grant.ts';
import { storedSpaceMergeRules } from '../../services/merge-rules.ts';
import { publicSpaceUrl, publishedSpaceUrl, spaceIconUrl, spaceVisitorAuth } from '../../services/published-urls.ts';
import { readableOrganizationIds } from '../../services/site.ts';
import { SPACE_ACCESS_SELECT } from '../../auth/access.ts';
import { Collection } from '../collection/type.ts';
import { ContentVisibility, DefaultLevel, SpaceEditMode, TranslationLanguage } from '../shared/enums.ts';

interface SpaceUrlsShape {
  location: string;
  app: string;
  space: { id: string; organizationId: string };
}

const SpaceUrls = builder.objectRef<SpaceUrlsShape>('SpaceUrls').implement({
  fields: (t) => ({
    location: t.exposeString('location'),
    app: t.exposeString('app'),
    published: t.string({
      nullable: true,
      description:
        'Published address of the space: its site space on the site a `shareKey` opened, else its first site space on a published site; null when it is on none',
      // One batched query for every space of the response (a DataLoader), only when asked for.
      resolve: (urls, _args, ctx) => publishedSpaceUrl(ctx, urls.space),
    }),
    public: t.string({
      nullable: true,
      description: 'The published address when the site publishing the space is public (anyone may read it there); null otherwise',
      resolve: (urls, _args, ctx) => publicSpaceUrl(ctx, urls.space),
    }),
    icon: t.string({
      nullable: true,
      description: "The space's icon: the image of the favicon of the site that publishes it (as `urls.published` names it); null when it has none or an emoji",
      resolve: (urls, _args, ctx) => spaceIconUrl(ctx, urls.space),
    }),
  }),
});

const SpaceGitSync = builder.objectRef<SpaceGitSyncFacts>('SpaceGitSync').implement({
  description: 'The Git repository the space syncs with (`gitSyncInfo` has the state of its syncs)',
  fields: (t) => ({
    repoName: t.string({ description: 'owner/name of the repository', resolve: (g) => repositoryName(g.url) }),
    installationProvider: t.string({ nullable: true, description: 'github or gitlab; null for another host', resolve: (g) => installationProvider(g.provider) }),
    url: t.exposeString('url', { description: 'The repository URL (without credentials)' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime', description: 'When the Git Sync was last set up or synced' }),
  }),
});

const SpaceVisitorAuth = builder.objectRef<{ backend: 'custom' }>('SpaceVisitorAuth').implement({
  description: 'How visitors of the site publishing the space authenticate',
  fields: (t) => ({
    backend: t.exposeString('backend', { description: "custom: signed visitor tokens, checked against the organization's published keys (no integration)" }),
  }),
});

const SPACE_PERMISSIONS = {
  view: 'space:read',
  access: 'space:read',
  admin: 'space:admin',
  viewInviteLinks: 'space:admin',
  edit: 'space:edit',
  triggerGitSync: 'space:edit',
  comment: 'comment:post',
  merge: 'change-request:merge',
  review: 'change-request:review',
  installIntegration: 'space:admin',
} as const satisfies Record<string, Action>;
type SpacePermissionName = keyof typeof SPACE_PERMISSIONS;

const SpacePermissions = builder.objectRef<Record<SpacePermissionName, boolean>>('SpacePermissions').implement({
  description: 'What the caller may do with the space',
  fields: (t) => Object.fromEntries(Object.keys(SPACE_PERMISSIONS).map((k) => [k, t.exposeBoolean(k as SpacePermissionName)])) as never,
});

// Select mode: a space row always carries its small columns (ids and keys, title, emoji,
// visibility, language, and the access columns urls and permissions are made of), and the fields
// reading them resolve straight off the row; dates, mergeRules and the other columns are read only
// when a field asks for them (t.expose*, or select on the field). A field that selects looks its
// selection up for every row it resolves, which costs more than reading a small column; a date
// costs about as much (a Date per row). Measured on 1,000 spaces with bench/ab.ts.
export const Space = builder.prismaObject('Space', {
  description: 'A space: pages, files and their revisions',
  select: { id: true, title: true, emoji: true, visibility: true, language: true, revisionId: true, ...SPACE_ACCESS_SELECT },
  fields: (t) => ({
    object: t.string({ resolve: () => 'space' }),
    id: t.id({ resolve: (s) => s.id }),
    title: t.string({ resolve: (s) => s.title }),
    emoji: t.string({ resolve: (s) => s.emoji }),
    visibility: t.field({ type: ContentVisibility, resolve: (s) => s.visibility }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
    deletedAt: t.expose('deletedAt', { type: 'DateTime', nullable: true }),
    editMode: t.field({ type: SpaceEditMode, resolve: (s) => s.editMode as 'live' | 'locked' }),
    mergeRules: t.field({ type: 'JSON', select: { mergeRules: true }, resolve: (s) => storedSpaceMergeRules(s.mergeRules) }),
    urls: t.field({
      type: SpaceUrls,
      resolve: (s, _args, ctx) => ({
        location: ctx.urls.api(`/spaces/${s.id}`),
        app: ctx.urls.app(`/o/${s.organizationId}/s/${s.id}`),
        space: { id: s.id, organizationId: s.organizationId },
      }),
    }),
    // Read with the space's other facts (one statement for every space of a response).
    gitSync: t.field({
      type: SpaceGitSync,
      nullable: true,
      description: 'The Git repository the space syncs with; null when it has none',
      resolve: async (s, _a, ctx) => (await ctx.loaders.contentFacts.load(`space:${s.id}`)).gitSync,
    }),
    visitorAuth: t.field({
      type: SpaceVisitorAuth,
      nullable: true,
      description: 'Set when the site publishing the space (as `urls.published` names it) admits only authenticated visitors',
      resolve: (s, _args, ctx) => spaceVisitorAuth(ctx, s),
    }),
    organizationId: t.id({ resolve: (s) => s.organizationId }),
    organization: t.relation('organization'),
    parentId: t.id({ nullable: true, description: 'Id of the parent collection', resolve: (s) => s.parentId }),
    parent: t.field({
      type: Collection,
      nullable: true,
      description: 'The parent collection (null at the top level, and when the caller may not read it: a guest reaching the space through a grant of their own)',
      resolve: (s, _args, ctx) => readableParent(ctx, s),
    }),
    language: t.field({ type: TranslationLanguage, nullable: true, resolve: (s) => s.language }),
    revisionId: t.id({ description: 'The active revision', resolve: (s) => s.revisionId }),
    defaultLevel: t.field({ type: DefaultLevel, nullable: true, resolve: (s) => s.defaultLevel as never }),
    // Counted with the space's other facts (one statement for every space of a response).
    comments: t.int({
      description: "Open (unresolved) comment threads on the space's own content",
      resolve: async (s, _a, ctx) => (await ctx.loaders.contentFacts.load(`space:${s.id}`)).openComments,
    }),
    // Counted with the space's other facts, in one statement for every space of a response
    // (three filtered relation counts would conflict in plugin-prisma's select).
    changeRequestsCount: t.int({
      description: 'How many change requests (any status)',
      resolve: async (s, _a, ctx) => Object.values((await ctx.loaders.contentFacts.load(`space:${s.id}`)).changeRequests).reduce((a, b) => a + b, 0),
    }),
    changeRequestsOpenCount: t.int({
      description: 'How many open change requests',
      resolve: async (s, _a, ctx) => (await ctx.loaders.contentFacts.load(`space:${s.id}`)).changeRequests.open ?? 0,
    }),
    changeRequestsDraftCount: t.int({
      description: 'How many draft change requests',
      resolve: async (s, _a, ctx) => (await ctx.loaders.contentFacts.load(`space:${s.id}`)).changeRequests.draft ?? 0,
    }),
    permissions: t.field({
      type: SpacePermissions,
      resolve: async (s, _args, ctx) => {
        // Opened with the share key of a site publishing it, the subject says so: read-only.
        const subject = await ctx.access.space(s);
        return Object.fromEntries(Object.entries(SPACE_PERMISSIONS).map(([k, action]) => [k, can(subject, action)])) as Record<SpacePermissionName, boolean>;
      },
    }),
  }),
});

// Reverse edges to sites: only the site spaces of organizations whose sites the caller may read.
builder.prismaObjectFields(Space, (t) => ({
  siteSpaces: t.relation('siteSpaces', {
    description: 'Where the space is published: its site spaces, oldest first (on sites the caller may read)',
    query: (_args, ctx) => ({
      where: { site: { organizationId: { in: readableOrganizationIds(ctx) } } },
      orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
    }),
  }),
  siteSpacesCount: t.relationCount('siteSpaces', {
    description: 'How many site spaces publish the space (on sites the caller may read)',
    where: (_args, ctx) => ({ site: { organizationId: { in: readableOrganizationIds(ctx) } } }),
  }),
}));

import { builder } from '../../builder.ts';
import { can, type Action } from '../../auth/policies.ts';
import { ContentVisibility, DefaultLevel, SpaceEditMode, TranslationLanguage } from '../shared/enums.ts';
import { parseStoredJson } from '../shared/merge-rules.ts';

const SpaceUrls = builder.objectRef<{ location: string; app: string }>('SpaceUrls').implement({
  fields: (t) => ({ location: t.exposeString('location'), app: t.exposeString('app') }),
});

const SPACE_PERMISSIONS = {
  view: 'space:read',
  access: 'space:read',
  admin: 'space:admin',
  viewInviteLinks: 'space:admin',
  edit: 'space:edit',
  triggerGitSync: 'space:edit',
  comment: 'space:comment',
  merge: 'space:merge',
  review: 'space:review',
  installIntegration: 'space:admin',
} as const satisfies Record<string, Action>;
type SpacePermissionName = keyof typeof SPACE_PERMISSIONS;

const SpacePermissions = builder.objectRef<Record<SpacePermissionName, boolean>>('SpacePermissions').implement({
  description: 'What the caller may do with the space',
  fields: (t) => Object.fromEntries(Object.keys(SPACE_PERMISSIONS).map((k) => [k, t.exposeBoolean(k as SpacePermissionName)])) as never,
});

export const Space = builder.prismaObject('Space', {
  description: 'A space: pages, files and their revisions',
  fields: (t) => ({
    object: t.string({ resolve: () => 'space' }),
    id: t.exposeID('id'),
    title: t.exposeString('title'),
    emoji: t.exposeString('emoji'),
    visibility: t.expose('visibility', { type: ContentVisibility }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
    deletedAt: t.expose('deletedAt', { type: 'DateTime', nullable: true }),
    editMode: t.field({ type: SpaceEditMode, resolve: (s) => s.editMode as 'live' | 'locked' }),
    mergeRules: t.field({ type: 'JSON', resolve: (s) => parseStoredJson(s.mergeRules, { type: 'inherit' }) }),
    urls: t.field({
      type: SpaceUrls,
      resolve: (s, _args, ctx) => ({ location: ctx.urls.api(`/spaces/${s.id}`), app: ctx.urls.app(`/o/${s.organizationId}/s/${s.id}`) }),
    }),
    organizationId: t.exposeID('organizationId'),
    organization: t.relation('organization'),
    parentId: t.exposeID('parentId', { nullable: true, description: 'Id of the parent collection' }),
    parent: t.relation('parent', { nullable: true, description: 'The parent collection' }),
    language: t.expose('language', { type: TranslationLanguage, nullable: true }),
    revisionId: t.exposeID('revisionId', { description: 'The active revision' }),
    defaultLevel: t.field({ type: DefaultLevel, nullable: true, resolve: (s) => s.defaultLevel as never }),
    // Comments and change requests arrive with the content issue; until then a space has none.
    comments: t.int({ description: 'Open comments', resolve: () => 0 }),
    changeRequests: t.int({ resolve: () => 0 }),
    changeRequestsOpen: t.int({ resolve: () => 0 }),
    changeRequestsDraft: t.int({ resolve: () => 0 }),
    permissions: t.field({
      type: SpacePermissions,
      resolve: async (s, _args, ctx) => {
        const subject = await ctx.access.content(s);
        return Object.fromEntries(
          Object.entries(SPACE_PERMISSIONS).map(([k, action]) => [k, can(subject, action)]),
        ) as Record<SpacePermissionName, boolean>;
      },
    }),
  }),
});

import { z } from 'zod';
import { builder } from '../../builder.ts';
import { MAX_CHANGES_PER_BATCH, type ContentChange, type PageOutcome, type ReusableContentOutcome } from '../../content/apply-changes.ts';
import { type RevisionView } from '../../content/revision-view.ts';
import type { FileSnapshot } from '../../content/snapshot.ts';
import { ConflictError, InvalidInputError } from '../../errors/index.ts';
import { editChangeRequestContent } from '../../services/change-request-content.ts';
import { mergeChangeRequest, updateChangeRequestFromSpace } from '../../services/change-request-merge.ts';
import { changeRequestFieldsData, changeRequestSubject, createChangeRequest, loadChangeRequest } from '../../services/change-request.ts';
import { loadSpace } from '../../services/space.ts';
import { RevisionFile } from '../revision/type.ts';
import { ChangeRequest, ChangeRequestStatus } from './type.ts';

const CreateChangeRequestInput = builder.inputType('CreateChangeRequestInput', {
  fields: (t) => ({
    subject: t.string({ validate: changeRequestSubject }),
  }),
});

const UpdateChangeRequestInput = builder.inputType('UpdateChangeRequestInput', {
  fields: (t) => ({
    subject: t.string({ validate: changeRequestSubject }),
    description: t.field({ type: 'JSON', description: 'A Document (JSON), or null to remove it' }),
    status: t.field({ type: ChangeRequestStatus, description: 'draft, open or archived (merging is `merge`)' }),
  }),
});

const FileUpload = builder.inputType('ChangeRequestFileUploadInput', {
  fields: (t) => ({
    ref: t.string(),
    name: t.string({ required: true }),
    contentType: t.string(),
    url: t.string(),
    base64: t.string(),
  }),
});

const ContentChangeInput = builder.inputType('ChangeRequestContentChangeInput', {
  description: 'One content change; `operation` says which fields apply (as in @gitbook/api 0.202.0)',
  fields: (t) => ({
    operation: t.string({
      required: true,
      description:
        'insert_page | update_page | delete_page | revert_page | insert_files | set_variables | set_redirects | insert_reusable_content | update_reusable_content | delete_reusable_content | insert_tag | update_tag | delete_tag',
    }),
    tag: t.string({ description: 'insert_tag, update_tag, delete_tag: the slug of the tag (lowercase letters, digits, "-" and "_"; it never changes)' }),
    label: t.string({ description: "insert_tag, update_tag: the tag's label" }),
    color: t.string({ description: "insert_tag, update_tag: the tag's color, a DocumentTextColor (default when not given)" }),
    redirects: t.field({ type: 'JSON', description: 'set_redirects: old paths (relative to the space) -> the id (or batch ref) of the document page each leads to; null removes one' }),
    reusableContent: t.string({ description: 'The reusable content update_reusable_content and delete_reusable_content change' }),
    page: t.string(),
    document: t.field({ type: 'JSON', description: '{ markdown } or { document }' }),
    into: t.string({ description: 'Parent page id; null: the root' }),
    at: t.int(),
    ref: t.string(),
    title: t.string({ validate: z.string().min(1, 'must not be empty') }),
    slug: t.string(),
    emoji: t.string({ validate: z.string().max(50, 'must be at most 50 characters'), description: "A page's or a tag's emoji (update_tag: null removes it)" }),
    icon: t.string({ validate: z.string().max(50, 'must be at most 50 characters'), description: "A page's or a tag's icon (update_tag: null removes it)" }),
    description: t.string(),
    hidden: t.boolean(),
    noIndex: t.boolean({ description: 'Leave the page out of search and ask' }),
    noRobotsIndex: t.boolean({ description: "Ask search engines not to index the page" }),
    cover: t.field({ type: 'JSON', description: 'The cover { ref, refDark?, yPos, height? } (file or URL references); null removes it' }),
    layout: t.field({ type: 'JSON', description: 'Layout options (RevisionPageLayoutOptions); null: the default layout' }),
    metaLinks: t.field({ type: 'JSON', description: '{ canonical?, alternates? } as page or URL references; null removes them' }),
    variables: t.field({
      type: 'JSON',
      description: "insert_page/update_page: the page's variables (null removes them); set_variables: the space's variables to set, null removing one",
    }),
    computed: t.field({ type: 'JSON', description: 'The computed content source the page comes from, kept as data' }),
    computedSeed: t.string(),
    tags: t.field({ type: 'JSON', description: 'insert_page/update_page: the tags the page carries (slugs, or { tag, primary? }); null removes them' }),
    revision: t.string(),
    block: t.stringList(),
    files: t.field({ type: [FileUpload] }),
  }),
});

const UpdateChangeRequestContentInput = builder.inputType('UpdateChangeRequestContentInput', {
  fields: (t) => ({
    changes: t.field({
      type: [ContentChangeInput],
      required: true,
      validate: z.array(z.unknown()).min(1, 'at least one change').max(MAX_CHANGES_PER_BATCH, `at most ${MAX_CHANGES_PER_BATCH} changes per call`),
    }),
  }),
});

const MergeResult = builder.objectRef<{ result: string; revision: string; conflicts: { kind: string; id: string; reason: string; fields?: string[] }[] }>('ChangeRequestMergeResult').implement({
  fields: (t) => ({
    result: t.exposeString('result', { description: 'merge | update | conflicts' }),
    revision: t.exposeString('revision'),
    conflicts: t.field({ type: 'JSON', description: 'What conflicts (pages and files, with the reason)', resolve: (r) => r.conflicts }),
  }),
});

const ContentUpdateChange = builder.objectRef<PageOutcome & { location: string }>('ChangeRequestContentUpdateChange').implement({
  description: 'What one batch did to one page',
  fields: (t) => ({
    object: t.string({ description: 'created_page | updated_page | deleted_page', resolve: (c) => c.object }),
    ref: t.string({ nullable: true, description: 'The ref the batch gave a created page', resolve: (c) => (c.object === 'created_page' ? (c.ref ?? null) : null) }),
    page: t.field({
      type: 'JSON',
      description: 'The page (`{object, id, urls.location}`), or only its id when it was deleted',
      resolve: (c) => (c.object === 'deleted_page' ? c.page : { object: 'page', id: c.page, urls: { location: c.location } }),
    }),
  }),
});

interface ContentUpdateShape {
  changeRequestId: string;
  changes: (PageOutcome & { location: string })[];
  insertedFiles: FileSnapshot[];
  reusableContents: ReusableContentOutcome[];
  revision: RevisionView;
}

const ReusableContentChange = builder.objectRef<ReusableContentOutcome>('ChangeRequestContentReusableContentChange').implement({
  fields: (t) => ({
    object: t.exposeString('object', { description: 'created_reusable_content | updated_reusable_content | deleted_reusable_content' }),
    ref: t.string({ nullable: true, resolve: (c) => ('ref' in c ? (c.ref ?? null) : null) }),
    reusableContent: t.exposeString('reusableContent'),
  }),
});

const ContentUpdate = builder.objectRef<ContentUpdateShape>('ChangeRequestContentUpdate').implement({
  fields: (t) => ({
    changeRequest: t.prismaField({
      type: ChangeRequest,
      resolve: (query, u, _a, ctx) => ctx.db.changeRequest.findUniqueOrThrow({ ...query, where: { id: u.changeRequestId } }),
    }),
    changes: t.field({ type: [ContentUpdateChange], resolve: (u) => u.changes }),
    insertedFiles: t.field({ type: [RevisionFile], resolve: (u) => u.insertedFiles.map((file) => ({ file, revision: u.revision })) }),
    reusableContents: t.field({ type: [ReusableContentChange], description: 'What happened to reusable contents, with the ids of the created ones by ref', resolve: (u) => u.reusableContents }),
  }),
});

/** Fields whose null says something (move to the root; remove the setting), kept when null. */
const MEANINGFUL_NULLS = new Set(['into', 'cover', 'layout', 'metaLinks', 'variables', 'computed', 'computedSeed', 'tags']);
/** update_tag: a null emoji or icon removes it. */
const TAG_NULLS = new Set(['emoji', 'icon']);

function toChange(input: Record<string, unknown>): ContentChange {
  // The input type is flat; the operation decides which fields count. Unset fields stay undefined (not null).
  const clean = Object.fromEntries(
    Object.entries(input).filter(([k, v]) => v !== null || MEANINGFUL_NULLS.has(k) || (input.operation === 'update_tag' && TAG_NULLS.has(k))),
  );
  return clean as unknown as ContentChange;
}

builder.mutationFields((t) => ({
  createChangeRequest: t.prismaField({
    type: ChangeRequest,
    authScopes: { authenticated: true },
    args: { spaceId: t.arg.id({ required: true }), input: t.arg({ type: CreateChangeRequestInput, required: true }) },
    resolve: async (query, _root, args, ctx) => {
      const space = await loadSpace(ctx, String(args.spaceId), 'change-request:create');
      return createChangeRequest(ctx, space, { subject: args.input.subject }, query);
    },
  }),
  updateChangeRequest: t.prismaField({
    type: ChangeRequest,
    authScopes: { authenticated: true },
    args: {
      spaceId: t.arg.id({ required: true }),
      changeRequestId: t.arg.string({ required: true }),
      input: t.arg({ type: UpdateChangeRequestInput, required: true }),
    },
    resolve: async (query, _root, args, ctx) => {
      const { changeRequest } = await loadChangeRequest(ctx, String(args.spaceId), args.changeRequestId, 'change-request:update');
      const { subject: newSubject, description, status } = args.input;
      if (status === 'merged') throw new InvalidInputError('status: merge the change request with its merge endpoint');
      if (changeRequest.status === 'merged' && (status || newSubject !== undefined || description !== undefined)) {
        throw new ConflictError('A merged change request cannot be changed');
      }
      return ctx.db.changeRequest.update({
        ...query,
        where: { id: changeRequest.id },
        data: { ...changeRequestFieldsData(args.input), ...(status ? { status } : {}) },
      });
    },
  }),
  updateChangeRequestContent: t.field({
    type: ContentUpdate,
    description: 'Applies a batch of content changes to the change request, as one new revision (all or nothing)',
    authScopes: { authenticated: true },
    args: {
      spaceId: t.arg.id({ required: true }),
      changeRequestId: t.arg.string({ required: true }),
      input: t.arg({ type: UpdateChangeRequestContentInput, required: true }),
    },
    resolve: async (_root, args, ctx) => {
      const { space, changeRequest } = await loadChangeRequest(ctx, String(args.spaceId), args.changeRequestId, 'change-request:edit-content');
      const changes = args.input.changes.map((c) => toChange(c as Record<string, unknown>));
      const result = await editChangeRequestContent(ctx, space, changeRequest, changes);
      const base = `/spaces/${space.id}/change-requests/${changeRequest.id}/content/page`;
      return {
        changeRequestId: changeRequest.id,
        changes: result.applied.changes.map((c) => ({ ...c, location: ctx.urls.api(`${base}/${c.page}`) })),
        insertedFiles: result.applied.insertedFiles,
        reusableContents: result.applied.reusableContents,
        revision: result.revision,
      };
    },
  }),
  mergeChangeRequest: t.field({
    type: MergeResult,
    authScopes: { authenticated: true },
    args: { spaceId: t.arg.id({ required: true }), changeRequestId: t.arg.string({ required: true }) },
    resolve: async (_root, args, ctx) => {
      const { space, changeRequest } = await loadChangeRequest(ctx, String(args.spaceId), args.changeRequestId, 'change-request:merge');
      return mergeChangeRequest(ctx, space, changeRequest);
    },
  }),
  updateChangeRequestFromSpace: t.field({
    type: MergeResult,
    description: 'Brings the change request up to date with the space content (a three-way merge)',
    authScopes: { authenticated: true },
    args: { spaceId: t.arg.id({ required: true }), changeRequestId: t.arg.string({ required: true }) },
    resolve: async (_root, args, ctx) => {
      const { space, changeRequest } = await loadChangeRequest(ctx, String(args.spaceId), args.changeRequestId, 'change-request:edit-content');
      return updateChangeRequestFromSpace(ctx, space, changeRequest);
    },
  }),
}));

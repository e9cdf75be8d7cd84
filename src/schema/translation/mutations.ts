/**
 * Translations: CRUD within an organization, and `run`, which starts a job
 * translating the source space into the target space (src/translation/run-job.ts).
 * Reading needs read; creating, changing, deleting and running need create.
 * The target space is created with the translation, beside its source.
 */
import { authorize } from '../../auth/policies.ts';
import { builder } from '../../builder.ts';
import { jsonInput } from '../../db/json.ts';
import { paginate } from '../../db/pagination.ts';
import { ConflictError, InvalidInputError, PreconditionFailedError } from '../../errors/index.ts';
import { newId } from '../../ids.ts';
import { jobEvent } from '../../jobs/job-store.ts';
import { loadOrganization } from '../../services/organization.ts';
import { loadSpace } from '../../services/space.ts';
import { loadTranslation, EMPTY_DOCUMENT, checkDocument } from '../../services/translation.ts';
import { Job } from '../job/type.ts';
import { TranslationLanguage } from '../shared/enums.ts';
import { itemsQuery, listType, pageArgs } from '../shared/pagination.ts';
import { Translation } from './type.ts';

const TranslationSourceInput = builder.inputType('TranslationSourceInput', {
  fields: (t) => ({
    space: t.string({ required: true }),
    language: t.field({ type: TranslationLanguage, required: true }),
  }),
});

const CreateTranslationInput = builder.inputType('CreateTranslationInput', {
  fields: (t) => ({
    source: t.field({ type: TranslationSourceInput, required: true }),
    language: t.field({ type: TranslationLanguage, required: true }),
    instructions: t.field({ type: 'JSON' }),
  }),
});

const UpdateTranslationInput = builder.inputType('UpdateTranslationInput', {
  fields: (t) => ({ instructions: t.field({ type: 'JSON', required: true }) }),
});

export const TranslationList = listType('Translation', Translation);

builder.queryFields((t) => ({
  translation: t.prismaField({
    type: Translation,
    authScopes: { authenticated: true },
    args: { organizationId: t.arg.id({ required: true }), translationId: t.arg.id({ required: true }) },
    resolve: (query, _root, args, ctx) => loadTranslation(ctx, String(args.organizationId), String(args.translationId), 'translation:read', query),
  }),
  translations: t.field({
    type: TranslationList,
    authScopes: { authenticated: true },
    args: { organizationId: t.arg.id({ required: true }), ...pageArgs },
    resolve: async (_root, args, ctx, info) => {
      const org = await loadOrganization(ctx, String(args.organizationId), 'organization:read');
      authorize(ctx.access.organization(org.id), 'translation:read', { type: 'Organization', id: org.id });
      const query = itemsQuery(ctx, info);
      return paginate({
        ...args,
        orderBy: [['createdAt', 'asc'], ['id', 'asc']],
        where: { organizationId: org.id },
        findMany: (a) => ctx.db.translation.findMany({ ...query, ...a }),
        count: (a) => ctx.db.translation.count(a),
      });
    },
  }),
}));

builder.mutationFields((t) => ({
  createTranslation: t.prismaField({
    type: Translation,
    authScopes: { authenticated: true },
    args: { organizationId: t.arg.id({ required: true }), input: t.arg({ type: CreateTranslationInput, required: true }) },
    resolve: async (query, _root, { organizationId, input }, ctx) => {
      const org = await loadOrganization(ctx, String(organizationId), 'translation:create');
      const source = await loadSpace(ctx, input.source.space, 'space:read');
      if (source.organizationId !== org.id) throw new InvalidInputError('source.space: not a space of this organization');
      if (input.language === input.source.language) throw new InvalidInputError('language: must differ from the source language');
      const instructions = jsonInput(input.instructions === undefined || input.instructions === null ? EMPTY_DOCUMENT : checkDocument(input.instructions, 'instructions'));
      const existing = await ctx.db.translation.findUnique({ where: { sourceSpaceId_language: { sourceSpaceId: source.id, language: input.language } } });
      if (existing) throw new ConflictError(`The space already has a translation into ${input.language} (${existing.id})`);
      const viewer = ctx.access.requireViewer();
      return ctx.db.$transaction(async (tx) => {
        // The target space: beside the source, in the target language, empty until the first run.
        const targetId = newId();
        const revisionId = newId();
        await tx.space.create({
          data: {
            id: targetId,
            organizationId: org.id,
            parentId: source.parentId,
            title: `${source.title || 'Untitled'} (${input.language})`.slice(0, 50),
            emoji: source.emoji,
            language: input.language,
            visibility: source.visibility === 'in-collection' && !source.parentId ? 'private' : source.visibility,
            revisionId,
            position: source.position + 0.5,
          },
        });
        await tx.revision.create({ data: { id: revisionId, spaceId: targetId } });
        return tx.translation.create({
          ...query,
          data: {
            id: newId(),
            organizationId: org.id,
            sourceSpaceId: source.id,
            sourceLanguage: input.source.language,
            language: input.language,
            targetSpaceId: targetId,
            instructions,
            createdById: viewer.userId,
          },
        });
      });
    },
  }),
  updateTranslation: t.prismaField({
    type: Translation,
    authScopes: { authenticated: true },
    args: { organizationId: t.arg.id({ required: true }), translationId: t.arg.id({ required: true }), input: t.arg({ type: UpdateTranslationInput, required: true }) },
    resolve: async (query, _root, args, ctx) => {
      const translation = await loadTranslation(ctx, String(args.organizationId), String(args.translationId), 'translation:update');
      return ctx.db.translation.update({ ...query, where: { id: translation.id }, data: { instructions: jsonInput(checkDocument(args.input.instructions, 'instructions')) } });
    },
  }),
  deleteTranslation: t.boolean({
    description: 'Deletes the translation (its target space stays). False when there was nothing to delete.',
    authScopes: { authenticated: true },
    args: { organizationId: t.arg.id({ required: true }), translationId: t.arg.id({ required: true }) },
    resolve: async (_root, args, ctx) => {
      const found = await ctx.db.translation.findUnique({ where: { id: String(args.translationId) }, select: { organizationId: true } });
      if (!found || found.organizationId !== String(args.organizationId)) {
        await loadOrganization(ctx, String(args.organizationId), 'organization:read');
        return false;
      }
      const translation = await loadTranslation(ctx, String(args.organizationId), String(args.translationId), 'translation:delete');
      await ctx.db.translation.delete({ where: { id: translation.id } });
      return true;
    },
  }),
  runTranslation: t.field({
    type: Job,
    description: 'Starts a run: translates the source space into the target space as a new revision',
    authScopes: { authenticated: true },
    args: { organizationId: t.arg.id({ required: true }), translationId: t.arg.id({ required: true }) },
    resolve: async (_root, args, ctx) => {
      const translation = await loadTranslation(ctx, String(args.organizationId), String(args.translationId), 'translation:run');
      if (!ctx.config.translation.provider) {
        throw new PreconditionFailedError('No translation provider is configured on this server (set TRANSLATION_PROVIDER and TRANSLATION_URL)');
      }
      const active = await ctx.db.job.findFirst({ where: { translationId: translation.id, state: { in: ['queued', 'running'] } }, select: { id: true } });
      if (active) throw new ConflictError(`A run of this translation is already in progress (job ${active.id})`);
      const viewer = ctx.access.requireViewer();
      const job = await ctx.jobs.start({
        organizationId: translation.organizationId,
        spaceId: translation.targetSpaceId,
        translationId: translation.id,
        kind: 'translation-run',
        createdById: viewer.userId,
        input: { language: translation.language },
      });
      return jobEvent(job);
    },
  }),
}));

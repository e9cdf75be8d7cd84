import { can } from '../../auth/policies.ts';
import { builder } from '../../builder.ts';

const TranslationSourceRef = builder.objectRef<{ space: string; language: string | null }>('TranslationSource').implement({
  fields: (t) => ({
    space: t.exposeString('space'),
    language: t.string({ nullable: true, resolve: (s) => s.language }),
  }),
});

const TranslationResultRef = builder.objectRef<{ space: string; revision: string }>('TranslationResult').implement({
  fields: (t) => ({ space: t.exposeString('space'), revision: t.exposeString('revision') }),
});

const TranslationStats = builder.objectRef<Record<string, number>>('TranslationStats').implement({
  fields: (t) => ({
    runs: t.exposeInt('runs'),
    totalWords: t.exposeInt('totalWords'),
    totalPages: t.exposeInt('totalPages'),
    totalDuration: t.exposeInt('totalDuration', { description: 'Seconds' }),
    latestRunDuration: t.exposeInt('latestRunDuration', { description: 'Seconds' }),
    latestPages: t.exposeInt('latestPages'),
    latestWords: t.exposeInt('latestWords'),
  }),
});

const TranslationPermissions = builder.objectRef<{ view: boolean; edit: boolean }>('TranslationPermissions').implement({
  fields: (t) => ({ view: t.exposeBoolean('view'), edit: t.exposeBoolean('edit') }),
});

export const Translation = builder.prismaObject('Translation', {
  description: 'A translation of a space into another language, written by runs into its target space',
  fields: (t) => ({
    object: t.string({ resolve: () => 'translation' }),
    id: t.exposeID('id'),
    status: t.string({
      description: 'pending (never run), running (a run is queued or running), completed',
      resolve: async (tr, _a, ctx) => {
        const job = await ctx.db.job.findFirst({ where: { translationId: tr.id }, orderBy: [{ createdAt: 'desc' }, { id: 'desc' }], select: { state: true } });
        if (job && (job.state === 'queued' || job.state === 'running')) return 'running';
        return tr.runs > 0 ? 'completed' : 'pending';
      },
    }),
    source: t.field({ type: TranslationSourceRef, resolve: (tr) => ({ space: tr.sourceSpaceId, language: tr.sourceLanguage }) }),
    language: t.exposeString('language'),
    instructions: t.field({ type: 'JSON', resolve: (tr) => tr.instructions }),
    result: t.field({
      type: TranslationResultRef,
      nullable: true,
      resolve: (tr) => (tr.resultRevisionId ? { space: tr.targetSpaceId, revision: tr.resultRevisionId } : null),
    }),
    targetSpace: t.exposeString('targetSpaceId', { description: 'The space the runs write to' }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
    stats: t.field({ type: TranslationStats, resolve: (tr) => tr as unknown as Record<string, number> }),
    permissions: t.field({
      type: TranslationPermissions,
      resolve: (tr, _a, ctx) => {
        const subject = ctx.access.organization(tr.organizationId);
        return { view: can(subject, 'translation:read'), edit: can(subject, 'translation:update') };
      },
    }),
    urls: t.field({
      type: 'JSON',
      resolve: (tr, _a, ctx) => ({ location: ctx.urls.api(`/orgs/${tr.organizationId}/translations/${tr.id}`) }),
    }),
  }),
});

import { builder } from '../../builder.ts';
import { CHANGE_REQUEST_STATUSES, type ChangeRequestStatus as ChangeRequestStatusValue } from '../../db/value-sets.ts';
import { revisionView } from '../../services/space-content.ts';
import { changesLimit, Revision, RevisionSemanticChanges } from '../revision/type.ts';

export const ChangeRequestStatus = builder.enumType('ChangeRequestStatus', { values: CHANGE_REQUEST_STATUSES });

const ChangeRequestUrls = builder.objectRef<{ app: string; location: string }>('ChangeRequestUrls').implement({
  fields: (t) => ({ app: t.exposeString('app'), location: t.exposeString('location') }),
});

export const ChangeRequest = builder.prismaObject('ChangeRequest', {
  description: 'Proposed edits to a space, on their own revision, merged back with a three-way merge',
  fields: (t) => ({
    object: t.string({ resolve: () => 'change-request' }),
    id: t.exposeID('id'),
    number: t.exposeInt('number', { description: 'Incremental within the space' }),
    status: t.field({ type: ChangeRequestStatus, resolve: (cr) => cr.status as ChangeRequestStatusValue }),
    subject: t.exposeString('subject'),
    description: t.field({ type: 'JSON', nullable: true, resolve: (cr) => cr.description }),
    createdBy: t.relation('createdBy'),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
    mergedAt: t.expose('mergedAt', { type: 'DateTime', nullable: true }),
    conversationsIssuesCluster: t.exposeString('conversationsIssuesClusterId', { nullable: true, description: 'The issues cluster (docs insights) it was opened from' }),
    space: t.exposeString('spaceId', { description: 'Id of the space' }),
    revision: t.exposeString('revisionId', { description: 'The change request current revision' }),
    revisionInitial: t.exposeString('revisionInitialId', { description: 'The space revision it was created from' }),
    revisionMergedAncestor: t.exposeString('revisionMergedAncestorId', {
      nullable: true,
      description: 'The space revision it was last brought up to date with',
    }),
    revisionMerged: t.exposeString('revisionMergedId', { nullable: true, description: 'The revision its merge made' }),
    comments: t.int({
      description: 'Open (unresolved) comment threads',
      resolve: (cr, _a, ctx) => ctx.loaders.openThreadsOfChangeRequest.load(cr.id),
    }),
    outdated: t.boolean({
      description: 'Whether the space content changed since the change request was created or last updated',
      select: { space: { select: { revisionId: true } } },
      resolve: (cr) =>
        (cr.status === 'draft' || cr.status === 'open') && cr.space.revisionId !== (cr.revisionMergedAncestorId ?? cr.revisionInitialId),
    }),
    urls: t.field({
      type: ChangeRequestUrls,
      select: { space: { select: { organizationId: true } } },
      resolve: (cr, _a, ctx) => ({
        app: ctx.urls.app(`/o/${cr.space.organizationId}/s/${cr.spaceId}/~/changes/${cr.number}`),
        location: ctx.urls.api(`/spaces/${cr.spaceId}/change-requests/${cr.id}`),
      }),
    }),
    changes: t.field({
      type: RevisionSemanticChanges,
      description: 'What the change request changes: its content against the space content it is based on (as it was when created or last updated)',
      args: { limit: t.arg.int({ description: 'At most this many changes (1 to 1000, default 10)' }) },
      select: { space: { select: { id: true, organizationId: true } } },
      resolve: async (cr, { limit }, ctx) => {
        const checked = changesLimit(limit);
        const [revision, base] = await Promise.all([revisionView(ctx, cr.revisionId, cr.space), revisionView(ctx, cr.revisionMergedAncestorId ?? cr.revisionInitialId, cr.space)]);
        return { revision: revision!, base, limit: checked, ofRevision: false };
      },
    }),
    content: t.field({
      type: Revision,
      description: 'The change request content (its current revision)',
      select: { space: { select: { id: true, organizationId: true } } },
      resolve: async (cr, _a, ctx) => (await revisionView(ctx, cr.revisionId, cr.space))!,
    }),
  }),
});

builder.objectFields(RevisionSemanticChanges, (t) => ({
  mergedFrom: t.prismaField({
    type: ChangeRequest,
    nullable: true,
    description: "The change request whose merge made the revision (a revision's changes only)",
    resolve: (query, v, _a, ctx) =>
      v.ofRevision && v.revision.type === 'merge' && v.revision.changeRequestId ? ctx.db.changeRequest.findUnique({ ...query, where: { id: v.revision.changeRequestId } }) : null,
  }),
}));

builder.objectFields(Revision, (t) => ({
  mergedFrom: t.prismaField({
    type: ChangeRequest,
    nullable: true,
    description: 'The change request whose merge made this revision',
    resolve: (query, r, _a, ctx) =>
      r.type === 'merge' && r.changeRequestId ? ctx.db.changeRequest.findUnique({ ...query, where: { id: r.changeRequestId } }) : null,
  }),
}));

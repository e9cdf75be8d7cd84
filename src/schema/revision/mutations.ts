import { builder } from '../../builder.ts';
import { applyContentChanges } from '../../content/apply-changes.ts';
import { loadDocuments, loadSnapshot } from '../../content/revision-store.ts';
import { findTemplate, SPACE_TEMPLATES } from '../../content/templates.ts';
import { InvalidInputError } from '../../errors/index.ts';
import { editChangeRequestContent } from '../../services/change-request-content.ts';
import { findChangeRequest } from '../../services/change-request.ts';
import { revalidateRenderer } from '../../services/renderer-revalidation.ts';
import { commitSpaceRevision } from '../../services/space-content.ts';
import { loadSpace } from '../../services/space.ts';

const ApplySpaceTemplateInput = builder.inputType('ApplySpaceTemplateInput', {
  fields: (t) => ({
    id: t.string({ required: true, description: `The template: ${SPACE_TEMPLATES.map((x) => x.id).join(', ')}` }),
    params: t.field({ type: 'JSON', description: 'Accepted for compatibility (the built-in templates take none)' }),
    changeRequestId: t.string({ description: 'Apply to this change request instead of the space content' }),
  }),
});

builder.mutationField('applySpaceTemplate', (t) =>
  t.boolean({
    description: "Adds a template's pages after the space's (or a change request's) existing pages",
    authScopes: { authenticated: true },
    args: { spaceId: t.arg.id({ required: true }), input: t.arg({ type: ApplySpaceTemplateInput, required: true }) },
    resolve: async (_root, { spaceId, input }, ctx) => {
      const space = await loadSpace(ctx, String(spaceId), input.changeRequestId ? 'change-request:edit-content' : 'space:edit');
      const template = findTemplate(input.id);
      if (!template) throw new InvalidInputError(`id: no template "${input.id}" (there are ${SPACE_TEMPLATES.map((x) => x.id).join(', ')})`);
      const changes = structuredClone(template.changes);
      if (input.changeRequestId) {
        const changeRequest = await findChangeRequest(ctx, space.id, input.changeRequestId);
        await editChangeRequestContent(ctx, space, changeRequest, changes);
        return true;
      }
      const viewer = ctx.access.requireViewer();
      await ctx.db.$transaction(async (tx) => {
        const current = await loadSnapshot(tx, space.revisionId, { documents: false, chunks: ctx.revisionChunks });
        const applied = await applyContentChanges(current, changes, {
          now: new Date(),
          loadRevertTarget: () => Promise.reject(new InvalidInputError('templates do not revert')),
          loadDocument: async (hash) => (await loadDocuments(tx, [hash])).get(hash) ?? null,
        });
        await commitSpaceRevision(tx, ctx.provider, {
          spaceId: space.id,
          expectedRevisionId: space.revisionId,
          previous: current,
          snapshot: applied.snapshot,
          type: 'edits',
          createdById: viewer.userId,
        });
      });
      await revalidateRenderer(ctx, { kind: 'space', space });
      return true;
    },
  }),
);

/**
 * The Docs agent instructions of an organization: one JSON document, read by every member, set by
 * its admins. An organization has none until they are first set (GET answers 404 until then).
 */
import { builder } from '../../builder.ts';
import { documentProblem } from '../../content/document/validate.ts';
import { jsonInput } from '../../db/json.ts';
import { InvalidInputError, NotFoundError } from '../../errors/index.ts';
import { loadOrganization } from '../../services/organization.ts';

const AgentInstructionsUrls = builder.objectRef<{ location: string }>('AgentInstructionsUrls').implement({
  fields: (t) => ({ location: t.exposeString('location') }),
});

export const AgentInstructions = builder.prismaObject('OrganizationAgentInstructions', {
  variant: 'AgentInstructions',
  description: 'The instructions the Docs agent follows for an organization',
  fields: (t) => ({
    object: t.string({ resolve: () => 'agent-instructions' }),
    instructions: t.field({ type: 'JSON', description: 'A JSON document', resolve: (row) => row.instructions }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
    updatedBy: t.string({ description: 'Id of the user who last set them', resolve: (row) => row.updatedById }),
    urls: t.field({
      type: AgentInstructionsUrls,
      resolve: (row, _args, ctx) => ({ location: ctx.urls.api(`/orgs/${row.organizationId}/agent-instructions`) }),
    }),
  }),
});

const UpdateAgentInstructionsInput = builder.inputType('UpdateAgentInstructionsInput', {
  fields: (t) => ({
    instructions: t.field({ type: 'JSON', required: true, description: 'A JSON document' }),
  }),
});

builder.queryField('organizationAgentInstructions', (t) =>
  t.prismaField({
    type: AgentInstructions,
    description: "The organization's Docs agent instructions (404 until they are first set)",
    authScopes: { authenticated: true },
    args: { organizationId: t.arg.id({ required: true }) },
    resolve: async (query, _root, args, ctx) => {
      const organizationId = String(args.organizationId);
      await loadOrganization(ctx, organizationId, 'organization:read', { select: { id: true } });
      const row = await ctx.db.organizationAgentInstructions.findUnique({ ...query, where: { organizationId } });
      if (!row) throw new NotFoundError(`Agent instructions of organization ${JSON.stringify(organizationId)}`);
      return row;
    },
  }),
);

builder.mutationField('updateOrganizationAgentInstructions', (t) =>
  t.prismaField({
    type: AgentInstructions,
    description: "Sets the organization's Docs agent instructions (admins)",
    authScopes: { authenticated: true },
    args: {
      organizationId: t.arg.id({ required: true }),
      input: t.arg({ type: UpdateAgentInstructionsInput, required: true }),
    },
    resolve: async (query, _root, { organizationId, input }, ctx) => {
      const id = String(organizationId);
      await loadOrganization(ctx, id, 'organization:update', { select: { id: true } });
      const problem = documentProblem(input.instructions);
      if (problem) throw new InvalidInputError(`instructions: ${problem}`);
      const data = { instructions: jsonInput(input.instructions), updatedById: ctx.access.requireViewer().userId };
      return ctx.db.organizationAgentInstructions.upsert({ ...query, where: { organizationId: id }, create: { organizationId: id, ...data }, update: data });
    },
  }),
);

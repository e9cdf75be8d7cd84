/**
 * Docs insights writes: ingesting conversations (one or many; processing follows as a job),
 * muting a cluster, and opening a change request from a cluster.
 */
import { builder } from '../../builder.ts';
import { ingestConversations, openChangeRequestFromCluster, setClusterMuted } from '../../services/conversation-insights.ts';
import { ChangeRequest } from '../change-request/type.ts';
import { IssuesCluster } from './type.ts';

const ConversationPartInput = builder.inputType('ConversationPartInput', {
  fields: (t) => ({
    type: t.string({ required: true, description: '"message"' }),
    role: t.string({ required: true, description: 'user, assistant or team-member' }),
    body: t.string({ required: true, description: 'Markdown or HTML, kept as text' }),
  }),
});

const ConversationMetadataInput = builder.inputType('ConversationMetadataInput', {
  fields: (t) => ({
    url: t.string({ description: 'Where the conversation is in its source' }),
    attributes: t.field({ type: 'JSON', description: 'Names to string values' }),
    createdAt: t.field({ type: 'DateTime', description: 'When the conversation began (default: when first ingested)' }),
  }),
});

const ConversationInput = builder.inputType('ConversationInput', {
  fields: (t) => ({
    id: t.string({ required: true, description: 'Its id in its source, 1 to 255 characters: ingesting the same (source, id) again updates it' }),
    source: t.string({ description: '`integration:<name>:<instance>` or `email` (default `integration:api:default`)' }),
    subject: t.string({ description: 'At most 512 characters' }),
    parts: t.field({ type: [ConversationPartInput], required: true }),
    metadata: t.field({ type: ConversationMetadataInput }),
  }),
});

const IngestConversationsResult = builder.objectRef<{ conversations: number; job: { id: string } | null }>('IngestConversationsResult').implement({
  fields: (t) => ({
    conversations: t.exposeInt('conversations', { description: 'How many were ingested' }),
    processingJob: t.string({
      nullable: true,
      description: 'The job that reads them (follow it with `jobUpdated(id)`); none when nothing changed',
      resolve: (r) => r.job?.id ?? null,
    }),
  }),
});

const UpdateIssuesClusterInput = builder.inputType('UpdateIssuesClusterInput', {
  fields: (t) => ({ muted: t.boolean({ required: true }) }),
});

builder.mutationFields((t) => ({
  ingestConversations: t.field({
    type: IngestConversationsResult,
    description: 'Ingests support conversations for docs insights; their documentation issues are found by a job, in batches',
    authScopes: { authenticated: true },
    args: { organizationId: t.arg.id({ required: true }), input: t.arg({ type: [ConversationInput], required: true }) },
    resolve: (_root, args, ctx) => ingestConversations(ctx, String(args.organizationId), args.input),
  }),
  updateIssuesCluster: t.prismaField({
    type: IssuesCluster,
    authScopes: { authenticated: true },
    args: { organizationId: t.arg.id({ required: true }), clusterId: t.arg.string({ required: true }), input: t.arg({ type: UpdateIssuesClusterInput, required: true }) },
    resolve: (query, _root, args, ctx) => setClusterMuted(ctx, String(args.organizationId), args.clusterId, args.input.muted, query),
  }),
  createChangeRequestFromIssuesCluster: t.prismaField({
    type: ChangeRequest,
    description: "Opens a change request on a space of the organization to mend what a cluster says: its label as subject, its summary and issues as description",
    authScopes: { authenticated: true },
    args: { organizationId: t.arg.id({ required: true }), clusterId: t.arg.string({ required: true }), spaceId: t.arg.id({ required: true }) },
    resolve: (query, _root, args, ctx) => openChangeRequestFromCluster(ctx, String(args.organizationId), args.clusterId, String(args.spaceId), query),
  }),
}));

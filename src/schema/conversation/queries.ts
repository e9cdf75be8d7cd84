/**
 * Reading docs insights: an organization's conversations (filtered by source), the issues found in
 * them (filtered by cluster and conversation), and its issue clusters (ordered and filtered as the
 * OpenAPI document names it). Those who write the documentation read them (`conversation:read`).
 */
import type { GraphQLResolveInfo } from 'graphql';
import { builder } from '../../builder.ts';
import type { Context } from '../../context.ts';
import { paginate, sliceList, type SortKey } from '../../db/pagination.ts';
import { loadConversation, loadConversationIssue, loadInsightsOrganization, loadIssuesCluster } from '../../services/conversation-insights.ts';
import { Organization } from '../organization/type.ts';
import { SortDirection } from '../shared/enums.ts';
import { itemsQuery, listType, pageArgs } from '../shared/pagination.ts';
import { Conversation, ConversationDetail, ConversationIssueEntry, IssuesCluster } from './type.ts';

const ConversationList = listType('Conversation', Conversation);
const ConversationIssueEntryList = listType('ConversationIssueEntry', ConversationIssueEntry);
const IssuesClusterList = listType('IssuesCluster', IssuesCluster);

export const IssuesClusterOrderBy = builder.enumType('IssuesClusterOrderBy', {
  values: ['updatedAt', 'issues', 'conversations', 'tasksTotal', 'tasksBacklog', 'tasksStarted'] as const,
});
export const IssuesClusterStatus = builder.enumType('IssuesClusterStatus', {
  description: 'pending: no change request opened from it is in progress; analysing: one is (a draft or open)',
  values: ['pending', 'analysing'] as const,
});

const conversationArgs = builder.args((t) => ({
  source: t.string({ description: 'Only conversations from this source (`integration:<name>:<instance>` or `email`)' }),
  ...pageArgs,
}));
const issueArgs = builder.args((t) => ({
  cluster: t.string({ description: 'Only the issues of this cluster' }),
  conversation: t.string({ description: 'Only the issues of this conversation' }),
  ...pageArgs,
}));
const clusterArgs = builder.args((t) => ({
  order: t.field({ type: SortDirection, description: 'Default desc' }),
  orderBy: t.field({ type: IssuesClusterOrderBy, description: 'Default updatedAt' }),
  status: t.field({ type: IssuesClusterStatus }),
  ...pageArgs,
}));

/** A page of the organization's conversations, last ingested first. */
async function listConversations(ctx: Context, info: GraphQLResolveInfo, organizationId: string, args: { source?: string | null; page?: string | null; limit?: number | null }) {
  const org = await loadInsightsOrganization(ctx, organizationId);
  const query = itemsQuery(ctx, info);
  return paginate({
    ...args,
    orderBy: [['ingestedAt', 'desc'], ['id', 'desc']],
    where: { organizationId: org.id, ...(args.source ? { source: args.source } : {}) },
    findMany: (a) => ctx.db.conversation.findMany({ ...query, ...a }),
    count: (a) => ctx.db.conversation.count(a),
  });
}

/** Column sort keys of the cluster list; the task counts are sorted in memory (clusterOrderByTasks). */
const CLUSTER_COLUMNS = { updatedAt: 'updatedAt', issues: 'issueCount', conversations: 'conversationCount' } as const;
const TASK_STATUSES = { tasksTotal: ['draft', 'open', 'merged', 'archived'], tasksBacklog: ['draft'], tasksStarted: ['open'] } as const;

/** A page of the organization's clusters, as `orderBy` and `order` sort them (ties by id). */
async function listClusters(
  ctx: Context,
  info: GraphQLResolveInfo,
  organizationId: string,
  args: { order?: 'asc' | 'desc' | null; orderBy?: keyof typeof CLUSTER_COLUMNS | keyof typeof TASK_STATUSES | null; status?: 'pending' | 'analysing' | null; page?: string | null; limit?: number | null },
) {
  const org = await loadInsightsOrganization(ctx, organizationId);
  const direction = args.order ?? 'desc';
  const inProgress = { some: { status: { in: ['draft', 'open'] } } };
  const where = {
    organizationId: org.id,
    ...(args.status === 'analysing' ? { changeRequests: inProgress } : args.status === 'pending' ? { NOT: { changeRequests: inProgress } } : {}),
  };
  const orderBy = args.orderBy ?? 'updatedAt';
  if (orderBy in CLUSTER_COLUMNS) {
    const keys: SortKey[] = [[CLUSTER_COLUMNS[orderBy as keyof typeof CLUSTER_COLUMNS], direction], ['id', direction]];
    const query = itemsQuery(ctx, info, keys);
    return paginate({
      page: args.page,
      limit: args.limit,
      orderBy: keys,
      where,
      findMany: (a) => ctx.db.issuesCluster.findMany({ ...query, ...a }),
      count: (a) => ctx.db.issuesCluster.count(a),
    });
  }
  // Task counts are not columns: the organization's clusters are sorted by them here (an
  // organization has clusters by the tens or hundreds, one per documentation theme).
  const statuses = TASK_STATUSES[orderBy as keyof typeof TASK_STATUSES];
  const [ids, tasks] = await Promise.all([
    ctx.db.issuesCluster.findMany({ where, select: { id: true } }),
    ctx.db.changeRequest.groupBy({ by: ['conversationsIssuesClusterId'], where: { conversationsIssuesCluster: { organizationId: org.id }, status: { in: [...statuses] } }, _count: { _all: true } }),
  ]);
  const counts = new Map(tasks.map((row) => [row.conversationsIssuesClusterId!, row._count._all]));
  const sign = direction === 'asc' ? 1 : -1;
  const sorted = ids
    .map(({ id }) => ({ id, tasks: counts.get(id) ?? 0 }))
    .sort((a, b) => sign * (a.tasks - b.tasks) || sign * (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const slice = sliceList(sorted, args.page, args.limit, (c) => `${String(c.tasks).padStart(10, '0')}:${c.id}`);
  const query = itemsQuery(ctx, info);
  const rows = await ctx.db.issuesCluster.findMany({ ...query, where: { id: { in: slice.items.map((c) => c.id) } } });
  const byId = new Map(rows.map((row) => [row.id, row]));
  return { ...slice, items: slice.items.map((c) => byId.get(c.id)!).filter(Boolean) };
}

/** A page of the organization's issues (newest first), each with its conversation. */
async function listIssues(ctx: Context, organizationId: string, args: { cluster?: string | null; conversation?: string | null; page?: string | null; limit?: number | null }) {
  const org = await loadInsightsOrganization(ctx, organizationId);
  const list = await paginate({
    page: args.page,
    limit: args.limit,
    orderBy: [['createdAt', 'desc'], ['id', 'desc']],
    where: { organizationId: org.id, ...(args.cluster ? { clusterId: args.cluster } : {}), ...(args.conversation ? { conversationId: args.conversation } : {}) },
    findMany: (a) => ctx.db.conversationIssue.findMany({ ...a, include: { conversation: true } }),
    count: (a) => ctx.db.conversationIssue.count(a),
  });
  return { ...list, items: list.items.map(({ conversation, ...issue }) => ({ issue, conversation })) };
}

builder.objectFields(Organization, (t) => ({
  conversations: t.field({
    type: ConversationList,
    description: 'Support conversations pushed for docs insights, last ingested first',
    args: conversationArgs,
    resolve: (org, args, ctx, info) => listConversations(ctx, info, org.id, args),
  }),
  issueClusters: t.field({
    type: IssuesClusterList,
    description: 'Clusters of the documentation issues found in its conversations',
    args: clusterArgs,
    resolve: (org, args, ctx, info) => listClusters(ctx, info, org.id, args),
  }),
}));

builder.queryFields((t) => ({
  conversations: t.field({
    type: ConversationList,
    authScopes: { authenticated: true },
    args: { organizationId: t.arg.id({ required: true }), ...conversationArgs },
    resolve: (_root, { organizationId, ...args }, ctx, info) => listConversations(ctx, info, String(organizationId), args),
  }),
  conversation: t.prismaField({
    type: Conversation,
    authScopes: { authenticated: true },
    args: { organizationId: t.arg.id({ required: true }), conversationId: t.arg.string({ required: true }) },
    resolve: (query, _root, args, ctx) => loadConversation(ctx, String(args.organizationId), args.conversationId, query),
  }),
  conversationDetail: t.field({
    type: ConversationDetail,
    description: 'A conversation with its messages and metadata, as GET /v1/orgs/{organizationId}/conversations/{conversationId} answers',
    authScopes: { authenticated: true },
    args: { organizationId: t.arg.id({ required: true }), conversationId: t.arg.string({ required: true }) },
    resolve: async (_root, args, ctx) => ({ row: await loadConversation(ctx, String(args.organizationId), args.conversationId) }),
  }),
  conversationIssues: t.field({
    type: ConversationIssueEntryList,
    description: 'Documentation issues found in conversations, newest first, each with its conversation',
    authScopes: { authenticated: true },
    args: { organizationId: t.arg.id({ required: true }), ...issueArgs },
    resolve: (_root, { organizationId, ...args }, ctx) => listIssues(ctx, String(organizationId), args),
  }),
  conversationIssue: t.field({
    type: ConversationIssueEntry,
    authScopes: { authenticated: true },
    args: { organizationId: t.arg.id({ required: true }), issueId: t.arg.string({ required: true }) },
    resolve: async (_root, args, ctx) => {
      const issue = await loadConversationIssue(ctx, String(args.organizationId), args.issueId);
      return { issue, conversation: await ctx.db.conversation.findUniqueOrThrow({ where: { id: issue.conversationId } }) };
    },
  }),
  issuesClusters: t.field({
    type: IssuesClusterList,
    authScopes: { authenticated: true },
    args: { organizationId: t.arg.id({ required: true }), ...clusterArgs },
    resolve: (_root, { organizationId, ...args }, ctx, info) => listClusters(ctx, info, String(organizationId), args),
  }),
  issuesCluster: t.prismaField({
    type: IssuesCluster,
    authScopes: { authenticated: true },
    args: { organizationId: t.arg.id({ required: true }), clusterId: t.arg.string({ required: true }) },
    resolve: (query, _root, args, ctx) => loadIssuesCluster(ctx, String(args.organizationId), args.clusterId, 'conversation:read', query),
  }),
}));

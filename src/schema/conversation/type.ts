/**
 * Docs insights: conversations, the documentation issues found in them and the clusters those
 * issues form (GitBook's `Conversation`, `ConversationIssue`, `ConversationsIssuesCluster`). The
 * graph reads organization -> issueClusters -> issues -> conversation; the wrappers below give the
 * REST shapes (`{conversation, parts, metadata}`, `{issue, conversation}`).
 */
import { can } from '../../auth/policies.ts';
import { builder } from '../../builder.ts';
import type { Prisma } from '../../db/client.ts';
import { PULSE_WEEKS, WEEK_MS } from '../../loaders.ts';
import { insightsLocation, storedMetadata } from '../../services/conversation-insights.ts';
import { ConversationImpact } from '../shared/enums.ts';


interface PartView {
  type: string;
  role: string;
  body: string;
}

export const ConversationPart = builder.objectRef<PartView>('ConversationPart').implement({
  description: 'A message of a conversation as its source sent it (Markdown or HTML, kept as text and never rendered)',
  fields: (t) => ({
    type: t.exposeString('type'),
    role: t.exposeString('role', { description: 'user, assistant or team-member' }),
    body: t.exposeString('body'),
  }),
});

export const ConversationMetadata = builder.objectRef<ReturnType<typeof storedMetadata>>('ConversationMetadata').implement({
  fields: (t) => ({
    url: t.string({ nullable: true, description: 'Where the conversation is in its source', resolve: (m) => m.url ?? null }),
    attributes: t.field({ type: 'JSON', nullable: true, resolve: (m) => m.attributes ?? null }),
    createdAt: t.string({ nullable: true, resolve: (m) => m.createdAt ?? null }),
  }),
});

const partsOf = (value: Prisma.JsonValue): PartView[] => (Array.isArray(value) ? (value as unknown as PartView[]) : []);

export const Conversation = builder.prismaObject('Conversation', {
  description: 'A support conversation a tool pushed, read for documentation issues',
  fields: (t) => ({
    object: t.string({ resolve: () => 'conversation' }),
    id: t.exposeID('id'),
    externalId: t.exposeString('externalId', { description: 'Its id in its source (what was sent as `id`)' }),
    subject: t.exposeString('subject', { nullable: true }),
    source: t.exposeString('source', { description: '`integration:<name>:<instance>` or `email`' }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    ingestedAt: t.expose('ingestedAt', { type: 'DateTime' }),
    processedAt: t.expose('processedAt', { type: 'DateTime', nullable: true, description: 'When its issues were last found; none while it waits to be read' }),
    impact: t.field({ type: ConversationImpact, nullable: true, description: 'The highest of its issues', resolve: (c) => c.impact as never }),
    parts: t.field({ type: [ConversationPart], select: { parts: true }, resolve: (c) => partsOf(c.parts) }),
    metadata: t.field({ type: ConversationMetadata, select: { metadata: true }, resolve: (c) => storedMetadata(c.metadata) }),
    urls: t.field({
      type: 'JSON',
      select: { metadata: true },
      resolve: (c, _a, ctx) => {
        const source = storedMetadata(c.metadata).url;
        return { location: insightsLocation.conversation(ctx, c), ...(source ? { source } : {}) };
      },
    }),
    issues: t.relation('issues', { description: 'The documentation issues found in it', query: { orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] } }),
  }),
});

export const ConversationIssue = builder.prismaObject('ConversationIssue', {
  description: 'A documentation problem found in a conversation',
  fields: (t) => ({
    object: t.string({ resolve: () => 'conversation-issue' }),
    id: t.exposeID('id'),
    title: t.exposeString('title'),
    details: t.field({ type: 'JSON', description: 'What is missing or wrong, as a Document', resolve: (i) => i.details }),
    summary: t.exposeString('summary', { description: 'The same as plain text' }),
    impact: t.field({ type: ConversationImpact, resolve: (i) => i.impact as never }),
    createdAt: t.expose('createdAt', { type: 'DateTime', description: "Its conversation's date" }),
    ingestedAt: t.expose('ingestedAt', { type: 'DateTime' }),
    conversationId: t.exposeString('conversationId'),
    clusterId: t.exposeString('clusterId', { nullable: true }),
    conversation: t.relation('conversation'),
    cluster: t.relation('cluster', { nullable: true }),
    urls: t.field({ type: 'JSON', resolve: (i, _a, ctx) => ({ location: insightsLocation.issue(ctx, i) }) }),
  }),
});

interface ClusterStats {
  issues: number;
  conversations: number;
  tasksTotal: number;
  tasksBacklog: number;
  tasksStarted: number;
  tasksCompleted: number;
  tasksCancelled: number;
}

const ClusterStatsType = builder.objectRef<ClusterStats>('IssuesClusterStats').implement({
  description: 'Issues and conversations in a cluster, and the change requests (tasks) opened from it: backlog drafts, started open ones, completed merged ones, cancelled archived ones',
  fields: (t) => ({
    issues: t.exposeInt('issues'),
    conversations: t.exposeInt('conversations'),
    tasksTotal: t.exposeInt('tasksTotal'),
    tasksBacklog: t.exposeInt('tasksBacklog'),
    tasksStarted: t.exposeInt('tasksStarted'),
    tasksCompleted: t.exposeInt('tasksCompleted'),
    tasksCancelled: t.exposeInt('tasksCancelled'),
  }),
});

/** Issues per week over the past PULSE_WEEKS weeks, oldest first; the last week ends now. */
export function weeklyPulse(dates: readonly Date[], now = Date.now()): number[] {
  const weeks = new Array<number>(PULSE_WEEKS).fill(0);
  for (const date of dates) {
    const ago = Math.floor((now - date.getTime()) / WEEK_MS);
    if (ago >= 0 && ago < PULSE_WEEKS) weeks[PULSE_WEEKS - 1 - ago]! += 1;
  }
  return weeks;
}

export const IssuesCluster = builder.prismaObject('IssuesCluster', {
  description: 'Similar documentation issues across conversations, with a label, a summary and an impact',
  fields: (t) => ({
    object: t.string({ resolve: () => 'issues-cluster' }),
    id: t.exposeID('id'),
    label: t.exposeString('label'),
    icon: t.exposeString('icon'),
    summary: t.field({ type: 'JSON', description: 'A Document', resolve: (c) => c.summary }),
    impact: t.field({ type: ConversationImpact, description: 'The highest impact a fifth of its issues have, at least medium from 10 issues', resolve: (c) => c.impact as never }),
    muted: t.exposeBoolean('muted', { description: 'Muted: it keeps collecting issues, and is offered for no change request' }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
    weeklyPulse: t.field({
      type: ['Int'],
      description: `Issues per week over the past ${PULSE_WEEKS} weeks, oldest first (by their conversations' dates)`,
      resolve: async (c, _a, ctx) => weeklyPulse((await ctx.loaders.clusterActivity.load(c.id)).issueDates),
    }),
    sources: t.field({ type: 'JSON', description: 'Its issues by conversation source', resolve: async (c, _a, ctx) => (await ctx.loaders.clusterActivity.load(c.id)).sources }),
    stats: t.field({
      type: ClusterStatsType,
      select: { issueCount: true, conversationCount: true },
      resolve: async (c, _a, ctx) => {
        const tasks = (await ctx.loaders.clusterActivity.load(c.id)).tasksByStatus;
        const n = (status: string) => tasks[status] ?? 0;
        return {
          issues: c.issueCount,
          conversations: c.conversationCount,
          tasksTotal: n('draft') + n('open') + n('merged') + n('archived'),
          tasksBacklog: n('draft'),
          tasksStarted: n('open'),
          tasksCompleted: n('merged'),
          tasksCancelled: n('archived'),
        };
      },
    }),
    permissions: t.field({
      type: 'JSON',
      resolve: (c, _a, ctx) => ({ edit: can(ctx.access.organization(c.organizationId), 'conversation:update') }),
    }),
    urls: t.field({
      type: 'JSON',
      resolve: (c, _a, ctx) => ({ location: insightsLocation.cluster(ctx, c), app: ctx.urls.app(`/o/${c.organizationId}/insights/${c.id}`) }),
    }),
    issues: t.relation('issues', {
      description: 'Its issues, newest first',
      args: { limit: t.arg.int({ required: false, description: 'At most this many (default 50, at most 1000)' }) },
      query: (args) => ({ orderBy: [{ createdAt: 'desc' }, { id: 'desc' }], take: Math.min(Math.max(args.limit ?? 50, 1), 1000) }),
    }),
    changeRequests: t.relation('changeRequests', { description: 'The change requests opened from it (its tasks)', query: { orderBy: [{ createdAt: 'desc' }, { id: 'desc' }] } }),
  }),
});

/** A conversation with its messages and metadata (GET .../conversations/{conversationId}). */
export const ConversationDetail = builder.objectRef<{ row: Prisma.ConversationGetPayload<object> }>('ConversationDetail').implement({
  fields: (t) => ({
    conversation: t.field({ type: Conversation, resolve: (d) => d.row }),
    parts: t.field({ type: [ConversationPart], resolve: (d) => partsOf(d.row.parts) }),
    metadata: t.field({ type: ConversationMetadata, resolve: (d) => storedMetadata(d.row.metadata) }),
  }),
});

/** An issue with its conversation (the items of GET .../conversations-issues). */
export const ConversationIssueEntry = builder
  .objectRef<{ issue: Prisma.ConversationIssueGetPayload<object>; conversation: Prisma.ConversationGetPayload<object> }>('ConversationIssueEntry')
  .implement({
    fields: (t) => ({
      issue: t.field({ type: ConversationIssue, resolve: (e) => e.issue }),
      conversation: t.field({ type: Conversation, resolve: (e) => e.conversation }),
    }),
  });

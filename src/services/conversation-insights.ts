/**
 * Docs insights: support conversations an organization's tools push, the documentation issues the
 * `conversation-processing` job finds in them (services/conversation-processing.ts, src/insights)
 * and the clusters those issues form. Checking and ingesting conversations, loading one of each
 * for the caller, muting a cluster and opening a change request from one.
 * docs/decisions.md, "Conversation insights".
 */
import { createHash } from 'node:crypto';
import { authorize } from '../auth/policies.ts';
import type { Context } from '../context.ts';
import type { Prisma } from '../db/client.ts';
import { jsonInput } from '../db/json.ts';
import { ConflictError, InvalidInputError, NotFoundError, PayloadTooLargeError } from '../errors/index.ts';
import { newId } from '../ids.ts';
import { CONVERSATION_ROLES, type ConversationPart } from '../insights/types.ts';
import type { JobRow } from '../jobs/job-store.ts';
import { textDocument } from '../content/document/text.ts';
import type { JSONDocument } from '../content/document/model.ts';
import { createChangeRequest } from './change-request.ts';
import { loadOrganization } from './organization.ts';
import { loadSpace } from './space.ts';

/** What one request may ingest: written down in the README's API notes and decisions.md. */
export const CONVERSATION_LIMITS = {
  /** Conversations in one request (the body may be one conversation or an array of them). */
  perRequest: 100,
  /** Parts (messages) of one conversation. */
  parts: 500,
  /** Bytes of one part's body. */
  partBytes: 64 * 1024,
  /** Bytes of one conversation's bodies together. */
  conversationBytes: 512 * 1024,
  /** The conversation's id in its source (OpenAPI: 1..255). */
  idChars: 255,
  /** Its subject (OpenAPI: 512). */
  subjectChars: 512,
  /** Metadata attributes, their names and values. */
  attributes: 50,
  attributeNameChars: 100,
  attributeValueChars: 1000,
  /** URIs of the API hold at most 2048 characters. */
  urlChars: 2048,
} as const;

/** ConversationSource of the OpenAPI document: an integration's (`integration:<name>:<instance>`) or `email`. */
const SOURCE_PATTERN = /^integration:[^:\s]+:[^:\s]+$/;
/** The source of a conversation sent without one: pushed through this API by a token. */
export const DEFAULT_CONVERSATION_SOURCE = 'integration:api:default';

/** A conversation as a request sends it (ConversationInput, plus `source`). */
export interface ConversationInput {
  id: string;
  source?: string | null;
  subject?: string | null;
  parts: { type: string; role: string; body: string }[];
  metadata?: { url?: string | null; attributes?: unknown; createdAt?: Date | null } | null;
}

/** One conversation after checking, ready to store. */
export interface CheckedConversation {
  source: string;
  externalId: string;
  subject: string | null;
  parts: ConversationPart[];
  metadata: { url?: string; attributes?: Record<string, string>; createdAt?: string };
  createdAt: Date | null;
  contentHash: string;
}

const bad = (message: string) => new InvalidInputError(message);

/** Checks one conversation of a request (`at` names it in messages: `[3]` in an array). */
export function checkConversation(input: ConversationInput, at: string): CheckedConversation {
  const field = (name: string) => (at ? `${at}.${name}` : name);
  const id = input.id;
  if (id.trim().length === 0 || id.length > CONVERSATION_LIMITS.idChars) throw bad(`${field('id')}: must be 1 to ${CONVERSATION_LIMITS.idChars} characters`);
  const source = input.source ?? DEFAULT_CONVERSATION_SOURCE;
  if (source !== 'email' && !SOURCE_PATTERN.test(source)) throw bad(`${field('source')}: must be "email" or "integration:<name>:<instance>"`);
  const subject = input.subject ?? null;
  if (subject !== null && subject.length > CONVERSATION_LIMITS.subjectChars) throw bad(`${field('subject')}: at most ${CONVERSATION_LIMITS.subjectChars} characters`);
  if (input.parts.length === 0) throw bad(`${field('parts')}: at least one message`);
  if (input.parts.length > CONVERSATION_LIMITS.parts) throw new PayloadTooLargeError(`${field('parts')}: at most ${CONVERSATION_LIMITS.parts} parts`);
  let bytes = 0;
  const parts = input.parts.map((part, i) => {
    const where = field(`parts[${i}]`);
    if (part.type !== 'message') throw bad(`${where}.type: must be "message"`);
    if (!(CONVERSATION_ROLES as readonly string[]).includes(part.role)) throw bad(`${where}.role: must be one of ${CONVERSATION_ROLES.join(', ')}`);
    const size = Buffer.byteLength(part.body, 'utf8');
    if (size > CONVERSATION_LIMITS.partBytes) throw new PayloadTooLargeError(`${where}.body: ${size} bytes, more than the ${CONVERSATION_LIMITS.partBytes} allowed`);
    bytes += size;
    return { type: 'message' as const, role: part.role as ConversationPart['role'], body: part.body };
  });
  if (bytes > CONVERSATION_LIMITS.conversationBytes) throw new PayloadTooLargeError(`${field('parts')}: ${bytes} bytes of bodies, more than the ${CONVERSATION_LIMITS.conversationBytes} allowed`);
  if (parts.every((part) => part.body.trim() === '')) throw bad(`${field('parts')}: every body is empty`);

  const metadata: CheckedConversation['metadata'] = {};
  const meta = input.metadata ?? {};
  if (meta.url !== undefined && meta.url !== null) {
    if (meta.url.length > CONVERSATION_LIMITS.urlChars) throw bad(`${field('metadata.url')}: at most ${CONVERSATION_LIMITS.urlChars} characters`);
    if (!/^https?:\/\//i.test(meta.url) || !URL.canParse(meta.url)) throw bad(`${field('metadata.url')}: must be an http or https URL`);
    metadata.url = meta.url;
  }
  if (meta.attributes !== undefined && meta.attributes !== null) metadata.attributes = checkAttributes(meta.attributes, field('metadata.attributes'));
  if (meta.createdAt) metadata.createdAt = meta.createdAt.toISOString();
  const contentHash = createHash('sha256')
    .update(JSON.stringify([subject, parts.map((p) => [p.role, p.body])]))
    .digest('hex');
  return { source, externalId: id, subject, parts, metadata, createdAt: meta.createdAt ?? null, contentHash };
}

function checkAttributes(value: unknown, field: string): Record<string, string> {
  if (typeof value !== 'object' || Array.isArray(value)) throw bad(`${field}: must be an object of strings`);
  const entries = Object.entries(value as Record<string, unknown>);
  if (entries.length > CONVERSATION_LIMITS.attributes) throw bad(`${field}: at most ${CONVERSATION_LIMITS.attributes} attributes`);
  const out: Record<string, string> = {};
  for (const [name, v] of entries) {
    if (name.length === 0 || name.length > CONVERSATION_LIMITS.attributeNameChars) throw bad(`${field}: names are 1 to ${CONVERSATION_LIMITS.attributeNameChars} characters`);
    if (typeof v !== 'string') throw bad(`${field}.${name}: must be a string`);
    if (v.length > CONVERSATION_LIMITS.attributeValueChars) throw bad(`${field}.${name}: at most ${CONVERSATION_LIMITS.attributeValueChars} characters`);
    out[name] = v;
  }
  return out;
}

/** What tells conversations apart in an organization: their source and their id there. */
const conversationKey = (c: { source: string; externalId: string }) => `${c.source}\u0000${c.externalId}`;

/** Merges what two gatherings of the processing job asked for: nothing but "process what is waiting". */
const gatherNothing = () => ({});

/**
 * Ingests `inputs` (nothing is written unless every one is valid): a conversation new to its
 * (source, id) is stored; one already stored is updated, and read again only if its subject or
 * messages changed (its old issues are then replaced). The organization's processing job is
 * queued, or joined while it waits: a burst of ingests is read in a few batches, not a job each.
 */
export async function ingestConversations(ctx: Context, organizationId: string, inputs: readonly ConversationInput[]): Promise<{ conversations: number; job: JobRow | null }> {
  const org = await loadInsightsOrganization(ctx, organizationId, 'conversation:ingest');
  if (inputs.length === 0) throw bad('Send a conversation, or an array of at least one');
  if (inputs.length > CONVERSATION_LIMITS.perRequest) throw new PayloadTooLargeError(`At most ${CONVERSATION_LIMITS.perRequest} conversations per request`);
  const checked = inputs.map((input, i) => checkConversation(input, inputs.length === 1 ? '' : `[${i}]`));
  const keys = new Set<string>();
  for (const [i, c] of checked.entries()) {
    const key = conversationKey(c);
    if (keys.has(key)) throw bad(`[${i}].id: "${c.externalId}" of ${c.source} is sent twice`);
    keys.add(key);
  }

  const now = new Date();
  const needsProcessing = await ctx.db.$transaction(async (tx) => {
    const existing = await tx.conversation.findMany({
      where: { organizationId: org.id, OR: checked.map((c) => ({ source: c.source, externalId: c.externalId })) },
      select: { id: true, source: true, externalId: true, contentHash: true, processedAt: true },
    });
    const byKey = new Map(existing.map((row) => [conversationKey(row), row]));
    let waiting = false;
    for (const c of checked) {
      const row = byKey.get(conversationKey(c));
      const columns = { subject: c.subject, parts: jsonInput(c.parts), metadata: jsonInput(c.metadata), contentHash: c.contentHash, ingestedAt: now };
      if (!row) {
        await tx.conversation.create({ data: { id: newId(), organizationId: org.id, source: c.source, externalId: c.externalId, createdAt: c.createdAt ?? now, ...columns } });
        waiting = true;
      } else {
        const changed = row.contentHash !== c.contentHash;
        await tx.conversation.update({
          where: { id: row.id },
          data: { ...columns, ...(c.createdAt ? { createdAt: c.createdAt } : {}), ...(changed ? { processedAt: null } : {}) },
        });
        if (changed || row.processedAt === null) waiting = true;
      }
    }
    return waiting;
  });
  if (!needsProcessing) return { conversations: checked.length, job: null };
  const job = await ctx.jobs.store.gather({ organizationId: org.id, kind: 'conversation-processing', input: {} }, gatherNothing);
  ctx.jobs.wakeAfter(job, ctx.config.insights.batchMs);
  return { conversations: checked.length, job };
}

/** Loads the organization for reading its insights, or 404 (another organization's never shows). */
export async function loadInsightsOrganization(ctx: Context, organizationId: string, action: 'conversation:read' | 'conversation:update' | 'conversation:ingest' = 'conversation:read') {
  const org = await loadOrganization(ctx, organizationId, 'organization:read');
  authorize(ctx.access.organization(org.id), action, { type: 'Organization', id: org.id });
  return org;
}

export async function loadConversation<Q extends object>(ctx: Context, organizationId: string, conversationId: string, query?: Q) {
  await loadInsightsOrganization(ctx, organizationId);
  const row = await ctx.db.conversation.findFirst({ ...(query ?? {}), where: { id: conversationId, organizationId } });
  if (!row) throw new NotFoundError('Conversation', conversationId);
  return row;
}

export async function loadConversationIssue<Q extends object>(ctx: Context, organizationId: string, issueId: string, query?: Q) {
  await loadInsightsOrganization(ctx, organizationId);
  const row = await ctx.db.conversationIssue.findFirst({ ...(query ?? {}), where: { id: issueId, organizationId } });
  if (!row) throw new NotFoundError('Conversation issue', issueId);
  return row;
}

export async function loadIssuesCluster<Q extends object>(ctx: Context, organizationId: string, clusterId: string, action: 'conversation:read' | 'conversation:update' = 'conversation:read', query?: Q) {
  await loadInsightsOrganization(ctx, organizationId, action);
  const row = await ctx.db.issuesCluster.findFirst({ ...(query ?? {}), where: { id: clusterId, organizationId } });
  if (!row) throw new NotFoundError('Issues cluster', clusterId);
  return row;
}

/** Mutes or unmutes a cluster: a muted one keeps collecting issues, and is offered for no change request. */
export async function setClusterMuted<Q extends object>(ctx: Context, organizationId: string, clusterId: string, muted: boolean, query?: Q) {
  const cluster = await loadIssuesCluster(ctx, organizationId, clusterId, 'conversation:update');
  return ctx.db.issuesCluster.update({ ...(query ?? {}), where: { id: cluster.id }, data: { muted } });
}

/** Where a conversation, an issue and a cluster are in the API. */
export const insightsLocation = {
  conversation: (ctx: Context, row: { organizationId: string; id: string }) => ctx.urls.api(`/orgs/${row.organizationId}/conversations/${row.id}`),
  issue: (ctx: Context, row: { organizationId: string; id: string }) => ctx.urls.api(`/orgs/${row.organizationId}/conversations-issues/${row.id}`),
  cluster: (ctx: Context, row: { organizationId: string; id: string }) => ctx.urls.api(`/orgs/${row.organizationId}/conversations-clusters/${row.id}`),
};

/** Conversation.metadata as stored. */
export function storedMetadata(value: Prisma.JsonValue): CheckedConversation['metadata'] {
  return value && typeof value === 'object' && !Array.isArray(value) ? (value as CheckedConversation['metadata']) : {};
}

/** Issue titles a change request opened from a cluster lists in its description. */
const ISSUES_LISTED = 20;

/**
 * Opens a change request on `spaceId` (a space of the cluster's organization) to mend what a
 * cluster says: its label as subject, its summary and the titles of its latest issues as
 * description, and the cluster named (`conversationsIssuesCluster`). A muted cluster opens none.
 */
export async function openChangeRequestFromCluster<Q extends object>(ctx: Context, organizationId: string, clusterId: string, spaceId: string, query?: Q) {
  const cluster = await loadIssuesCluster(ctx, organizationId, clusterId);
  const space = await loadSpace(ctx, spaceId, 'change-request:create');
  if (space.organizationId !== cluster.organizationId) throw new NotFoundError('Space', spaceId);
  if (cluster.muted) throw new ConflictError(`The issues cluster ${cluster.id} is muted: unmute it to open a change request from it`);
  const issues = await ctx.db.conversationIssue.findMany({
    where: { clusterId: cluster.id },
    orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
    take: ISSUES_LISTED,
    select: { title: true },
  });
  const summary = cluster.summary as unknown as JSONDocument;
  const intro = textDocument(`Opened from the docs insights cluster "${cluster.label}": ${cluster.issueCount} issue${cluster.issueCount === 1 ? '' : 's'} in ${cluster.conversationCount} conversation${cluster.conversationCount === 1 ? '' : 's'}.`);
  const description: JSONDocument = {
    object: 'document',
    data: {},
    nodes: [
      ...intro.nodes,
      ...(Array.isArray(summary?.nodes) ? summary.nodes : []),
      ...(issues.length > 0
        ? [
            {
              object: 'block' as const,
              type: 'list-unordered',
              nodes: issues.map((issue) => ({ object: 'block' as const, type: 'list-item', nodes: textDocument(issue.title).nodes })),
            },
          ]
        : []),
    ],
  };
  return createChangeRequest(ctx, space, { subject: cluster.label, description: jsonInput(description), conversationsIssuesClusterId: cluster.id }, query);
}

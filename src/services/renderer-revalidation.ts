/**
 * Telling the site renderer (GitBook's open-source renderer, RENDERER_URL) that what a published
 * site shows changed, so that it drops what it cached. The renderer caches each API answer it
 * reads under cache tags (`packages/gitbook/src/lib/data/api.ts` of GitbookIO/gitbook; the tags
 * are `packages/cache-tags`) and drops those named in `POST /~gitbook/revalidate`
 * (`packages/gitbook/src/app/~gitbook/revalidate/route.ts`), a JSON body `{"tags": [...]}`
 * signed, when the renderer has a GITBOOK_SECRET, by `x-gitbook-signature`: the hex HMAC-SHA256
 * of the raw body with that secret (`withVerifySignature`, `packages/gitbook/src/lib/routes.ts`).
 *
 * The tags it reads under:
 * - `site:<siteId>`: the published site (its settings, structure with each site space's space and
 *   revision id, customizations), its redirects, its search;
 * - `space:<spaceId>`: the space (its current revision id among the rest), embeds, OpenAPI files;
 * - `space:<spaceId>:change-request:<id>`: a change request (its revision id) and its changes.
 * What a revision holds (pages, documents) is cached by revision id and never changes: a new
 * revision is reached through the space's and the site's answers, which these tags drop.
 *
 * `staleTags` is the one place that says which tags a change makes stale; the write paths call
 * `revalidateRenderer` after their transaction committed. It queues a job (gathered with the
 * organization's revalidation not yet sent: JobStore.gather) and never throws: the write it follows
 * is done whatever becomes of it. The job sends the tags, and retries with backoff while the
 * renderer does not answer (docs/decisions.md, "Renderer revalidation").
 */
import { createHmac } from 'node:crypto';
import type { Context } from '../context.ts';
import type { Db } from '../db/client.ts';
import { RetryLaterError } from '../errors/internal.ts';
import type { JobContext, JobHandler } from '../jobs/runner.ts';

/** The renderer's revalidation route, from its base URL. */
export const REVALIDATE_PATH = '/~gitbook/revalidate';
/** The header carrying the body's signature. */
export const SIGNATURE_HEADER = 'x-gitbook-signature';
/** Time allowed for the renderer to answer one revalidation. */
const REQUEST_TIMEOUT_MS = 10_000;
/** How long a revalidation the renderer did not take waits before each next try: 6 tries over about 2.6 hours. */
export const RETRY_DELAYS_MS: readonly number[] = [10_000, 60_000, 300_000, 1_800_000, 7_200_000];

/** A site as the write paths have it: whether it is published says whether the renderer shows it. */
export interface SiteRef {
  id: string;
  organizationId: string;
  published: boolean;
}

/** What changed, as a write path says it. */
export type RendererChange =
  /** A site's settings, customizations, redirects or share links, or its deletion (the site as it was). */
  | { kind: 'site'; site: SiteRef }
  /**
   * Its structure: sections, section groups, site spaces. `spaceIds`: spaces it shows from now on
   * (a site space added or pointed at another space), whose answers the renderer may hold from
   * before, when no published site showed them and their changes were not sent.
   */
  | { kind: 'site-structure'; site: SiteRef; spaceIds?: readonly string[] }
  /** Published or unpublished. */
  | { kind: 'site-publication'; site: SiteRef; published: boolean }
  /** A space's content (a merge names its change request) or settings, or its move to the bin and back. */
  | { kind: 'space'; space: { id: string; organizationId: string }; changeRequest?: { id: string; number: number } | null }
  /** An OpenAPI spec's latest version or visibility, or its deletion (the renderer names it by slug). */
  | { kind: 'openapi-spec'; spec: { organizationId: string; slug: string } };

/** The tags of packages/cache-tags (`getCacheTag`). */
export const cacheTags = {
  site: (siteId: string) => `site:${siteId}`,
  space: (spaceId: string) => `space:${spaceId}`,
  changeRequest: (spaceId: string, changeRequestId: string) => `space:${spaceId}:change-request:${changeRequestId}`,
  openAPISpec: (organizationId: string, slug: string) => `organization:${organizationId}:openapi:${slug}`,
};

/**
 * The renderer's tags a change makes stale, each once; none when no published site shows what
 * changed (an unpublished site is not served: publishing it drops what the renderer may hold of it).
 */
export async function staleTags(db: Db, change: RendererChange): Promise<string[]> {
  switch (change.kind) {
    case 'site':
      return change.site.published ? [cacheTags.site(change.site.id)] : [];
    case 'site-structure':
      return change.site.published ? unique([cacheTags.site(change.site.id), ...(change.spaceIds ?? []).map(cacheTags.space)]) : [];
    case 'site-publication': {
      if (!change.published) return [cacheTags.site(change.site.id)];
      // Its spaces changed unseen while it was offline, unless another published site showed them.
      const spaces = await db.siteSpace.findMany({ where: { siteId: change.site.id }, select: { spaceId: true }, distinct: ['spaceId'] });
      return unique([cacheTags.site(change.site.id), ...spaces.map((s) => cacheTags.space(s.spaceId))]);
    }
    case 'space': {
      const { space, changeRequest } = change;
      const sites = await db.siteSpace.findMany({ where: { spaceId: space.id, site: { published: true } }, select: { siteId: true }, distinct: ['siteId'] });
      if (sites.length === 0) return [];
      return unique([
        cacheTags.space(space.id),
        // The renderer tags a change request with the id its URL gave (`~/changes/<id>`), which this
        // API answers to as the change request's id or its number: both.
        ...(changeRequest ? [cacheTags.changeRequest(space.id, changeRequest.id), cacheTags.changeRequest(space.id, String(changeRequest.number))] : []),
        ...sites.map((s) => cacheTags.site(s.siteId)),
      ]);
    }
    case 'openapi-spec': {
      // Pages of any published site of the organization may show it.
      const published = await db.site.findFirst({ where: { organizationId: change.spec.organizationId, published: true }, select: { id: true } });
      return published ? [cacheTags.openAPISpec(change.spec.organizationId, change.spec.slug)] : [];
    }
  }
}

function unique(tags: readonly string[]): string[] {
  return [...new Set(tags)];
}

function organizationOf(change: RendererChange): string {
  if (change.kind === 'space') return change.space.organizationId;
  if (change.kind === 'openapi-spec') return change.spec.organizationId;
  return change.site.organizationId;
}

/** The tags of a revalidation job's input (tolerant: a job is read back from the database). */
function tagsOf(input: Record<string, unknown>): string[] {
  return Array.isArray(input.tags) ? input.tags.filter((tag): tag is string => typeof tag === 'string') : [];
}

/** Two revalidations in one: every tag of either, once. */
function gatherTags(queued: Record<string, unknown>, added: Record<string, unknown>): Record<string, unknown> {
  return { tags: unique([...tagsOf(queued), ...tagsOf(added)]) };
}

/**
 * Tells the renderer of a change, after the write committed: queues the tags it makes stale, to
 * be sent by a job (none without RENDERER_URL, or when nothing shown changed). Waits for the job
 * row (a caller answered after it knows the renderer will be told), never for the renderer; logs
 * and swallows its own failures.
 */
export async function revalidateRenderer(ctx: Context | JobContext, change: RendererChange): Promise<void> {
  if (!ctx.config.renderer.url) return;
  try {
    const tags = await staleTags(ctx.db, change);
    if (tags.length === 0) return;
    const job = { organizationId: organizationOf(change), kind: 'renderer-revalidation' as const, input: { tags } };
    if ('gather' in ctx) await ctx.gather(job, gatherTags);
    else await ctx.jobs.store.gather(job, gatherTags);
  } catch (error) {
    ctx.log.warn({ err: error, change: change.kind }, 'renderer revalidation not queued');
  }
}

/** The signature the renderer checks: hex HMAC-SHA256 of the raw body with its GITBOOK_SECRET. */
export function signRevalidation(body: string, secret: string): string {
  return createHmac('sha256', secret).update(body).digest('hex');
}

/** Answers worth another try later: the renderer restarting, overloaded, or behind a proxy that could not reach it. */
function retryable(status: number): boolean {
  return status === 408 || status === 429 || status >= 500;
}

/**
 * The job that sends a revalidation: one POST with the job's tags. A renderer that cannot be
 * reached, or answers 408, 429 or 5xx, is tried again after `delaysMs[retries]`, until those run
 * out; any other answer but 2xx fails the job at once (a wrong URL or secret: the log says which).
 */
export function rendererRevalidationJob(options: { delaysMs?: readonly number[] } = {}): JobHandler {
  const delaysMs = options.delaysMs ?? RETRY_DELAYS_MS;
  return async (ctx) => {
    const { url, secret } = ctx.config.renderer;
    const tags = tagsOf(ctx.input);
    // Queued while RENDERER_URL was set, run after it was removed: nobody to tell.
    if (!url || tags.length === 0) return { tags: tags.length, sent: false };
    const body = JSON.stringify({ tags });
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (secret) headers[SIGNATURE_HEADER] = signRevalidation(body, secret);
    const later = (reason: string): Error => {
      const delay = delaysMs[ctx.job.retries];
      const message = `the renderer did not take the revalidation (${reason})`;
      return delay === undefined ? new Error(`${message}; gave up after ${ctx.job.retries + 1} tries`) : new RetryLaterError(message, delay);
    };
    let response: Response;
    try {
      response = await fetch(`${url}${REVALIDATE_PATH}`, {
        method: 'POST',
        headers,
        body,
        redirect: 'manual',
        signal: AbortSignal.any([ctx.signal, AbortSignal.timeout(REQUEST_TIMEOUT_MS)]),
      });
    } catch (error) {
      if (ctx.signal.aborted) throw ctx.signal.reason;
      throw later(error instanceof Error ? (error.cause instanceof Error ? error.cause.message : error.message) : String(error));
    }
    const answer = (await response.text().catch(() => '')).slice(0, 200);
    if (response.ok) return { tags: tags.length, sent: true, status: response.status };
    const reason = `${REVALIDATE_PATH} answered ${response.status}${answer ? `: ${answer}` : ''}`;
    if (retryable(response.status)) throw later(reason);
    throw new Error(`the renderer refused the revalidation (${reason})`);
  };
}

/**
 * What every resolver gets: the database, the caller, per-request loaders
 * and URL builders. Built per request (HTTP, REST and WebSocket alike).
 */
import type { YogaInitialContext } from 'graphql-yoga';
import type { Logger } from 'pino';
import { Access, type AccessLookups } from './auth/access.ts';
import { type Conversions } from './content/conversions.ts';
import type { SiteVisitor } from './auth/site-tokens.ts';
import { bearerToken, type Viewer } from './auth/viewer.ts';
import { UnauthenticatedError } from './errors/index.ts';
import type { ViewerCache } from './auth/viewer-cache.ts';
import type { AppConfig } from './config.ts';
import type { Db } from './db/client.ts';
import type { RevisionChunkCache } from './db/revision-chunks.ts';
import { type Provider } from './db/provider/config.ts';
import type { Jobs } from './jobs/jobs.ts';
import type { CommentFeed } from './services/comment-feed.ts';
import { Loaders } from './loaders.ts';
import { type ObjectStorage } from './storage/object-storage.ts';
import { Urls } from './urls.ts';

export interface Context extends YogaInitialContext {
  db: Db;
  /** Which database `db` talks to, for the few provider-specific filters. */
  provider: Provider;
  config: AppConfig;
  log: Logger;
  viewer: Viewer | null;
  access: Access;
  loaders: Loaders;
  urls: Urls;
  /** Where file bytes and generated PDFs are kept. */
  storage: ObjectStorage;
  /** Long operations: start them, read them, follow their events. */
  jobs: Jobs;
  /** Live comment events: publish them after a write, follow them (src/services/comment-feed.ts). */
  commentFeed: CommentFeed;
  /**
   * Event ids over SSE: the `Last-Event-ID` the request carries (an EventSource that
   * reconnects sends the last id it received), and the id of the event a subscription
   * resolves now, which its resolver sets for the message's `id:` line
   * (src/plugins/use-sse-event-ids.ts).
   */
  eventIds: { lastEventId: string | null; current: string | null };
  /** Markdown, document and PDF conversions, on the worker threads. */
  conversions: Conversions;
  /** The process's decoded revision chunks, shared by its requests (content-addressed, never stale). */
  revisionChunks: RevisionChunkCache;
}

export interface ContextDeps {
  db: Db;
  provider: Provider;
  config: AppConfig;
  log: Logger;
  storage: ObjectStorage;
  jobs: Jobs;
  commentFeed: CommentFeed;
  conversions: Conversions;
  revisionChunks: RevisionChunkCache;
  /** The callers kept across requests: where `buildContext` finds or reads the viewer. */
  viewers: ViewerCache;
}

/** Authenticates the `Authorization` value (header or graphql-ws connection param) and builds the context. */
export async function buildContext(
  deps: ContextDeps,
  authorization: string | null | undefined,
  lastEventId: string | null = null,
): Promise<Omit<Context, keyof YogaInitialContext>> {
  const token = bearerToken(authorization);
  const { viewers, ...rest } = deps;
  const caller = token ? await viewers.callerFor(token) : null;
  const viewer = caller?.kind === 'user' ? caller.viewer : null;
  const loaders = new Loaders(deps.db, deps.revisionChunks);
  const siteVisitor = caller?.kind === 'site' ? caller.visitor : null;
  if (siteVisitor) await assertSiteTokenStands(loaders, siteVisitor);
  const access = createAccess(viewer, loaders, siteVisitor);
  return { ...rest, viewer, loaders, access, urls: new Urls(deps.config), eventIds: { lastEventId, current: null } };
}

/**
 * A site token opens its site while it would still be given (src/services/published-content.ts):
 * the site admits visitors of its kind now (a `visitor-auth` site, those a visitor token vouched
 * for; a `share-link` site, those with a key) and the share link it was made with is active. A
 * change of the site closes its tokens at once (401) rather than at the end of their day.
 */
async function assertSiteTokenStands(loaders: Loaders, visitor: SiteVisitor): Promise<void> {
  // A site deleted since has no facts (the loader answers its not-found Error); any other failure (the database unavailable: 503) goes on.
  const site = await loaders.siteFactsById.load(visitor.siteId).catch((error: unknown) => {
    if (error instanceof Error && error.message === `Site ${visitor.siteId} not found`) return null;
    throw error;
  });
  const stands =
    site !== null &&
    (site.visibility !== 'visitor-auth' || visitor.authenticated) &&
    (site.visibility !== 'share-link' || (visitor.shareKey !== null && (await loaders.siteIdByShareKey.load(visitor.shareKey)) === visitor.siteId));
  if (!stands) throw new UnauthenticatedError('This site token no longer opens its site (its visibility or share link changed): resolve the URL again (POST /v1/urls/published)');
}

/** The caller's Access, deciding through the request's loaders (the one place that wires them). */
export function createAccess(viewer: Viewer | null, loaders: Loaders, siteVisitor: SiteVisitor | null = null): Access {
  const lookups: AccessLookups = {
    inheritedLevel: async (kind, id) => (await loaders.contentFacts.load(`${kind}:${id}`)).level,
    // Read only where the viewer holds grants (readViewer says where): most callers hold none, and pay no statement.
    grantsIn: (organizationId) =>
      viewer?.grantsIn.has(organizationId) ? loaders.grantsOfUser.load(`${organizationId}:${viewer.userId}`) : Promise.resolve(new Map()),
    ancestors: (kind, id) => loaders.ancestorsOf.load(`${kind}:${id}`),
    teamRole: (teamId) => (viewer ? loaders.teamRoleOf.load(`${teamId}:${viewer.userId}`) : Promise.resolve(null)),
    ownsTeamIn: (organizationId) => (viewer ? loaders.ownsTeamIn.load(`${organizationId}:${viewer.userId}`) : Promise.resolve(false)),
    siteOpenedBy: (shareKey) => loaders.siteIdByShareKey.load(shareKey),
    sitesPublishing: async (spaceId) => (await loaders.publishedPlacesOf(spaceId)).map((place) => place.siteId),
    sitesReferencingOpenAPISpec: (organizationId, slug) => loaders.sitesReferencingOpenAPISpec.load(`${organizationId}:${slug}`),
  };
  return new Access(viewer, lookups, siteVisitor);
}

/**
 * Live events authorized per event: one `EventAuthorization` per event, shared by every
 * subscriber the event reaches. It holds one set of fresh loaders, so the callers' standing
 * (their tokens, memberships and grants) and what the rules read (spaces, collections) are
 * read once for all of them, batched: the statements an event costs do not grow with its
 * subscribers. Subscribers of the same token get the same Access and the same decisions.
 *
 * Used by the comment feed (services/comment-feed.ts) and the job subscriptions
 * (services/job.ts); the same loaders then answer the subscribers' selections.
 */
import type { Access } from '../auth/access.ts';
import { isMemberRole, type RoleOrGuest } from '../auth/roles.ts';
import type { Viewer } from '../auth/viewer.ts';
import type { Db } from '../db/client.ts';
import type { RevisionChunkCache } from '../db/revision-chunks.ts';
import { Loaders } from '../loaders.ts';

export interface EventAuthorizationDeps {
  db: Db;
  revisionChunks?: RevisionChunkCache;
  /** context.ts's createAccess (passed in: the context holds the feeds that use this). */
  accessFor: (viewer: Viewer, loaders: Loaders) => Access;
}

export class EventAuthorization {
  /** Fresh for this event: what a subscriber reads is as of the event, not as of its subscription. */
  readonly loaders: Loaders;
  private readonly now = new Date();
  private readonly accesses = new Map<string, Promise<Access | null>>();
  private readonly decisions = new Map<string, Promise<boolean>>();

  constructor(private readonly deps: EventAuthorizationDeps) {
    this.loaders = new Loaders(deps.db, deps.revisionChunks);
  }

  /**
   * The subscriber's Access as they stand now in `organizationId` (their token still valid, their
   * membership as it is, their grants read afresh); null when the token is gone or expired.
   * One per token and organization for the event.
   */
  accessOf(viewer: Viewer, organizationId: string): Promise<Access | null> {
    const key = `${viewer.tokenId}:${organizationId}`;
    let access = this.accesses.get(key);
    if (!access) {
      access = currentViewer(this.loaders, viewer, organizationId, this.now).then((current) => (current ? this.deps.accessFor(current, this.loaders) : null));
      this.accesses.set(key, access);
    }
    return access;
  }

  /**
   * Whether the subscriber may receive the event, decided by `decide` with their Access (null:
   * their token is gone) once per token and `what` for the event.
   */
  allows(viewer: Viewer, organizationId: string, what: string, decide: (access: Access, loaders: Loaders) => Promise<boolean> | boolean): Promise<boolean> {
    const key = `${viewer.tokenId}:${organizationId}:${what}`;
    let decision = this.decisions.get(key);
    if (!decision) {
      decision = this.accessOf(viewer, organizationId).then((access) => (access ? decide(access, this.loaders) : false));
      this.decisions.set(key, decision);
    }
    return decision;
  }
}

/**
 * The subscriber as they stand now in the organization: their token still valid, their
 * membership (role, disabled) as it is; null when the token is gone or expired. Grants are
 * always read (through the shared loaders: one statement for every subscriber).
 */
async function currentViewer(loaders: Loaders, viewer: Viewer, organizationId: string, now: Date): Promise<Viewer | null> {
  const [token, membership] = await Promise.all([loaders.tokenById.load(viewer.tokenId), loaders.membershipOf.load(`${organizationId}:${viewer.userId}`)]);
  if (!token || (token.expiresAt && token.expiresAt <= now)) return null;
  const memberships = new Map<string, RoleOrGuest>(membership ? [[organizationId, isMemberRole(membership.role) ? membership.role : null]] : []);
  return {
    userId: viewer.userId,
    tokenId: viewer.tokenId,
    memberships,
    disabledIn: new Set(membership?.disabled ? [organizationId] : []),
    grantsIn: new Set([organizationId]),
    lastSeenIn: new Map(),
    scopes: viewer.scopes,
  };
}

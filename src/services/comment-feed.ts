/**
 * Live comment events: what happened to a discussion (a comment or reply posted, edited,
 * resolved, reopened, reacted to, deleted), published on the `comment` topic of the process's
 * event hub (src/event-bus.ts: in-process, or through Redis to every server process) after the
 * write committed, and delivered to the `commentEvents` subscriptions of the space.
 *
 * Authorized on subscribe and per event: a subscriber who lost access (removed from the
 * organization, disabled, their role or grants lowered below read, their token revoked or
 * expired) receives nothing more. Per event, the feed reads the caller's standing afresh for
 * every subscriber of the space at once (services/event-authorization.ts): one set of loaders
 * per event, shared by its subscribers, so the statements an event costs do not grow with them
 * (the memberships, tokens and grants of all subscribers are one statement each). The same
 * loaders then answer the subscribers' selections (the comment, its author, its reactions),
 * batched across them.
 *
 * Events are not stored: a subscriber that was not connected, or a Redis connection that
 * dropped meanwhile, misses them; the comment lists are the record (docs/decisions.md, "Comments").
 */
import { Repeater } from 'graphql-yoga';
import { can } from '../auth/policies.ts';
import type { Viewer } from '../auth/viewer.ts';
import { SPACE_ACCESS_SELECT, type Access } from '../auth/access.ts';
import type { Db } from '../db/client.ts';
import type { RevisionChunkCache } from '../db/revision-chunks.ts';
import type { EventBus } from '../event-bus.ts';
import type { Loaders } from '../loaders.ts';
import { EventAuthorization } from './event-authorization.ts';

export const COMMENT_EVENT_TYPES = ['posted', 'edited', 'resolved', 'reopened', 'reacted', 'deleted'] as const;
export type CommentEventType = (typeof COMMENT_EVENT_TYPES)[number];

export interface CommentEvent {
  type: CommentEventType;
  organizationId: string;
  spaceId: string;
  /** The change request the discussion is in; null: on the space's own content. */
  changeRequestId: string | null;
  /** The thread. */
  commentId: string;
  /** The reply the event is about; null: the thread itself. */
  replyId: string | null;
  /** Who did it. */
  actorId: string;
  /** When (ISO). */
  at: string;
}

/** An event as one subscriber receives it: with the loaders and access to answer its selection with. */
export interface CommentDelivery {
  event: CommentEvent;
  loaders: Loaders;
  access: Access;
}

/** What a subscription follows: a space's discussions, all of them or those of one change request. */
export interface CommentScope {
  spaceId: string;
  /** null: every discussion of the space, its change requests' included. */
  changeRequestId: string | null;
}

interface Subscriber {
  viewer: Viewer;
  scope: CommentScope;
  push: (delivery: CommentDelivery) => void;
}

export class CommentFeed {
  private readonly bySpace = new Map<string, Set<Subscriber>>();
  private readonly unlisten: () => void;
  /** Dispatches run one at a time, so every subscriber receives events in the order they arrived. */
  private queue: Promise<void> = Promise.resolve();

  constructor(
    private readonly deps: {
      db: Db;
      revisionChunks: RevisionChunkCache;
      bus: EventBus<CommentEvent>;
      /** context.ts's createAccess (passed in: the context holds the feed). */
      accessFor: (viewer: Viewer, loaders: Loaders) => Access;
      onError?: (error: unknown) => void;
    },
  ) {
    this.unlisten = deps.bus.listen({
      event: (event) => {
        this.queue = this.queue.then(() => this.dispatch(event)).catch((error: unknown) => deps.onError?.(error));
      },
      // Nothing to replay: events are not stored.
      resync: () => undefined,
    });
  }

  /** Publishes an event about a write that has committed. */
  publish(event: CommentEvent): void {
    this.deps.bus.publish(event);
  }

  /** Every event of `scope` from now on that `viewer` may read when it happens; never ends. */
  follow(viewer: Viewer, scope: CommentScope): AsyncIterable<CommentDelivery> {
    return new Repeater<CommentDelivery>(async (push, stop) => {
      const subscriber: Subscriber = { viewer, scope, push: (delivery) => void push(delivery) };
      let set = this.bySpace.get(scope.spaceId);
      if (!set) this.bySpace.set(scope.spaceId, (set = new Set()));
      set.add(subscriber);
      await stop;
      set.delete(subscriber);
      if (set.size === 0 && this.bySpace.get(scope.spaceId) === set) this.bySpace.delete(scope.spaceId);
    });
  }

  /** How many subscriptions this process holds (for tests and benchmarks). */
  get subscriberCount(): number {
    let count = 0;
    for (const set of this.bySpace.values()) count += set.size;
    return count;
  }

  private async dispatch(event: CommentEvent): Promise<void> {
    const subscribers = [...(this.bySpace.get(event.spaceId) ?? [])].filter(
      (s) => s.scope.changeRequestId === null || s.scope.changeRequestId === event.changeRequestId,
    );
    if (subscribers.length === 0) return;
    const authorization = new EventAuthorization(this.deps);
    const space = await this.deps.db.space.findUnique({ where: { id: event.spaceId }, select: { id: true, deletedAt: true, ...SPACE_ACCESS_SELECT } });
    if (!space || space.deletedAt) return;
    await Promise.all(
      subscribers.map(async (subscriber) => {
        const access = await authorization.accessOf(subscriber.viewer, space.organizationId);
        if (!access || !can(await access.space(space), 'comment:read')) return;
        subscriber.push({ event, loaders: authorization.loaders, access });
      }),
    );
  }

  close(): void {
    this.unlisten();
    this.bySpace.clear();
  }
}

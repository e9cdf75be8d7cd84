/**
 * Viewers kept across requests. Every request used to read its caller (token, memberships,
 * scopes, where grants are held) with one statement; a warm process now reads it once and keeps
 * it until something that could change it is written:
 *
 * - by this process: the database client reports every write's table (`noteWrite`), at the
 *   statement and again at its transaction's commit, before the writing request answers;
 * - by another server process, or the CLI, with REDIS_URL: the writer announces it on the event
 *   hub's `viewer` topic and waits until every process listening there has forgotten its viewers
 *   (each answers `applied`; PUBLISH says how many listen) before its request answers, so the next
 *   request anywhere reads the change;
 * - the hub may have lost announcements (a Redis reconnection): everything is forgotten.
 *
 * What no process announces (the CLI without REDIS_URL, SQL by hand) is read again after
 * `maxAgeMs`: a kept viewer is never older than that.
 *
 * Forgetting is coarse on purpose: one epoch for all viewers. Writes that change a viewer are rare
 * (a token, a membership, a grant, a team); the activity times written once a minute
 * (`ApiToken.lastUsedAt`, `Member.lastSeenAt`) change nobody's rights and are not counted.
 */
import { randomUUID } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import type { Logger } from 'pino';
import type { Db } from '../db/client.ts';
import type { HubBus } from '../event-bus.ts';
import { UnauthenticatedError } from '../errors/index.ts';
import { isSiteToken, verifySiteToken, type SiteVisitor } from './site-tokens.ts';
import { isUseStale, noteTokenUse } from './token-usage.ts';
import { hashToken, readViewer, type Viewer } from './viewer.ts';
import type { KeySealer } from './visitor-claims.ts';

/**
 * The tables a viewer is read from, and those whose deletions cascade into them (a user's tokens
 * and memberships, an organization's members, a team's members and grants); and the signing keys
 * site tokens verify with (a deleted key's tokens are refused at once).
 */
const VIEWER_TABLES: ReadonlySet<string> = new Set([
  'ApiToken',
  'ApiTokenScope',
  'Member',
  'ContentGrant',
  'TeamMember',
  'Team',
  'User',
  'Organization',
  'OrganizationSigningKey',
]);

/** Columns whose updates record activity, not rights (with the `updatedAt` Prisma sets alongside). */
const ACTIVITY_COLUMNS: ReadonlySet<string> = new Set(['lastUsedAt', 'lastSeenAt', 'updatedAt']);

/**
 * Whether a statement is an UPDATE that sets activity columns only (`UPDATE ... SET "lastUsedAt" =
 * $1 WHERE ...`, as Prisma writes it on either database).
 */
export function isActivityUpdate(sql: string): boolean {
  const match = /^\s*UPDATE\s+\S+\s+SET\s+([\s\S]*?)\s+WHERE\s/i.exec(sql);
  if (!match) return false;
  return match[1]!.split(',').every((assignment) => {
    const column = /^\s*(?:[`"]?\w+[`"]?\.)?[`"]?(\w+)[`"]?\s*=/.exec(assignment)?.[1];
    return column !== undefined && ACTIVITY_COLUMNS.has(column);
  });
}

/** Whether a write (its table, and its statement when it is one, not a commit) may change a viewer. */
export function changesViewers(table: string, sql?: string): boolean {
  return VIEWER_TABLES.has(table) && !(sql !== undefined && isActivityUpdate(sql));
}

/** What the `viewer` topic carries: a change to forget viewers for, and each process's answer. */
export type ViewerMessage = { type: 'changed'; id: string } | { type: 'applied'; id: string };

/** How long a writer waits for the other processes' answers before going on (and saying so). */
const ANNOUNCE_TIMEOUT_MS = 2_000;

/**
 * Announces on `bus` that viewers changed and resolves once every process listening there says
 * it forgot its viewers, or after ANNOUNCE_TIMEOUT_MS. `answers` is told each `applied` id the
 * caller's own listener receives.
 */
class Announcements {
  private readonly waiting = new Map<string, { expected: number | null; received: number; done: () => void }>();

  constructor(
    private readonly bus: HubBus<ViewerMessage>,
    private readonly log?: Logger,
  ) {}

  async announce(): Promise<void> {
    const id = randomUUID();
    let timer: NodeJS.Timeout | undefined;
    const finished = new Promise<void>((resolve) => {
      this.waiting.set(id, { expected: null, received: 0, done: resolve });
      timer = setTimeout(() => {
        const wait = this.waiting.get(id);
        this.log?.warn({ expected: wait?.expected, received: wait?.received }, 'viewer cache: not every process confirmed a change in time');
        resolve();
      }, ANNOUNCE_TIMEOUT_MS);
    });
    try {
      const listening = await this.bus.deliver({ type: 'changed', id });
      const wait = this.waiting.get(id)!;
      wait.expected = listening;
      if (wait.received >= listening) wait.done();
    } catch (error) {
      this.log?.warn({ err: error }, 'viewer cache: could not announce a change');
      this.waiting.get(id)?.done();
    }
    await finished;
    clearTimeout(timer);
    this.waiting.delete(id);
  }

  applied(id: string): void {
    const wait = this.waiting.get(id);
    if (!wait) return;
    wait.received += 1;
    if (wait.expected !== null && wait.received >= wait.expected) wait.done();
  }
}

/**
 * Publishes on a Redis hub's bus that viewers changed, for a process that keeps none (the CLI);
 * resolves when every server forgot theirs. It listens first (the hub confirms the subscription
 * with a `resync`), so that it hears their answers.
 */
export async function announceViewersChanged(bus: HubBus<ViewerMessage>, log?: Logger): Promise<void> {
  const announcements = new Announcements(bus, log);
  let subscribed: () => void = () => {};
  const listening = new Promise<void>((resolve) => (subscribed = resolve));
  const unlisten = bus.listen({ event: (message) => message.type === 'applied' && announcements.applied(message.id), resync: () => subscribed() });
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([listening, new Promise<void>((resolve) => (timer = setTimeout(resolve, ANNOUNCE_TIMEOUT_MS)))]);
    clearTimeout(timer);
    await announcements.announce();
  } finally {
    unlisten();
  }
}

/** Who a bearer token is: a user (an API token), or a visitor of one site (a site token, ./site-tokens.ts). */
export type Caller = { kind: 'user'; viewer: Viewer } | { kind: 'site'; visitor: SiteVisitor };

interface Entry {
  viewer: Viewer;
  /** The epoch when the read started: a change during the read makes the entry stale at once. */
  epoch: number;
  readAt: number;
  expiresAt: Date | null;
  /** `ApiToken.lastUsedAt` as last read or written. */
  lastUsedAt: Date | null;
}

export interface ViewerCacheOptions {
  /** A kept viewer is read again after this long (0: nothing is kept). */
  maxAgeMs: number;
  maxEntries: number;
  /**
   * The hub's `viewer` topic when it reaches other processes (Redis): how they tell each other,
   * and writers wait for their answers. None in one process, where the write hook hears everything.
   */
  bus?: HubBus<ViewerMessage>;
  log?: Logger;
  /** Opens the organizations' signing keys, which site tokens verify with; without it, site tokens are refused. */
  sealer?: KeySealer;
}

interface SiteEntry {
  visitor: SiteVisitor;
  epoch: number;
  readAt: number;
}

export class ViewerCache {
  private epoch = 0;
  private readonly entries: LRUCache<string, Entry>;
  private readonly sites: LRUCache<string, SiteEntry>;
  private readonly announcements?: Announcements;
  /** Announcements of this process's writes not yet confirmed by every process. */
  private readonly pending = new Set<Promise<void>>();
  /** An announcement is scheduled for this tick's writes (several writes, one announcement). */
  private scheduled = false;
  private readonly unlisten: () => void = () => {};

  constructor(
    private readonly db: Db,
    private readonly options: ViewerCacheOptions,
  ) {
    this.entries = new LRUCache({ max: Math.max(1, options.maxEntries) });
    this.sites = new LRUCache({ max: Math.max(1, options.maxEntries) });
    const bus = options.bus;
    if (bus) {
      const announcements = (this.announcements = new Announcements(bus, options.log));
      this.unlisten = bus.listen({
        event: (message) => {
          if (message.type === 'applied') return announcements.applied(message.id);
          this.forget();
          // Answered after forgetting: the writer goes on once every process answered.
          bus.publish({ type: 'applied', id: message.id });
        },
        resync: () => this.forget(),
      });
    }
  }

  /** Who a bearer token is: the viewer of an API token (`viewerFor`), or the visitor of a site token (`siteVisitorFor`). */
  async callerFor(token: string, now = new Date()): Promise<Caller> {
    if (isSiteToken(token)) return { kind: 'site', visitor: await this.siteVisitorFor(token, now) };
    return { kind: 'user', viewer: await this.viewerFor(token, now) };
  }

  /**
   * The visitor of a site token, kept or verified (its key is read from the database); 401 for a
   * token that does not verify or expired. Kept like viewers: forgotten when a signing key changes.
   */
  async siteVisitorFor(token: string, now = new Date()): Promise<SiteVisitor> {
    if (!this.options.sealer) throw new UnauthenticatedError('Site tokens are not accepted by this process');
    const hash = hashToken(token);
    let entry = this.options.maxAgeMs > 0 ? this.sites.get(hash) : undefined;
    if (entry && (entry.epoch !== this.epoch || now.getTime() - entry.readAt >= this.options.maxAgeMs)) entry = undefined;
    if (!entry) {
      const epoch = this.epoch;
      entry = { visitor: await verifySiteToken(this.db, this.options.sealer, token, now), epoch, readAt: now.getTime() };
      if (this.options.maxAgeMs > 0) this.sites.set(hash, entry);
    }
    if (entry.visitor.expiresAt <= now) {
      throw new UnauthenticatedError('The site token expired: resolve the URL again (POST /v1/urls/published) for a new one');
    }
    return entry.visitor;
  }

  /**
   * The viewer of a bearer token, kept or read; 401 for an unknown, revoked or expired token.
   * Each call gets its own copy of what a request may note (memberships and grants it makes);
   * `lastSeenIn` is shared, so a last-seen time written once is not written again by the next.
   */
  async viewerFor(token: string, now = new Date()): Promise<Viewer> {
    const hash = hashToken(token);
    let entry = this.options.maxAgeMs > 0 ? this.entries.get(hash) : undefined;
    if (entry && (entry.epoch !== this.epoch || now.getTime() - entry.readAt >= this.options.maxAgeMs)) entry = undefined;
    if (!entry) {
      const epoch = this.epoch;
      const read = await readViewer(this.db, hash);
      if (!read) throw new UnauthenticatedError('The API token is invalid or has been revoked');
      entry = { viewer: read.viewer, epoch, readAt: now.getTime(), expiresAt: read.expiresAt, lastUsedAt: read.lastUsedAt };
      if (this.options.maxAgeMs > 0) this.entries.set(hash, entry);
    }
    if (entry.expiresAt && entry.expiresAt <= now) {
      throw new UnauthenticatedError(`The API token expired at ${entry.expiresAt.toISOString()}: create a new one`);
    }
    if (isUseStale(entry.lastUsedAt, now)) {
      // Noted as used whether this write or another process's did it: the next minute writes nothing.
      await noteTokenUse(this.db, { id: entry.viewer.tokenId, lastUsedAt: entry.lastUsedAt }, now);
      entry.lastUsedAt = now;
    }
    const viewer = entry.viewer;
    return { ...viewer, memberships: new Map(viewer.memberships), grantsIn: new Set(viewer.grantsIn) };
  }

  /**
   * A write of this process (its table; its statement, or none at a commit). One that may change
   * a viewer makes every kept viewer stale now and, with other processes, is announced to them.
   */
  noteWrite(table: string, sql?: string): void {
    if (!changesViewers(table, sql)) return;
    this.forget();
    if (!this.announcements || this.scheduled) return;
    this.scheduled = true;
    queueMicrotask(() => {
      this.scheduled = false;
      const announced = this.announcements!.announce();
      this.pending.add(announced);
      void announced.finally(() => this.pending.delete(announced));
    });
  }

  /** Resolves when every change this process announced so far was confirmed by every process. */
  async settled(): Promise<void> {
    // The microtask that announces this tick's writes runs first.
    await Promise.resolve();
    while (this.pending.size) await Promise.all([...this.pending]);
  }

  /** Forgets every kept viewer. */
  forget(): void {
    this.epoch += 1;
    this.entries.clear();
    this.sites.clear();
  }

  close(): void {
    this.unlisten();
    this.entries.clear();
    this.sites.clear();
  }
}

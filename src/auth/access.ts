/**
 * The caller's access in one request: who they are, their role in each
 * organization, the roles grants give them, and what share keys opened; from
 * these, the Subject the policies (./policies.ts) decide on for each resource.
 *
 * A caller's effective role on a space or collection is the highest of: their
 * organization role; the default level it resolves to through its parent
 * collections (`inherit` defers to the parent; members with a role only, never
 * guests); and the grants held by them or by a team they belong to on it or on
 * any collection above it (`effectiveContentRole`). A grant raises a role,
 * never lowers it. Guests and users outside the organization reach exactly what
 * their grants open. A share key of a share-link site lets anyone read that site
 * and the spaces it publishes: the subject then carries `shared`. A site token
 * (./site-tokens.ts) opens its site the same way, for a caller without a user:
 * its holder reads that site, the spaces it publishes and the OpenAPI specs their published
 * pages reference, nothing else. A member an
 * admin disabled is refused everything of that organization (`disabled`).
 */
import type { TeamMemberRole, TokenScope } from '../db/value-sets.ts';
import { UnauthenticatedError } from '../errors/index.ts';
import { isSeenStale } from './member-activity.ts';
import type { Subject } from './policies.ts';
import { atLeast, highest, isMemberRole, type MemberRole, type RoleOrGuest } from './roles.ts';
import type { SiteVisitor } from './site-tokens.ts';
import type { Viewer } from './viewer.ts';

/** What Access reads to decide, batched and cached per request (src/loaders.ts provides them). */
export interface AccessLookups {
  /** The default level a space or collection resolves to through its parents (undefined: none; null: guests only). */
  inheritedLevel(kind: 'space' | 'collection', id: string): Promise<MemberRole | null | undefined>;
  /** The roles the caller holds through grants in an organization (their own and their teams'), by `space:<id>` and `collection:<id>`. */
  grantsIn(organizationId: string): Promise<ReadonlyMap<string, MemberRole>>;
  /** The collections above a space or collection, nearest first. */
  ancestors(kind: 'space' | 'collection', id: string): Promise<readonly string[]>;
  /** The caller's role in a team, or null when they are not in it. */
  teamRole(teamId: string): Promise<TeamMemberRole | null>;
  /** Whether the caller owns a team of the organization. */
  ownsTeamIn(organizationId: string): Promise<boolean>;
  /** The site a share key opens (an active link of a published share-link site), or null. */
  siteOpenedBy(shareKey: string): Promise<string | null>;
  /** The published sites a space is on. */
  sitesPublishing(spaceId: string): Promise<string[]>;
  /** The published sites of the organization whose published content references its OpenAPI spec `slug`. */
  sitesReferencingOpenAPISpec(organizationId: string, slug: string): Promise<string[]>;
}

/**
 * The columns of a space that who may do what with it depends on (Access.space); loadSpace
 * selects them whatever the document asks for.
 */
export const SPACE_ACCESS_SELECT = { organizationId: true, parentId: true, defaultLevel: true, editMode: true } as const;

/** A space or a collection as its access is decided. */
export interface ContentNode {
  id: string;
  organizationId: string;
  parentId: string | null;
  defaultLevel: string | null;
}

/** What share keys opened in this request. */
export interface ShareGrants {
  /** site id -> the share key that opened it (null: a site token, which carries no key) */
  readonly sites: Map<string, string | null>;
  /** spaces opened through a share key (GET /v1/spaces/{id}?shareKey=) */
  readonly spaces: Set<string>;
}

export class Access {
  /** Read-only access share keys gave the caller beyond their memberships; published URLs of those sites carry the key. */
  readonly shareGrants: ShareGrants = { sites: new Map(), spaces: new Set() };
  /**
   * What the site token's visitor does not see of its site: site spaces and sections whose
   * condition is false for their claims (services/site.ts notes them when the site is read).
   */
  readonly visitorHidden = { siteSpaces: new Set<string>(), sections: new Set<string>() };
  /** The organizations this request touched where the caller is an enabled member (their `lastSeenAt`, ./member-activity.ts). */
  private readonly used = new Set<string>();

  constructor(
    readonly viewer: Viewer | null,
    private readonly lookups: AccessLookups,
    /** The visitor a site token names (then `viewer` is null). */
    readonly siteVisitor: SiteVisitor | null = null,
  ) {
    if (siteVisitor) this.shareGrants.sites.set(siteVisitor.siteId, siteVisitor.shareKey);
  }

  /** The viewer, or 401: what only a user may do (a site token's holder is not one). */
  requireViewer(): Viewer {
    if (!this.viewer) throw new UnauthenticatedError();
    return this.viewer;
  }

  /** 401 unless the request has a caller: a user, or the visitor of a site token (reads of a published site). */
  requireCaller(): void {
    if (!this.viewer && !this.siteVisitor) throw new UnauthenticatedError();
  }

  /** The visitor's claims (`visitor.claims` of adaptive content): a site token's; none for anyone else. */
  get visitorClaims(): Record<string, unknown> | null {
    return this.siteVisitor?.claims ?? null;
  }

  /** Records a membership made during this request (the creator of an organization, a member joining). */
  noteMembership(organizationId: string, role: RoleOrGuest): void {
    this.viewer?.memberships.set(organizationId, role);
  }

  /** Records that the caller (or a team of theirs) now holds a grant in the organization (made during this request). */
  noteGrant(organizationId: string): void {
    this.viewer?.grantsIn.add(organizationId);
  }

  /**
   * The roles the caller holds through grants in an organization (theirs and their teams'), by
   * `space:<id>` and `collection:<id>`: what lists show a guest. No statement without grants there.
   */
  contentGrants(organizationId: string): Promise<ReadonlyMap<string, MemberRole>> {
    return this.viewer ? this.lookups.grantsIn(organizationId) : Promise.resolve(new Map());
  }

  /** The organizations the caller is a member of. */
  memberOrganizationIds(): string[] {
    return this.viewer ? [...this.viewer.memberships.keys()] : [];
  }

  organization(organizationId: string): Subject {
    this.noteUse(organizationId);
    return { organizationId, role: this.viewer?.memberships.get(organizationId), scopes: this.scopes, ...this.disabledIn(organizationId) };
  }

  /** The subject of a team: the organization's, and whether the caller owns the team. */
  async team(team: { id: string; organizationId: string }): Promise<Subject> {
    const subject = this.organization(team.organizationId);
    if (!this.viewer || subject.role === undefined) return subject;
    return { ...subject, teamOwner: (await this.lookups.teamRole(team.id)) === 'owner' };
  }

  /**
   * The subject of the organization's teams as a whole: whether the caller owns any of them
   * (Organization.permissions.ownTeam: may they manage some team's members).
   */
  async teams(organizationId: string): Promise<Subject> {
    const subject = this.organization(organizationId);
    if (!this.viewer || subject.role === undefined) return subject;
    return { ...subject, teamOwner: await this.lookups.ownsTeamIn(organizationId) };
  }

  /**
   * Notes that the request touched an organization the caller is an enabled member of: their
   * `lastSeenAt` there is kept from such use (`takeStaleSeen`).
   */
  private noteUse(organizationId: string): void {
    if (this.viewer?.memberships.has(organizationId) && !this.viewer.disabledIn.has(organizationId)) this.used.add(organizationId);
  }

  /**
   * The organizations this request touched whose `lastSeenAt` (as the request read it) is old
   * enough to be written again at `now`; they are then taken as written, so a request writes each
   * at most once.
   */
  takeStaleSeen(now: Date): string[] {
    const viewer = this.viewer;
    if (!viewer) return [];
    const stale = [...this.used].filter((organizationId) => isSeenStale(viewer.lastSeenIn.get(organizationId), now));
    for (const organizationId of stale) viewer.lastSeenIn.set(organizationId, now);
    this.used.clear();
    return stale;
  }

  /** `disabled` when an admin disabled the caller's membership of the organization. */
  private disabledIn(organizationId: string): { disabled?: true } {
    return this.viewer?.disabledIn.has(organizationId) ? { disabled: true } : {};
  }

  /** The subject of the caller's own account (their profile, organizations, tokens); 401 without a caller. */
  account(): Subject {
    this.requireViewer();
    return { organizationId: null, role: undefined, scopes: this.scopes };
  }

  /** The scopes the caller's token is limited to (null: none, it acts with its user's roles). */
  private get scopes(): ReadonlySet<TokenScope> | null {
    return this.viewer?.scopes ?? null;
  }

  /**
   * The subject of a space. With `shareKey` (GET /v1/spaces/{id}?shareKey=),
   * a key of a site publishing the space opens it, and goes into its published
   * URL (members included); without, a space published on a site a key opened
   * earlier in the request is open too.
   */
  async space(space: ContentNode & { editMode?: string }, options: { shareKey?: string | null } = {}): Promise<Subject> {
    const base = await this.content('space', space);
    const subject = { ...base, locked: space.editMode === 'locked' };
    const opened = options.shareKey ? await this.openSpace(space.id, options.shareKey) : false;
    if (opened || atLeast(subject.role, 'read')) return { ...subject, shared: opened };
    return { ...subject, shared: await this.isSpaceShared(space.id) };
  }

  collection(collection: ContentNode): Promise<Subject> {
    return this.content('collection', collection);
  }

  /**
   * The subject of a site; `shareKey` opens a share-link site for reading (ignored when it opens
   * another site), and a site token its site while it is published.
   */
  async site(site: { id: string; organizationId: string; published: boolean }, shareKey?: string | null): Promise<Subject> {
    const subject = this.organization(site.organizationId);
    if (this.siteVisitor?.siteId === site.id && site.published) return { ...subject, shared: true };
    if (!shareKey || (await this.lookups.siteOpenedBy(shareKey)) !== site.id) return subject;
    this.shareGrants.sites.set(site.id, shareKey);
    return { ...subject, shared: true };
  }

  /**
   * The subject of an organization's OpenAPI spec (by slug: pages reference specs by slug). A site
   * opened in this request (a site token's, or a share key's) opens for reading the specs its
   * published content references, as it opens the spaces it publishes; members read them all.
   */
  async openAPISpec(spec: { organizationId: string; slug: string }): Promise<Subject> {
    const subject = this.organization(spec.organizationId);
    if (atLeast(subject.role, 'read') || this.shareGrants.sites.size === 0) return subject;
    const sites = await this.lookups.sitesReferencingOpenAPISpec(spec.organizationId, spec.slug);
    return { ...subject, shared: sites.some((siteId) => this.shareGrants.sites.has(siteId)) };
  }

  /** The share key that opened `siteId` in this request, if any. */
  shareKeyFor(siteId: string): string | null {
    return this.shareGrants.sites.get(siteId) ?? null;
  }

  /** Whether a share key or the caller's site token opened `siteId` in this request. */
  opened(siteId: string): boolean {
    return this.shareGrants.sites.has(siteId);
  }

  private async content(kind: 'space' | 'collection', node: ContentNode): Promise<Subject> {
    this.noteUse(node.organizationId);
    const own = this.viewer?.memberships.get(node.organizationId);
    const subject = { organizationId: node.organizationId, scopes: this.scopes, ...this.disabledIn(node.organizationId) };
    // Nothing outranks admin; a disabled member gets nothing, whatever raised their role.
    if (!this.viewer || own === 'admin' || subject.disabled) return { ...subject, role: own };
    const [level, grants] = await Promise.all([this.defaultLevel(kind, node, own), this.lookups.grantsIn(node.organizationId)]);
    const ancestors = hasCollectionGrant(grants) ? await this.lookups.ancestors(kind, node.id) : [];
    return { ...subject, role: effectiveContentRole({ kind, id: node.id, own, level, grants, ancestors }) };
  }

  /** The default level that raises a member's role on the node (members with a role only). */
  private async defaultLevel(kind: 'space' | 'collection', node: ContentNode, own: RoleOrGuest | undefined): Promise<MemberRole | null | undefined> {
    return own ? nodeDefaultLevel(kind, node, this.lookups.inheritedLevel) : undefined;
  }

  /** Whether `shareKey` opens a site that publishes the space; if so it is recorded for the request. */
  private async openSpace(spaceId: string, shareKey: string): Promise<boolean> {
    const siteId = await this.lookups.siteOpenedBy(shareKey);
    // A key opens only a published site, and a site publishes spaces of its own organization only.
    if (!siteId || !(await this.lookups.sitesPublishing(spaceId)).includes(siteId)) return false;
    this.shareGrants.sites.set(siteId, shareKey);
    this.shareGrants.spaces.add(spaceId);
    return true;
  }

  /** Whether the space was opened with a key in this request, or is published on a site a key opened. */
  private async isSpaceShared(spaceId: string): Promise<boolean> {
    if (this.shareGrants.spaces.has(spaceId)) return true;
    if (this.shareGrants.sites.size === 0) return false;
    return (await this.lookups.sitesPublishing(spaceId)).some((siteId) => this.shareGrants.sites.has(siteId));
  }
}

/**
 * The subject of another member of an organization, as a rule sees them (their role, whether
 * they are disabled; no token): for what a service decides about someone other than the caller,
 * such as the teams a member can manage.
 */
export function memberSubject(member: { organizationId: string; role: string | null; disabled: boolean }, facts: { teamOwner?: boolean } = {}): Subject {
  return {
    organizationId: member.organizationId,
    role: isMemberRole(member.role) ? member.role : null,
    scopes: null,
    ...(member.disabled ? { disabled: true } : {}),
    ...facts,
  };
}

/** What a role on a space or collection is made of (Access.content, and the services that list other users' roles). */
export interface ContentRoleInput {
  kind: 'space' | 'collection';
  id: string;
  /** The user's organization role (null: guest; undefined: not a member). */
  own: RoleOrGuest | undefined;
  /** The default level the node resolves to, for a member with a role (undefined: none). */
  level: MemberRole | null | undefined;
  /** The user's grants in the organization (theirs and their teams'), by `space:<id>` and `collection:<id>`. */
  grants: ReadonlyMap<string, MemberRole>;
  /** The collections above the node, nearest first (needed only when `grants` holds a collection). */
  ancestors: readonly string[];
}

/**
 * The effective role: the highest of the organization role, the default level (members with a
 * role only) and the grants on the node and on every collection above it.
 */
export function effectiveContentRole(input: ContentRoleInput): RoleOrGuest | undefined {
  const { own, grants } = input;
  const roles: Array<RoleOrGuest | undefined> = [own, own ? (input.level ?? undefined) : undefined, grants.get(`${input.kind}:${input.id}`)];
  for (const collectionId of input.ancestors) roles.push(grants.get(`collection:${collectionId}`));
  return highest(roles);
}

/** Whether any grant is on a collection (then the node's ancestors matter). */
export function hasCollectionGrant(grants: ReadonlyMap<string, MemberRole>): boolean {
  for (const key of grants.keys()) if (key.startsWith('collection:')) return true;
  return false;
}

/**
 * The default level a space or collection gives members with a role: its own, or with `inherit`
 * the one it resolves to through its parents (`inheritedLevel`); undefined for none.
 */
export async function nodeDefaultLevel(
  kind: 'space' | 'collection',
  node: Pick<ContentNode, 'id' | 'parentId' | 'defaultLevel'>,
  inheritedLevel: AccessLookups['inheritedLevel'],
): Promise<MemberRole | null | undefined> {
  if (node.defaultLevel === 'inherit') return node.parentId ? inheritedLevel(kind, node.id) : undefined;
  return isMemberRole(node.defaultLevel) ? node.defaultLevel : undefined;
}

/**
 * Grants on spaces and collections (`ContentGrant`): loading the space or collection whose grants
 * the caller lists or changes; inviting users (by id or e-mail) and teams with a role, changing and
 * removing a grant; who reaches a space or collection, with which role and why (the aggregate);
 * what grants open to a caller whose organization role opens nothing (the lists a guest sees); and
 * the spaces a member reaches, with their role on each. Effective roles come from
 * `effectiveContentRole` (src/auth/access.ts), computed for whole lists in a fixed number of
 * statements (the batched loaders of src/loaders.ts).
 */
import { effectiveContentRole, hasCollectionGrant, nodeDefaultLevel } from '../auth/access.ts';
import { authorize, can, type Action } from '../auth/policies.ts';
import { highest, isMemberRole, rank, type MemberRole, type RoleOrGuest } from '../auth/roles.ts';
import type { Context } from '../context.ts';
import type { Db } from '../db/client.ts';
import { ConflictError, InvalidInputError, NotFoundError, SsoRequiredError } from '../errors/index.ts';
import { isUniqueViolation } from '../errors/prisma.ts';
import { newId } from '../ids.ts';
import type { ContentNodeKey } from '../loaders.ts';
import { loadCollection } from './collection.ts';
import { loadSpace } from './space.ts';

export type ContentKind = 'space' | 'collection';
export type GranteeKind = 'user' | 'team';

/** A space or collection whose grants are listed or changed: what its access is decided on. */
export interface GrantTarget {
  kind: ContentKind;
  id: string;
  organizationId: string;
  parentId: string | null;
  defaultLevel: string | null;
}

/** `list`: see who holds which role (readers); `manage`: invite, change and remove (admins of it). */
export type GrantUse = 'list' | 'manage';

const GRANT_ACTIONS = {
  space: { list: 'space:list-permissions', manage: 'space:manage-permissions' },
  collection: { list: 'collection:list-permissions', manage: 'collection:manage-permissions' },
} as const satisfies Record<ContentKind, Record<GrantUse, Action>>;

const TYPE_NAMES: Record<ContentKind, string> = { space: 'Space', collection: 'Collection' };

/** Users or teams one invite names at most. */
export const MAX_INVITEES = 1000;

function targetOf(kind: ContentKind, row: Omit<GrantTarget, 'kind'>): GrantTarget {
  return { kind, id: row.id, organizationId: row.organizationId, parentId: row.parentId, defaultLevel: row.defaultLevel };
}

/** Loads a space (not in the bin) or collection for listing (`list`) or changing (`manage`) its grants; 404/403 otherwise. */
export async function loadGrantTarget(ctx: Context, kind: ContentKind, id: string, use: GrantUse): Promise<GrantTarget> {
  const action = GRANT_ACTIONS[kind][use];
  const row = kind === 'space' ? await loadSpace(ctx, id, action) : await loadCollection(ctx, id, action);
  return targetOf(kind, row);
}

/** Authorizes `use` on a space or collection already read (a GraphQL field of it). */
export async function authorizeGrantTarget(
  ctx: Context,
  kind: ContentKind,
  row: Omit<GrantTarget, 'kind'> & { editMode?: string },
  use: GrantUse,
): Promise<GrantTarget> {
  const subject = kind === 'space' ? await ctx.access.space(row) : await ctx.access.collection(row);
  authorize(subject, GRANT_ACTIONS[kind][use], { type: TYPE_NAMES[kind], id: row.id });
  return targetOf(kind, row);
}

/** The `where` of the grants of `granteeKind` on the target. */
export function grantsOf(target: GrantTarget, granteeKind: GranteeKind) {
  return { resourceKind: target.kind, resourceId: target.id, granteeKind };
}

// ---------------------------------------------------------------- changes

export interface InviteInput {
  role: MemberRole;
  /** User ids or e-mail addresses. */
  users?: readonly string[] | null;
  teams?: readonly string[] | null;
}

const unique = <T>(values: readonly T[]) => [...new Set(values)];
const quoted = (values: readonly string[]) => values.map((v) => JSON.stringify(v)).join(', ');

/**
 * Gives users (by id or e-mail) and teams `role` on the target: a grant each, made or changed to
 * that role. A user who is not a member of the organization joins it as a guest (GitBook's
 * behaviour: they then reach exactly what their grants open), unless the organization lets new
 * members in only through SAML (400). Unknown users, e-mails or teams: 400 naming every one; a
 * team of another organization: 404; either way nothing is written (one transaction).
 */
export async function inviteToContent(ctx: Context, target: GrantTarget, input: InviteInput): Promise<void> {
  // GitBook's body takes `users`, `teams` or both, each with at least one item.
  for (const field of ['users', 'teams'] as const) {
    if (input[field]?.length === 0) throw new InvalidInputError(`${field}: must hold at least one item (leave it out to invite no ${field})`);
  }
  const refs = unique(input.users ?? []);
  const teamIds = unique(input.teams ?? []);
  if (refs.length === 0 && teamIds.length === 0) throw new InvalidInputError('give at least one user in `users` or one team in `teams`');
  if (refs.length > MAX_INVITEES) throw new InvalidInputError(`users: at most ${MAX_INVITEES} users at a time`);
  if (teamIds.length > MAX_INVITEES) throw new InvalidInputError(`teams: at most ${MAX_INVITEES} teams at a time`);
  const emails = unique(refs.filter((ref) => ref.includes('@')).map((ref) => ref.toLowerCase()));
  const [users, teams, organization] = await Promise.all([
    refs.length
      ? ctx.db.user.findMany({ where: { OR: [{ id: { in: refs } }, ...(emails.length ? [{ email: { in: emails } }] : [])] }, select: { id: true, email: true } })
      : [],
    teamIds.length ? ctx.db.team.findMany({ where: { id: { in: teamIds } }, select: { id: true, organizationId: true } }) : [],
    ctx.db.organization.findUniqueOrThrow({ where: { id: target.organizationId }, select: { sso: true } }),
  ]);
  const byId = new Map(users.map((u) => [u.id, u.id]));
  const byEmail = new Map(users.map((u) => [u.email.toLowerCase(), u.id]));
  const userIdOf = (ref: string) => byId.get(ref) ?? byEmail.get(ref.toLowerCase());
  const unknownUsers = refs.filter((ref) => !userIdOf(ref));
  const foundTeams = new Map(teams.map((t) => [t.id, t]));
  const unknownTeams = teamIds.filter((id) => !foundTeams.has(id));
  const problems = [
    ...(unknownUsers.length ? [`users: no user with the id or e-mail ${quoted(unknownUsers)}`] : []),
    ...(unknownTeams.length ? [`teams: no team ${quoted(unknownTeams)}`] : []),
  ];
  if (problems.length) throw new InvalidInputError(problems.join('; '));
  const foreign = teams.find((t) => t.organizationId !== target.organizationId);
  if (foreign) throw new NotFoundError('Team', foreign.id);

  const userIds = unique(refs.map((ref) => userIdOf(ref)!));
  const members = userIds.length
    ? await ctx.db.member.findMany({ where: { organizationId: target.organizationId, userId: { in: userIds } }, select: { userId: true } })
    : [];
  const isMember = new Set(members.map((m) => m.userId));
  const newcomers = userIds.filter((id) => !isMember.has(id));
  if (newcomers.length && organization.sso) {
    const named = refs.filter((ref) => newcomers.includes(userIdOf(ref)!));
    throw new SsoRequiredError(target.organizationId, `users: ${quoted(named)} ${named.length > 1 ? 'are not members' : 'is not a member'} of it`);
  }
  const grantees = [...userIds.map((id) => ({ granteeKind: 'user', granteeId: id })), ...teamIds.map((id) => ({ granteeKind: 'team', granteeId: id }))];
  try {
    await ctx.db.$transaction(async (tx) => {
      if (newcomers.length) {
        await tx.member.createMany({ data: newcomers.map((userId) => ({ id: newId(), organizationId: target.organizationId, userId, role: null })) });
      }
      const existing = await tx.contentGrant.findMany({
        where: {
          resourceKind: target.kind,
          resourceId: target.id,
          OR: [
            ...(userIds.length ? [{ granteeKind: 'user', granteeId: { in: userIds } }] : []),
            ...(teamIds.length ? [{ granteeKind: 'team', granteeId: { in: teamIds } }] : []),
          ],
        },
        select: { id: true, granteeKind: true, granteeId: true },
      });
      if (existing.length) await tx.contentGrant.updateMany({ where: { id: { in: existing.map((g) => g.id) } }, data: { role: input.role } });
      const held = new Set(existing.map((g) => `${g.granteeKind}:${g.granteeId}`));
      const fresh = grantees.filter((g) => !held.has(`${g.granteeKind}:${g.granteeId}`));
      if (fresh.length) {
        await tx.contentGrant.createMany({
          data: fresh.map((g) => ({ id: newId(), organizationId: target.organizationId, resourceKind: target.kind, resourceId: target.id, ...g, role: input.role })),
        });
      }
    });
  } catch (error) {
    if (isUniqueViolation(error)) throw new ConflictError(`The permissions of the ${target.kind} were changed at the same time: try again`);
    throw error;
  }
  // The caller (or a team of theirs) may be among those invited: later checks of this request read grants.
  ctx.access.noteGrant(target.organizationId);
  const viewer = ctx.access.viewer;
  if (viewer && newcomers.includes(viewer.userId)) ctx.access.noteMembership(target.organizationId, null);
}

/** 404 unless `teamId` is a team of the organization (another organization's team is not found either). */
async function assertTeamOf(db: Db, organizationId: string, teamId: string): Promise<void> {
  const team = await db.team.findUnique({ where: { id: teamId }, select: { organizationId: true } });
  if (team?.organizationId !== organizationId) throw new NotFoundError('Team', teamId);
}

function grantNotFound(target: GrantTarget, granteeKind: GranteeKind, granteeId: string): NotFoundError {
  return new NotFoundError(granteeKind === 'user' ? 'User' : 'Team', granteeId, `it holds no permission on ${target.kind} ${JSON.stringify(target.id)}`);
}

/** Changes the role of a grant the user or team holds on the target; 404 when they hold none. Returns the grant. */
export async function updateGrant(ctx: Context, target: GrantTarget, granteeKind: GranteeKind, granteeId: string, role: MemberRole) {
  if (granteeKind === 'team') await assertTeamOf(ctx.db, target.organizationId, granteeId);
  const where = { ...grantsOf(target, granteeKind), granteeId };
  const { count } = await ctx.db.contentGrant.updateMany({ where, data: { role } });
  if (count === 0) throw grantNotFound(target, granteeKind, granteeId);
  return ctx.db.contentGrant.findFirstOrThrow({ where });
}

/** Removes the grant the user or team holds on the target; 404 when they hold none. */
export async function removeGrant(ctx: Context, target: GrantTarget, granteeKind: GranteeKind, granteeId: string): Promise<true> {
  if (granteeKind === 'team') await assertTeamOf(ctx.db, target.organizationId, granteeId);
  const { count } = await ctx.db.contentGrant.deleteMany({ where: { ...grantsOf(target, granteeKind), granteeId } });
  if (count === 0) throw grantNotFound(target, granteeKind, granteeId);
  return true;
}

/**
 * Deletes the grants on spaces and collections that leave an organization or go away: `spaceIds`
 * and `collectionIds`, held in `organizationId` (transfers keep nothing of the old organization's
 * users and teams; a deletion keeps nothing at all), and the invite links to them (a link opens
 * a place of its own organization only).
 */
export async function dropGrantsOn(
  tx: Pick<Db, 'contentGrant' | 'inviteLink'>,
  resources: { organizationId?: string; spaceIds?: readonly string[]; collectionIds?: readonly string[] },
): Promise<void> {
  const on = [
    ...(resources.spaceIds?.length ? [{ resourceKind: 'space', resourceId: { in: [...resources.spaceIds] } }] : []),
    ...(resources.collectionIds?.length ? [{ resourceKind: 'collection', resourceId: { in: [...resources.collectionIds] } }] : []),
  ];
  if (on.length === 0) return;
  await tx.contentGrant.deleteMany({ where: { ...(resources.organizationId ? { organizationId: resources.organizationId } : {}), OR: on } });
  await tx.inviteLink.deleteMany({ where: { OR: on.map((place) => ({ targetKind: place.resourceKind, targetId: place.resourceId })) } });
}

// ---------------------------------------------------------------- roles of others

/** The default level that raises a member's role on a node (members with a role only): as Access decides it. */
function levelOf(ctx: Context, kind: ContentKind, node: { id: string; parentId: string | null; defaultLevel: string | null }) {
  return nodeDefaultLevel(kind, node, async (k, id) => (await ctx.loaders.contentFacts.load(`${k}:${id}`)).level);
}

/** Where a role on a space or collection comes from (the aggregate's `sources`). */
export interface AccessSource {
  type: 'organization' | 'defaultLevel' | 'user' | 'team';
  role: MemberRole;
  /** A team's grant: the team. */
  teamId?: string;
  /** A grant on a collection above the resource: that collection. */
  collectionId?: string;
}

/** A user who reaches a space or collection: their effective role, and every source of a role. */
export interface UserAccess {
  userId: string;
  role: MemberRole;
  sources: AccessSource[];
}

const SOURCE_ORDER: Record<AccessSource['type'], number> = { organization: 0, defaultLevel: 1, user: 2, team: 3 };

/**
 * Every user who reaches the target, strongest role first (then by user id): members with a role
 * (their organization role, raised by the default level), and anyone with a grant of their own or
 * of a team on it or on a collection above it. Disabled members reach nothing and are left out.
 * A fixed number of statements whatever the number of members and grants.
 */
export async function whoReaches(ctx: Context, target: GrantTarget): Promise<UserAccess[]> {
  const node = `${target.kind}:${target.id}` as ContentNodeKey;
  // Each stage loads the same things for every node of a response, so that the nodes of a list move
  // from stage to stage together and each loader sends one batch (a fixed number of statements).
  const [members, ancestors, facts] = await Promise.all([
    ctx.loaders.membersOf.load(target.organizationId),
    ctx.loaders.ancestorsOf.load(node),
    ctx.loaders.contentFacts.load(node),
  ]);
  const level = facts.level;
  const nodes: ContentNodeKey[] = [node, ...ancestors.map((id) => `collection:${id}` as ContentNodeKey)];
  const grants = (await ctx.loaders.grantsOn.loadMany(nodes))
    .flatMap((list) => (list instanceof Error ? [] : list))
    .filter((g) => g.organizationId === target.organizationId);
  const teamIds = unique(grants.filter((g) => g.granteeKind === 'team').map((g) => g.granteeId));
  const teamMembers = await ctx.loaders.teamMemberIds.loadMany(teamIds);
  const usersOfTeam = new Map(teamIds.map((id, i) => [id, (teamMembers[i] instanceof Error ? [] : teamMembers[i]) as readonly string[]]));

  interface Candidate {
    own: RoleOrGuest | undefined;
    disabled: boolean;
    grants: Map<string, MemberRole>;
    sources: AccessSource[];
  }
  const candidates = new Map<string, Candidate>();
  const candidate = (userId: string) => {
    let c = candidates.get(userId);
    if (!c) candidates.set(userId, (c = { own: undefined, disabled: false, grants: new Map(), sources: [] }));
    return c;
  };
  for (const m of members) Object.assign(candidate(m.userId), { own: isMemberRole(m.role) ? m.role : null, disabled: m.disabled });
  for (const g of grants) {
    if (!isMemberRole(g.role)) continue;
    const key = `${g.resourceKind}:${g.resourceId}`;
    const above = g.resourceKind === target.kind && g.resourceId === target.id ? {} : { collectionId: g.resourceId };
    const holders = g.granteeKind === 'user' ? [g.granteeId] : (usersOfTeam.get(g.granteeId) ?? []);
    for (const userId of holders) {
      const c = candidate(userId);
      c.grants.set(key, highest([c.grants.get(key), g.role]) as MemberRole);
      c.sources.push({ type: g.granteeKind === 'user' ? 'user' : 'team', role: g.role, ...(g.granteeKind === 'team' ? { teamId: g.granteeId } : {}), ...above });
    }
  }
  const reached: UserAccess[] = [];
  for (const [userId, c] of candidates) {
    if (c.disabled) continue;
    const role = effectiveContentRole({ kind: target.kind, id: target.id, own: c.own, level, grants: c.grants, ancestors });
    if (!role) continue;
    const sources: AccessSource[] = [];
    if (c.own) sources.push({ type: 'organization', role: c.own });
    if (c.own && level) sources.push({ type: 'defaultLevel', role: level });
    sources.push(...c.sources);
    sources.sort((a, b) => SOURCE_ORDER[a.type] - SOURCE_ORDER[b.type] || rank(b.role) - rank(a.role));
    reached.push({ userId, role, sources });
  }
  return reached.sort((a, b) => rank(b.role) - rank(a.role) || (a.userId < b.userId ? -1 : a.userId > b.userId ? 1 : 0));
}

/** A key that sorts as `whoReaches` does (strongest role first, then user id): the aggregate's page cursor. */
export function accessKey(access: UserAccess): string {
  return `${9 - rank(access.role)}:${access.userId}`;
}

// ---------------------------------------------------------------- what grants open

/** What grants open in an organization: spaces by id, and collections (each granted one and every collection below it). */
export interface OpenedContent {
  spaceIds: string[];
  collectionIds: string[];
}

/** The spaces and collections `grants` open (a grant on a collection opens it and everything below it). */
export async function contentOpenedBy(ctx: Context, grants: ReadonlyMap<string, MemberRole>): Promise<OpenedContent> {
  const spaceIds: string[] = [];
  const roots: string[] = [];
  for (const key of grants.keys()) {
    if (key.startsWith('space:')) spaceIds.push(key.slice('space:'.length));
    else if (key.startsWith('collection:')) roots.push(key.slice('collection:'.length));
  }
  const subtrees = roots.length ? await ctx.loaders.collectionSubtreeOf.loadMany(roots) : [];
  const collectionIds = unique(subtrees.flatMap((ids) => (ids instanceof Error ? [] : ids)));
  return { spaceIds, collectionIds };
}

/** The `where` of the spaces `opened` holds: granted ones, and those in an opened collection. */
export function spacesOpened(opened: OpenedContent) {
  return { OR: [{ id: { in: opened.spaceIds } }, { parentId: { in: opened.collectionIds } }] };
}

/**
 * What the caller reads of an organization's spaces (`space:read`) or collections
 * (`collection:read`) in a list: null when their organization role reads them all; otherwise what
 * their grants open (a guest, or a user outside the organization; nothing for a disabled member).
 */
export async function readableContent(ctx: Context, organizationId: string, action: 'space:read' | 'collection:read'): Promise<OpenedContent | null> {
  const subject = ctx.access.organization(organizationId);
  if (can(subject, action)) return null;
  if (subject.disabled) return { spaceIds: [], collectionIds: [] };
  return contentOpenedBy(ctx, await ctx.access.contentGrants(organizationId));
}

/**
 * What the caller reads of a collection's children (`space:read`: its spaces; `collection:read`:
 * its collections): null when they read them all (their organization role, or a role on the
 * collection, which every child inherits); otherwise what their grants open (the children a
 * guest reaches through their own grants, when the collection itself is closed to them).
 */
export async function readableIn(
  ctx: Context,
  collection: { id: string; organizationId: string; parentId: string | null; defaultLevel: string | null },
  action: 'space:read' | 'collection:read',
): Promise<OpenedContent | null> {
  const opened = await readableContent(ctx, collection.organizationId, action);
  if (!opened || opened.collectionIds.includes(collection.id)) return null;
  return opened;
}

/** The spaces a user reaches in an organization, as a `where` on Space: every one for a member with a role, else what their grants open. */
export async function spacesReachedWhere(ctx: Context, member: { organizationId: string; userId: string; role: string | null; disabled: boolean }) {
  const base = { organizationId: member.organizationId, deletedAt: null };
  if (member.disabled) return { id: { in: [] as string[] } };
  if (isMemberRole(member.role)) return base;
  const grants = await ctx.loaders.grantsOfUser.load(`${member.organizationId}:${member.userId}`);
  return { ...base, ...spacesOpened(await contentOpenedBy(ctx, grants)) };
}

/**
 * The effective role of a member on each of `spaces` (of their organization): batched, a fixed
 * number of statements for any number of spaces (their grants, the default levels that inherit,
 * the collections above them when a grant is on a collection).
 */
export async function memberRolesOn(
  ctx: Context,
  member: { organizationId: string; userId: string; role: string | null },
  spaces: ReadonlyArray<{ id: string; parentId: string | null; defaultLevel: string | null }>,
): Promise<Array<RoleOrGuest | undefined>> {
  const own: RoleOrGuest = isMemberRole(member.role) ? member.role : null;
  const grants = await ctx.loaders.grantsOfUser.load(`${member.organizationId}:${member.userId}`);
  const withAncestors = hasCollectionGrant(grants);
  return Promise.all(
    spaces.map(async (space) => {
      const [level, ancestors] = await Promise.all([
        own ? levelOf(ctx, 'space', space) : undefined,
        withAncestors ? ctx.loaders.ancestorsOf.load(`space:${space.id}`) : ([] as readonly string[]),
      ]);
      return effectiveContentRole({ kind: 'space', id: space.id, own, level, grants, ancestors });
    }),
  );
}

/**
 * The parent collection of a space or collection, when the caller may read it (null otherwise, or
 * at the top level): a guest reaching a space through a grant of their own sees nothing of the
 * collection it is in. No statement for a member with a role beyond reading the rows (batched).
 */
export async function readableParent(ctx: Context, node: { organizationId: string; parentId: string | null }) {
  if (!node.parentId) return null;
  const collection = await ctx.loaders.collectionById.load(node.parentId);
  if (!collection) return null;
  if (can(ctx.access.organization(collection.organizationId), 'collection:read')) return collection;
  return can(await ctx.access.collection(collection), 'collection:read') ? collection : null;
}

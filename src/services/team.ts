/**
 * Teams of an organization: loading one the caller may act on, the filters of team lists,
 * resolving the users a call names (by id or e-mail, members of the organization only), changing
 * a team's memberships all or nothing, and deleting a team with what points at it.
 *
 * Adding someone to a team gives them the team's grants. An admin may add anyone; a team owner
 * who is not an admin may add members only while each grant of the team is at most their own
 * role on that resource apart from this team (docs/decisions.md, "Access model (issue 16)").
 */
import { effectiveContentRole, hasCollectionGrant, memberSubject } from '../auth/access.ts';
import { authorize, can, type Action } from '../auth/policies.ts';
import { atLeast, highest, isMemberRole, type MemberRole } from '../auth/roles.ts';
import type { Context } from '../context.ts';
import { Prisma, type Db } from '../db/client.ts';
import { pageOfRows, type ListResult, type SortKey } from '../db/pagination.ts';
import { containsInsensitive, escapeLike } from '../db/provider/like.ts';
import { TEAM_MEMBER_ROLES, type TeamMemberRole } from '../db/value-sets.ts';
import { ConflictError, ForbiddenError, InvalidInputError, NotFoundError } from '../errors/index.ts';
import { isForeignKeyViolation, isUniqueViolation, isWriteConflict } from '../errors/prisma.ts';
import { newId } from '../ids.ts';
import type { ContentNodeKey } from '../loaders.ts';

/** What a team's flows read and write inside their transaction. */
export type TeamTx = Pick<Db, 'team' | 'teamMember' | 'member' | 'user' | 'contentGrant' | 'samlProvider' | '$queryRaw'>;

/** A team as the flows need it. */
export interface TeamRow {
  id: string;
  organizationId: string;
}

/**
 * Loads a team of the organization and authorizes `action` on it: 404 when the caller is not a
 * member of the organization or the team is not one of its teams, 403 when their role does not
 * allow the action (`team:manage-members`: an admin, or an owner of this team).
 */
export async function loadTeam<Q extends object>(ctx: Context, organizationId: string, teamId: string, action: Action, query?: Q) {
  ctx.access.requireViewer();
  // Not a member of the organization: 404 before anything is read.
  authorize(ctx.access.organization(organizationId), 'team:read', { type: 'Team', id: teamId });
  const team = await ctx.db.team.findUnique({ ...(query ?? {}), where: { id: teamId } });
  if (!team || team.organizationId !== organizationId) throw new NotFoundError('Team', teamId);
  const subject = action === 'team:manage-members' ? await ctx.access.team(team) : ctx.access.organization(organizationId);
  authorize(subject, action, { type: 'Team', id: teamId });
  return team;
}

/**
 * The `where` part for teams whose title contains `title` literally (`%` and `_` included),
 * ignoring case; on SQLite with `%` or `_` in it, the matching teams are found with LIKE's
 * ESCAPE clause (see containsInsensitive).
 */
export async function teamTitleFilter(ctx: Context, organizationId: string, title: string): Promise<Prisma.TeamWhereInput> {
  const filter = containsInsensitive(ctx.provider, title);
  if (filter) return { title: filter };
  const pattern = `%${escapeLike(title)}%`;
  const rows = await ctx.db.$queryRaw<Array<{ id: string }>>`
    SELECT t."id" AS "id" FROM "Team" t WHERE t."organizationId" = ${organizationId} AND t."title" LIKE ${pattern} ESCAPE '\\'`;
  return { id: { in: rows.map((r) => r.id) } };
}

/**
 * The `where` part for the teams a member of the organization can manage (the `owner` filter):
 * every team for an admin, the teams they own for anyone else the policy lets manage a team they
 * own, none for a user who is not a member (or is disabled).
 */
export async function teamsManageableBy(ctx: Context, organizationId: string, userId: string): Promise<Prisma.TeamWhereInput> {
  const member = await ctx.db.member.findUnique({
    where: { organizationId_userId: { organizationId, userId } },
    select: { organizationId: true, role: true, disabled: true },
  });
  const none = { id: { in: [] } };
  if (!member) return none;
  if (can(memberSubject(member), 'team:manage-members')) return {};
  if (can(memberSubject(member, { teamOwner: true }), 'team:manage-members')) return { members: { some: { userId, role: 'owner' } } };
  return none;
}

/** A team's members in the order they joined it. */
export const TEAM_MEMBERS_ORDER: readonly SortKey[] = [
  ['createdAt', 'asc'],
  ['userId', 'asc'],
];

/** A member's teams in the order they joined them. */
export const MEMBER_TEAMS_ORDER: readonly SortKey[] = [
  ['createdAt', 'asc'],
  ['teamId', 'asc'],
];

type MembershipRow = { teamId: string; userId: string } & Record<string, unknown>;
type FirstPage<Row> = Pick<ListResult<Row>, 'items' | 'next'>;

/**
 * The first pages of several teams' member lists (members of the team's organization, as
 * TEAM_MEMBERS_ORDER), in two statements whatever the number of teams: the keys of each team's
 * first `limit + 1` memberships (a window over the teams), then those rows, by `load` (the query
 * planned for them).
 */
export async function firstPagesOfTeamMembers<Row extends MembershipRow>(
  ctx: Context,
  teamIds: readonly string[],
  limit: number,
  load: (where: Prisma.TeamMemberWhereInput) => Promise<Row[]>,
): Promise<FirstPage<Row>[]> {
  const keys = await ctx.db.$queryRaw<Array<{ teamId: string; userId: string }>>`
    SELECT x."teamId", x."userId" FROM (
      SELECT tm."teamId", tm."userId", ROW_NUMBER() OVER (PARTITION BY tm."teamId" ORDER BY tm."createdAt", tm."userId") AS "n"
      FROM "TeamMember" tm
      JOIN "Team" t ON t."id" = tm."teamId"
      JOIN "Member" m ON m."organizationId" = t."organizationId" AND m."userId" = tm."userId"
      WHERE tm."teamId" IN (${Prisma.join([...new Set(teamIds)])})
    ) x
    WHERE x."n" <= ${limit + 1}
    ORDER BY x."teamId", x."n"`;
  return pagesOf(
    keys.map((k) => ({ ...k, list: k.teamId })),
    teamIds,
    limit,
    TEAM_MEMBERS_ORDER,
    load,
  );
}

/**
 * The first pages of several members' team lists (`${organizationId}:${userId}`: the teams of
 * that organization the user is in, as MEMBER_TEAMS_ORDER), in two statements whatever the number
 * of members (see firstPagesOfTeamMembers).
 */
export async function firstPagesOfMemberTeams<Row extends MembershipRow>(
  ctx: Context,
  members: readonly string[],
  limit: number,
  load: (where: Prisma.TeamMemberWhereInput) => Promise<Row[]>,
): Promise<FirstPage<Row>[]> {
  const pairs = members.map((key) => key.split(':') as [string, string]);
  const keys = await ctx.db.$queryRaw<Array<{ organizationId: string; teamId: string; userId: string }>>`
    SELECT x."organizationId", x."teamId", x."userId" FROM (
      SELECT t."organizationId", tm."teamId", tm."userId",
        ROW_NUMBER() OVER (PARTITION BY t."organizationId", tm."userId" ORDER BY tm."createdAt", tm."teamId") AS "n"
      FROM "TeamMember" tm JOIN "Team" t ON t."id" = tm."teamId"
      WHERE tm."userId" IN (${Prisma.join([...new Set(pairs.map(([, u]) => u))])})
        AND t."organizationId" IN (${Prisma.join([...new Set(pairs.map(([o]) => o))])})
    ) x
    WHERE x."n" <= ${limit + 1}
    ORDER BY x."organizationId", x."userId", x."n"`;
  return pagesOf(
    keys.map((k) => ({ teamId: k.teamId, userId: k.userId, list: `${k.organizationId}:${k.userId}` })),
    members,
    limit,
    MEMBER_TEAMS_ORDER,
    load,
  );
}

/** The pages of `lists` from the keys of their rows (in order, each naming its list), loading the rows at once. */
async function pagesOf<Row extends MembershipRow>(
  keys: Array<{ teamId: string; userId: string; list: string }>,
  lists: readonly string[],
  limit: number,
  orderBy: readonly SortKey[],
  load: (where: Prisma.TeamMemberWhereInput) => Promise<Row[]>,
): Promise<FirstPage<Row>[]> {
  const rows = keys.length
    ? await load({ teamId: { in: [...new Set(keys.map((k) => k.teamId))] }, userId: { in: [...new Set(keys.map((k) => k.userId))] } })
    : [];
  const byPair = new Map(rows.map((r) => [`${r.teamId}:${r.userId}`, r]));
  const byList = new Map<string, Row[]>();
  for (const key of keys) {
    const row = byPair.get(`${key.teamId}:${key.userId}`);
    if (!row) continue; // removed between the two statements
    const list = byList.get(key.list) ?? [];
    list.push(row);
    byList.set(key.list, list);
  }
  return lists.map((list) => pageOfRows(byList.get(list) ?? [], limit, orderBy));
}

/** A user named by a call: where (`add[0]`, `members[1]`, `memberships.<key>`) and how (an id, or an e-mail). */
interface NamedUser {
  field: string;
  value: string;
}

const isEmail = (value: string) => value.includes('@');

/**
 * The user ids of the users named (by id, or by e-mail, which is stored in lower case), each a
 * member of the organization; otherwise a 400 naming every field that names an unknown user or
 * one outside the organization.
 */
async function resolveMembers(tx: TeamTx, organizationId: string, named: readonly NamedUser[]): Promise<Map<string, string>> {
  const resolved = new Map<string, string>();
  if (named.length === 0) return resolved;
  const ids = named.filter((n) => !isEmail(n.value)).map((n) => n.value);
  const emails = named.filter((n) => isEmail(n.value)).map((n) => n.value.toLowerCase());
  const users = await tx.user.findMany({
    where: { OR: [{ id: { in: [...new Set(ids)] } }, { email: { in: [...new Set(emails)] } }] },
    select: { id: true, email: true },
  });
  const byId = new Map(users.map((u) => [u.id, u.id]));
  const byEmail = new Map(users.map((u) => [u.email, u.id]));
  const members = new Set(
    (await tx.member.findMany({ where: { organizationId, userId: { in: users.map((u) => u.id) } }, select: { userId: true } })).map((m) => m.userId),
  );
  const problems: string[] = [];
  for (const { field, value } of named) {
    const userId = isEmail(value) ? byEmail.get(value.toLowerCase()) : byId.get(value);
    if (!userId) problems.push(`${field}: no user with the ${isEmail(value) ? 'e-mail' : 'id'} ${JSON.stringify(value)}`);
    else if (!members.has(userId)) problems.push(`${field}: ${JSON.stringify(value)} is not a member of the organization`);
    else resolved.set(value, userId);
  }
  if (problems.length) throw new InvalidInputError(`${problems.join('; ')}. Nothing was changed`);
  return resolved;
}

const ATTEMPTS = 5;

/**
 * Runs a change of a team in one transaction, retried when a concurrent change of the same rows
 * makes it fail (two requests adding the same user: the retry sees the row the other committed).
 */
async function inTeamTransaction<T>(ctx: Context, team: { id: string }, fn: (tx: TeamTx) => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await ctx.db.$transaction(fn);
    } catch (error) {
      // The team was deleted meanwhile: adding to it named a row that is gone.
      if (isForeignKeyViolation(error)) throw new NotFoundError('Team', team.id);
      if (!isUniqueViolation(error) && !isWriteConflict(error)) throw error;
      if (attempt === ATTEMPTS) throw new ConflictError('The members of the team were changed at the same time: try again');
      await new Promise((resolve) => setTimeout(resolve, Math.random() * 10 * attempt));
    }
  }
}

/** What a call does to a team's members: roles of users to add or to set (undefined: `member` for a newcomer, unchanged otherwise), users to remove. */
interface MembershipPlan {
  wanted: Map<string, TeamMemberRole | undefined>;
  removed: Set<string>;
}

/** Applies a plan inside the transaction: newcomers (checked: see assertMayAddMembers), role changes, removals. */
async function applyPlan(ctx: Context, tx: TeamTx, team: TeamRow, plan: MembershipPlan): Promise<void> {
  for (const userId of plan.removed) plan.wanted.delete(userId);
  const existing = new Map(
    (await tx.teamMember.findMany({ where: { teamId: team.id, userId: { in: [...plan.wanted.keys()] } }, select: { userId: true, role: true } })).map((m) => [
      m.userId,
      m.role,
    ]),
  );
  const newcomers = [...plan.wanted.keys()].filter((userId) => !existing.has(userId));
  if (newcomers.length) await assertMayAddMembers(ctx, tx, team);
  if (plan.removed.size) await tx.teamMember.deleteMany({ where: { teamId: team.id, userId: { in: [...plan.removed] } } });
  if (newcomers.length) {
    await tx.teamMember.createMany({ data: newcomers.map((userId) => ({ teamId: team.id, userId, role: plan.wanted.get(userId) ?? 'member' })) });
  }
  for (const role of TEAM_MEMBER_ROLES) {
    const changed = [...plan.wanted].filter(([userId, r]) => r === role && existing.has(userId) && existing.get(userId) !== role).map(([userId]) => userId);
    if (changed.length) await tx.teamMember.updateMany({ where: { teamId: team.id, userId: { in: changed } }, data: { role } });
  }
  // The caller joining a team that holds grants: later reads of this request see them.
  if (newcomers.includes(ctx.access.requireViewer().userId)) ctx.access.noteGrant(team.organizationId);
}

/**
 * Adding members gives them the team's grants. An admin may add anyone to any team; anyone else
 * managing the team (its owner) only while each grant the team holds is at most their own role on
 * that resource, apart from this team: their organization role, the default levels and the grants
 * they hold themselves or through their other teams (effectiveContentRole). Counting this team's
 * grants would let every owner pass, as an owner is a member of their team.
 */
async function assertMayAddMembers(ctx: Context, tx: TeamTx, team: TeamRow): Promise<void> {
  const subject = ctx.access.organization(team.organizationId);
  if (can(subject, 'team:manage-members')) return;
  const viewer = ctx.access.requireViewer();
  const teamGrants = await tx.contentGrant.findMany({
    where: { granteeKind: 'team', granteeId: team.id },
    select: { resourceKind: true, resourceId: true, role: true },
    orderBy: [{ resourceKind: 'asc' }, { resourceId: 'asc' }],
  });
  if (teamGrants.length === 0) return;
  const rows = await tx.$queryRaw<Array<{ resourceKind: string; resourceId: string; role: string }>>`
    SELECT g."resourceKind", g."resourceId", g."role" FROM "ContentGrant" g
    WHERE g."organizationId" = ${team.organizationId}
      AND ((g."granteeKind" = 'user' AND g."granteeId" = ${viewer.userId})
        OR (g."granteeKind" = 'team' AND g."granteeId" <> ${team.id}
          AND g."granteeId" IN (SELECT tm."teamId" FROM "TeamMember" tm WHERE tm."userId" = ${viewer.userId})))`;
  const grants = new Map<string, MemberRole>();
  for (const row of rows) {
    const key = `${row.resourceKind}:${row.resourceId}`;
    if (isMemberRole(row.role)) grants.set(key, highest([grants.get(key), row.role]) as MemberRole);
  }
  const withAncestors = hasCollectionGrant(grants);
  const roles = await Promise.all(
    teamGrants.map(async (grant) => {
      const kind = grant.resourceKind as 'space' | 'collection';
      const key = `${kind}:${grant.resourceId}` as ContentNodeKey;
      const [facts, ancestors] = await Promise.all([ctx.loaders.contentFacts.load(key), withAncestors ? ctx.loaders.ancestorsOf.load(key) : []]);
      return effectiveContentRole({ kind, id: grant.resourceId, own: subject.role, level: facts.level, grants, ancestors });
    }),
  );
  teamGrants.forEach((grant, i) => {
    if (!isMemberRole(grant.role) || atLeast(roles[i], grant.role)) return;
    throw new ForbiddenError(
      'team:manage-members',
      `the team holds ${grant.role} on ${grant.resourceKind} ${JSON.stringify(grant.resourceId)}, above your own role there (${roles[i] ?? 'none'}); an admin of the organization can add members to it`,
    );
  });
}

/** Creates a team with the organization members named (ids or e-mails) as members; nothing when one of them is not a member. */
export async function createTeam<Q extends object>(ctx: Context, organizationId: string, input: { title: string; members?: readonly string[] | null }, query?: Q) {
  const id = newId();
  return inTeamTransaction(ctx, { id }, async (tx) => {
    const users = await resolveMembers(tx, organizationId, (input.members ?? []).map((value, i) => ({ field: `members[${i}]`, value })));
    await tx.team.create({ data: { id, organizationId, title: input.title.trim() } });
    const userIds = [...new Set(users.values())];
    if (userIds.length) await tx.teamMember.createMany({ data: userIds.map((userId) => ({ teamId: id, userId, role: 'member' })) });
    return tx.team.findUniqueOrThrow({ ...(query ?? {}), where: { id } });
  });
}

/** The bulk change of a team's members (GitBook's `updateMembersInOrganizationTeam`). */
export interface TeamMembersChange {
  /** Users to add, by id or e-mail. */
  add?: readonly string[] | null;
  /** Users to remove, by id or e-mail; a user also in `add` is removed. */
  remove?: readonly string[] | null;
  /** Team roles by user id or e-mail; a user not in the team is added with that role. */
  memberships?: Readonly<Record<string, { role: TeamMemberRole }>> | null;
}

/**
 * Adds, removes and sets the roles of a team's members in one transaction: every user named must
 * be a member of the organization, or nothing is changed (400 naming each).
 */
export async function changeTeamMembers(ctx: Context, team: TeamRow, change: TeamMembersChange): Promise<void> {
  const memberships = Object.entries(change.memberships ?? {});
  const named: NamedUser[] = [
    ...(change.add ?? []).map((value, i) => ({ field: `add[${i}]`, value })),
    ...(change.remove ?? []).map((value, i) => ({ field: `remove[${i}]`, value })),
    ...memberships.map(([value]) => ({ field: `memberships.${value}`, value })),
  ];
  if (named.length === 0) return;
  await inTeamTransaction(ctx, team, async (tx) => {
    const users = await resolveMembers(tx, team.organizationId, named);
    const roles = new Map(memberships.map(([value, { role }]) => [users.get(value)!, role]));
    const wanted = new Map<string, TeamMemberRole | undefined>();
    for (const value of change.add ?? []) wanted.set(users.get(value)!, roles.get(users.get(value)!));
    for (const [userId, role] of roles) wanted.set(userId, role);
    await applyPlan(ctx, tx, team, { wanted, removed: new Set((change.remove ?? []).map((value) => users.get(value)!)) });
  });
}

/**
 * Sets one member's team role, adding them when they are not in the team (role `member` unless
 * given). A user who is not a member of the organization: 404.
 */
export async function setTeamMember(ctx: Context, team: TeamRow, userId: string, role: TeamMemberRole | null | undefined): Promise<void> {
  await inTeamTransaction(ctx, team, async (tx) => {
    const member = await tx.member.findUnique({ where: { organizationId_userId: { organizationId: team.organizationId, userId } }, select: { userId: true } });
    if (!member) throw new NotFoundError('Member', userId);
    await applyPlan(ctx, tx, team, { wanted: new Map([[userId, role ?? undefined]]), removed: new Set() });
  });
}

/**
 * Removes a user from a team: true when they were in it, false when they were not (a member of
 * the organization); 404 for a user who is neither in the team nor a member of the organization.
 */
export async function removeTeamMember(ctx: Context, team: TeamRow, userId: string): Promise<boolean> {
  const removed = await ctx.db.teamMember.deleteMany({ where: { teamId: team.id, userId } });
  if (removed.count > 0) return true;
  const member = await ctx.db.member.findUnique({ where: { organizationId_userId: { organizationId: team.organizationId, userId } }, select: { userId: true } });
  if (!member) throw new NotFoundError('Member', userId);
  return false;
}

/**
 * Deletes a team with its memberships and grants, and clears the SAML providers that made it
 * their default team, in one transaction. False when no team has this id; 404 for a team of
 * another organization (or when the caller is not a member), 403 below admin.
 */
export async function deleteTeam(ctx: Context, organizationId: string, teamId: string): Promise<boolean> {
  ctx.access.requireViewer();
  authorize(ctx.access.organization(organizationId), 'team:read', { type: 'Team', id: teamId });
  const found = await ctx.db.team.findUnique({ where: { id: teamId }, select: { id: true } });
  if (!found) return false;
  await loadTeam(ctx, organizationId, teamId, 'team:delete');
  const deleted = await ctx.db.$transaction(async (tx) => {
    await tx.contentGrant.deleteMany({ where: { organizationId, granteeKind: 'team', granteeId: teamId } });
    await tx.samlProvider.updateMany({ where: { organizationId, defaultTeamId: teamId }, data: { defaultTeamId: null } });
    await tx.teamMember.deleteMany({ where: { teamId } });
    return tx.team.deleteMany({ where: { id: teamId, organizationId } });
  });
  return deleted.count > 0;
}

/**
 * Invites: users invited to an organization by e-mail, and invite links that
 * give whoever joins with them a role on the organization, or a level on one
 * space or collection (a grant of their own, and a guest membership when they
 * were not a member). Admins manage both (`organization:invite`,
 * `organization:manage-invite-links`); joining takes the link's secret
 * (`account:join-with-invite`), never its id.
 *
 * The organization's settings have the last word: invite links work only while
 * `inviteLinks` is on, and with `sso` on new members join only through SAML
 * (an e-mail invite with `sso`, or the SAML sign-in itself), while existing
 * members keep working.
 */
import { z } from 'zod';
import { generateInviteSecret, hashInviteSecret, isInviteSecret } from '../auth/invite-secrets.ts';
import { authorize } from '../auth/policies.ts';
import { atLeast, highest, type MemberRole, type RoleOrGuest } from '../auth/roles.ts';
import type { Context } from '../context.ts';
import type { Tx } from '../db/client.ts';
import { paginate, type ListResult } from '../db/pagination.ts';
import {
  GoneError,
  InvalidInputError,
  MemberDisabledError,
  NotFoundError,
  OrganizationSettingError,
  SsoRequiredError,
} from '../errors/index.ts';
import { isUniqueViolation } from '../errors/prisma.ts';
import { newId } from '../ids.ts';
import { changeMembership } from './member.ts';
import { SPACE_ACCESS_SELECT } from '../auth/access.ts';

/** An invite link as stored (never its secret hash), with the secret right after it was made. */
export interface InviteLinkRow {
  id: string;
  organizationId: string;
  targetKind: string;
  targetId: string | null;
  role: string | null;
  expiresAt: Date | null;
  maxUses: number | null;
  uses: number;
  createdById: string | null;
  createdAt: Date;
  updatedAt: Date;
  /** Only in the answer that made the link: it is not stored. */
  secret?: string;
}

const linkSelect = {
  id: true,
  organizationId: true,
  targetKind: true,
  targetId: true,
  role: true,
  expiresAt: true,
  maxUses: true,
  uses: true,
  createdById: true,
  createdAt: true,
  updatedAt: true,
} as const;

/** How many e-mail addresses one invite call takes. */
export const MAX_INVITEES = 100;
/** The highest `maxUses` of a link. */
export const MAX_INVITE_USES = 1_000_000;

const linksOff = (organizationId: string) =>
  new OrganizationSettingError(`Invite links are turned off for organization ${JSON.stringify(organizationId)}: an admin can turn \`inviteLinks\` on`);

/** An unknown secret, a deleted link, a link id in place of the secret, or another organization's link: all the same 404. */
const inviteNotFound = () => new NotFoundError('Invite', undefined, 'the link was deleted, or the path does not carry the secret shown when the link was created');

// ---------------------------------------------------------------- invite links

/** Loads a link of the organization by its id, for the admins who manage links (404 otherwise). */
async function loadManagedLink(ctx: Context, organizationId: string, inviteId: string): Promise<InviteLinkRow> {
  authorize(ctx.access.organization(organizationId), 'organization:manage-invite-links', { type: 'Organization', id: organizationId });
  const link = await ctx.db.inviteLink.findFirst({ where: { id: inviteId, organizationId }, select: linkSelect });
  if (!link) throw new NotFoundError('Invite link', inviteId);
  return link;
}

/**
 * A link as `GET .../link-invites/{inviteId}` reads it: by its id, for the organization's admins;
 * or by its secret, for whoever holds it (what joining would give them, before they join; the
 * caller need not be a member).
 */
export async function loadInviteLink(ctx: Context, organizationId: string, inviteId: string): Promise<InviteLinkRow> {
  if (!isInviteSecret(inviteId)) return loadManagedLink(ctx, organizationId, inviteId);
  const viewer = ctx.access.requireViewer();
  authorize(ctx.access.account(), 'account:join-with-invite', { type: 'User', id: viewer.userId });
  const link = await ctx.db.inviteLink.findUnique({ where: { secretHash: hashInviteSecret(inviteId) }, select: linkSelect });
  if (!link || link.organizationId !== organizationId) throw inviteNotFound();
  return link;
}

export type InviteLinkTarget = 'organization' | 'space' | 'collection';

/** The organization's links, newest first: every target, or those of `target` only. */
export async function listInviteLinks(
  ctx: Context,
  organizationId: string,
  args: { page?: string | null; limit?: number | null; target?: InviteLinkTarget | null },
): Promise<ListResult<InviteLinkRow>> {
  authorize(ctx.access.organization(organizationId), 'organization:manage-invite-links', { type: 'Organization', id: organizationId });
  return paginate({
    page: args.page,
    limit: args.limit,
    orderBy: [
      ['createdAt', 'desc'],
      ['id', 'desc'],
    ],
    where: { organizationId, ...(args.target ? { targetKind: args.target } : {}) },
    findMany: (a) => ctx.db.inviteLink.findMany({ ...a, select: linkSelect }),
    count: (a) => ctx.db.inviteLink.count(a),
  });
}

/** What a link is made with (the wire contract's CreateOrganizationInvite, and the extensions). */
export interface InviteLinkInput {
  /** The organization role the link gives (null: guest). Given: a link to the organization. */
  role?: MemberRole | null;
  /** The level on the space or collection. */
  level?: MemberRole | null;
  space?: string | null;
  collection?: string | null;
  /** After this instant the link answers 410 (null: never). */
  expiresAt?: Date | null;
  /** How many joins it allows (null: no limit). */
  maxUses?: number | null;
}

const TARGET_HINT = 'give `role` for an invite to the organization, or `level` with `space` or `collection`';

/** The target and the role a new link gives, from its input; a 400 naming what is wrong. */
function parseTarget(input: InviteLinkInput): { kind: InviteLinkTarget; id: string | null; role: MemberRole | null } {
  const onContent = input.space != null || input.collection != null || input.level !== undefined;
  if (input.role !== undefined) {
    if (onContent) throw new InvalidInputError(`${TARGET_HINT}, not both`);
    return { kind: 'organization', id: null, role: input.role };
  }
  if (input.space != null && input.collection != null) throw new InvalidInputError('give `space` or `collection`, not both');
  const kind = input.space != null ? 'space' : input.collection != null ? 'collection' : null;
  if (!kind) throw new InvalidInputError(input.level !== undefined ? `give \`space\` or \`collection\` with \`level\` (${TARGET_HINT})` : TARGET_HINT);
  return { kind, id: (input.space ?? input.collection)!, role: contentLevel(input.level, kind) };
}

/** A level on a space or collection: a member role (a grant never makes a guest). */
function contentLevel(level: MemberRole | null | undefined, kind: 'space' | 'collection'): MemberRole {
  if (level === undefined) throw new InvalidInputError(`level: is required for an invite to a ${kind}`);
  if (level === null) throw new InvalidInputError(`level: an invite to a ${kind} gives a level from read to admin (guests hold no level on content)`);
  return level;
}

function checkLimits(input: Pick<InviteLinkInput, 'expiresAt' | 'maxUses'>, now: Date): void {
  if (input.expiresAt && input.expiresAt <= now) throw new InvalidInputError(`expiresAt: ${input.expiresAt.toISOString()} is not in the future`);
  if (input.maxUses != null && (input.maxUses < 1 || input.maxUses > MAX_INVITE_USES)) {
    throw new InvalidInputError(`maxUses: must be from 1 to ${MAX_INVITE_USES} (leave it out, or null, for no limit)`);
  }
}

/** The space or collection of a content link, in the link's organization and not deleted; null when it is gone. */
export async function inviteTarget(db: Context['db'], link: Pick<InviteLinkRow, 'organizationId' | 'targetKind' | 'targetId'>) {
  if (link.targetKind === 'space' && link.targetId) {
    const space = await db.space.findUnique({ where: { id: link.targetId }, select: { id: true, deletedAt: true, ...SPACE_ACCESS_SELECT } });
    return space && !space.deletedAt && space.organizationId === link.organizationId ? { kind: 'space' as const, node: space } : null;
  }
  if (link.targetKind === 'collection' && link.targetId) {
    const collection = await db.collection.findUnique({ where: { id: link.targetId }, select: { id: true, organizationId: true, parentId: true, defaultLevel: true } });
    return collection && collection.organizationId === link.organizationId ? { kind: 'collection' as const, node: collection } : null;
  }
  return null;
}

/** Creates a link (admins, while invite links are on); the answer carries its secret, shown this once. */
export async function createInviteLink(ctx: Context, organizationId: string, input: InviteLinkInput, now = new Date()): Promise<InviteLinkRow> {
  const viewer = ctx.access.requireViewer();
  authorize(ctx.access.organization(organizationId), 'organization:manage-invite-links', { type: 'Organization', id: organizationId });
  const organization = await ctx.db.organization.findUnique({ where: { id: organizationId }, select: { inviteLinks: true } });
  if (!organization) throw new NotFoundError('Organization', organizationId);
  if (!organization.inviteLinks) throw linksOff(organizationId);
  const target = parseTarget(input);
  checkLimits(input, now);
  if (target.kind !== 'organization' && !(await inviteTarget(ctx.db, { organizationId, targetKind: target.kind, targetId: target.id }))) {
    throw new InvalidInputError(`${target.kind}: no ${target.kind} ${JSON.stringify(target.id)} in the organization`);
  }
  const { secret, hash } = generateInviteSecret();
  const link = await ctx.db.inviteLink.create({
    data: {
      id: newId(),
      organizationId,
      targetKind: target.kind,
      targetId: target.id,
      role: target.role,
      secretHash: hash,
      expiresAt: input.expiresAt ?? null,
      maxUses: input.maxUses ?? null,
      createdById: viewer.userId,
    },
    select: linkSelect,
  });
  return { ...link, secret };
}

/** What a link's PATCH changes: the role (organization) or the level (space, collection), its expiry and use limit. */
export type InviteLinkChange = Pick<InviteLinkInput, 'role' | 'level' | 'expiresAt' | 'maxUses'>;

export async function updateInviteLink(ctx: Context, organizationId: string, inviteId: string, change: InviteLinkChange, now = new Date()): Promise<InviteLinkRow> {
  const link = await loadManagedLink(ctx, organizationId, inviteId);
  if (change.role !== undefined && change.level !== undefined) throw new InvalidInputError('give `role` (a link to the organization) or `level` (a link to a space or collection), not both');
  if (Object.values(change).every((value) => value === undefined)) throw new InvalidInputError('give `role` or `level`, `expiresAt` or `maxUses`');
  let role: MemberRole | null | undefined;
  if (link.targetKind === 'organization') {
    if (change.level !== undefined) throw new InvalidInputError('level: the link is to the organization: set its `role`');
    role = change.role;
  } else {
    const kind = link.targetKind as 'space' | 'collection';
    if (change.role !== undefined) throw new InvalidInputError(`role: the link is to a ${kind}: set its \`level\``);
    role = change.level === undefined ? undefined : contentLevel(change.level, kind);
  }
  checkLimits(change, now);
  return ctx.db.inviteLink.update({
    where: { id: link.id },
    data: { role, expiresAt: change.expiresAt, maxUses: change.maxUses },
    select: linkSelect,
  });
}

/** Deletes a link: its secret stops working at once. False when there was none. */
export async function deleteInviteLink(ctx: Context, organizationId: string, inviteId: string): Promise<boolean> {
  authorize(ctx.access.organization(organizationId), 'organization:manage-invite-links', { type: 'Organization', id: organizationId });
  const { count } = await ctx.db.inviteLink.deleteMany({ where: { id: inviteId, organizationId } });
  return count > 0;
}

/**
 * Whether the caller already has what the link gives: an organization role as high (any
 * membership, for a guest link), or that level or more on the space or collection (whatever
 * raises it: their role, default levels, their grants and their teams').
 */
export async function isInviteRedundant(ctx: Context, link: InviteLinkRow): Promise<boolean> {
  const own = ctx.access.viewer?.memberships.get(link.organizationId);
  if (link.targetKind === 'organization') return own !== undefined && highest([own, link.role as RoleOrGuest]) === own;
  const target = await inviteTarget(ctx.db, link);
  if (!target) return false;
  const subject = target.kind === 'space' ? await ctx.access.space(target.node) : await ctx.access.collection(target.node);
  return atLeast(subject.role, link.role as MemberRole);
}

/** Why a link cannot be used now, or null. */
function unusable(link: Pick<InviteLinkRow, 'expiresAt' | 'maxUses' | 'uses'>, now: Date): GoneError | null {
  if (link.expiresAt && link.expiresAt <= now) return new GoneError(`The invite expired at ${link.expiresAt.toISOString()}: ask an admin for a new one`);
  if (link.maxUses !== null && link.uses >= link.maxUses) return new GoneError(`The invite was used its ${link.maxUses} time${link.maxUses === 1 ? '' : 's'}: ask an admin for a new one`);
  return null;
}

/** The answer of a join. */
export interface InviteJoin {
  organizationId: string;
  /** The caller already had what the link gives: nothing changed, and no use was counted. */
  redundant: boolean;
  /** The caller's membership after joining. */
  member: { id: string; organizationId: string; userId: string; role: string | null };
  targetKind: string;
  targetId: string | null;
}

const ATTEMPTS = 5;

/** Runs `fn` in a transaction, again when a concurrent one made the same row first (a unique violation). */
async function retryingUniqueViolations<T>(ctx: Context, fn: (tx: Tx) => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await ctx.db.$transaction(fn);
    } catch (error) {
      if (!isUniqueViolation(error) || attempt === ATTEMPTS) throw error;
    }
  }
}

/**
 * Joins the organization with a link's secret: the link's role (raised, never lowered, for a
 * member), or a grant of the link's level on its space or collection (and a guest membership for
 * a user who was not a member). Refused, with nothing written: an unknown or deleted link (404),
 * links turned off or a new member of an organization that admits them only through SAML (403),
 * an expired or used-up link (410), a disabled member (403). Uses are counted in the transaction
 * that grants, by one conditional UPDATE (`uses < maxUses`, not expired): concurrent joins never
 * exceed `maxUses`, and a join that fails counts nothing. A join that changes nothing (the caller
 * already has it) is `redundant` and counts no use.
 */
export async function joinWithInvite(ctx: Context, organizationId: string, inviteId: string, now = new Date()): Promise<InviteJoin> {
  const viewer = ctx.access.requireViewer();
  authorize(ctx.access.account(), 'account:join-with-invite', { type: 'User', id: viewer.userId });
  const link = isInviteSecret(inviteId) ? await ctx.db.inviteLink.findUnique({ where: { secretHash: hashInviteSecret(inviteId) }, select: linkSelect }) : null;
  if (!link || link.organizationId !== organizationId) throw inviteNotFound();
  const organization = await ctx.db.organization.findUniqueOrThrow({ where: { id: organizationId }, select: { inviteLinks: true, sso: true } });
  if (!organization.inviteLinks) throw linksOff(organizationId);
  if (viewer.disabledIn.has(organizationId)) throw new MemberDisabledError(organizationId);
  const gone = unusable(link, now);
  if (gone) throw gone;
  const target = link.targetKind === 'organization' ? null : await inviteTarget(ctx.db, link);
  if (link.targetKind !== 'organization' && !target) throw new GoneError(`The ${link.targetKind} of this invite no longer exists`);
  // Read before the transaction (no statement outside it may run while it is open: SQLite has one connection).
  const grantRedundant = target ? await isInviteRedundant(ctx, link) : true;

  const result = await retryingUniqueViolations(ctx, async (tx) => {
    let member = await tx.member.findUnique({ where: { organizationId_userId: { organizationId, userId: viewer.userId } } });
    if (member?.disabled) throw new MemberDisabledError(organizationId);
    if (!member && organization.sso) throw new SsoRequiredError(organizationId);
    let changed = false;
    if (!member) {
      const role = link.targetKind === 'organization' ? link.role : null;
      member = await tx.member.create({ data: { id: newId(), organizationId, userId: viewer.userId, role } });
      changed = true;
    } else if (link.targetKind === 'organization' && highest([member.role as RoleOrGuest, link.role as RoleOrGuest]) !== member.role) {
      member = await tx.member.update({ where: { id: member.id }, data: { role: link.role } });
      changed = true;
    }
    if (target && !grantRedundant) {
      const key = { resourceKind: target.kind, resourceId: target.node.id, granteeKind: 'user', granteeId: viewer.userId };
      const grant = await tx.contentGrant.findUnique({ where: { resourceKind_resourceId_granteeKind_granteeId: key } });
      const role = highest([grant?.role as MemberRole | undefined, link.role as MemberRole]) as MemberRole;
      if (!grant) await tx.contentGrant.create({ data: { id: newId(), organizationId, ...key, role } });
      else if (role !== grant.role) await tx.contentGrant.update({ where: { id: grant.id }, data: { role } });
      changed = changed || role !== grant?.role;
    }
    if (!changed) return { member, redundant: true };
    // Last, so that the row lock is held the shortest: a concurrent join waits here, then sees the new count.
    const counted = await tx.inviteLink.updateMany({
      where: {
        id: link.id,
        AND: [{ OR: [{ maxUses: null }, { uses: { lt: tx.inviteLink.fields.maxUses } }] }, { OR: [{ expiresAt: null }, { expiresAt: { gt: now } }] }],
      },
      data: { uses: { increment: 1 } },
    });
    if (counted.count === 0) {
      const current = await tx.inviteLink.findUnique({ where: { id: link.id }, select: { expiresAt: true, maxUses: true, uses: true } });
      throw (current && unusable(current, now)) ?? inviteNotFound();
    }
    return { member, redundant: false };
  });
  ctx.access.noteMembership(organizationId, result.member.role as RoleOrGuest);
  if (target && !result.redundant) ctx.access.noteGrant(organizationId);
  return { organizationId, redundant: result.redundant, member: result.member, targetKind: link.targetKind, targetId: link.targetId };
}

// ---------------------------------------------------------------- invites by e-mail

/** One invitee: an e-mail address, with a role of their own or the call's. */
export interface Invitee {
  email: string;
  /** undefined: the call's `role`. */
  role?: MemberRole | null;
}

export interface InviteUsersInput {
  emails: Invitee[];
  /** The role of invitees without one of their own; left out: the organization's default role. */
  role?: MemberRole | null;
  /** Invite as SSO members (they sign in through the organization's identity provider). */
  sso?: boolean | null;
}

/** What an e-mail invite did. */
export interface InviteUsersResult {
  /** Users added to the organization. */
  users: string[];
  invited: number;
  /** Invited with `sso`, but members of another organization: not made SSO members. */
  failedSSOEmails: string[];
  /** Members who already had the role or more: nothing changed for them. */
  redundant: string[];
  /** Members whose role the invite raised. */
  updated: string[];
}

const EMAIL = z.email();

/** An invitee's address, normalized (trimmed, lower case); a 400 naming `emails[i]` when it is not one. */
export function inviteeEmail(value: string): string {
  const email = value.trim().toLowerCase();
  if (!EMAIL.safeParse(email).success) throw new InvalidInputError('not an e-mail address');
  return email;
}

/**
 * Invites users by e-mail (admins). Users are made by the operator, never by sign-up: an address
 * no user has gets a user record (display name: the address's local part, no token), as the
 * CLI's user:create would, so they can sign in through SAML or be given a token. New users join
 * with their role (SSO members with `sso`, unless they are members of another organization:
 * `failedSSOEmails`); members whose role is lower are raised (`updated`); members who already have
 * the role or more are `redundant` (not an error). With `sso` on, the organization admits new
 * members only through SAML: a call without `sso` that would add anyone is refused whole (403
 * naming them). One transaction: all or nothing.
 */
export async function inviteUsers(ctx: Context, organizationId: string, input: InviteUsersInput): Promise<InviteUsersResult> {
  authorize(ctx.access.organization(organizationId), 'organization:invite', { type: 'Organization', id: organizationId });
  if (input.emails.length === 0) throw new InvalidInputError('emails: give at least one e-mail address');
  if (input.emails.length > MAX_INVITEES) throw new InvalidInputError(`emails: at most ${MAX_INVITEES} addresses per call`);
  if (input.sso === null) throw new InvalidInputError('sso: must be true or false');
  const organization = await ctx.db.organization.findUnique({ where: { id: organizationId }, select: { sso: true, defaultRole: true } });
  if (!organization) throw new NotFoundError('Organization', organizationId);
  const fallback: RoleOrGuest = input.role !== undefined ? input.role : (organization.defaultRole as RoleOrGuest);
  /** e-mail -> role; the first mention of an address wins. */
  const wanted = new Map<string, RoleOrGuest>();
  for (const invitee of input.emails) if (!wanted.has(invitee.email)) wanted.set(invitee.email, invitee.role !== undefined ? invitee.role : fallback);
  const emails = [...wanted.keys()];
  const sso = input.sso === true;

  return changeMembership(ctx, async (tx) => {
    const users = await tx.user.findMany({ where: { email: { in: emails } }, select: { id: true, email: true } });
    const userByEmail = new Map(users.map((user) => [user.email, user]));
    const userIds = users.map((user) => user.id);
    const members = userIds.length ? await tx.member.findMany({ where: { organizationId, userId: { in: userIds } }, select: { id: true, userId: true, role: true } }) : [];
    const memberByUser = new Map(members.map((member) => [member.userId, member]));
    const elsewhere = new Set(
      sso && userIds.length
        ? (await tx.member.findMany({ where: { userId: { in: userIds }, organizationId: { not: organizationId } }, select: { userId: true } })).map((m) => m.userId)
        : [],
    );
    const result: InviteUsersResult = { users: [], invited: 0, failedSSOEmails: [], redundant: [], updated: [] };
    const toAdd: Array<{ email: string; role: RoleOrGuest; sso: boolean }> = [];
    const refused: string[] = [];
    for (const [email, role] of wanted) {
      const user = userByEmail.get(email);
      const member = user && memberByUser.get(user.id);
      if (member) {
        if (highest([member.role as RoleOrGuest, role]) === member.role) result.redundant.push(email);
        else {
          await tx.member.update({ where: { id: member.id }, data: { role } });
          result.updated.push(member.userId);
        }
        continue;
      }
      const ssoMember = sso && !(user && elsewhere.has(user.id));
      if (sso && !ssoMember) result.failedSSOEmails.push(email);
      // Only an SSO member comes in through SAML; the others are new members the organization refuses.
      if (organization.sso && !ssoMember) {
        if (!sso) refused.push(email);
        continue;
      }
      toAdd.push({ email, role, sso: ssoMember });
    }
    if (refused.length) throw new SsoRequiredError(organizationId, `Not members: ${refused.join(', ')}`);
    for (const invitee of toAdd) {
      const user = userByEmail.get(invitee.email) ?? (await tx.user.create({ data: { id: newId(), email: invitee.email, displayName: invitee.email.slice(0, invitee.email.indexOf('@')) }, select: { id: true, email: true } }));
      await tx.member.create({ data: { id: newId(), organizationId, userId: user.id, role: invitee.role, sso: invitee.sso } });
      result.users.push(user.id);
    }
    result.invited = result.users.length;
    return result;
  });
}

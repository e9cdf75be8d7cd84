/**
 * Members of an organization: loading one, changing roles, disabling and
 * removing members without losing the last enabled admin, and keeping
 * `lastSeenAt` from real use.
 */
import { noteMemberSeen } from '../auth/member-activity.ts';
import { authorize } from '../auth/policies.ts';
import { signVisitorClaims, type KeySealer } from '../auth/visitor-claims.ts';
import type { AppConfig } from '../config.ts';
import { openSecret, sealSecret } from '../git-sync/credentials.ts';
import type { Context } from '../context.ts';
import type { Db } from '../db/client.ts';
import { isOneOf, MEMBER_ROLES, type MemberRole } from '../db/value-sets.ts';
import { ConflictError, InvalidInputError, NotFoundError } from '../errors/index.ts';
import { isUniqueViolation, isWriteConflict } from '../errors/prisma.ts';
import { newId } from '../ids.ts';

/** Loads a member of an organization the caller belongs to, or 404. */
export async function loadMember<Q extends object>(ctx: Context, organizationId: string, userId: string, query?: Q) {
  authorize(ctx.access.organization(organizationId), 'member:read', { type: 'Organization', id: organizationId });
  const member = await ctx.db.member.findUnique({ ...(query ?? {}), where: { organizationId_userId: { organizationId, userId } } });
  if (!member) throw new NotFoundError('Member', userId);
  return member;
}

export type MemberTx = Pick<Db, 'member' | 'user' | 'contentGrant' | 'teamMember' | 'inviteLink'>;

/**
 * An organization never loses its last enabled admin: demoting, disabling or removing the only
 * admin whose membership is not disabled is refused (409). A disabled admin cannot act, so they
 * do not count.
 */
export async function assertAnotherAdmin(tx: Pick<Db, 'member'>, organizationId: string, userId: string) {
  const others = await tx.member.count({ where: { organizationId, role: 'admin', disabled: false, userId: { not: userId } } });
  if (others === 0) throw new ConflictError('The organization must keep at least one admin (an enabled one): make another member admin, or enable one, first');
}

/**
 * Writes `lastSeenAt` for the organizations the request touched (Access notes them) where the
 * caller's stored time is a minute old or more: at most one statement per request, and none for
 * most (src/auth/member-activity.ts).
 */
export async function recordMemberActivity(ctx: Pick<Context, 'access' | 'db'>, now = new Date()): Promise<void> {
  const viewer = ctx.access.viewer;
  if (!viewer) return;
  const organizationIds = ctx.access.takeStaleSeen(now);
  if (organizationIds.length) await noteMemberSeen(ctx.db, viewer.userId, organizationIds, now);
}

/** Seals organizations' private signing keys with the service's secrets key (SECRETS_KEY, as Git credentials). */
export function signingKeySealer(config: Pick<AppConfig, 'secretsKey' | 'storage'>): KeySealer {
  return { seal: (text) => sealSecret(config, text), open: (text) => openSecret(config, text) };
}

/** What `POST /v1/orgs/{organizationId}/ping` answers: the member's visitor claims, signed. */
export interface Ping {
  /** A JWT of the visitor claims (src/auth/visitor-claims.ts), verifiable with the organization's JWKS. */
  visitorClaims: string;
}

/**
 * A member says they are here: `lastSeenAt` is written now (at most once a minute, as for any
 * use), and the answer carries their visitor claims, signed with the organization's key (made on
 * first use): what a `visitor-auth` site renderer verifies with the organization's public keys.
 */
export async function pingOrganization(ctx: Context, organizationId: string, now = new Date()): Promise<Ping> {
  const viewer = ctx.access.requireViewer();
  const subject = ctx.access.organization(organizationId);
  authorize(subject, 'organization:ping', { type: 'Organization', id: organizationId });
  await recordMemberActivity(ctx, now);
  const user = await ctx.db.user.findUniqueOrThrow({ where: { id: viewer.userId }, select: { email: true, displayName: true } });
  const visitorClaims = await signVisitorClaims(ctx.db, signingKeySealer(ctx.config), organizationId, {
    issuer: ctx.urls.api(`/orgs/${organizationId}`),
    subject: viewer.userId,
    claims: { organization: organizationId, email: user.email, name: user.displayName, role: subject.role ?? null },
    now,
  });
  return { visitorClaims };
}

/**
 * What goes with a membership: the user's own grants on the organization's spaces and
 * collections, and their places in its teams. Run in the transaction that deletes the member.
 */
export async function removeMembershipTraces(tx: MemberTx, organizationId: string, userId: string): Promise<void> {
  await tx.contentGrant.deleteMany({ where: { organizationId, granteeKind: 'user', granteeId: userId } });
  await tx.teamMember.deleteMany({ where: { userId, team: { organizationId } } });
}

/** A change of a member: their role (null: guest) and whether their membership is disabled. */
export interface MemberChange {
  role?: MemberRole | null;
  disabled?: boolean | null;
}

/**
 * Changes a member's role or disabled state (admins, `member:update`), in one transaction with
 * the last-enabled-admin check. Nothing to change: the member as they are.
 */
export async function changeMember<Q extends object>(ctx: Context, organizationId: string, userId: string, change: MemberChange, query?: Q) {
  const member = await loadMember(ctx, organizationId, userId);
  authorize(ctx.access.organization(organizationId), 'member:update', { type: 'Member', id: userId });
  const { role, disabled } = change;
  if (disabled === null) throw new InvalidInputError('disabled: must be true or false');
  if (role === undefined && disabled === undefined) return ctx.db.member.findUniqueOrThrow({ ...(query ?? {}), where: { id: member.id } });
  return changeMembership(ctx, async (tx) => {
    // The member as they are now, inside the transaction: a concurrent request may have changed them.
    const current = await tx.member.findUniqueOrThrow({ where: { id: member.id }, select: { role: true, disabled: true } });
    const enabledAdminAfter = (role === undefined ? current.role : role) === 'admin' && !(disabled ?? current.disabled);
    if (current.role === 'admin' && !current.disabled && !enabledAdminAfter) await assertAnotherAdmin(tx, organizationId, userId);
    return tx.member.update({ ...(query ?? {}), where: { id: member.id }, data: { role, disabled: disabled ?? undefined } });
  });
}

const ATTEMPTS = 5;

/**
 * Runs a change of a member's role or membership, with its last-admin check,
 * in one SERIALIZABLE transaction, retried when the database aborts it for a
 * conflict with a concurrent one.
 *
 * Why SERIALIZABLE and not just a transaction, or a conditional update: the
 * check reads other rows than the write changes. Under PostgreSQL's default
 * READ COMMITTED, two demotions of the two admins each still see the other
 * admin and both commit (write skew), inside a transaction or not; a
 * conditional `UPDATE ... WHERE EXISTS (another admin)` has the same hole, as
 * the two statements update different rows and never wait for each other.
 * SERIALIZABLE makes PostgreSQL abort one of them (40001, see isWriteConflict);
 * the retry then sees the committed change and answers 409 (test/rest/member.test.ts
 * fires two at once: without SERIALIZABLE both go through on PostgreSQL). On SQLite a
 * transaction is serializable anyway (one writer, and the driver adapter runs
 * transactions one at a time on its single connection), and SERIALIZABLE is
 * the one level the adapter accepts, so the same call is correct on both.
 */
export async function changeMembership<T>(ctx: Pick<Context, 'db'>, fn: (tx: MemberTx) => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await ctx.db.$transaction(fn, { isolationLevel: 'Serializable' });
    } catch (error) {
      // A unique violation here is a concurrent request that made the same member, user or grant first.
      if (!isWriteConflict(error) && !isUniqueViolation(error)) throw error;
      if (attempt === ATTEMPTS) throw new ConflictError('The members of the organization were changed at the same time: try again');
      // A short random pause, so that two retrying requests do not collide again.
      await new Promise((resolve) => setTimeout(resolve, Math.random() * 10 * attempt));
    }
  }
}

/** `member:add`'s roles: a member role, or `guest` (a member with no role of their own). */
export const ADDABLE_ROLES = [...MEMBER_ROLES, 'guest'] as const;

/**
 * Adds an existing user to an organization with a role (the operator's
 * `member:add`): a 404 for an unknown user or organization, a 400 for an
 * unknown role, a 409 when the user is already a member (their role is
 * changed through the API, where the last-admin rule applies).
 */
export async function addMember(db: Db, input: { organizationId: string; email: string; role: string }) {
  if (!isOneOf(ADDABLE_ROLES, input.role)) {
    throw new InvalidInputError(`role: unknown role ${JSON.stringify(input.role)}; the roles are ${ADDABLE_ROLES.join(', ')}`);
  }
  const role = input.role === 'guest' ? null : input.role;
  const user = await db.user.findUnique({ where: { email: input.email.toLowerCase() } });
  if (!user) throw new NotFoundError('User with e-mail', input.email, 'create it with user:create first');
  const organization = await db.organization.findUnique({ where: { id: input.organizationId }, select: { id: true, title: true } });
  if (!organization) throw new NotFoundError('Organization', input.organizationId);
  try {
    const member = await db.member.create({ data: { id: newId(), organizationId: organization.id, userId: user.id, role } });
    return { organization, user, role: member.role };
  } catch (error) {
    if (!isUniqueViolation(error)) throw error;
    const existing = await db.member.findUnique({ where: { organizationId_userId: { organizationId: organization.id, userId: user.id } }, select: { role: true } });
    throw new ConflictError(`${user.email} is already a member of organization ${organization.id} (role: ${existing?.role ?? 'guest'})`);
  }
}

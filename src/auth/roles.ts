/**
 * Member roles in increasing power (the spec's "admin > create > review >
 * edit > comment > read"). `null` is a guest: a member of the organization
 * with no role of their own; `undefined` is "not a member at all".
 */
import { isOneOf, MEMBER_ROLES, type DEFAULT_LEVELS, type MemberRole } from '../db/value-sets.ts';

export { MEMBER_ROLES, type MemberRole };
export type RoleOrGuest = MemberRole | null;

/** A content default level: a role or "inherit" from the parent (DEFAULT_LEVELS), or null (guests only). */
export type DefaultLevel = (typeof DEFAULT_LEVELS)[number] | null;

export function isMemberRole(value: unknown): value is MemberRole {
  return isOneOf(MEMBER_ROLES, value);
}

/** -1 for a guest or a non-member, so any real role outranks them. */
export function rank(role: RoleOrGuest | undefined): number {
  return role ? MEMBER_ROLES.indexOf(role) : -1;
}

export function atLeast(role: RoleOrGuest | undefined, needed: MemberRole): boolean {
  return rank(role) >= rank(needed);
}

export function highest(roles: Array<RoleOrGuest | undefined>): RoleOrGuest | undefined {
  let best: RoleOrGuest | undefined;
  for (const role of roles) if (role !== undefined && (best === undefined || rank(role) > rank(best))) best = role;
  return best;
}

/**
 * The policy table, walked for every action, every role (admin > create >
 * review > edit > comment > read, a guest, a non-member) and every fact a rule
 * reads (a locked space, a share key that opened the resource). The expected
 * table is written out here from the product's role rules, independently of
 * src/auth/policies.ts: a rule that changes, or an action added without a
 * row here, fails.
 */
import { describe, expect, it } from 'vitest';
import { ACTIONS, authorize, can, type Action, type Subject } from '../../src/auth/policies.ts';
import { MEMBER_ROLES, type RoleOrGuest } from '../../src/auth/roles.ts';
import { ForbiddenError, NotFoundError } from '../../src/errors/index.ts';

type Needs = { role: (typeof MEMBER_ROLES)[number] | 'member'; notLocked?: true; orShared?: true };

/** What each action needs: a role at least (or any membership), and the facts that change it. */
const EXPECTED: Record<Action, Needs> = {
  'organization:read': { role: 'member' },
  'organization:leave': { role: 'member' },
  'organization:update': { role: 'admin' },
  'organization:create-content': { role: 'create' },
  'organization:list-members': { role: 'read' },
  'organization:view-billing': { role: 'admin' },
  'member:read': { role: 'read' },
  'member:update': { role: 'admin' },
  'member:remove': { role: 'admin' },
  'collection:read': { role: 'read' },
  'collection:create': { role: 'create' },
  'collection:update': { role: 'create' },
  'collection:move': { role: 'create' },
  'collection:delete': { role: 'admin' },
  'collection:transfer': { role: 'admin' },
  'collection:admin': { role: 'admin' },
  'space:read': { role: 'read', orShared: true },
  'space:comment': { role: 'comment' },
  'space:edit': { role: 'edit', notLocked: true },
  'space:update': { role: 'edit' },
  'space:configure': { role: 'admin' },
  'space:duplicate': { role: 'create' },
  'space:move': { role: 'create' },
  'space:delete': { role: 'admin' },
  'space:restore': { role: 'admin' },
  'space:transfer': { role: 'admin' },
  'space:admin': { role: 'admin' },
  'change-request:read': { role: 'read' },
  'change-request:create': { role: 'edit', notLocked: true },
  'change-request:update': { role: 'edit', notLocked: true },
  'change-request:edit-content': { role: 'edit', notLocked: true },
  'change-request:review': { role: 'review' },
  'change-request:merge': { role: 'review' },
  'site:read': { role: 'read', orShared: true },
  'site:create': { role: 'create' },
  'site:update': { role: 'create' },
  'site:configure': { role: 'admin' },
  'site:publish': { role: 'admin' },
  'site:delete': { role: 'admin' },
  'job:read': { role: 'read' },
  'translation:read': { role: 'read' },
  'translation:create': { role: 'create' },
  'translation:update': { role: 'create' },
  'translation:delete': { role: 'create' },
  'translation:run': { role: 'create' },
};

const ROLES: Array<RoleOrGuest | undefined> = [...MEMBER_ROLES, null, undefined];
const label = (role: RoleOrGuest | undefined) => (role === undefined ? 'non-member' : role === null ? 'guest' : role);

function expected(needs: Needs, subject: Subject): boolean {
  const { role } = subject;
  const hasRole =
    needs.role === 'member' ? role !== undefined : role !== undefined && role !== null && MEMBER_ROLES.indexOf(role) >= MEMBER_ROLES.indexOf(needs.role);
  if (needs.orShared && subject.shared) return true;
  return hasRole && !(needs.notLocked && subject.locked);
}

describe('the policy table', () => {
  it('has a row here for every action, and no other', () => {
    expect([...ACTIONS].sort()).toEqual(Object.keys(EXPECTED).sort());
  });

  for (const action of Object.keys(EXPECTED) as Action[]) {
    it(`${action}: ${JSON.stringify(EXPECTED[action])}`, () => {
      const rows: string[] = [];
      for (const role of ROLES) {
        for (const locked of [false, true]) {
          for (const shared of [false, true]) {
            const subject: Subject = { organizationId: 'org', role, locked, shared };
            if (can(subject, action) !== expected(EXPECTED[action], subject)) rows.push(`${label(role)} locked=${locked} shared=${shared}`);
          }
        }
      }
      expect(rows, 'subjects where the rule disagrees with the table').toEqual([]);
    });
  }
});

describe('authorize', () => {
  it('answers 404 to those who may not read the resource, 403 to readers who may not act', () => {
    const resource = { type: 'Space', id: 's1' };
    expect(() => authorize({ organizationId: 'org', role: undefined }, 'space:update', resource)).toThrow(NotFoundError);
    expect(() => authorize({ organizationId: 'org', role: null }, 'space:update', resource)).toThrow(NotFoundError);
    expect(() => authorize({ organizationId: 'org', role: 'read' }, 'space:update', resource)).toThrow(ForbiddenError);
    expect(() => authorize({ organizationId: 'org', role: 'edit' }, 'space:update', resource)).not.toThrow();
    // A share key lets a non-member read, and nothing more.
    expect(() => authorize({ organizationId: 'org', role: undefined, shared: true }, 'space:read', resource)).not.toThrow();
    expect(() => authorize({ organizationId: 'org', role: undefined, shared: true }, 'space:update', resource)).toThrow(ForbiddenError);
    expect(() => authorize({ organizationId: 'org', role: undefined, shared: true }, 'change-request:read', resource)).toThrow(NotFoundError);
  });

  it('names the refused action in a 403', () => {
    expect(() => authorize({ organizationId: 'org', role: 'read' }, 'change-request:merge', { type: 'Space', id: 's1' })).toThrow(
      /merge on a change request \(change-request:merge\)/,
    );
  });
});

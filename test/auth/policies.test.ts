/**
 * The policy table, walked for every action, every role (admin > create >
 * review > edit > comment > read, a guest, a non-member) and every fact a rule
 * reads (a locked space, a share key that opened the resource). The expected
 * table is written out here from the product's role rules, independently of
 * src/auth/policies.ts: a rule that changes, or an action added without a
 * row here, fails.
 */
import { describe, expect, it } from 'vitest';
import { ACTIONS, authorize, can, scopeNeeded, type Action, type Subject } from '../../src/auth/policies.ts';
import { MEMBER_ROLES, type RoleOrGuest } from '../../src/auth/roles.ts';
import { TOKEN_SCOPES, type TokenScope } from '../../src/db/value-sets.ts';
import { ForbiddenError, MemberDisabledError, MissingScopeError, NotFoundError } from '../../src/errors/index.ts';

/**
 * A role at least, any membership, or `anyone` (the caller's own account: every signed-in caller);
 * the facts that change it; and the scope a scoped token needs (`any`: every token; `unscoped`: a token without scopes only).
 */
type Needs = { role: (typeof MEMBER_ROLES)[number] | 'member' | 'anyone'; notLocked?: true; orShared?: true; orTeamOwner?: true; author?: 'only' | 'or'; scope: TokenScope | 'any' | 'unscoped' };

/** What each action needs: a role at least (or any membership), and the facts that change it. */
const EXPECTED: Record<Action, Needs> = {
  'account:read': { role: 'anyone', scope: 'user:read' },
  'account:list-organizations': { role: 'anyone', scope: 'organization:read' },
  'account:create-organization': { role: 'anyone', scope: 'organization:write' },
  'account:join-organization': { role: 'anyone', scope: 'organization:members:write' },
  'account:manage-tokens': { role: 'anyone', scope: 'unscoped' },
  'account:join-with-invite': { role: 'anyone', scope: 'organization:members:write' },
  'organization:read': { role: 'member', scope: 'any' },
  'organization:leave': { role: 'member', scope: 'organization:members:write' },
  'organization:update': { role: 'admin', scope: 'organization:write' },
  'organization:create-content': { role: 'create', scope: 'space:write' },
  'organization:list-members': { role: 'read', scope: 'organization:members:read' },
  'organization:view-billing': { role: 'admin', scope: 'organization:read' },
  'organization:list-teams': { role: 'read', scope: 'organization:members:read' },
  'organization:invite': { role: 'admin', scope: 'organization:members:write' },
  'organization:manage-invite-links': { role: 'admin', scope: 'organization:members:write' },
  'organization:manage-sso': { role: 'admin', scope: 'organization:write' },
  'organization:list-sso-logins': { role: 'member', scope: 'organization:read' },
  'organization:ping': { role: 'member', scope: 'organization:read' },
  'member:read': { role: 'read', scope: 'organization:members:read' },
  'member:update': { role: 'admin', scope: 'organization:members:write' },
  'member:remove': { role: 'admin', scope: 'organization:members:write' },
  'team:read': { role: 'read', scope: 'organization:members:read' },
  'team:create': { role: 'admin', scope: 'organization:members:write' },
  'team:update': { role: 'admin', scope: 'organization:members:write' },
  'team:delete': { role: 'admin', scope: 'organization:members:write' },
  'team:manage-members': { role: 'admin', orTeamOwner: true, scope: 'organization:members:write' },
  'collection:read': { role: 'read', scope: 'space:read' },
  'collection:create': { role: 'create', scope: 'space:write' },
  'collection:update': { role: 'create', scope: 'space:write' },
  'collection:move': { role: 'create', scope: 'space:write' },
  'collection:delete': { role: 'admin', scope: 'space:write' },
  'collection:transfer': { role: 'admin', scope: 'space:write' },
  'collection:admin': { role: 'admin', scope: 'space:write' },
  'collection:list-permissions': { role: 'read', scope: 'space:read' },
  'collection:manage-permissions': { role: 'admin', scope: 'space:write' },
  'space:read': { role: 'read', orShared: true, scope: 'space:read' },
  'space:edit': { role: 'edit', notLocked: true, scope: 'space:write' },
  'space:update': { role: 'edit', scope: 'space:write' },
  'space:configure': { role: 'admin', scope: 'space:write' },
  'space:duplicate': { role: 'create', scope: 'space:write' },
  'space:move': { role: 'create', scope: 'space:write' },
  'space:delete': { role: 'admin', scope: 'space:write' },
  'space:restore': { role: 'admin', scope: 'space:write' },
  'space:transfer': { role: 'admin', scope: 'space:write' },
  'space:admin': { role: 'admin', scope: 'space:write' },
  'space:list-permissions': { role: 'read', scope: 'space:read' },
  'space:manage-permissions': { role: 'admin', scope: 'space:write' },
  'change-request:read': { role: 'read', scope: 'space:read' },
  'change-request:create': { role: 'edit', notLocked: true, scope: 'space:write' },
  'change-request:update': { role: 'edit', notLocked: true, scope: 'space:write' },
  'change-request:edit-content': { role: 'edit', notLocked: true, scope: 'space:write' },
  'change-request:review': { role: 'review', scope: 'space:write' },
  'change-request:merge': { role: 'review', scope: 'change-request:merge' },
  'change-request:request-review': { role: 'edit', scope: 'space:write' },
  'comment:read': { role: 'read', scope: 'space:read' },
  'comment:post': { role: 'comment', scope: 'space:write' },
  'comment:edit': { role: 'comment', author: 'only', scope: 'space:write' },
  'comment:delete': { role: 'admin', author: 'or', scope: 'space:write' },
  'site:read': { role: 'read', orShared: true, scope: 'site:read' },
  'site:create': { role: 'create', scope: 'site:write' },
  'site:update': { role: 'create', scope: 'site:write' },
  'site:configure': { role: 'admin', scope: 'site:write' },
  'site:publish': { role: 'admin', scope: 'site:publish' },
  'site:delete': { role: 'admin', scope: 'site:write' },
  'job:read': { role: 'read', scope: 'space:read' },
  'translation:read': { role: 'read', scope: 'space:read' },
  'translation:create': { role: 'create', scope: 'space:write' },
  'translation:update': { role: 'create', scope: 'space:write' },
  'translation:delete': { role: 'create', scope: 'space:write' },
  'translation:run': { role: 'create', scope: 'space:write' },
  'openapi:read': { role: 'read', scope: 'openapi:read', orShared: true },
  'openapi:create': { role: 'create', scope: 'openapi:write' },
  'openapi:update': { role: 'create', scope: 'openapi:write' },
  'openapi:delete': { role: 'create', scope: 'openapi:write' },
  'conversation:read': { role: 'edit', scope: 'organization:read' },
  'conversation:update': { role: 'edit', scope: 'organization:write' },
  'conversation:ingest': { role: 'admin', scope: 'conversations:ingest' },
};

const ROLES: Array<RoleOrGuest | undefined> = [...MEMBER_ROLES, null, undefined];
const label = (role: RoleOrGuest | undefined) => (role === undefined ? 'non-member' : role === null ? 'guest' : role);

function expected(needs: Needs, subject: Subject): boolean {
  const { role } = subject;
  const hasRole =
    needs.role === 'anyone' ? true : needs.role === 'member' ? role !== undefined : role !== undefined && role !== null && MEMBER_ROLES.indexOf(role) >= MEMBER_ROLES.indexOf(needs.role);
  if (subject.disabled) return false;
  const teamOwner = needs.orTeamOwner === true && subject.teamOwner === true && role !== undefined;
  const commenter = role !== undefined && role !== null && MEMBER_ROLES.indexOf(role) >= MEMBER_ROLES.indexOf('comment');
  if (needs.author === 'only') return hasRole && subject.author === true;
  if (needs.author === 'or') return hasRole || (subject.author === true && commenter);
  return ((hasRole || teamOwner) && !(needs.notLocked && subject.locked)) || (needs.orShared === true && subject.shared === true);
}

/** Whether a token with these scopes (null: none) may do what `needs` names, its role permitting. */
function scopeAllows(needs: Needs, scopes: ReadonlySet<TokenScope> | null): boolean {
  if (scopes === null || needs.scope === 'any') return true;
  return needs.scope !== 'unscoped' && scopes.has(needs.scope);
}

/** The tokens each subject is tried with: unscoped, holding only the scope needed, holding every other scope. */
function tokenVariants(needs: Needs): Array<{ name: string; scopes: ReadonlySet<TokenScope> | null }> {
  const needed = needs.scope === 'any' || needs.scope === 'unscoped' ? [] : [needs.scope];
  return [
    { name: 'unscoped', scopes: null },
    ...(needed.length ? [{ name: `only ${needed[0]}`, scopes: new Set(needed) }] : [{ name: 'only user:read', scopes: new Set<TokenScope>(['user:read']) }]),
    { name: 'every other scope', scopes: new Set(TOKEN_SCOPES.filter((scope) => !(needed as string[]).includes(scope))) },
  ];
}

describe('the policy table', () => {
  it('has a row here for every action, and no other', () => {
    expect([...ACTIONS].sort()).toEqual(Object.keys(EXPECTED).sort());
  });

  for (const action of Object.keys(EXPECTED) as Action[]) {
    it(`${action}: ${JSON.stringify(EXPECTED[action])}`, () => {
      const needs = EXPECTED[action];
      expect(scopeNeeded(action)).toBe(needs.scope);
      const rows: string[] = [];
      for (const role of ROLES) {
        for (const locked of [false, true]) {
          for (const shared of [false, true]) {
            for (const teamOwner of [false, true]) {
              for (const disabled of [false, true]) {
                for (const author of [false, true]) {
                  for (const token of tokenVariants(needs)) {
                    const subject: Subject = { organizationId: 'org', role, locked, shared, teamOwner, disabled, author, scopes: token.scopes };
                    const want = expected(needs, subject) && scopeAllows(needs, token.scopes);
                    if (can(subject, action) !== want) rows.push(`${label(role)} locked=${locked} shared=${shared} teamOwner=${teamOwner} disabled=${disabled} author=${author} token=${token.name}`);
                  }
                }
              }
            }
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

  it("answers 403 naming the missing scope when the role allows the action but the token's scopes do not", () => {
    const resource = { type: 'Space', id: 's1' };
    const readOnly: Subject = { organizationId: 'org', role: 'admin', scopes: new Set<TokenScope>(['space:read']) };
    expect(() => authorize(readOnly, 'space:read', resource)).not.toThrow();
    expect(() => authorize(readOnly, 'space:update', resource)).toThrow(MissingScopeError);
    expect(() => authorize(readOnly, 'space:update', resource)).toThrow(/space:update needs the scope space:write/);
    // Merging needs change-request:merge, which space:write does not include.
    const writer: Subject = { ...readOnly, scopes: new Set<TokenScope>(['space:write']) };
    expect(() => authorize(writer, 'change-request:merge', resource)).toThrow(/needs the scope change-request:merge/);
    expect(() => authorize({ ...writer, scopes: new Set<TokenScope>(['change-request:merge']) }, 'change-request:merge', resource)).not.toThrow();
    // A write scope is enough to find the resource: whether it exists is the role's business.
    expect(() => authorize(writer, 'space:update', resource)).not.toThrow();
    // Managing tokens takes a token without scopes, whatever it holds.
    const everything: Subject = { organizationId: null, role: undefined, scopes: new Set(TOKEN_SCOPES) };
    expect(() => authorize(everything, 'account:manage-tokens', { type: 'User', id: 'u' })).toThrow(/needs a token without scopes/);
    expect(() => authorize({ ...everything, scopes: null }, 'account:manage-tokens', { type: 'User', id: 'u' })).not.toThrow();
  });

  it('answers 404 and 403 for the role before it looks at scopes', () => {
    const resource = { type: 'Space', id: 's1' };
    const scoped = new Set<TokenScope>(['space:read']);
    expect(() => authorize({ organizationId: 'org', role: undefined, scopes: scoped }, 'space:update', resource)).toThrow(NotFoundError);
    expect(() => authorize({ organizationId: 'org', role: 'read', scopes: scoped }, 'space:update', resource)).toThrow(ForbiddenError);
  });

  it('answers 403 naming the disabled membership, before anything else, to a disabled member of any role', () => {
    for (const role of ROLES) {
      expect(() => authorize({ organizationId: 'org', role, disabled: true }, 'space:read', { type: 'Space', id: 's1' })).toThrow(MemberDisabledError);
    }
    expect(() => authorize({ organizationId: 'org', role: 'admin', disabled: true }, 'organization:read', { type: 'Organization', id: 'org' })).toThrow(
      /membership of organization "org" is disabled/,
    );
  });

  it('lets a team owner who is a member manage their team, and no one else below admin', () => {
    const team = { type: 'Team', id: 't1' };
    expect(() => authorize({ organizationId: 'org', role: 'read', teamOwner: true }, 'team:manage-members', team)).not.toThrow();
    expect(() => authorize({ organizationId: 'org', role: 'create' }, 'team:manage-members', team)).toThrow(ForbiddenError);
    expect(() => authorize({ organizationId: 'org', role: undefined, teamOwner: true }, 'team:manage-members', team)).toThrow(NotFoundError);
  });

  it('names the refused action in a 403', () => {
    expect(() => authorize({ organizationId: 'org', role: 'read' }, 'change-request:merge', { type: 'Space', id: 's1' })).toThrow(
      /merge on a change request \(change-request:merge\)/,
    );
  });
});

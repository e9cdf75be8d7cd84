/**
 * Every authorization rule, in one table. Nothing else compares roles: the
 * services call `authorize`, and every `permissions` object is computed from
 * `can` with the same actions, so what a resource says the caller may do is
 * exactly what the API lets them do. test/auth/policies.test.ts walks every
 * action for every role and fact.
 */
import type { TokenScope } from '../db/value-sets.ts';
import { ForbiddenError, MemberDisabledError, MissingScopeError, NotFoundError } from '../errors/index.ts';
import { atLeast, type MemberRole, type RoleOrGuest } from './roles.ts';

/**
 * A resource as the policies see it: its organization, the caller's effective
 * role on it, and the facts some rules read (src/auth/access.ts makes them).
 */
export interface Subject {
  /** null: the caller's own account (`account:*` actions). */
  readonly organizationId: string | null;
  /** undefined: the caller is not a member of the organization; null: a guest. */
  readonly role: RoleOrGuest | undefined;
  /** A space in locked edit mode: nobody edits its content. */
  readonly locked?: boolean;
  /**
   * A share key or site token the caller presented opens the resource for
   * reading: its site, a space the site publishes, or an OpenAPI spec the
   * site's published pages reference.
   */
  readonly shared?: boolean;
  /**
   * The scopes the caller's token is limited to; null or absent: a token
   * without scopes, acting with its user's roles.
   */
  readonly scopes?: ReadonlySet<TokenScope> | null;
  /** A team of which the caller is an owner (Access.team): they manage its members. */
  readonly teamOwner?: boolean;
  /** An admin disabled the caller's membership of the organization: every action is refused (403). */
  readonly disabled?: boolean;
  /** The caller wrote the comment or reply the action is on. */
  readonly author?: boolean;
}

type Rule = (subject: Subject) => boolean;

const isMember: Rule = (s) => s.role !== undefined;
const role =
  (needed: MemberRole): Rule =>
  (s) =>
    atLeast(s.role, needed);
/** Read as a member with at least `read`, or through a share key. */
const readOrShared: Rule = (s) => atLeast(s.role, 'read') || s.shared === true;
/** Change the content: `edit`, unless the space is locked. */
const editContent: Rule = (s) => atLeast(s.role, 'edit') && !s.locked;

/** Manage a team's members: an organization admin, or an owner of the team. */
const manageTeam: Rule = (s) => atLeast(s.role, 'admin') || (s.teamOwner === true && s.role !== undefined);

/** Change a comment's or reply's body: its author, while they may still comment. */
const ownComment: Rule = (s) => s.author === true && atLeast(s.role, 'comment');
/** Delete a comment or reply: its author (while they may comment), or an admin. */
const ownCommentOrAdmin: Rule = (s) => atLeast(s.role, 'admin') || ownComment(s);

/** The caller's own account (Access.account() makes its subject): any signed-in caller. */
const ownAccount: Rule = () => true;

const rules = {
  'account:read': ownAccount,
  'account:list-organizations': ownAccount,
  'account:create-organization': ownAccount,
  'account:join-organization': ownAccount,
  'account:manage-tokens': ownAccount,
  // Joining with an invite link's secret: whoever holds it (the link says what it opens).
  'account:join-with-invite': ownAccount,

  'organization:read': isMember,
  'organization:leave': isMember,
  'organization:update': role('admin'),
  'organization:create-content': role('create'),
  'organization:list-members': role('read'),
  'organization:view-billing': role('admin'),
  'organization:list-teams': role('read'),
  // Invites (by e-mail, and invite links) and single sign-on are the admins'.
  'organization:invite': role('admin'),
  'organization:manage-invite-links': role('admin'),
  'organization:manage-sso': role('admin'),
  // The identity providers a member may sign in through (no secrets: labels and start URLs).
  'organization:list-sso-logins': isMember,
  // A member records that they were seen (and gets their visitor claims).
  'organization:ping': isMember,
  'member:read': role('read'),
  'member:update': role('admin'),
  'member:remove': role('admin'),

  // Teams: members see them; admins make, rename and delete them; admins and the team's owners manage its members.
  'team:read': role('read'),
  'team:create': role('admin'),
  'team:update': role('admin'),
  'team:delete': role('admin'),
  'team:manage-members': manageTeam,

  'collection:read': role('read'),
  'collection:create': role('create'),
  'collection:update': role('create'),
  'collection:move': role('create'),
  'collection:delete': role('admin'),
  'collection:transfer': role('admin'),
  'collection:admin': role('admin'),
  // Who holds which role on it (users and teams): readers see them; admins of it change them.
  'collection:list-permissions': role('read'),
  'collection:manage-permissions': role('admin'),

  'space:read': readOrShared,
  'space:edit': editContent,
  'space:update': role('edit'),
  'space:configure': role('admin'),
  'space:duplicate': role('create'),
  'space:move': role('create'),
  'space:delete': role('admin'),
  'space:restore': role('admin'),
  'space:transfer': role('admin'),
  'space:admin': role('admin'),
  'space:list-permissions': role('read'),
  'space:manage-permissions': role('admin'),

  // Change requests follow the caller's role on their space (share keys open published content, not these).
  'change-request:read': role('read'),
  'change-request:create': editContent,
  'change-request:update': editContent,
  'change-request:edit-content': editContent,
  'change-request:review': role('review'),
  'change-request:merge': role('review'),
  // Asking someone to review: whoever may edit the change request's space (locked or not: no content changes).
  'change-request:request-review': role('edit'),

  // Discussions (comments and replies on a space or in a change request): readers read them;
  // commenters post, reply, react and resolve; authors edit their own; authors and admins delete.
  'comment:read': role('read'),
  'comment:post': role('comment'),
  'comment:edit': ownComment,
  'comment:delete': ownCommentOrAdmin,

  // Sites follow the organization role: building one (structure, sections,
  // site spaces, share links) needs create, like other content; its settings
  // (visibility, hostname, proxy, adaptive schema), publishing and deletion need admin.
  'site:read': readOrShared,
  'site:create': role('create'),
  'site:update': role('create'),
  'site:configure': role('admin'),
  'site:publish': role('admin'),
  'site:delete': role('admin'),

  // A job is seen by those who may read its space (or, without one, its organization's content).
  'job:read': role('read'),

  'translation:read': role('read'),
  'translation:create': role('create'),
  'translation:update': role('create'),
  'translation:delete': role('create'),
  'translation:run': role('create'),

  // OpenAPI specs are organization content: members read them (private ones too), creators keep them;
  // a published site's visitors read those its published pages reference (Access.openAPISpec).
  'openapi:read': readOrShared,
  'openapi:create': role('create'),
  'openapi:update': role('create'),
  'openapi:delete': role('create'),

  // Support conversations and the documentation issues found in them: read and triaged (clusters
  // muted, change requests opened from them) by those who write the documentation; ingested by
  // administrators' tokens (the organization's `ingestConversations` permission).
  'conversation:read': role('edit'),
  'conversation:update': role('edit'),
  'conversation:ingest': role('admin'),
} satisfies Record<string, Rule>;

export type Action = keyof typeof rules;

/**
 * What a token's scopes must hold for each action, on top of its rule: a scope
 * (GitBook's scope of the endpoints that do it), `any` (every token: the action
 * only says that an organization exists for its member, which GitBook's
 * `GET /orgs/{organizationId}` asks no scope for), or `unscoped` (only a token
 * without scopes: a scoped token managing tokens could issue itself an
 * unscoped one). docs/decisions.md, "Token scopes".
 */
export type ScopeNeed = TokenScope | 'any' | 'unscoped';

const scopeNeeds = {
  'account:read': 'user:read',
  'account:list-organizations': 'organization:read',
  'account:create-organization': 'organization:write',
  // Joining through an organization's e-mail domains: GitBook's scope of managing members and link invites.
  'account:join-organization': 'organization:members:write',
  'account:manage-tokens': 'unscoped',
  'account:join-with-invite': 'organization:members:write',

  'organization:read': 'any',
  'organization:leave': 'organization:members:write',
  'organization:update': 'organization:write',
  // Creating spaces and collections (GitBook's POST /orgs/{id}/spaces and /collections).
  'organization:create-content': 'space:write',
  'organization:list-members': 'organization:members:read',
  'organization:view-billing': 'organization:read',
  'organization:list-teams': 'organization:members:read',
  'organization:invite': 'organization:members:write',
  'organization:manage-invite-links': 'organization:members:write',
  'organization:manage-sso': 'organization:write',
  'organization:list-sso-logins': 'organization:read',
  'organization:ping': 'organization:read',
  'member:read': 'organization:members:read',
  'member:update': 'organization:members:write',
  'member:remove': 'organization:members:write',

  // GitBook counts teams as members.
  'team:read': 'organization:members:read',
  'team:create': 'organization:members:write',
  'team:update': 'organization:members:write',
  'team:delete': 'organization:members:write',
  'team:manage-members': 'organization:members:write',

  // GitBook counts collections as space content.
  'collection:read': 'space:read',
  'collection:create': 'space:write',
  'collection:update': 'space:write',
  'collection:move': 'space:write',
  'collection:delete': 'space:write',
  'collection:transfer': 'space:write',
  'collection:admin': 'space:write',
  'collection:list-permissions': 'space:read',
  'collection:manage-permissions': 'space:write',

  'space:read': 'space:read',
  'space:edit': 'space:write',
  'space:update': 'space:write',
  'space:configure': 'space:write',
  'space:duplicate': 'space:write',
  'space:move': 'space:write',
  'space:delete': 'space:write',
  'space:restore': 'space:write',
  'space:transfer': 'space:write',
  'space:admin': 'space:write',
  'space:list-permissions': 'space:read',
  'space:manage-permissions': 'space:write',

  'change-request:read': 'space:read',
  'change-request:create': 'space:write',
  'change-request:update': 'space:write',
  'change-request:edit-content': 'space:write',
  'change-request:review': 'space:write',
  'change-request:merge': 'change-request:merge',
  'change-request:request-review': 'space:write',

  // GitBook counts discussions as space content.
  'comment:read': 'space:read',
  'comment:post': 'space:write',
  'comment:edit': 'space:write',
  'comment:delete': 'space:write',

  'site:read': 'site:read',
  'site:create': 'site:write',
  'site:update': 'site:write',
  'site:configure': 'site:write',
  'site:publish': 'site:publish',
  'site:delete': 'site:write',

  // Jobs import, export and translate content.
  'job:read': 'space:read',

  // Translations have no scope of their own in GitBook's API: they are space content.
  'translation:read': 'space:read',
  'translation:create': 'space:write',
  'translation:update': 'space:write',
  'translation:delete': 'space:write',
  'translation:run': 'space:write',

  'openapi:read': 'openapi:read',
  'openapi:create': 'openapi:write',
  'openapi:update': 'openapi:write',
  'openapi:delete': 'openapi:write',

  'conversation:read': 'organization:read',
  'conversation:update': 'organization:write',
  'conversation:ingest': 'conversations:ingest',
} satisfies Record<Action, ScopeNeed>;

/** Every action, for tests and tools that walk the table. */
export const ACTIONS = Object.keys(rules) as Action[];

/** The scope an action needs of a scoped token. */
export function scopeNeeded(action: Action): ScopeNeed {
  return scopeNeeds[action];
}

/** Whether the token's scopes allow the action (a token without scopes: always). */
function scopesAllow(subject: Subject, action: Action): boolean {
  if (!subject.scopes) return true;
  const need: ScopeNeed = scopeNeeds[action];
  return need === 'any' || (need !== 'unscoped' && subject.scopes.has(need));
}

/** Whether the caller may do `action`: their membership is not disabled, their role allows it, and so do their token's scopes. */
export function can(subject: Subject, action: Action): boolean {
  return !subject.disabled && rules[action](subject) && scopesAllow(subject, action);
}

/**
 * Throws 403 when the token's scopes do not allow the action, whatever the
 * role: for lists, which show a member without the role nothing, but must
 * refuse a token that may not read such things at all.
 */
export function requireScope(subject: Subject, action: Action): void {
  if (!scopesAllow(subject, action)) throw new MissingScopeError(action, scopeNeeds[action]);
}

/** The read action that decides whether a resource exists for the caller at all. */
const readActions: Record<string, Action> = {
  organization: 'organization:read',
  member: 'member:read',
  collection: 'collection:read',
  space: 'space:read',
  'change-request': 'change-request:read',
  team: 'team:read',
  site: 'site:read',
  job: 'job:read',
  comment: 'comment:read',
  translation: 'translation:read',
  openapi: 'openapi:read',
  conversation: 'conversation:read',
};

/**
 * Throws unless the caller may do `action`. A resource the caller cannot even
 * read answers NotFound, so another organization's data is never revealed.
 */
export function authorize(subject: Subject, action: Action, resource: { type: string; id: string }): void {
  // A disabled member is told so (they know the organization), on everything of it.
  if (subject.disabled && subject.organizationId !== null) throw new MemberDisabledError(subject.organizationId);
  const readAction = readActions[action.slice(0, action.indexOf(':'))];
  // Whether the resource exists for the caller is their role's business: a token
  // without the read scope still learns nothing its user could not see.
  if (readAction && !rules[readAction](subject)) throw new NotFoundError(resource.type, resource.id);
  if (!rules[action](subject)) throw new ForbiddenError(action);
  if (!scopesAllow(subject, action)) throw new MissingScopeError(action, scopeNeeds[action]);
}

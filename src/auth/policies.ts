/**
 * Every authorization rule, in one table. Nothing else compares roles: the
 * services call `authorize`, and every `permissions` object is computed from
 * `can` with the same actions, so what a resource says the caller may do is
 * exactly what the API lets them do. test/auth/policies.test.ts walks every
 * action for every role and fact.
 */
import { ForbiddenError, NotFoundError } from '../errors/index.ts';
import { atLeast, type MemberRole, type RoleOrGuest } from './roles.ts';

/**
 * A resource as the policies see it: its organization, the caller's effective
 * role on it, and the facts some rules read (src/auth/access.ts makes them).
 */
export interface Subject {
  readonly organizationId: string;
  /** undefined: the caller is not a member of the organization; null: a guest. */
  readonly role: RoleOrGuest | undefined;
  /** A space in locked edit mode: nobody edits its content. */
  readonly locked?: boolean;
  /**
   * A share key the caller presented opens the resource for reading: a
   * share-link site, or a space such a site publishes.
   */
  readonly shared?: boolean;
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

const rules = {
  'organization:read': isMember,
  'organization:leave': isMember,
  'organization:update': role('admin'),
  'organization:create-content': role('create'),
  'organization:list-members': role('read'),
  'organization:view-billing': role('admin'),
  'member:read': role('read'),
  'member:update': role('admin'),
  'member:remove': role('admin'),

  'collection:read': role('read'),
  'collection:create': role('create'),
  'collection:update': role('create'),
  'collection:move': role('create'),
  'collection:delete': role('admin'),
  'collection:transfer': role('admin'),
  'collection:admin': role('admin'),

  'space:read': readOrShared,
  'space:comment': role('comment'),
  'space:edit': editContent,
  'space:update': role('edit'),
  'space:configure': role('admin'),
  'space:duplicate': role('create'),
  'space:move': role('create'),
  'space:delete': role('admin'),
  'space:restore': role('admin'),
  'space:transfer': role('admin'),
  'space:admin': role('admin'),

  // Change requests follow the caller's role on their space (share keys open published content, not these).
  'change-request:read': role('read'),
  'change-request:create': editContent,
  'change-request:update': editContent,
  'change-request:edit-content': editContent,
  'change-request:review': role('review'),
  'change-request:merge': role('review'),

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
} satisfies Record<string, Rule>;

export type Action = keyof typeof rules;

/** Every action, for tests and tools that walk the table. */
export const ACTIONS = Object.keys(rules) as Action[];

export function can(subject: Subject, action: Action): boolean {
  return rules[action](subject);
}

/** The read action that decides whether a resource exists for the caller at all. */
const readActions: Record<string, Action> = {
  organization: 'organization:read',
  member: 'member:read',
  collection: 'collection:read',
  space: 'space:read',
  'change-request': 'change-request:read',
  site: 'site:read',
  job: 'job:read',
  translation: 'translation:read',
};

/**
 * Throws unless the caller may do `action`. A resource the caller cannot even
 * read answers NotFound, so another organization's data is never revealed.
 */
export function authorize(subject: Subject, action: Action, resource: { type: string; id: string }): void {
  const readAction = readActions[action.slice(0, action.indexOf(':'))];
  if (readAction && !can(subject, readAction)) throw new NotFoundError(resource.type, resource.id);
  if (!can(subject, action)) throw new ForbiddenError(action);
}

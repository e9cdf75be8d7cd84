/**
 * Every authorization rule, in one table. Nothing else compares roles: the
 * resolvers call `authorize`, and every `permissions` object is computed from
 * `can` with the same actions, so what a resource says the caller may do is
 * exactly what the API lets them do.
 */
import { ForbiddenError, NotFoundError } from '../errors/index.ts';
import { atLeast, type RoleOrGuest } from './roles.ts';

/** A resource as the policies see it: its organization and the caller's effective role on it. */
export interface Subject {
  readonly organizationId: string;
  /** undefined: the caller is not a member of the organization; null: a guest. */
  readonly role: RoleOrGuest | undefined;
  /** Extra facts some rules look at. */
  readonly locked?: boolean;
}

type Rule = (subject: Subject) => boolean;

const isMember: Rule = (s) => s.role !== undefined;
const role =
  (needed: Parameters<typeof atLeast>[1]): Rule =>
  (s) =>
    atLeast(s.role, needed);

const rules = {
  'organization:read': isMember,
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

  'space:read': role('read'),
  'space:comment': role('comment'),
  'space:edit': (s) => atLeast(s.role, 'edit') && !s.locked,
  'space:review': role('review'),
  'space:merge': role('review'),
  'space:update': role('edit'),
  'space:configure': role('admin'),
  'space:duplicate': role('create'),
  'space:move': role('create'),
  'space:delete': role('admin'),
  'space:restore': role('admin'),
  'space:transfer': role('admin'),
  'space:admin': role('admin'),

  // Sites follow the organization role: building one (structure, sections,
  // site spaces, share links) needs create, like other content; its settings
  // (visibility, hostname, proxy, adaptive schema), publishing and deletion need admin.
  'site:read': role('read'),
  'site:create': role('create'),
  'site:update': role('create'),
  'site:configure': role('admin'),
  'site:publish': role('admin'),
  'site:delete': role('admin'),
} satisfies Record<string, Rule>;

export type Action = keyof typeof rules;

export function can(subject: Subject, action: Action): boolean {
  return rules[action](subject);
}

/** The read action that decides whether a resource exists for the caller at all. */
const readActions: Record<string, Action> = {
  organization: 'organization:read',
  member: 'member:read',
  collection: 'collection:read',
  space: 'space:read',
  site: 'site:read',
};

/**
 * Throws unless the caller may do `action`. A resource the caller cannot even
 * read answers NotFound, so another organization's data is never revealed.
 */
export function authorize(subject: Subject, action: Action, resource: { type: string; id: string }): void {
  const prefix = action.split(':')[0]!;
  const readAction = readActions[prefix];
  if (readAction && !can(subject, readAction)) throw new NotFoundError(resource.type, resource.id);
  if (!can(subject, action)) throw new ForbiddenError(action);
}

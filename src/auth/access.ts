/**
 * The caller's effective role on a resource, per request. A member's own role
 * is raised (never lowered) by the nearest explicit `defaultLevel` found
 * walking up from the resource through its parent collections; `inherit`
 * defers to the parent. Guests and non-members get nothing from default levels.
 */
import type { Loaders } from '../loaders.ts';
import { UnauthenticatedError } from '../errors/index.ts';
import type { Subject } from './policies.ts';
import { highest, isMemberRole, type MemberRole, type RoleOrGuest } from './roles.ts';
import type { Viewer } from './viewer.ts';

export interface ContentNode {
  organizationId: string;
  parentId: string | null;
  defaultLevel: string | null;
}

/** What share keys opened in this request (see src/schema/site-structure/access.ts). */
export interface ShareGrants {
  /** site id -> the share key that opened it */
  readonly sites: Map<string, string>;
  /** spaces opened through a share key (GET /v1/spaces/{id}?shareKey=) */
  readonly spaces: Set<string>;
}

export class Access {
  /** Read-only access a share key gave the caller beyond their memberships. */
  readonly shareGrants: ShareGrants = { sites: new Map(), spaces: new Set() };

  constructor(
    readonly viewer: Viewer | null,
    private readonly loaders: Loaders,
  ) {}

  /** The viewer, or 401. */
  requireViewer(): Viewer {
    if (!this.viewer) throw new UnauthenticatedError();
    return this.viewer;
  }

  /** Records a membership created during this request (e.g. the creator of an organization). */
  noteMembership(organizationId: string, role: RoleOrGuest): void {
    this.viewer?.memberships.set(organizationId, role);
  }

  /** The caller's own role in an organization (undefined: not a member). */
  organizationRole(organizationId: string): RoleOrGuest | undefined {
    return this.viewer?.memberships.get(organizationId);
  }

  organization(organizationId: string): Subject {
    return { organizationId, role: this.organizationRole(organizationId) };
  }

  /** Subject for a collection or a space; `locked` for spaces in locked edit mode. */
  async content(node: ContentNode & { editMode?: string }): Promise<Subject> {
    const own = this.organizationRole(node.organizationId);
    const locked = node.editMode === 'locked';
    if (!own) return { organizationId: node.organizationId, role: own, locked };
    const level = await this.resolveLevel(node);
    return { organizationId: node.organizationId, role: highest([own, level]), locked };
  }

  private async resolveLevel(node: ContentNode): Promise<MemberRole | undefined> {
    let current: ContentNode | null = node;
    // Bounded by the nesting depth; each step is one batched query for all nodes at that depth.
    while (current) {
      if (current.defaultLevel !== 'inherit') return isMemberRole(current.defaultLevel) ? current.defaultLevel : undefined;
      if (!current.parentId) return undefined;
      current = await this.loaders.collectionById.load(current.parentId);
    }
    return undefined;
  }
}

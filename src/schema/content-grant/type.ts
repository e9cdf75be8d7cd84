import { builder } from '../../builder.ts';
import type { AccessSource } from '../../services/content-grant.ts';
import type { MemberRole as Role } from '../../auth/roles.ts';
import { MemberRole } from '../shared/enums.ts';
import { listType } from '../shared/pagination.ts';
import { Space } from '../space/type.ts';
import { Team } from '../team/type.ts';
import { User } from '../user/type.ts';

const ContentAccessSourceType = builder.enumType('ContentAccessSourceType', {
  description:
    'Where a role on a space or collection comes from: the organization role, the default level members get, a grant of the user, or a grant of a team of theirs',
  values: ['organization', 'defaultLevel', 'user', 'team'] as const,
});

export const ContentAccessSource = builder.objectRef<AccessSource>('ContentAccessSource').implement({
  description: 'One source of a role on a space or collection',
  fields: (t) => ({
    type: t.field({ type: ContentAccessSourceType, resolve: (s) => s.type }),
    role: t.field({ type: MemberRole, resolve: (s) => s.role }),
    teamId: t.id({ nullable: true, description: "A team's grant: the team", resolve: (s) => s.teamId ?? null }),
    collectionId: t.id({
      nullable: true,
      description: 'A grant on a collection above the space or collection: that collection (inherited)',
      resolve: (s) => s.collectionId ?? null,
    }),
  }),
});

/** A user's role on a space or collection (the row of `user` is read with the list's planned query). */
export interface UserPermissionShape {
  permission: Role;
  user: object;
  sources: AccessSource[];
}

export const UserContentPermission = builder.objectRef<UserPermissionShape>('UserContentPermission').implement({
  description: 'The role of a user on a space or collection',
  fields: (t) => ({
    permission: t.field({ type: MemberRole, resolve: (p) => p.permission }),
    user: t.field({ type: User, resolve: (p) => p.user as never }),
    sources: t.field({
      type: [ContentAccessSource],
      description: 'Where the role comes from: every source, the organization role and default level first (the role is the highest of them)',
      resolve: (p) => p.sources,
    }),
  }),
});

export interface TeamPermissionShape {
  permission: Role;
  team: object;
}

export const TeamContentPermission = builder.objectRef<TeamPermissionShape>('TeamContentPermission').implement({
  description: 'The role a team holds on a space or collection',
  fields: (t) => ({
    permission: t.field({ type: MemberRole, resolve: (p) => p.permission }),
    team: t.field({ type: Team, resolve: (p) => p.team as never }),
  }),
});

export interface SpacePermissionShape {
  permission: Role;
  space: object;
}

export const MemberContentPermission = builder.objectRef<SpacePermissionShape>('MemberContentPermission').implement({
  description: "A member's effective role on a space",
  fields: (t) => ({
    permission: t.field({ type: MemberRole, resolve: (p) => p.permission }),
    space: t.field({ type: Space, resolve: (p) => p.space as never }),
  }),
});

export const UserContentPermissionList = listType('UserContentPermission', UserContentPermission);
export const TeamContentPermissionList = listType('TeamContentPermission', TeamContentPermission);
export const MemberContentPermissionList = listType('MemberContentPermission', MemberContentPermission);

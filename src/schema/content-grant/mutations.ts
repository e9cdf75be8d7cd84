import { queryFromInfo } from '@pothos/plugin-prisma';
import { MEMBER_ROLES, type MemberRole as Role } from '../../auth/roles.ts';
import { builder } from '../../builder.ts';
import { InvalidInputError } from '../../errors/index.ts';
import { inviteToContent, loadGrantTarget, removeGrant, updateGrant, type ContentKind } from '../../services/content-grant.ts';
import { MemberRole } from '../shared/enums.ts';
import { TeamContentPermission, UserContentPermission } from './type.ts';

/**
 * The role a grant holds. Nullable in the schema, as GitBook's body has it (MemberRoleOrGuest), so
 * that a null is refused with words: a guest is an organization role, never a grant.
 */
function grantRole(role: Role | null | undefined): Role {
  if (!role) {
    throw new InvalidInputError(`role: a permission holds a member role (${MEMBER_ROLES.join(', ')}); null (a guest) is an organization role, not a permission`);
  }
  return role;
}

const InviteToContentInput = builder.inputType('InviteToContentInput', {
  description: 'Users and teams to give a role on a space or collection (at least one of them)',
  fields: (t) => ({
    role: t.field({ type: MemberRole, description: 'The role to give (required; null is refused)' }),
    users: t.stringList({ description: "Users, each by id or e-mail address; one who is not a member of the organization joins it as a guest" }),
    teams: t.stringList({ description: 'Teams of the organization, by id' }),
  }),
});

const UpdateContentPermissionInput = builder.inputType('UpdateContentPermissionInput', {
  fields: (t) => ({ role: t.field({ type: MemberRole, description: 'The new role (required; null is refused)' }) }),
});

const NAMES: Record<ContentKind, { Type: string; arg: 'spaceId' | 'collectionId' }> = {
  space: { Type: 'Space', arg: 'spaceId' },
  collection: { Type: 'Collection', arg: 'collectionId' },
};

for (const kind of ['space', 'collection'] as const) {
  const { Type, arg } = NAMES[kind];
  const idOf = (args: Record<string, unknown>) => String(args[arg]);
  builder.mutationFields((t) => ({
    [`inviteTo${Type}`]: t.boolean({
      description: `Give users (by id or e-mail) and teams a role on the ${kind}: a grant each, made or changed to that role. All or nothing: an unknown user, e-mail or team is a 400 naming it.`,
      authScopes: { authenticated: true },
      args: { [arg]: t.arg.id({ required: true }), input: t.arg({ type: InviteToContentInput, required: true }) },
      resolve: async (_root, args, ctx) => {
        const input = args.input as { role?: Role | null; users?: string[] | null; teams?: string[] | null };
        const target = await loadGrantTarget(ctx, kind, idOf(args), 'manage');
        await inviteToContent(ctx, target, { role: grantRole(input.role), users: input.users, teams: input.teams });
        return true;
      },
    }),
    [`updateUserPermissionIn${Type}`]: t.field({
      type: UserContentPermission,
      description: `Change the role a user's own grant holds on the ${kind} (404 when they hold none)`,
      authScopes: { authenticated: true },
      args: { [arg]: t.arg.id({ required: true }), userId: t.arg.id({ required: true }), input: t.arg({ type: UpdateContentPermissionInput, required: true }) },
      resolve: async (_root, args, ctx, info) => {
        const target = await loadGrantTarget(ctx, kind, idOf(args), 'manage');
        const role = grantRole((args.input as { role?: Role | null }).role);
        const grant = await updateGrant(ctx, target, 'user', String(args.userId), role);
        const user = await ctx.db.user.findUniqueOrThrow({ ...(queryFromInfo({ context: ctx, info, path: ['user'] }) as object), where: { id: grant.granteeId } });
        return { permission: role, user, sources: [{ type: 'user' as const, role }] };
      },
    }),
    [`updateTeamPermissionIn${Type}`]: t.field({
      type: TeamContentPermission,
      description: `Change the role a team holds on the ${kind} (404 when it holds none, or is another organization's)`,
      authScopes: { authenticated: true },
      args: { [arg]: t.arg.id({ required: true }), teamId: t.arg.id({ required: true }), input: t.arg({ type: UpdateContentPermissionInput, required: true }) },
      resolve: async (_root, args, ctx, info) => {
        const target = await loadGrantTarget(ctx, kind, idOf(args), 'manage');
        const role = grantRole((args.input as { role?: Role | null }).role);
        const grant = await updateGrant(ctx, target, 'team', String(args.teamId), role);
        const team = await ctx.db.team.findUniqueOrThrow({ ...(queryFromInfo({ context: ctx, info, path: ['team'] }) as object), where: { id: grant.granteeId } });
        return { permission: role, team };
      },
    }),
    [`removeUserFrom${Type}`]: t.boolean({
      description: `Remove a user's own grant on the ${kind} (404 when they hold none); their other sources of a role stay`,
      authScopes: { authenticated: true },
      args: { [arg]: t.arg.id({ required: true }), userId: t.arg.id({ required: true }) },
      resolve: async (_root, args, ctx) => removeGrant(ctx, await loadGrantTarget(ctx, kind, idOf(args), 'manage'), 'user', String(args.userId)),
    }),
    [`removeTeamFrom${Type}`]: t.boolean({
      description: `Remove a team's grant on the ${kind} (404 when it holds none, or is another organization's)`,
      authScopes: { authenticated: true },
      args: { [arg]: t.arg.id({ required: true }), teamId: t.arg.id({ required: true }) },
      resolve: async (_root, args, ctx) => removeGrant(ctx, await loadGrantTarget(ctx, kind, idOf(args), 'manage'), 'team', String(args.teamId)),
    }),
  }));
}

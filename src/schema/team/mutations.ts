import { GraphQLError } from 'graphql';
import { z } from 'zod';
import { builder } from '../../builder.ts';
import { isOneOf, TEAM_MEMBER_ROLES, type TeamMemberRole as TeamMemberRoleValue } from '../../db/value-sets.ts';
import { loadOrganization } from '../../services/organization.ts';
import { changeTeamMembers, createTeam, deleteTeam, loadTeam, removeTeamMember, setTeamMember } from '../../services/team.ts';
import { Team, TeamMemberRole, TeamMembership } from './type.ts';

/** GitBook's OrganizationTeamTitle: 1 to 64 characters, not only spaces. */
const title = z
  .string()
  .min(1, 'must not be empty')
  .max(64, 'must be at most 64 characters')
  .refine((value) => value.trim() !== '', 'must not be only spaces');

const MEMBERSHIPS_SHAPE = `an object mapping user ids or e-mails to {"role": ${TEAM_MEMBER_ROLES.map((r) => `"${r}"`).join(' | ')}}`;

/** `memberships` of the bulk change: checked whole before anything runs, so a bad role is a 400 naming it. */
const TeamMemberships = builder.scalarType('TeamMemberships', {
  description: `Team roles by user: ${MEMBERSHIPS_SHAPE}`,
  serialize: (value) => value,
  parseValue: (value) => {
    if (!value || typeof value !== 'object' || Array.isArray(value)) throw new GraphQLError(`must be ${MEMBERSHIPS_SHAPE}`);
    const parsed: Record<string, { role: TeamMemberRoleValue }> = {};
    for (const [user, entry] of Object.entries(value)) {
      const role = entry && typeof entry === 'object' && !Array.isArray(entry) ? (entry as { role?: unknown }).role : undefined;
      if (!isOneOf(TEAM_MEMBER_ROLES, role)) {
        throw new GraphQLError(`the role of ${JSON.stringify(user)} must be one of ${TEAM_MEMBER_ROLES.join(', ')} (${MEMBERSHIPS_SHAPE})`);
      }
      parsed[user] = { role };
    }
    return parsed;
  },
});

const CreateTeamInput = builder.inputType('CreateTeamInput', {
  fields: (t) => ({
    title: t.string({ required: true, validate: title, description: '1 to 64 characters' }),
    members: t.stringList({ description: 'Members of the organization to put in the team (user ids or e-mails), as `member`' }),
  }),
});

const UpdateTeamInput = builder.inputType('UpdateTeamInput', {
  fields: (t) => ({ title: t.string({ required: true, validate: title, description: '1 to 64 characters' }) }),
});

const UpdateTeamMembersInput = builder.inputType('UpdateTeamMembersInput', {
  fields: (t) => ({
    add: t.stringList({ description: 'Users to add (ids or e-mails), as `member` unless `memberships` says otherwise' }),
    remove: t.stringList({ description: 'Users to remove (ids or e-mails); a user also in `add` is removed' }),
    memberships: t.field({ type: TeamMemberships, description: 'Roles to set, by user id or e-mail; a user not in the team is added' }),
  }),
});

const SetTeamMemberInput = builder.inputType('SetTeamMemberInput', {
  fields: (t) => ({
    role: t.field({ type: TeamMemberRole, description: 'Default: `member` for a user not in the team yet; unchanged otherwise' }),
  }),
});

builder.mutationFields((t) => ({
  createTeam: t.prismaField({
    type: Team,
    description: 'Create a team (admins), with members of the organization in it',
    authScopes: { authenticated: true },
    args: { organizationId: t.arg.id({ required: true }), input: t.arg({ type: CreateTeamInput, required: true }) },
    resolve: async (query, _root, args, ctx) => {
      const organizationId = String(args.organizationId);
      await loadOrganization(ctx, organizationId, 'team:create', { select: { id: true } });
      return createTeam(ctx, organizationId, { title: args.input.title, members: args.input.members }, query);
    },
  }),
  updateTeam: t.prismaField({
    type: Team,
    description: 'Rename a team (admins)',
    authScopes: { authenticated: true },
    args: { organizationId: t.arg.id({ required: true }), teamId: t.arg.id({ required: true }), input: t.arg({ type: UpdateTeamInput, required: true }) },
    resolve: async (query, _root, args, ctx) => {
      const team = await loadTeam(ctx, String(args.organizationId), String(args.teamId), 'team:update');
      return ctx.db.team.update({ ...query, where: { id: team.id }, data: { title: args.input.title.trim() } });
    },
  }),
  deleteTeam: t.boolean({
    description: 'Delete a team (admins) with its memberships and the grants it holds. False when there was no such team.',
    authScopes: { authenticated: true },
    args: { organizationId: t.arg.id({ required: true }), teamId: t.arg.id({ required: true }) },
    resolve: (_root, args, ctx) => deleteTeam(ctx, String(args.organizationId), String(args.teamId)),
  }),
  updateTeamMembers: t.prismaField({
    type: Team,
    description:
      "Add and remove a team's members and set their roles in one change (admins, and the team's owners): every user named must be a member of the organization, or nothing is changed",
    authScopes: { authenticated: true },
    args: { organizationId: t.arg.id({ required: true }), teamId: t.arg.id({ required: true }), input: t.arg({ type: UpdateTeamMembersInput, required: true }) },
    resolve: async (query, _root, args, ctx) => {
      const team = await loadTeam(ctx, String(args.organizationId), String(args.teamId), 'team:manage-members');
      await changeTeamMembers(ctx, team, args.input);
      return ctx.db.team.findUniqueOrThrow({ ...query, where: { id: team.id } });
    },
  }),
  setTeamMember: t.prismaField({
    type: TeamMembership,
    description: "Set a member's team role, adding them to the team (admins, and the team's owners)",
    authScopes: { authenticated: true },
    args: { organizationId: t.arg.id({ required: true }), teamId: t.arg.id({ required: true }), userId: t.arg.id({ required: true }), input: t.arg({ type: SetTeamMemberInput }) },
    resolve: async (query, _root, args, ctx) => {
      const team = await loadTeam(ctx, String(args.organizationId), String(args.teamId), 'team:manage-members');
      const userId = String(args.userId);
      await setTeamMember(ctx, team, userId, args.input?.role);
      return ctx.db.teamMember.findUniqueOrThrow({ ...query, where: { teamId_userId: { teamId: team.id, userId } } });
    },
  }),
  removeTeamMember: t.boolean({
    description: "Remove a user from a team (admins, and the team's owners). False when they were not in it.",
    authScopes: { authenticated: true },
    args: { organizationId: t.arg.id({ required: true }), teamId: t.arg.id({ required: true }), userId: t.arg.id({ required: true }) },
    resolve: async (_root, args, ctx) => {
      const team = await loadTeam(ctx, String(args.organizationId), String(args.teamId), 'team:manage-members');
      return removeTeamMember(ctx, team, String(args.userId));
    },
  }),
}));

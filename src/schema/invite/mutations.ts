import { builder } from '../../builder.ts';
import {
  createInviteLink,
  deleteInviteLink,
  inviteUsers,
  joinWithInvite,
  updateInviteLink,
  MAX_INVITEES,
  type InviteJoin,
  type InviteUsersResult,
} from '../../services/invite.ts';
import { Member } from '../member/type.ts';
import { MemberRole } from '../shared/enums.ts';
import { InviteLink } from './type.ts';

const limits = 'expiresAt: after it, joining answers 410 (null: never); maxUses: how many joins it allows (null: no limit). Extensions of the wire contract.';

const CreateInviteLinkInput = builder.inputType('CreateInviteLinkInput', {
  description: `A link to the organization (\`role\`), or to a space or collection (\`level\` with \`space\` or \`collection\`). ${limits}`,
  fields: (t) => ({
    role: t.field({ type: MemberRole, description: 'The organization role it gives; null: guest' }),
    level: t.field({ type: MemberRole, description: 'The level it gives on the space or collection' }),
    space: t.string({ description: 'The id of the space' }),
    collection: t.string({ description: 'The id of the collection' }),
    expiresAt: t.field({ type: 'DateTime' }),
    maxUses: t.int(),
  }),
});

const UpdateInviteLinkInput = builder.inputType('UpdateInviteLinkInput', {
  description: `\`role\` for a link to the organization, \`level\` for one to a space or collection. ${limits}`,
  fields: (t) => ({
    role: t.field({ type: MemberRole, description: 'The organization role it gives; null: guest' }),
    level: t.field({ type: MemberRole, description: 'The level it gives on the space or collection' }),
    expiresAt: t.field({ type: 'DateTime' }),
    maxUses: t.int(),
  }),
});

const InviteUsersInput = builder.inputType('InviteUsersInput', {
  fields: (t) => ({
    emails: t.field({
      type: ['OrganizationInvitee'],
      required: true,
      description: `Who to invite: e-mail addresses, or \`{email, role}\` (at most ${MAX_INVITEES})`,
    }),
    role: t.field({ type: MemberRole, description: "The role of invitees without one of their own; left out: the organization's default role; null: guest" }),
    sso: t.boolean({ description: 'Invite as SSO members (default false)' }),
  }),
});

const InviteUsersResultRef = builder.objectRef<InviteUsersResult>('InviteUsersResult').implement({
  description: 'What an e-mail invite did',
  fields: (t) => ({
    users: t.idList({ description: 'The users added to the organization', resolve: (r) => r.users }),
    invited: t.exposeInt('invited', { description: 'How many users were added' }),
    failedSSOEmails: t.exposeStringList('failedSSOEmails', {
      description: 'Invited with `sso`, but members of another organization: not made SSO members (added as members only where the organization lets members in without SAML)',
    }),
    redundant: t.exposeStringList('redundant', { description: 'Addresses of members who already had the role or more: nothing changed for them (an extension)' }),
    updated: t.idList({ description: 'Members whose role the invite raised (an extension)', resolve: (r) => r.updated }),
  }),
});

const InviteJoinRef = builder.objectRef<InviteJoin>('InviteJoin').implement({
  description: 'What joining with an invite link did',
  fields: (t) => ({
    organization: t.id({ resolve: (j) => j.organizationId }),
    redundant: t.exposeBoolean('redundant', { description: 'The caller already had what the link gives: nothing changed, no use counted' }),
    member: t.field({ type: Member, description: "The caller's membership now", resolve: (j) => j.member as never }),
    space: t.id({ nullable: true, description: 'The space the link gave a level on', resolve: (j) => (j.targetKind === 'space' ? j.targetId : null) }),
    collection: t.id({ nullable: true, description: 'The collection the link gave a level on', resolve: (j) => (j.targetKind === 'collection' ? j.targetId : null) }),
  }),
});

builder.mutationFields((t) => ({
  inviteUsers: t.field({
    type: InviteUsersResultRef,
    description:
      'Invite users to the organization by e-mail, with a role (admins). An address no user has gets a user record (the operator makes users; they sign in through SAML or get a token). Members who already have the role are `redundant`.',
    authScopes: { authenticated: true },
    args: { organizationId: t.arg.id({ required: true }), input: t.arg({ type: InviteUsersInput, required: true }) },
    resolve: (_root, args, ctx) => inviteUsers(ctx, String(args.organizationId), args.input),
  }),
  createInviteLink: t.field({
    type: InviteLink,
    description: 'Create an invite link (admins, while the organization has `inviteLinks` on); its secret is only in this answer',
    authScopes: { authenticated: true },
    args: { organizationId: t.arg.id({ required: true }), input: t.arg({ type: CreateInviteLinkInput, required: true }) },
    resolve: (_root, args, ctx) => createInviteLink(ctx, String(args.organizationId), args.input),
  }),
  updateInviteLink: t.field({
    type: InviteLink,
    authScopes: { authenticated: true },
    args: { organizationId: t.arg.id({ required: true }), inviteId: t.arg.id({ required: true }), input: t.arg({ type: UpdateInviteLinkInput, required: true }) },
    resolve: (_root, args, ctx) => updateInviteLink(ctx, String(args.organizationId), String(args.inviteId), args.input),
  }),
  deleteInviteLink: t.boolean({
    description: 'Delete an invite link: its secret stops working at once. False when there was nothing to delete.',
    authScopes: { authenticated: true },
    args: { organizationId: t.arg.id({ required: true }), inviteId: t.arg.id({ required: true }) },
    resolve: (_root, args, ctx) => deleteInviteLink(ctx, String(args.organizationId), String(args.inviteId)),
  }),
  joinWithInvite: t.field({
    type: InviteJoinRef,
    description:
      "Join with an invite link's secret (`inviteId`): its role on the organization, or its level on a space or collection. Unknown or deleted: 404; links off, or a new member where the organization admits them only through SAML: 403; expired or used up: 410.",
    authScopes: { authenticated: true },
    args: { organizationId: t.arg.id({ required: true }), inviteId: t.arg.id({ required: true, description: "The link's secret (never its id)" }) },
    resolve: (_root, args, ctx) => joinWithInvite(ctx, String(args.organizationId), String(args.inviteId)),
  }),
}));

import { authorize, can } from '../../auth/policies.ts';
import { builder } from '../../builder.ts';
import { InvalidInputError, NotFoundError, SsoRequiredError } from '../../errors/index.ts';
import { newId } from '../../ids.ts';
import { changeMember, changeMembership, assertAnotherAdmin, pingOrganization, removeMembershipTraces, type Ping } from '../../services/member.ts';
import { storedEmailDomains } from '../../services/organization.ts';
import { MemberRole } from '../shared/enums.ts';
import { Member } from './type.ts';

const UpdateMemberInput = builder.inputType('UpdateMemberInput', {
  fields: (t) => ({
    role: t.field({ type: MemberRole, description: 'null makes the member a guest' }),
    disabled: t.boolean({
      description:
        'true disables the membership (the member is refused everything of the organization, 403, until enabled again); false enables it. Never the last enabled admin. An extension of the wire contract.',
    }),
  }),
});

const OrganizationPing = builder.objectRef<Ping>('OrganizationPing').implement({
  description: "A member's ping: their visitor claims, a JWT signed with the organization's key (ES256; public keys at /.well-known/jwks/{organizationId}.json)",
  fields: (t) => ({
    serviceVisitorClaims: t.string({ description: 'The signed visitor claims (the name the product spec gives them)', resolve: (p) => p.visitorClaims }),
    gitbookVisitorClaims: t.string({ description: "The same JWT, under the name GitBook's OpenAPI document gives it", resolve: (p) => p.visitorClaims }),
  }),
});

builder.mutationFields((t) => ({
  pingOrganization: t.field({
    type: OrganizationPing,
    description: "Record that the caller was seen in the organization (`lastSeenAt`, at most once a minute) and get their visitor claims, signed",
    authScopes: { authenticated: true },
    args: { organizationId: t.arg.id({ required: true }) },
    resolve: (_root, args, ctx) => pingOrganization(ctx, String(args.organizationId)),
  }),
  updateMember: t.prismaField({
    type: Member,
    authScopes: { authenticated: true },
    args: {
      organizationId: t.arg.id({ required: true }),
      userId: t.arg.id({ required: true }),
      input: t.arg({ type: UpdateMemberInput, required: true }),
    },
    resolve: async (query, _root, args, ctx) => {
      const organizationId = String(args.organizationId);
      const userId = String(args.userId);
      return changeMember(ctx, organizationId, userId, args.input, query);
    },
  }),
  disableMember: t.prismaField({
    type: Member,
    description: "Disable a member (admins): they are refused everything of the organization (403) until enabled again. Never the last enabled admin.",
    authScopes: { authenticated: true },
    args: { organizationId: t.arg.id({ required: true }), userId: t.arg.id({ required: true }) },
    resolve: (query, _root, args, ctx) => changeMember(ctx, String(args.organizationId), String(args.userId), { disabled: true }, query),
  }),
  enableMember: t.prismaField({
    type: Member,
    description: 'Enable a member an admin disabled (admins).',
    authScopes: { authenticated: true },
    args: { organizationId: t.arg.id({ required: true }), userId: t.arg.id({ required: true }) },
    resolve: (query, _root, args, ctx) => changeMember(ctx, String(args.organizationId), String(args.userId), { disabled: false }, query),
  }),
  joinOrganization: t.boolean({
    description:
      "Join an organization that lets in the caller's e-mail domain (its `emailDomains`), with its default role. True when joined, or already a member (nothing changes then).",
    authScopes: { authenticated: true },
    args: { organizationId: t.arg.id({ required: true }) },
    resolve: async (_root, args, ctx) => {
      const organizationId = String(args.organizationId);
      const viewer = ctx.access.requireViewer();
      authorize(ctx.access.account(), 'account:join-organization', { type: 'User', id: viewer.userId });
      if (can(ctx.access.organization(organizationId), 'organization:read')) return true;
      const organization = await ctx.db.organization.findUnique({ where: { id: organizationId }, select: { emailDomains: true, defaultRole: true, sso: true } });
      if (!organization) throw new NotFoundError('Organization', organizationId);
      // An existing (disabled) member is no new member: only new ones are kept to SAML.
      if (organization.sso && !viewer.memberships.has(organizationId)) throw new SsoRequiredError(organizationId);
      // Users are made by the operator (CLI), never by sign-up: their e-mail addresses are taken as verified.
      const { email } = await ctx.db.user.findUniqueOrThrow({ where: { id: viewer.userId }, select: { email: true } });
      const domain = email.slice(email.lastIndexOf('@') + 1).toLowerCase();
      const allowed = storedEmailDomains(organization.emailDomains).map((d) => d.trim().toLowerCase().replace(/^@/, ''));
      if (!allowed.includes(domain)) throw new InvalidInputError(`The organization does not let in e-mail addresses of ${domain}`);
      await ctx.db.member.upsert({
        where: { organizationId_userId: { organizationId, userId: viewer.userId } },
        create: { id: newId(), organizationId, userId: viewer.userId, role: organization.defaultRole },
        update: {},
      });
      ctx.access.noteMembership(organizationId, organization.defaultRole as never);
      return true;
    },
  }),
  removeMember: t.boolean({
    description:
      "Remove a member (admins, or a member leaving), with their grants on the organization's spaces and collections and their team memberships. False when the user was not a member.",
    authScopes: { authenticated: true },
    args: { organizationId: t.arg.id({ required: true }), userId: t.arg.id({ required: true }) },
    resolve: async (_root, args, ctx) => {
      const organizationId = String(args.organizationId);
      const userId = String(args.userId);
      const subject = ctx.access.organization(organizationId);
      authorize(subject, 'organization:read', { type: 'Organization', id: organizationId });
      const leaving = userId === ctx.access.requireViewer().userId;
      authorize(subject, leaving ? 'organization:leave' : 'member:remove', { type: 'Member', id: userId });
      return changeMembership(ctx, async (tx) => {
        const member = await tx.member.findUnique({ where: { organizationId_userId: { organizationId, userId } } });
        if (!member) return false;
        if (member.role === 'admin' && !member.disabled) await assertAnotherAdmin(tx, organizationId, userId);
        await removeMembershipTraces(tx, organizationId, userId);
        await tx.member.delete({ where: { id: member.id } });
        return true;
      });
    },
  }),
}));

import { authorize, can } from '../../auth/policies.ts';
import { builder } from '../../builder.ts';
import { InvalidInputError, NotFoundError, SsoRequiredError } from '../../errors/index.ts';
import { newId } from '../../ids.ts';
import { loadMember, changeMembership, assertAnotherAdmin } from '../../services/member.ts';
import { storedEmailDomains } from '../../services/organization.ts';
import { MemberRole } from '../shared/enums.ts';
import { Member } from './type.ts';

const UpdateMemberInput = builder.inputType('UpdateMemberInput', {
  fields: (t) => ({
    role: t.field({ type: MemberRole, description: 'null makes the member a guest' }),
  }),
});

builder.mutationFields((t) => ({
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
      const member = await loadMember(ctx, organizationId, userId);
      authorize(ctx.access.organization(organizationId), 'member:update', { type: 'Member', id: userId });
      const role = args.input.role;
      if (role === undefined) return ctx.db.member.findUniqueOrThrow({ ...query, where: { id: member.id } });
      return changeMembership(ctx, async (tx) => {
        // The role as it is now, inside the transaction: a concurrent request may have changed it.
        const current = await tx.member.findUniqueOrThrow({ where: { id: member.id }, select: { role: true } });
        if (current.role === 'admin' && role !== 'admin') await assertAnotherAdmin(tx, organizationId, userId);
        return tx.member.update({ ...query, where: { id: member.id }, data: { role } });
      });
    },
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
      if (organization.sso) throw new SsoRequiredError(organizationId);
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
    description: 'Remove a member (admins, or a member leaving). False when the user was not a member.',
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
        if (member.role === 'admin') await assertAnotherAdmin(tx, organizationId, userId);
        await tx.member.delete({ where: { id: member.id } });
        return true;
      });
    },
  }),
}));

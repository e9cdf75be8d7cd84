import { builder } from '../../builder.ts';
import { authorize } from '../../auth/policies.ts';
import type { Context } from '../../context.ts';
import { ConflictError } from '../../errors/index.ts';
import { MemberRole } from '../shared/enums.ts';
import { loadMember } from './queries.ts';
import { Member } from './type.ts';

const UpdateMemberInput = builder.inputType('UpdateMemberInput', {
  fields: (t) => ({
    role: t.field({ type: MemberRole, description: 'null makes the member a guest' }),
  }),
});

/** An organization never loses its last admin. */
async function assertAnotherAdmin(ctx: Context, organizationId: string, userId: string) {
  const others = await ctx.db.member.count({ where: { organizationId, role: 'admin', userId: { not: userId } } });
  if (others === 0) throw new ConflictError('The organization must keep at least one admin: make another member admin first');
}

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
      if (args.input.role === undefined) return ctx.db.member.findUniqueOrThrow({ ...query, where: { id: member.id } });
      if (member.role === 'admin' && args.input.role !== 'admin') await assertAnotherAdmin(ctx, organizationId, userId);
      return ctx.db.member.update({ ...query, where: { id: member.id }, data: { role: args.input.role } });
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
      if (userId !== ctx.access.requireViewer().userId) authorize(subject, 'member:remove', { type: 'Member', id: userId });
      const member = await ctx.db.member.findUnique({ where: { organizationId_userId: { organizationId, userId } } });
      if (!member) return false;
      if (member.role === 'admin') await assertAnotherAdmin(ctx, organizationId, userId);
      await ctx.db.member.delete({ where: { id: member.id } });
      return true;
    },
  }),
}));

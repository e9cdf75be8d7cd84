import { authorize } from '../../auth/policies.ts';
import { builder } from '../../builder.ts';
import { loadMember } from '../../services/member.ts';
import { Member } from './type.ts';

builder.mutationField('setMemberSso', (t) =>
  t.prismaField({
    type: Member,
    description:
      "Mark a member as an SSO member (admins): one who signs in through the organization's identity providers. An account that also belongs to other organizations signs in through them only once marked.",
    authScopes: { authenticated: true },
    args: { organizationId: t.arg.id({ required: true }), userId: t.arg.id({ required: true }) },
    resolve: async (query, _root, args, ctx) => {
      const organizationId = String(args.organizationId);
      const member = await loadMember(ctx, organizationId, String(args.userId));
      authorize(ctx.access.organization(organizationId), 'member:update', { type: 'Member', id: member.userId });
      return ctx.db.member.update({ ...query, where: { id: member.id }, data: { sso: true } });
    },
  }),
);

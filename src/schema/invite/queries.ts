import { builder } from '../../builder.ts';
import { listInviteLinks, loadInviteLink, type InviteLinkRow } from '../../services/invite.ts';
import { Organization } from '../organization/type.ts';
import { listType, pageArgs } from '../shared/pagination.ts';
import { InviteLink, InviteLinkTarget } from './type.ts';

export const InviteLinkList = listType<InviteLinkRow>('InviteLink', InviteLink);

builder.prismaObjectFields(Organization, (t) => ({
  // `inviteLinks` is the organization's setting (whether links work at all).
  inviteLinkList: t.field({
    type: InviteLinkList,
    description: "The organization's invite links, newest first (admins); `target` keeps those to the organization, to spaces or to collections",
    args: { ...pageArgs, target: t.arg({ type: InviteLinkTarget }) },
    resolve: (org, args, ctx) => listInviteLinks(ctx, org.id, args),
  }),
}));

builder.queryField('inviteLink', (t) =>
  t.field({
    type: InviteLink,
    description:
      "An invite link: by its id, for the organization's admins; or by its secret, for whoever holds it (what joining would give them, `redundant` when they already have it)",
    authScopes: { authenticated: true },
    args: { organizationId: t.arg.id({ required: true }), inviteId: t.arg.id({ required: true, description: "The link's id, or its secret" }) },
    resolve: (_root, args, ctx) => loadInviteLink(ctx, String(args.organizationId), String(args.inviteId)),
  }),
);

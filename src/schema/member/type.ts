import { builder } from '../../builder.ts';
import { MemberRole } from '../shared/enums.ts';
import { User } from '../user/type.ts';

export const Member = builder.prismaObject('Member', {
  description: "A user's membership of an organization. Its id is the user's id.",
  fields: (t) => ({
    object: t.string({ resolve: () => 'member' }),
    id: t.exposeID('userId'),
    role: t.field({ type: MemberRole, nullable: true, description: 'null: a guest', resolve: (m) => m.role as never }),
    user: t.relation('user', { type: User }),
    disabled: t.exposeBoolean('disabled'),
    joinedAt: t.expose('joinedAt', { type: 'DateTime' }),
    lastSeenAt: t.expose('lastSeenAt', { type: 'DateTime', nullable: true }),
    sso: t.exposeBoolean('sso'),
    spaces: t.int({
      description: 'Spaces the member was given access to individually (space-level grants arrive with teams)',
      resolve: () => 0,
    }),
    teams: t.int({ description: 'Teams the member belongs to (teams arrive with the teams issue)', resolve: () => 0 }),
  }),
});

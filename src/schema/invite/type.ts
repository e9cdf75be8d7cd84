/**
 * Invite links in GraphQL: one interface, `InviteLink`, and a type per target
 * (the wire contract's InviteLinkToOrganization, InviteLinkToSpace and
 * InviteLinkToCollection: a REST body holds exactly the fields of its kind).
 * And the invitee of an e-mail invite: an address, or `{email, role}`.
 */
import { GraphQLError, Kind, valueFromASTUntyped } from 'graphql';
import { builder } from '../../builder.ts';
import { isOneOf, MEMBER_ROLES, INVITE_TARGET_KINDS } from '../../db/value-sets.ts';
import { withColumns } from '../../db/select.ts';
import { AppError } from '../../errors/index.ts';
import { inviteeEmail, isInviteRedundant, type InviteLinkRow } from '../../services/invite.ts';
import { queryFromInfo } from '@pothos/plugin-prisma';
import { Collection } from '../collection/type.ts';
import { MemberRole } from '../shared/enums.ts';
import { Space } from '../space/type.ts';

export const InviteLinkTarget = builder.enumType('InviteLinkTarget', {
  description: 'What an invite link opens: the organization, a space or a collection',
  values: INVITE_TARGET_KINDS,
});

const InviteLinkUrls = builder.objectRef<{ location: string }>('InviteLinkUrls').implement({
  fields: (t) => ({ location: t.exposeString('location', { description: 'The link in the API (by its id, for the admins who manage it)' }) }),
});

export const InviteLink = builder.interfaceRef<InviteLinkRow>('InviteLink').implement({
  description:
    'An invite link: whoever joins with its secret gets a role on the organization, or a level on a space or collection. The secret is only in the answer that creates the link (`secret`); only its hash is stored.',
  resolveType: (link) => (link.targetKind === 'space' ? 'SpaceInviteLink' : link.targetKind === 'collection' ? 'CollectionInviteLink' : 'OrganizationInviteLink'),
  fields: (t) => ({
    object: t.string({ resolve: () => 'invite' }),
    id: t.exposeID('id'),
    target: t.field({ type: InviteLinkTarget, resolve: (link) => link.targetKind as (typeof INVITE_TARGET_KINDS)[number] }),
    redundant: t.boolean({
      description: 'Whether the caller already has everything the link gives (then joining with it changes nothing)',
      resolve: (link, _args, ctx) => isInviteRedundant(ctx, link),
    }),
    expiresAt: t.field({ type: 'DateTime', nullable: true, description: 'After this instant joining answers 410; null: never', resolve: (link) => link.expiresAt }),
    maxUses: t.int({ nullable: true, description: 'How many joins it allows; null: no limit', resolve: (link) => link.maxUses }),
    uses: t.int({ description: 'How many joins it gave (a join that changed nothing counts none)', resolve: (link) => link.uses }),
    createdAt: t.field({ type: 'DateTime', resolve: (link) => link.createdAt }),
    secret: t.string({
      nullable: true,
      description: 'The secret to join with (`POST /v1/orgs/{organizationId}/invites/{secret}`): only in the answer that creates the link',
      resolve: (link) => link.secret ?? null,
    }),
    urls: t.field({ type: InviteLinkUrls, resolve: (link, _args, ctx) => ({ location: ctx.urls.api(`/orgs/${link.organizationId}/link-invites/${link.id}`) }) }),
  }),
});

export const OrganizationInviteLink = builder.objectRef<InviteLinkRow>('OrganizationInviteLink').implement({
  description: 'An invite link to the organization',
  interfaces: [InviteLink],
  fields: (t) => ({
    role: t.field({ type: MemberRole, nullable: true, description: 'The organization role it gives; null: guest', resolve: (link) => link.role as never }),
  }),
});

/** Loads a link's space or collection for the selection beneath the field; null when it is gone (deleted, transferred). */
function targetRow(model: 'space' | 'collection') {
  return async (link: InviteLinkRow, _args: object, ctx: Parameters<typeof isInviteRedundant>[0], info: Parameters<typeof queryFromInfo>[0]['info']) => {
    if (!link.targetId) return null;
    const query = withColumns(queryFromInfo({ context: ctx, info }) as Record<string, unknown>, { organizationId: true, ...(model === 'space' ? { deletedAt: true } : {}) });
    // findUnique calls of one tick are one statement: a list's links load their targets together.
    const row = await (ctx.db[model] as { findUnique: (a: object) => Promise<Record<string, unknown> | null> }).findUnique({ ...query, where: { id: link.targetId } });
    return row && row.organizationId === link.organizationId && !row.deletedAt ? row : null;
  };
}

export const SpaceInviteLink = builder.objectRef<InviteLinkRow>('SpaceInviteLink').implement({
  description: 'An invite link to a space: a grant of its level on the space (and a guest membership for a user who is not a member)',
  interfaces: [InviteLink],
  fields: (t) => ({
    level: t.field({ type: MemberRole, description: 'The level on the space', resolve: (link) => link.role as never }),
    space: t.field({ type: Space, nullable: true, description: 'null once the space is gone', resolve: targetRow('space') as never }),
  }),
});

export const CollectionInviteLink = builder.objectRef<InviteLinkRow>('CollectionInviteLink').implement({
  description: 'An invite link to a collection: a grant of its level on the collection and what it holds',
  interfaces: [InviteLink],
  fields: (t) => ({
    level: t.field({ type: MemberRole, description: 'The level on the collection', resolve: (link) => link.role as never }),
    collection: t.field({ type: Collection, nullable: true, description: 'null once the collection is gone', resolve: targetRow('collection') as never }),
  }),
});

/** An invitee as the wire contract sends it: `"ada@example.com"`, or `{"email": "ada@example.com", "role": "edit"}` (role null: guest). */
function parseInvitee(value: unknown): { email: string; role?: (typeof MEMBER_ROLES)[number] | null } {
  const shape = 'must be an e-mail address, or an object with `email` and `role` (a member role, or null for a guest)';
  try {
    if (typeof value === 'string') return { email: inviteeEmail(value) };
    if (value && typeof value === 'object' && !Array.isArray(value)) {
      const { email, role } = value as Record<string, unknown>;
      if (typeof email !== 'string') throw new GraphQLError(`email: ${shape}`);
      if (role === undefined) throw new GraphQLError('role: is required with email (a member role, or null for a guest)');
      if (role !== null && !isOneOf(MEMBER_ROLES, role)) throw new GraphQLError(`role: must be one of ${[...MEMBER_ROLES].reverse().join(', ')}, or null for a guest`);
      return { email: inviteeEmail(email), role };
    }
  } catch (error) {
    if (error instanceof AppError) throw new GraphQLError(error.message);
    throw error;
  }
  throw new GraphQLError(shape);
}

builder.scalarType('OrganizationInvitee', {
  description: 'Someone to invite: an e-mail address, or `{email, role}` with a role of their own (a member role, or null for a guest)',
  serialize: () => {
    throw new GraphQLError('OrganizationInvitee is an input only');
  },
  parseValue: parseInvitee,
  parseLiteral: (ast) => {
    if (ast.kind !== Kind.STRING && ast.kind !== Kind.OBJECT) throw new GraphQLError('must be an e-mail address, or an object with `email` and `role`');
    return parseInvitee(valueFromASTUntyped(ast));
  },
});


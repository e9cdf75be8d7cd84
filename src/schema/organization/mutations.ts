import { z } from 'zod';
import { builder } from '../../builder.ts';
import { authorize } from '../../auth/policies.ts';
import { jsonInput } from '../../db/json.ts';
import { InvalidInputError } from '../../errors/index.ts';
import { newId } from '../../ids.ts';
import { standaloneMergeRules } from '../../services/merge-rules.ts';
import { loadOrganization } from '../../services/organization.ts';
import { MemberRole, OrganizationCommunityType, OrganizationType, OrganizationUseCase } from '../shared/enums.ts';
import { Organization } from './type.ts';

const title = z.string().min(2, 'must be 2 to 255 characters').max(255, 'must be 2 to 255 characters').regex(/\S.*\S/, 'must not be blank');
const hostname = z.string().min(3, 'must be 3 to 32 characters').max(32, 'must be 3 to 32 characters');
const emailDomains = z.array(z.string().min(1).max(255)).max(100);

const CreateOrganizationInput = builder.inputType('CreateOrganizationInput', {
  fields: (t) => ({
    title: t.string({ required: true, validate: title }),
    emailDomains: t.stringList({ validate: emailDomains }),
    type: t.field({ type: OrganizationType }),
    useCase: t.field({ type: OrganizationUseCase }),
    communityType: t.field({ type: OrganizationCommunityType }),
    onboardingPreferences: t.field({ type: 'JSON', description: 'Accepted for compatibility; not stored' }),
  }),
});

const OrganizationDefaultContentInput = builder.inputType('OrganizationDefaultContentInput', {
  fields: (t) => ({
    type: t.string({ required: true, validate: z.literal('site', 'must be "site"') }),
    site: t.string({ required: true }),
  }),
});

const UpdateOrganizationInput = builder.inputType('UpdateOrganizationInput', {
  fields: (t) => ({
    title: t.string({ validate: title }),
    emailDomains: t.stringList({ validate: emailDomains }),
    hostname: t.string({ validate: hostname }),
    defaultRole: t.field({ type: MemberRole, description: 'null makes new members guests' }),
    defaultContent: t.field({ type: OrganizationDefaultContentInput, description: 'null removes it' }),
    logo: t.string({ validate: z.url('must be a URL').max(2048) }),
    sso: t.boolean(),
    ai: t.boolean(),
    inviteLinks: t.boolean(),
    mergeRules: t.field({ type: 'JSON', validate: standaloneMergeRules }),
  }),
});

builder.mutationFields((t) => ({
  createOrganization: t.prismaField({
    type: Organization,
    description: 'Create an organization; the caller becomes its admin',
    authScopes: { authenticated: true },
    args: { input: t.arg({ type: CreateOrganizationInput, required: true }) },
    resolve: async (query, _root, { input }, ctx) => {
      const viewer = ctx.access.requireViewer();
      authorize(ctx.access.account(), 'account:create-organization', { type: 'User', id: viewer.userId });
      const id = newId();
      const organization = await ctx.db.organization.create({
        ...query,
        data: {
          id,
          title: input.title.trim(),
          emailDomains: input.emailDomains ?? [],
          type: input.type ?? 'business',
          useCase: input.useCase ?? null,
          communityType: input.communityType ?? null,
          members: { create: { id: newId(), userId: viewer.userId, role: 'admin' } },
        },
      });
      ctx.access.noteMembership(id, 'admin');
      return organization;
    },
  }),
  updateOrganization: t.prismaField({
    type: Organization,
    authScopes: { authenticated: true },
    args: {
      organizationId: t.arg.id({ required: true }),
      input: t.arg({ type: UpdateOrganizationInput, required: true }),
    },
    resolve: async (query, _root, { organizationId, input }, ctx) => {
      const id = String(organizationId);
      await loadOrganization(ctx, id, 'organization:update');
      if (input.defaultContent) {
        const site = await ctx.db.site.findFirst({ where: { id: input.defaultContent.site, organizationId: id }, select: { id: true } });
        if (!site) throw new InvalidInputError('defaultContent: no site with this id in the organization');
      }
      return ctx.db.organization.update({
        ...query,
        where: { id },
        data: {
          title: input.title ?? undefined,
          emailDomains: input.emailDomains ?? undefined,
          hostname: input.hostname,
          defaultRole: input.defaultRole,
          defaultSiteId: input.defaultContent === null ? null : input.defaultContent?.site,
          logo: input.logo,
          sso: input.sso ?? undefined,
          ai: input.ai ?? undefined,
          inviteLinks: input.inviteLinks ?? undefined,
          mergeRules: input.mergeRules ? jsonInput(input.mergeRules) : undefined,
        },
      });
    },
  }),
}));

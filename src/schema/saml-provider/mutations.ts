import { z } from 'zod';
import { authorize } from '../../auth/policies.ts';
import { builder } from '../../builder.ts';
import { InvalidInputError } from '../../errors/index.ts';
import { newId } from '../../ids.ts';
import { checkDefaultTeam, loadSamlProvider, storedCertificate } from '../../services/saml-provider.ts';
import { MemberRole } from '../shared/enums.ts';
import { SamlProvider } from './type.ts';

const label = z.string().min(1, 'must be 1 to 30 characters').max(30, 'must be 1 to 30 characters').regex(/\S/, 'must not be blank');
const ssoURL = z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }).max(2048, 'must be at most 2048 characters');
const entityID = z.string().min(1, 'must not be empty').max(1024, 'must be at most 1024 characters');
const certificate = z.string().max(10_000, 'must be at most 10000 characters');

const fields = {
  ssoURL: "The identity provider's single sign-on URL (where AuthnRequests go)",
  entityID: "The identity provider's entity ID (the issuer of its assertions)",
  certificate: "PEM of the identity provider's signing certificate: an X.509 certificate with an RSA key, valid now",
  defaultTeam: 'Id of a team of the organization that members it signs in for the first time join',
  defaultRole: 'The role of members it signs in for the first time; null: guests',
};

const CreateSamlProviderInput = builder.inputType('CreateSamlProviderInput', {
  fields: (t) => ({
    label: t.string({ required: true, validate: label }),
    ssoURL: t.string({ description: fields.ssoURL, validate: ssoURL }),
    entityID: t.string({ description: fields.entityID, validate: entityID }),
    certificate: t.string({ description: fields.certificate, validate: certificate }),
    defaultTeam: t.string({ description: fields.defaultTeam }),
    defaultRole: t.field({ type: MemberRole, description: `${fields.defaultRole} (default read)` }),
  }),
});

const UpdateSamlProviderInput = builder.inputType('UpdateSamlProviderInput', {
  description: 'Fields left out stay as they are; null clears ssoURL, entityID, certificate and defaultTeam, and makes defaultRole guest',
  fields: (t) => ({
    label: t.string({ validate: label }),
    ssoURL: t.string({ description: fields.ssoURL, validate: ssoURL }),
    entityID: t.string({ description: fields.entityID, validate: entityID }),
    certificate: t.string({ description: fields.certificate, validate: certificate }),
    defaultTeam: t.string({ description: fields.defaultTeam }),
    defaultRole: t.field({ type: MemberRole, description: fields.defaultRole }),
  }),
});

builder.mutationFields((t) => ({
  createSamlProvider: t.prismaField({
    type: SamlProvider,
    description: 'Add an identity provider to the organization (admins); `active` once ssoURL, entityID and certificate are set',
    authScopes: { authenticated: true },
    args: { organizationId: t.arg.id({ required: true }), input: t.arg({ type: CreateSamlProviderInput, required: true }) },
    resolve: async (query, _root, { organizationId, input }, ctx) => {
      const orgId = String(organizationId);
      authorize(ctx.access.organization(orgId), 'organization:manage-sso', { type: 'Organization', id: orgId });
      const cert = input.certificate == null ? null : storedCertificate(input.certificate);
      if (input.defaultTeam) await checkDefaultTeam(ctx.db, orgId, input.defaultTeam);
      return ctx.db.samlProvider.create({
        ...query,
        data: {
          id: newId(),
          organizationId: orgId,
          label: input.label.trim(),
          ssoURL: input.ssoURL ?? null,
          entityID: input.entityID ?? null,
          certificate: cert,
          defaultRole: input.defaultRole === undefined ? 'read' : input.defaultRole,
          defaultTeamId: input.defaultTeam || null,
        },
      });
    },
  }),
  updateSamlProvider: t.prismaField({
    type: SamlProvider,
    description: 'Change an identity provider of the organization (admins)',
    authScopes: { authenticated: true },
    args: {
      organizationId: t.arg.id({ required: true }),
      samlProviderId: t.arg.id({ required: true }),
      input: t.arg({ type: UpdateSamlProviderInput, required: true }),
    },
    resolve: async (query, _root, { organizationId, samlProviderId, input }, ctx) => {
      const provider = await loadSamlProvider(ctx, String(organizationId), String(samlProviderId));
      if (input.label === null) throw new InvalidInputError('label: must not be null (every provider has a label)');
      const cert = input.certificate === undefined ? undefined : storedCertificate(input.certificate);
      if (input.defaultTeam) await checkDefaultTeam(ctx.db, provider.organizationId, input.defaultTeam);
      return ctx.db.samlProvider.update({
        ...query,
        where: { id: provider.id },
        data: {
          label: input.label == null ? undefined : input.label.trim(),
          ssoURL: input.ssoURL,
          entityID: input.entityID,
          certificate: cert,
          defaultRole: input.defaultRole,
          defaultTeamId: input.defaultTeam === undefined ? undefined : input.defaultTeam || null,
        },
      });
    },
  }),
  deleteSamlProvider: t.boolean({
    description: 'Remove an identity provider (admins): its members stay, and sign in no more through it. False when there was none.',
    authScopes: { authenticated: true },
    args: { organizationId: t.arg.id({ required: true }), samlProviderId: t.arg.id({ required: true }) },
    resolve: async (_root, args, ctx) => {
      const organizationId = String(args.organizationId);
      authorize(ctx.access.organization(organizationId), 'organization:manage-sso', { type: 'Organization', id: organizationId });
      // Its requests and replay cache go with it (cascade).
      const { count } = await ctx.db.samlProvider.deleteMany({ where: { id: String(args.samlProviderId), organizationId } });
      return count > 0;
    },
  }),
}));

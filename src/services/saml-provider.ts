/**
 * SAML providers of an organization (its identity providers): loading one,
 * whether it is complete (`active`), this service's endpoints for it, and what
 * is checked when one is saved. Admins manage them (`organization:manage-sso`);
 * the sign-in itself is ./saml-sign-in.ts.
 */
import { authorize } from '../auth/policies.ts';
import { checkCertificate, type IdentityProvider, type ServiceProvider } from '../auth/saml.ts';
import type { Context } from '../context.ts';
import type { Db } from '../db/client.ts';
import { NotFoundError } from '../errors/index.ts';
import type { Urls } from '../urls.ts';

type ProviderSettings = { ssoURL: string | null; entityID: string | null; certificate: string | null };

/** `active` once the identity provider's single sign-on URL, entity ID and certificate are all set; `pending` until then. */
export function samlProviderStatus(provider: ProviderSettings): 'active' | 'pending' {
  return provider.ssoURL && provider.entityID && provider.certificate ? 'active' : 'pending';
}

/** Whether the provider is complete, narrowing it to what the sign-in needs. */
export function isActiveProvider<P extends ProviderSettings & { id: string }>(provider: P): provider is P & IdentityProvider {
  return samlProviderStatus(provider) === 'active';
}

/** This service as the provider's service provider: its entity ID and ACS URL, and where sign-in starts. */
export function serviceProviderOf(urls: Urls, providerId: string): ServiceProvider & { startURL: string } {
  return { entityID: urls.saml(providerId, 'metadata'), acsURL: urls.saml(providerId, 'acs'), startURL: urls.saml(providerId, 'start') };
}

/** Loads a provider of the organization for an admin (`organization:manage-sso`); another organization's: 404. */
export async function loadSamlProvider<Q extends object>(ctx: Context, organizationId: string, providerId: string, query?: Q) {
  authorize(ctx.access.organization(organizationId), 'organization:manage-sso', { type: 'Organization', id: organizationId });
  const provider = await ctx.db.samlProvider.findUnique({ ...(query ?? {}), where: { id: providerId } });
  if (!provider || provider.organizationId !== organizationId) throw new NotFoundError('SAML provider', providerId);
  return provider;
}

/** A default team must be a team of the provider's organization (another organization's, or none: 404). */
export async function checkDefaultTeam(db: Pick<Db, 'team'>, organizationId: string, teamId: string): Promise<void> {
  const team = await db.team.findUnique({ where: { id: teamId }, select: { organizationId: true } });
  if (!team || team.organizationId !== organizationId) throw new NotFoundError('Team', teamId, 'defaultTeam must be a team of this organization');
}

/** The certificate as stored: checked (PEM, X.509, RSA, valid now) and normalized; null clears it. */
export function storedCertificate(value: string | null): string | null {
  return value === null ? null : checkCertificate(value);
}

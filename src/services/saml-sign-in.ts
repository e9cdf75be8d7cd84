/**
 * Signing in through an organization's identity provider (SAML 2.0, this
 * service as the service provider): the start (an AuthnRequest, HTTP-Redirect
 * binding) and the Assertion Consumer Service (a SAMLResponse, HTTP-POST
 * binding), which checks the response, signs the user in (matched by e-mail or
 * created, made an SSO member with the provider's default role and team) and
 * issues an API token. src/plugins/use-saml.ts serves both; README ("Single
 * sign-on") and docs/decisions.md ("SAML sign-in") say what is checked and how
 * the token is handed back.
 */
import type { Profile } from '@node-saml/node-saml';
import {
  SAML_CLOCK_SKEW_MS,
  assertionFacts,
  consumeRequest,
  requestStore,
  samlClient,
  serviceProviderMetadata,
  type AssertionFacts,
} from '../auth/saml.ts';
import { issueApiToken } from '../auth/tokens.ts';
import type { Db } from '../db/client.ts';
import { unstorableText } from '../db/storable-text.ts';
import { ConflictError, InvalidInputError, MemberDisabledError, NotFoundError, SignInRefusedError } from '../errors/index.ts';
import { isUniqueViolation } from '../errors/prisma.ts';
import { newId } from '../ids.ts';
import type { Urls } from '../urls.ts';
import { isActiveProvider, serviceProviderOf } from './saml-provider.ts';

/** How long the API token a sign-in issues works. */
export const SAML_TOKEN_TTL_MS = 24 * 3_600_000;
const DISPLAY_NAME_MAX_LENGTH = 255;

export interface SamlSignInDeps {
  db: Db;
  urls: Urls;
  now?: () => Date;
}

/**
 * Where a sign-in may send the browser back to with its token (RelayState): a
 * path of the web app (APP_URL), starting with one `/`, of printable ASCII
 * without `\` or `#`, at most 1,024 characters. Anything else could send the
 * token to another site.
 */
export function isRelayPath(value: string): boolean {
  return value.length <= 1024 && /^\/(?![/\\])[\x21-\x7e]*$/.test(value) && !/[\\#]/.test(value);
}

async function loadProvider(db: Db, providerId: string) {
  const provider = await db.samlProvider.findUnique({ where: { id: providerId } });
  if (!provider) throw new NotFoundError('SAML provider', providerId);
  return provider;
}

async function loadActiveProvider(db: Db, providerId: string) {
  const provider = await loadProvider(db, providerId);
  if (!isActiveProvider(provider)) {
    throw new ConflictError(`SAML provider ${JSON.stringify(providerId)} is not configured yet (pending): an admin sets its ssoURL, entityID and certificate`);
  }
  return provider;
}

/** The service provider metadata of a provider (pending ones too: an identity provider is configured from it). */
export async function samlMetadata(deps: SamlSignInDeps, providerId: string): Promise<string> {
  const provider = await loadProvider(deps.db, providerId);
  return serviceProviderMetadata(serviceProviderOf(deps.urls, provider.id));
}

/**
 * Starts a sign-in: stores a new AuthnRequest (its ID, for SAML_REQUEST_TTL_MS)
 * and answers the identity provider URL carrying it (HTTP-Redirect binding,
 * deflated and unsigned, as the library makes it without a service provider key).
 * `relayState`: the web app path to come back to with the token (isRelayPath).
 */
export async function startSamlSignIn(deps: SamlSignInDeps, providerId: string, relayState: string | null): Promise<string> {
  const now = deps.now ?? (() => new Date());
  const provider = await loadActiveProvider(deps.db, providerId);
  if (relayState !== null && !isRelayPath(relayState)) {
    throw new InvalidInputError('RelayState: must be a path of the web app, starting with one "/" (printable ASCII, no "\\" or "#", at most 1,024 characters)');
  }
  // Requests nobody answered in time go as new ones come.
  await deps.db.samlRequest.deleteMany({ where: { providerId: provider.id, expiresAt: { lte: now() } } });
  const client = samlClient(provider, serviceProviderOf(deps.urls, provider.id), requestStore(deps.db, provider.id, now));
  return client.getAuthorizeUrlAsync(relayState ?? '', undefined, {});
}

/** What a sign-in hands back. */
export interface SamlSignIn {
  organizationId: string;
  userId: string;
  email: string;
  /** The API token's secret: shown once. */
  token: string;
  tokenExpiresAt: Date;
  /** Whether this sign-in made the user a member (with the provider's default role and team). */
  joined: boolean;
  /** The web app path to send the browser to (a valid RelayState), or null. */
  relayState: string | null;
}

const refused = (reason: string) => new SignInRefusedError(`SAML response refused: ${reason}`);

/**
 * Checks a posted SAMLResponse with the library (the signature against the
 * provider's certificate; the audience; NotBefore and NotOnOrAfter within
 * SAML_CLOCK_SKEW_MS; an InResponseTo of a stored, unexpired request), then
 * what it leaves to us: the issuer is the provider's entity ID, the Destination
 * and every Recipient are this provider's ACS URL, and the assertion has an ID
 * and an expiry. Then, in one transaction: the request is consumed, the
 * assertion enters the replay cache, the user is signed in and a token issued.
 * Any refusal writes nothing (403, or 400 for a form without a SAMLResponse).
 */
export async function completeSamlSignIn(deps: SamlSignInDeps, providerId: string, form: URLSearchParams): Promise<SamlSignIn> {
  const now = (deps.now ?? (() => new Date()))();
  const provider = await loadActiveProvider(deps.db, providerId);
  const samlResponse = form.get('SAMLResponse');
  if (!samlResponse) throw new InvalidInputError('SAMLResponse: missing: the identity provider POSTs it as a form field (HTTP-POST binding)');
  const sp = serviceProviderOf(deps.urls, provider.id);
  const client = samlClient(provider, sp, requestStore(deps.db, provider.id, () => now));
  let profile: Profile | null;
  try {
    ({ profile } = await client.validatePostResponseAsync({ SAMLResponse: samlResponse }));
  } catch (error) {
    throw refused(error instanceof Error ? error.message : String(error));
  }
  if (!profile) throw refused('it carries no assertion');
  const facts = checkFacts(assertionFacts(profile), provider.entityID, sp.acsURL);
  const relayState = form.get('RelayState');

  try {
    return await deps.db.$transaction(async (tx) => {
      if (!(await consumeRequest(tx, provider.id, facts.inResponseTo, now))) {
        throw refused(`InResponseTo ${JSON.stringify(facts.inResponseTo)} names no open request of this provider (already answered, or expired)`);
      }
      await tx.samlAssertion.deleteMany({ where: { providerId: provider.id, expiresAt: { lte: now } } });
      const replayed = await tx.samlAssertion.findUnique({ where: { providerId_assertionId: { providerId: provider.id, assertionId: facts.assertionId } } });
      if (replayed) throw refused(`assertion ${JSON.stringify(facts.assertionId)} was already used (replay)`);
      // Kept past its expiry by the clock skew the time check allows.
      await tx.samlAssertion.create({ data: { providerId: provider.id, assertionId: facts.assertionId, expiresAt: new Date(facts.expiresAt.getTime() + SAML_CLOCK_SKEW_MS) } });

      const { userId, joined } = await signInMember(tx, { organizationId: provider.organizationId, defaultRole: provider.defaultRole, defaultTeamId: provider.defaultTeamId }, facts);
      const tokenExpiresAt = new Date(now.getTime() + SAML_TOKEN_TTL_MS);
      const { token } = await issueApiToken(tx, userId, { label: `SAML sign-in: ${provider.label}`, expiresAt: tokenExpiresAt }, now);
      return {
        organizationId: provider.organizationId,
        userId,
        email: facts.email,
        token,
        tokenExpiresAt,
        joined,
        relayState: relayState !== null && isRelayPath(relayState) ? relayState : null,
      };
    });
  } catch (error) {
    // Two sign-ins of one new user, or of one assertion, at the same moment: the second is told to try again.
    if (isUniqueViolation(error)) throw new ConflictError('Another sign-in of this account was completed at the same moment: start again');
    throw error;
  }
}

type CheckedFacts = AssertionFacts & { assertionId: string; inResponseTo: string; expiresAt: Date; email: string };

function checkFacts(facts: AssertionFacts, idpEntityID: string, acsURL: string): CheckedFacts {
  if (facts.issuer !== idpEntityID) throw refused(`its issuer ${JSON.stringify(facts.issuer)} is not the identity provider's entity ID`);
  if (facts.destination !== acsURL) throw refused(`its Destination ${JSON.stringify(facts.destination)} is not this provider's ACS URL ${acsURL}`);
  if (facts.recipients.length === 0) throw refused('its SubjectConfirmationData names no Recipient');
  const other = facts.recipients.find((recipient) => recipient !== acsURL);
  if (other !== undefined) throw refused(`its Recipient ${JSON.stringify(other)} is not this provider's ACS URL ${acsURL}`);
  if (!facts.assertionId) throw refused('the assertion has no ID');
  if (!facts.inResponseTo) throw refused('it answers no request (InResponseTo)');
  if (!facts.expiresAt) throw refused('the assertion states no NotOnOrAfter');
  if (!facts.email) throw refused('it names no e-mail address (an e-mail NameID, or an email attribute)');
  for (const [field, value] of [['e-mail address', facts.email], ['display name', facts.displayName]] as const) {
    const problem = value === null ? null : unstorableText(value);
    if (problem) throw new InvalidInputError(`SAMLResponse: the ${field} ${problem}`);
  }
  return facts as CheckedFacts;
}

type Tx = Parameters<Parameters<Db['$transaction']>[0]>[0];

/**
 * The user the assertion names, signed in to the organization. Matched by
 * e-mail (stored in lower case), or created. A new member gets the provider's
 * default role and team, and is an SSO member. Refused (403): a disabled
 * member; an existing account that also belongs to other organizations unless
 * it is already an SSO member here (an admin marks it with setUserAsSSOMember),
 * since the token issued works in every organization of the account.
 */
async function signInMember(
  tx: Tx,
  provider: { organizationId: string; defaultRole: string | null; defaultTeamId: string | null },
  facts: CheckedFacts,
): Promise<{ userId: string; joined: boolean }> {
  const { organizationId } = provider;
  const existing = await tx.user.findUnique({ where: { email: facts.email }, select: { id: true } });
  const userId = existing?.id ?? newId();
  if (!existing) {
    const displayName = (facts.displayName ?? facts.email).slice(0, DISPLAY_NAME_MAX_LENGTH);
    await tx.user.create({ data: { id: userId, email: facts.email, displayName } });
  }
  const member = existing ? await tx.member.findUnique({ where: { organizationId_userId: { organizationId, userId } } }) : null;
  if (member?.disabled) throw new MemberDisabledError(organizationId);
  if (member?.sso) return { userId, joined: false };
  const elsewhere = existing ? await tx.member.count({ where: { userId, organizationId: { not: organizationId } } }) : 0;
  if (elsewhere > 0) {
    throw new SignInRefusedError(
      `${facts.email} has an account that belongs to other organizations: an admin of this organization makes it an SSO member first (POST /v1/orgs/${organizationId}/members/${userId}/sso, once it is a member)`,
    );
  }
  if (member) {
    await tx.member.update({ where: { id: member.id }, data: { sso: true } });
    return { userId, joined: false };
  }
  await tx.member.create({ data: { id: newId(), organizationId, userId, role: provider.defaultRole, sso: true } });
  if (provider.defaultTeamId) {
    // A default team deleted since it was set is skipped.
    const team = await tx.team.findUnique({ where: { id: provider.defaultTeamId }, select: { organizationId: true } });
    if (team?.organizationId === organizationId) await tx.teamMember.create({ data: { teamId: provider.defaultTeamId, userId, role: 'member' } });
  }
  return { userId, joined: true };
}

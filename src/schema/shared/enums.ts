/**
 * Value sets of the wire contract, as GraphQL types. The sets stored in the
 * database are defined once in src/db/value-sets.ts and derived here (and, in
 * their resource's module, ChangeRequestStatus and JobKind/JobState). GraphQL
 * enum names cannot hold `-`, so the sets with such values (`share-link`,
 * `pt-br`, ...) are string scalars that accept only their values: REST and
 * GraphQL then carry the same strings.
 */
import { GraphQLError } from 'graphql';
import { builder } from '../../builder.ts';
import {
  CONTENT_VISIBILITIES,
  DEFAULT_LEVELS,
  MEMBER_ROLES,
  ORGANIZATION_COMMUNITY_TYPES,
  OPENAPI_ERROR_CODES,
  OPENAPI_PROCESSING_STATES,
  OPENAPI_SPEC_VISIBILITIES,
  ORGANIZATION_TYPES,
  ORGANIZATION_USE_CASES,
  SITE_AGENTS_CONTEXTS,
  SITE_TYPES,
  SITE_VISIBILITIES,
  SPACE_EDIT_MODES,
  TOKEN_SCOPES,
  TRANSLATION_LANGUAGES, CONVERSATION_IMPACTS } from '../../db/value-sets.ts';

/** MEMBER_ROLES from the most to the least powerful (the order the GraphQL enums list them in). */
export const ROLES_DESCENDING = [...MEMBER_ROLES].reverse() as unknown as readonly ['admin', 'create', 'review', 'edit', 'comment', 'read'];

export const MemberRole = builder.enumType('MemberRole', {
  description: 'Member roles, from most to least powerful: admin, create, review, edit, comment, read',
  values: ROLES_DESCENDING,
});

export const DefaultLevel = builder.enumType('DefaultLevel', {
  description: 'The role members get on content by default; `inherit` follows the parent; null gives them nothing',
  values: [DEFAULT_LEVELS[0], ...ROLES_DESCENDING] as const,
});

export const SpaceEditMode = builder.enumType('SpaceEditMode', { values: SPACE_EDIT_MODES });
export const OrganizationType = builder.enumType('OrganizationType', { values: ORGANIZATION_TYPES });
export const OrganizationUseCase = builder.enumType('OrganizationUseCase', { values: ORGANIZATION_USE_CASES });
export const OrganizationCommunityType = builder.enumType('OrganizationCommunityType', { values: ORGANIZATION_COMMUNITY_TYPES });
export const SiteAgentsContext = builder.enumType('SiteAgentsContext', {
  description: 'Whether the site is part of the agents\' context',
  values: SITE_AGENTS_CONTEXTS,
});
export const SortDirection = builder.enumType('SortDirection', { values: ['asc', 'desc'] as const });
export const OpenAPISpecVisibility = builder.enumType('OpenAPISpecVisibility', {
  description: 'private: members only; public: anyone with its published link',
  values: OPENAPI_SPEC_VISIBILITIES,
});
export const OpenAPISpecProcessingState = builder.enumType('OpenAPISpecProcessingState', {
  description: 'pending: queued; progress: being processed; complete: processed (see lastProcessErrorCode for a failure)',
  values: OPENAPI_PROCESSING_STATES,
});
export const OpenAPISpecProcessingErrorCode = builder.enumType('OpenAPISpecProcessingErrorCode', { values: OPENAPI_ERROR_CODES });
export const ConversationImpact = builder.enumType('ConversationImpact', {
  description: 'How much a documentation issue held readers back: a conversation\'s and a cluster\'s are the highest of their issues\'',
  values: CONVERSATION_IMPACTS,
});

export { CONTENT_VISIBILITIES, SITE_TYPES, SITE_VISIBILITIES, TRANSLATION_LANGUAGES };

function stringSetScalar(
  name: 'ContentVisibility' | 'TranslationLanguage' | 'ContentReferenceStatus' | 'SiteVisibility' | 'SiteType' | 'TokenScope',
  values: readonly string[], description: string) {
  const check = (value: unknown) => {
    if (typeof value !== 'string' || !values.includes(value)) {
      throw new GraphQLError(`must be one of ${values.join(', ')}`);
    }
    return value;
  };
  return builder.scalarType(name, {
    description: `${description}: one of ${values.map((v) => `\`${v}\``).join(', ')}`,
    serialize: check,
    parseValue: check,
  });
}

export const ContentVisibility = stringSetScalar('ContentVisibility', CONTENT_VISIBILITIES, 'Who can see a space');
export const TranslationLanguage = stringSetScalar('TranslationLanguage', TRANSLATION_LANGUAGES, 'A content language');
/** Not stored: the status of a link is worked out when links are read (src/content/links.ts). */
export const ContentReferenceStatus = stringSetScalar('ContentReferenceStatus', ['ok', 'broken', 'in-app'], 'The state of a link');
export const SiteVisibility = stringSetScalar('SiteVisibility', SITE_VISIBILITIES, 'Who can see a published site');
export const SiteType = stringSetScalar('SiteType', SITE_TYPES, 'The plan of a site');
export const TokenScope = stringSetScalar('TokenScope', TOKEN_SCOPES, "A scope an API token may be limited to (GitBook's OAuth scope names)");

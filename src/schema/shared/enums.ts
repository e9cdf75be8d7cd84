/**
 * Value sets of the wire contract. GraphQL enum names cannot hold `-`, so the
 * sets with such values (`share-link`, `pt-br`, ...) are string scalars that
 * accept only their values: REST and GraphQL then carry the same strings.
 */
import { GraphQLError } from 'graphql';
import { MEMBER_ROLES } from '../../auth/roles.ts';
import { builder } from '../../builder.ts';

export const MemberRole = builder.enumType('MemberRole', {
  description: 'Member roles, from most to least powerful: admin, create, review, edit, comment, read',
  values: [...MEMBER_ROLES].reverse() as unknown as readonly ['admin', 'create', 'review', 'edit', 'comment', 'read'],
});

export const DefaultLevel = builder.enumType('DefaultLevel', {
  description: 'The role members get on content by default; `inherit` follows the parent; null gives them nothing',
  values: ['inherit', ...[...MEMBER_ROLES].reverse()] as unknown as readonly ['inherit', 'admin', 'create', 'review', 'edit', 'comment', 'read'],
});

export const SpaceEditMode = builder.enumType('SpaceEditMode', { values: ['live', 'locked'] as const });
export const OrganizationType = builder.enumType('OrganizationType', { values: ['business', 'community'] as const });
export const OrganizationUseCase = builder.enumType('OrganizationUseCase', {
  values: ['internalDocs', 'docsSite', 'audienceControlledSite', 'productDocs', 'teamKnowledgeBase', 'designSystem', 'openSourceDocs', 'notes', 'other'] as const,
});
export const OrganizationCommunityType = builder.enumType('OrganizationCommunityType', {
  values: ['nonProfit', 'openSource', 'education'] as const,
});
export const SiteAgentsContext = builder.enumType('SiteAgentsContext', {
  description: 'Whether the site is part of the agents\' context',
  values: ['excluded', 'included'] as const,
});
export const SortDirection = builder.enumType('SortDirection', { values: ['asc', 'desc'] as const });

export const CONTENT_VISIBILITIES = ['public', 'unlisted', 'share-link', 'visitor-auth', 'in-collection', 'private'] as const;
export const TRANSLATION_LANGUAGES = [
  'en', 'fr', 'de', 'es', 'it', 'pt', 'pt-br', 'ru', 'ja', 'zh', 'yue', 'ko', 'ar', 'hi', 'nl', 'pl', 'tr', 'sv', 'no', 'da',
  'fi', 'el', 'cs', 'hu', 'ro', 'th', 'vi', 'id', 'ms', 'he', 'uk', 'sk', 'bg', 'hr', 'lt', 'lv', 'et', 'sl',
] as const;

function stringSetScalar(
  name: 'ContentVisibility' | 'TranslationLanguage' | 'ContentReferenceStatus' | 'SiteVisibility' | 'SiteType',
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
export const ContentReferenceStatus = stringSetScalar('ContentReferenceStatus', ['ok', 'broken', 'in-app'], 'The state of a link');

export const SITE_VISIBILITIES = ['public', 'unlisted', 'share-link', 'visitor-auth'] as const;
export const SITE_TYPES = ['basic', 'premium', 'ultimate', 'sponsored', 'legacy-basic', 'legacy-premium'] as const;
export const SiteVisibility = stringSetScalar('SiteVisibility', SITE_VISIBILITIES, 'Who can see a published site');
export const SiteType = stringSetScalar('SiteType', SITE_TYPES, 'The plan of a site');

/**
 * Every fixed set of values a column may hold, defined once. The GraphQL enums
 * and string scalars (src/schema/shared/enums.ts) and the TypeScript types are
 * derived from these arrays; the database refuses anything else through CHECK
 * constraints that the migrations write from VALUE_SET_COLUMNS (see
 * docs/decisions.md, "Fixed value sets"), and test/db/value-sets.test.ts checks
 * that a migrated database enforces exactly these sets.
 *
 * Checked strings, not Prisma enums: the wire values hold `-` (`share-link`,
 * `pt-br`, `git-import`), which a Prisma enum can only carry under other names
 * (`@map`), and SQLite stores a Prisma enum as unchecked text.
 *
 * Changing a set needs a migration that rewrites the CHECK constraint of each
 * column using it (on SQLite, by redefining the table).
 */

/** Member roles in increasing power (the spec's "admin > create > review > edit > comment > read"); null is a guest. */
export const MEMBER_ROLES = ['read', 'comment', 'edit', 'review', 'create', 'admin'] as const;
export type MemberRole = (typeof MEMBER_ROLES)[number];

/** A content default level: a role, or `inherit` from the parent (null, guests only, is not a value). */
export const DEFAULT_LEVELS = ['inherit', ...MEMBER_ROLES] as const;

export const ORGANIZATION_TYPES = ['business', 'community'] as const;
export const ORGANIZATION_USE_CASES = [
  'internalDocs', 'docsSite', 'audienceControlledSite', 'productDocs', 'teamKnowledgeBase', 'designSystem', 'openSourceDocs', 'notes', 'other',
] as const;
export const ORGANIZATION_COMMUNITY_TYPES = ['nonProfit', 'openSource', 'education'] as const;

/** Who can see a space. */
export const CONTENT_VISIBILITIES = ['public', 'unlisted', 'share-link', 'visitor-auth', 'in-collection', 'private'] as const;
export const SPACE_EDIT_MODES = ['live', 'locked'] as const;

/** Content languages: a space's, a translation's source and target. */
export const TRANSLATION_LANGUAGES = [
  'en', 'fr', 'de', 'es', 'it', 'pt', 'pt-br', 'ru', 'ja', 'zh', 'yue', 'ko', 'ar', 'hi', 'nl', 'pl', 'tr', 'sv', 'no', 'da',
  'fi', 'el', 'cs', 'hu', 'ro', 'th', 'vi', 'id', 'ms', 'he', 'uk', 'sk', 'bg', 'hr', 'lt', 'lv', 'et', 'sl',
] as const;
export type TranslationLanguage = (typeof TRANSLATION_LANGUAGES)[number];

/** How a revision was made. */
export const REVISION_TYPES = ['edits', 'merge', 'rollback', 'update'] as const;
export type RevisionType = (typeof REVISION_TYPES)[number];

export const PAGE_KINDS = ['document', 'group', 'link'] as const;
export type PageKind = (typeof PAGE_KINDS)[number];

/**
 * The kinds of content a document reference (DocumentReference.targetKind) points at: the
 * ContentRef kinds of the OpenAPI document that name their target by a member of the same name,
 * and OpenAPI specs (`{kind: 'openapi', spec: slug}`, stored under the slug: a spec deleted and made
 * again under its slug is the same target). An anchor is within its page; a reusable content is
 * read with its revision, not linked.
 */
export const REFERENCE_TARGET_KINDS = ['page', 'file', 'url', 'space', 'user', 'collection', 'openapi'] as const;
export type ReferenceTargetKind = (typeof REFERENCE_TARGET_KINDS)[number];

export const CHANGE_REQUEST_STATUSES = ['draft', 'open', 'merged', 'archived'] as const;
export type ChangeRequestStatus = (typeof CHANGE_REQUEST_STATUSES)[number];
export const REVIEW_STATUSES = ['approved', 'changes-requested'] as const;
export type ReviewStatus = (typeof REVIEW_STATUSES)[number];

/** The plan of a site. */
export const SITE_TYPES = ['basic', 'premium', 'ultimate', 'sponsored', 'legacy-basic', 'legacy-premium'] as const;
/** Who can see a published site. */
export const SITE_VISIBILITIES = ['public', 'unlisted', 'share-link', 'visitor-auth'] as const;
/** Whether a site is part of the agents' context. */
export const SITE_AGENTS_CONTEXTS = ['excluded', 'included'] as const;

/**
 * The kinds of job users see through the API (the `job` query, `cancelJob`, the job subscriptions):
 * work they started. The others are the service's own (telling the site renderer what changed:
 * docs/decisions.md, "Renderer revalidation"), never listed.
 */
export const LISTED_JOB_KINDS = ['git-import', 'git-export', 'translation-run', 'openapi-processing', 'conversation-processing'] as const;
export type ListedJobKind = (typeof LISTED_JOB_KINDS)[number];
export const JOB_KINDS = [...LISTED_JOB_KINDS, 'renderer-revalidation'] as const;
export type JobKind = (typeof JOB_KINDS)[number];
export const JOB_STATES = ['queued', 'running', 'succeeded', 'failed', 'cancelled'] as const;
export type JobState = (typeof JOB_STATES)[number];

/** The host a Git sync's repository is on (`git`: any other). */
export const GIT_PROVIDERS = ['github', 'gitlab', 'bitbucket', 'git'] as const;
export const GIT_SYNC_KINDS = ['import', 'export'] as const;
/** A Git sync's last status is the state of the job that ran it. */
export const GIT_SYNC_STATUSES = JOB_STATES;

/**
 * The scopes an API token may carry: the OAuth scope names of GitBook's API
 * (the `oauth` security scheme of its OpenAPI document, @gitbook/api 0.202.0)
 * that guard an endpoint this server serves. A token without scopes acts with
 * its user's roles. src/auth/policies.ts maps every action to the one it
 * needs; docs/decisions.md, "Token scopes", says which names were left out and why.
 */
export const TOKEN_SCOPES = [
  'user:read',
  'organization:read',
  'organization:write',
  'organization:members:read',
  'organization:members:write',
  'space:read',
  'space:write',
  'change-request:merge',
  'site:read',
  'site:write',
  'site:publish',
  'openapi:read',
  'openapi:write',
  'conversations:ingest',
] as const;
export type TokenScope = (typeof TOKEN_SCOPES)[number];

/** A team member's role: an owner manages the team's members. */
export const TEAM_MEMBER_ROLES = ['owner', 'member'] as const;
export type TeamMemberRole = (typeof TEAM_MEMBER_ROLES)[number];
/** What a ContentGrant is on, and who holds it. */
export const GRANT_RESOURCE_KINDS = ['space', 'collection'] as const;
export const GRANTEE_KINDS = ['user', 'team'] as const;
/** What an invite link opens. */
export const INVITE_TARGET_KINDS = ['organization', 'space', 'collection'] as const;

/** Where an OpenAPI spec's document comes from. */
export const OPENAPI_SOURCE_KINDS = ['url', 'text'] as const;
/** Who can read an OpenAPI spec: members, or anyone with its published link. */
export const OPENAPI_SPEC_VISIBILITIES = ['private', 'public'] as const;
/** Where a spec's processing is: GitBook's three states (a failure ends `complete` with an error code). */
export const OPENAPI_PROCESSING_STATES = ['pending', 'progress', 'complete'] as const;
/** Why a spec's processing failed (GitBook's codes). */
export const OPENAPI_ERROR_CODES = ['FETCH_TIMEOUT', 'FETCH_ERROR', 'PARSE_ERROR'] as const;
export type OpenAPIErrorCode = (typeof OPENAPI_ERROR_CODES)[number];

/** How much a documentation issue held a reader back (api.md): a conversation's and a cluster's are the highest of their issues'. */
export const CONVERSATION_IMPACTS = ['low', 'medium', 'high'] as const;
export type ConversationImpact = (typeof CONVERSATION_IMPACTS)[number];

/**
 * The columns holding a value of a set, by table: the database accepts only
 * these values there (NULL where the column is nullable).
 */
export const VALUE_SET_COLUMNS = {
  Organization: { type: ORGANIZATION_TYPES, useCase: ORGANIZATION_USE_CASES, communityType: ORGANIZATION_COMMUNITY_TYPES, defaultRole: MEMBER_ROLES },
  Member: { role: MEMBER_ROLES },
  ApiTokenScope: { scope: TOKEN_SCOPES },
  Collection: { defaultLevel: DEFAULT_LEVELS },
  Space: { visibility: CONTENT_VISIBILITIES, editMode: SPACE_EDIT_MODES, defaultLevel: DEFAULT_LEVELS, language: TRANSLATION_LANGUAGES },
  Revision: { type: REVISION_TYPES },
  DocumentReference: { targetKind: REFERENCE_TARGET_KINDS },
  ChangeRequest: { status: CHANGE_REQUEST_STATUSES },
  ChangeRequestReview: { status: REVIEW_STATUSES },
  Site: { type: SITE_TYPES, visibility: SITE_VISIBILITIES, agentsContext: SITE_AGENTS_CONTEXTS },
  Job: { kind: JOB_KINDS, state: JOB_STATES },
  JobEvent: { state: JOB_STATES },
  GitSync: { provider: GIT_PROVIDERS, lastSyncKind: GIT_SYNC_KINDS, lastSyncStatus: GIT_SYNC_STATUSES },
  Translation: { sourceLanguage: TRANSLATION_LANGUAGES, language: TRANSLATION_LANGUAGES },
  TranslationSegment: { language: TRANSLATION_LANGUAGES },
  OpenAPISpec: { sourceKind: OPENAPI_SOURCE_KINDS, visibility: OPENAPI_SPEC_VISIBILITIES, processingState: OPENAPI_PROCESSING_STATES, lastProcessErrorCode: OPENAPI_ERROR_CODES },
  TeamMember: { role: TEAM_MEMBER_ROLES },
  ContentGrant: { resourceKind: GRANT_RESOURCE_KINDS, granteeKind: GRANTEE_KINDS, role: MEMBER_ROLES },
  InviteLink: { targetKind: INVITE_TARGET_KINDS, role: MEMBER_ROLES },
  SamlProvider: { defaultRole: MEMBER_ROLES },
  Conversation: { impact: CONVERSATION_IMPACTS },
  ConversationIssue: { impact: CONVERSATION_IMPACTS },
  IssuesCluster: { impact: CONVERSATION_IMPACTS },
} as const satisfies Record<string, Record<string, readonly string[]>>;

/** Whether `value` is one of `values`, narrowing it to the set's type. */
export function isOneOf<const T extends readonly string[]>(values: T, value: unknown): value is T[number] {
  return typeof value === 'string' && (values as readonly string[]).includes(value);
}

/** The name of the CHECK constraint of a value-set column (PostgreSQL's own naming of a column check). */
export function valueSetConstraintName(table: string, column: string): string {
  return `${table}_${column}_check`;
}

/** The CHECK constraint of a value-set column, as the migrations write it on both databases. */
export function valueSetCheckSql(table: string, column: string, values: readonly string[]): string {
  const list = values.map((v) => `'${v.replace(/'/g, "''")}'`).join(', ');
  return `CONSTRAINT "${valueSetConstraintName(table, column)}" CHECK ("${column}" IN (${list}))`;
}

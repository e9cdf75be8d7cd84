-- JSON columns become jsonb (USING ::jsonb keeps the data: a plain diff drops and re-adds the
-- columns) and value-set columns get the CHECK constraints of src/db/value-sets.ts.
-- Made by `npm run migration:create`, then rewritten by hand as ALTER COLUMN ... TYPE, one
-- statement (one table rewrite) per table.

-- Organization
ALTER TABLE "Organization"
    ALTER COLUMN "emailDomains" DROP DEFAULT,
    ALTER COLUMN "emailDomains" SET DATA TYPE JSONB USING "emailDomains"::jsonb,
    ALTER COLUMN "emailDomains" SET DEFAULT '[]',
    ALTER COLUMN "mergeRules" DROP DEFAULT,
    ALTER COLUMN "mergeRules" SET DATA TYPE JSONB USING "mergeRules"::jsonb,
    ALTER COLUMN "mergeRules" SET DEFAULT '{"type":"none"}',
    ADD CONSTRAINT "Organization_type_check" CHECK ("type" IN ('business', 'community')),
    ADD CONSTRAINT "Organization_useCase_check" CHECK ("useCase" IN ('internalDocs', 'docsSite', 'audienceControlledSite', 'productDocs', 'teamKnowledgeBase', 'designSystem', 'openSourceDocs', 'notes', 'other')),
    ADD CONSTRAINT "Organization_communityType_check" CHECK ("communityType" IN ('nonProfit', 'openSource', 'education')),
    ADD CONSTRAINT "Organization_defaultRole_check" CHECK ("defaultRole" IN ('read', 'comment', 'edit', 'review', 'create', 'admin'));

-- OrganizationAgentInstructions
ALTER TABLE "OrganizationAgentInstructions"
    ALTER COLUMN "instructions" SET DATA TYPE JSONB USING "instructions"::jsonb;

-- Member
ALTER TABLE "Member"
    ADD CONSTRAINT "Member_role_check" CHECK ("role" IN ('read', 'comment', 'edit', 'review', 'create', 'admin'));

-- Collection
ALTER TABLE "Collection"
    ADD CONSTRAINT "Collection_defaultLevel_check" CHECK ("defaultLevel" IN ('inherit', 'read', 'comment', 'edit', 'review', 'create', 'admin'));

-- Space
ALTER TABLE "Space"
    ALTER COLUMN "mergeRules" DROP DEFAULT,
    ALTER COLUMN "mergeRules" SET DATA TYPE JSONB USING "mergeRules"::jsonb,
    ALTER COLUMN "mergeRules" SET DEFAULT '{"type":"inherit"}',
    ADD CONSTRAINT "Space_visibility_check" CHECK ("visibility" IN ('public', 'unlisted', 'share-link', 'visitor-auth', 'in-collection', 'private')),
    ADD CONSTRAINT "Space_editMode_check" CHECK ("editMode" IN ('live', 'locked')),
    ADD CONSTRAINT "Space_defaultLevel_check" CHECK ("defaultLevel" IN ('inherit', 'read', 'comment', 'edit', 'review', 'create', 'admin')),
    ADD CONSTRAINT "Space_language_check" CHECK ("language" IN ('en', 'fr', 'de', 'es', 'it', 'pt', 'pt-br', 'ru', 'ja', 'zh', 'yue', 'ko', 'ar', 'hi', 'nl', 'pl', 'tr', 'sv', 'no', 'da', 'fi', 'el', 'cs', 'hu', 'ro', 'th', 'vi', 'id', 'ms', 'he', 'uk', 'sk', 'bg', 'hr', 'lt', 'lv', 'et', 'sl'));

-- Revision
ALTER TABLE "Revision"
    ALTER COLUMN "variables" DROP DEFAULT,
    ALTER COLUMN "variables" SET DATA TYPE JSONB USING "variables"::jsonb,
    ALTER COLUMN "variables" SET DEFAULT '{}',
    ADD CONSTRAINT "Revision_type_check" CHECK ("type" IN ('edits', 'merge', 'rollback', 'update'));

-- RevisionPage
ALTER TABLE "RevisionPage"
    ALTER COLUMN "linkTarget" SET DATA TYPE JSONB USING "linkTarget"::jsonb,
    ALTER COLUMN "layout" SET DATA TYPE JSONB USING "layout"::jsonb,
    ADD CONSTRAINT "RevisionPage_kind_check" CHECK ("kind" IN ('document', 'group', 'link'));

-- ContentDocument
ALTER TABLE "ContentDocument"
    ALTER COLUMN "json" SET DATA TYPE JSONB USING "json"::jsonb;

-- References of other kinds were stored but never read (src/content/links.ts): dropped, so that the check holds.
DELETE FROM "DocumentReference" WHERE "targetKind" NOT IN ('page', 'file', 'url', 'space', 'user', 'collection');

-- DocumentReference
ALTER TABLE "DocumentReference"
    ADD CONSTRAINT "DocumentReference_targetKind_check" CHECK ("targetKind" IN ('page', 'file', 'url', 'space', 'user', 'collection'));

-- ChangeRequest
ALTER TABLE "ChangeRequest"
    ALTER COLUMN "description" SET DATA TYPE JSONB USING "description"::jsonb,
    ADD CONSTRAINT "ChangeRequest_status_check" CHECK ("status" IN ('draft', 'open', 'merged', 'archived'));

-- ChangeRequestReview
ALTER TABLE "ChangeRequestReview"
    ADD CONSTRAINT "ChangeRequestReview_status_check" CHECK ("status" IN ('approved', 'changes-requested'));

-- Site
ALTER TABLE "Site"
    ALTER COLUMN "adaptiveSchema" SET DATA TYPE JSON USING "adaptiveSchema"::json,
    ALTER COLUMN "customizations" DROP DEFAULT,
    ALTER COLUMN "customizations" SET DATA TYPE JSONB USING "customizations"::jsonb,
    ALTER COLUMN "customizations" SET DEFAULT '{}',
    ADD CONSTRAINT "Site_type_check" CHECK ("type" IN ('basic', 'premium', 'ultimate', 'sponsored', 'legacy-basic', 'legacy-premium')),
    ADD CONSTRAINT "Site_visibility_check" CHECK ("visibility" IN ('public', 'unlisted', 'share-link', 'visitor-auth')),
    ADD CONSTRAINT "Site_agentsContext_check" CHECK ("agentsContext" IN ('excluded', 'included'));

-- SiteSpace
ALTER TABLE "SiteSpace"
    ALTER COLUMN "customizations" DROP DEFAULT,
    ALTER COLUMN "customizations" SET DATA TYPE JSONB USING "customizations"::jsonb,
    ALTER COLUMN "customizations" SET DEFAULT '{}';

-- Job
ALTER TABLE "Job"
    ALTER COLUMN "input" DROP DEFAULT,
    ALTER COLUMN "input" SET DATA TYPE JSONB USING "input"::jsonb,
    ALTER COLUMN "input" SET DEFAULT '{}',
    ALTER COLUMN "result" SET DATA TYPE JSONB USING "result"::jsonb,
    ADD CONSTRAINT "Job_kind_check" CHECK ("kind" IN ('git-import', 'git-export', 'translation-run')),
    ADD CONSTRAINT "Job_state_check" CHECK ("state" IN ('queued', 'running', 'succeeded', 'failed', 'cancelled'));

-- GitSync
ALTER TABLE "GitSync"
    ADD CONSTRAINT "GitSync_provider_check" CHECK ("provider" IN ('github', 'gitlab', 'bitbucket', 'git')),
    ADD CONSTRAINT "GitSync_lastSyncKind_check" CHECK ("lastSyncKind" IN ('import', 'export')),
    ADD CONSTRAINT "GitSync_lastSyncStatus_check" CHECK ("lastSyncStatus" IN ('queued', 'running', 'succeeded', 'failed', 'cancelled'));

-- Translation
ALTER TABLE "Translation"
    ALTER COLUMN "instructions" DROP DEFAULT,
    ALTER COLUMN "instructions" SET DATA TYPE JSONB USING "instructions"::jsonb,
    ALTER COLUMN "instructions" SET DEFAULT '{"object":"document","data":{},"nodes":[]}',
    ADD CONSTRAINT "Translation_sourceLanguage_check" CHECK ("sourceLanguage" IN ('en', 'fr', 'de', 'es', 'it', 'pt', 'pt-br', 'ru', 'ja', 'zh', 'yue', 'ko', 'ar', 'hi', 'nl', 'pl', 'tr', 'sv', 'no', 'da', 'fi', 'el', 'cs', 'hu', 'ro', 'th', 'vi', 'id', 'ms', 'he', 'uk', 'sk', 'bg', 'hr', 'lt', 'lv', 'et', 'sl')),
    ADD CONSTRAINT "Translation_language_check" CHECK ("language" IN ('en', 'fr', 'de', 'es', 'it', 'pt', 'pt-br', 'ru', 'ja', 'zh', 'yue', 'ko', 'ar', 'hi', 'nl', 'pl', 'tr', 'sv', 'no', 'da', 'fi', 'el', 'cs', 'hu', 'ro', 'th', 'vi', 'id', 'ms', 'he', 'uk', 'sk', 'bg', 'hr', 'lt', 'lv', 'et', 'sl'));

-- TranslationSegment
ALTER TABLE "TranslationSegment"
    ADD CONSTRAINT "TranslationSegment_language_check" CHECK ("language" IN ('en', 'fr', 'de', 'es', 'it', 'pt', 'pt-br', 'ru', 'ja', 'zh', 'yue', 'ko', 'ar', 'hi', 'nl', 'pl', 'tr', 'sv', 'no', 'da', 'fi', 'el', 'cs', 'hu', 'ro', 'th', 'vi', 'id', 'ms', 'he', 'uk', 'sk', 'bg', 'hr', 'lt', 'lv', 'et', 'sl'));

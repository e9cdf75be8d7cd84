-- JSON columns become JSONB (text in SQLite, parsed by Prisma) and value-set columns get the CHECK
-- constraints of src/db/value-sets.ts: every table holding either is redefined once.
-- Made by `npm run migration:create`, then completed by hand: the tables with value sets only,
-- json() on the copied JSON text (it validates and minifies: invalid JSON fails the migration
-- with nothing lost, as the ::jsonb cast does on PostgreSQL), the document references of kinds
-- that are not REFERENCE_TARGET_KINDS (never read) dropped.
-- RedefineTables
PRAGMA defer_foreign_keys=ON;
PRAGMA foreign_keys=OFF;
CREATE TABLE "new_Organization" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "title" TEXT NOT NULL,
    "emailDomains" JSONB NOT NULL DEFAULT '[]',
    "hostname" TEXT,
    "type" TEXT NOT NULL DEFAULT 'business',
    "useCase" TEXT,
    "communityType" TEXT,
    "defaultRole" TEXT,
    "defaultSiteId" TEXT,
    "sso" BOOLEAN NOT NULL DEFAULT false,
    "ai" BOOLEAN NOT NULL DEFAULT true,
    "inviteLinks" BOOLEAN NOT NULL DEFAULT true,
    "plan" TEXT NOT NULL DEFAULT 'free_2024',
    "mergeRules" JSONB NOT NULL DEFAULT '{"type":"none"}',
    "logo" TEXT,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL,
    CONSTRAINT "Organization_type_check" CHECK ("type" IN ('business', 'community')),
    CONSTRAINT "Organization_useCase_check" CHECK ("useCase" IN ('internalDocs', 'docsSite', 'audienceControlledSite', 'productDocs', 'teamKnowledgeBase', 'designSystem', 'openSourceDocs', 'notes', 'other')),
    CONSTRAINT "Organization_communityType_check" CHECK ("communityType" IN ('nonProfit', 'openSource', 'education')),
    CONSTRAINT "Organization_defaultRole_check" CHECK ("defaultRole" IN ('read', 'comment', 'edit', 'review', 'create', 'admin'))
);
INSERT INTO "new_Organization" ("ai", "communityType", "createdAt", "defaultRole", "defaultSiteId", "emailDomains", "hostname", "id", "inviteLinks", "logo", "mergeRules", "plan", "sso", "title", "type", "updatedAt", "useCase") SELECT "ai", "communityType", "createdAt", "defaultRole", "defaultSiteId", json("emailDomains"), "hostname", "id", "inviteLinks", "logo", json("mergeRules"), "plan", "sso", "title", "type", "updatedAt", "useCase" FROM "Organization";
DROP TABLE "Organization";
ALTER TABLE "new_Organization" RENAME TO "Organization";
CREATE UNIQUE INDEX "Organization_hostname_key" ON "Organization"("hostname");
CREATE TABLE "new_OrganizationAgentInstructions" (
    "organizationId" TEXT NOT NULL PRIMARY KEY,
    "instructions" JSONB NOT NULL,
    "updatedById" TEXT NOT NULL,
    "updatedAt" DATETIME NOT NULL,
    CONSTRAINT "OrganizationAgentInstructions_organizationId_fkey" FOREIGN KEY ("organizationId") REFERENCES "Organization" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);
INSERT INTO "new_OrganizationAgentInstructions" ("instructions", "organizationId", "updatedAt", "updatedById") SELECT json("instructions"), "organizationId", "updatedAt", "updatedById" FROM "OrganizationAgentInstructions";
DROP TABLE "OrganizationAgentInstructions";
ALTER TABLE "new_OrganizationAgentInstructions" RENAME TO "OrganizationAgentInstructions";
CREATE TABLE "new_Member" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "organizationId" TEXT NOT NULL,
    "userId" TEXT NOT NULL,
    "role" TEXT,
    "disabled" BOOLEAN NOT NULL DEFAULT false,
    "sso" BOOLEAN NOT NULL DEFAULT false,
    "joinedAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "lastSeenAt" DATETIME,
    CONSTRAINT "Member_organizationId_fkey" FOREIGN KEY ("organizationId") REFERENCES "Organization" ("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "Member_userId_fkey" FOREIGN KEY ("userId") REFERENCES "User" ("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "Member_role_check" CHECK ("role" IN ('read', 'comment', 'edit', 'review', 'create', 'admin'))
);
INSERT INTO "new_Member" ("disabled", "id", "joinedAt", "lastSeenAt", "organizationId", "role", "sso", "userId") SELECT "disabled", "id", "joinedAt", "lastSeenAt", "organizationId", "role", "sso", "userId" FROM "Member";
DROP TABLE "Member";
ALTER TABLE "new_Member" RENAME TO "Member";
CREATE INDEX "Member_userId_idx" ON "Member"("userId");
CREATE INDEX "Member_organizationId_joinedAt_id_idx" ON "Member"("organizationId", "joinedAt", "id");
CREATE UNIQUE INDEX "Member_organizationId_userId_key" ON "Member"("organizationId", "userId");
CREATE TABLE "new_Collection" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "organizationId" TEXT NOT NULL,
    "parentId" TEXT,
    "title" TEXT NOT NULL,
    "description" TEXT,
    "defaultLevel" TEXT DEFAULT 'inherit',
    "position" REAL NOT NULL DEFAULT 0,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL,
    CONSTRAINT "Collection_organizationId_fkey" FOREIGN KEY ("organizationId") REFERENCES "Organization" ("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "Collection_parentId_fkey" FOREIGN KEY ("parentId") REFERENCES "Collection" ("id") ON DELETE RESTRICT ON UPDATE CASCADE,
    CONSTRAINT "Collection_defaultLevel_check" CHECK ("defaultLevel" IN ('inherit', 'read', 'comment', 'edit', 'review', 'create', 'admin'))
);
INSERT INTO "new_Collection" ("createdAt", "defaultLevel", "description", "id", "organizationId", "parentId", "position", "title", "updatedAt") SELECT "createdAt", "defaultLevel", "description", "id", "organizationId", "parentId", "position", "title", "updatedAt" FROM "Collection";
DROP TABLE "Collection";
ALTER TABLE "new_Collection" RENAME TO "Collection";
CREATE INDEX "Collection_organizationId_createdAt_id_idx" ON "Collection"("organizationId", "createdAt", "id");
CREATE INDEX "Collection_parentId_position_id_idx" ON "Collection"("parentId", "position", "id");
CREATE TABLE "new_Space" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "organizationId" TEXT NOT NULL,
    "parentId" TEXT,
    "title" TEXT NOT NULL DEFAULT '',
    "emoji" TEXT NOT NULL DEFAULT '',
    "visibility" TEXT NOT NULL DEFAULT 'private',
    "editMode" TEXT NOT NULL DEFAULT 'live',
    "defaultLevel" TEXT DEFAULT 'inherit',
    "language" TEXT,
    "mergeRules" JSONB NOT NULL DEFAULT '{"type":"inherit"}',
    "position" REAL NOT NULL DEFAULT 0,
    "revisionId" TEXT NOT NULL,
    "lastChangeRequestNumber" INTEGER NOT NULL DEFAULT 0,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL,
    "deletedAt" DATETIME,
    CONSTRAINT "Space_organizationId_fkey" FOREIGN KEY ("organizationId") REFERENCES "Organization" ("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "Space_parentId_fkey" FOREIGN KEY ("parentId") REFERENCES "Collection" ("id") ON DELETE SET NULL ON UPDATE CASCADE,
    CONSTRAINT "Space_visibility_check" CHECK ("visibility" IN ('public', 'unlisted', 'share-link', 'visitor-auth', 'in-collection', 'private')),
    CONSTRAINT "Space_editMode_check" CHECK ("editMode" IN ('live', 'locked')),
    CONSTRAINT "Space_defaultLevel_check" CHECK ("defaultLevel" IN ('inherit', 'read', 'comment', 'edit', 'review', 'create', 'admin')),
    CONSTRAINT "Space_language_check" CHECK ("language" IN ('en', 'fr', 'de', 'es', 'it', 'pt', 'pt-br', 'ru', 'ja', 'zh', 'yue', 'ko', 'ar', 'hi', 'nl', 'pl', 'tr', 'sv', 'no', 'da', 'fi', 'el', 'cs', 'hu', 'ro', 'th', 'vi', 'id', 'ms', 'he', 'uk', 'sk', 'bg', 'hr', 'lt', 'lv', 'et', 'sl'))
);
INSERT INTO "new_Space" ("createdAt", "defaultLevel", "deletedAt", "editMode", "emoji", "id", "language", "lastChangeRequestNumber", "mergeRules", "organizationId", "parentId", "position", "revisionId", "title", "updatedAt", "visibility") SELECT "createdAt", "defaultLevel", "deletedAt", "editMode", "emoji", "id", "language", "lastChangeRequestNumber", json("mergeRules"), "organizationId", "parentId", "position", "revisionId", "title", "updatedAt", "visibility" FROM "Space";
DROP TABLE "Space";
ALTER TABLE "new_Space" RENAME TO "Space";
CREATE INDEX "Space_organizationId_deletedAt_createdAt_id_idx" ON "Space"("organizationId", "deletedAt", "createdAt", "id");
CREATE INDEX "Space_parentId_position_id_idx" ON "Space"("parentId", "position", "id");
CREATE INDEX "Space_deletedAt_idx" ON "Space"("deletedAt");
CREATE TABLE "new_Revision" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "spaceId" TEXT NOT NULL,
    "parentId" TEXT,
    "mergedParentId" TEXT,
    "type" TEXT NOT NULL DEFAULT 'edits',
    "changeRequestId" TEXT,
    "createdById" TEXT,
    "variables" JSONB NOT NULL DEFAULT '{}',
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "Revision_spaceId_fkey" FOREIGN KEY ("spaceId") REFERENCES "Space" ("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "Revision_type_check" CHECK ("type" IN ('edits', 'merge', 'rollback', 'update'))
);
INSERT INTO "new_Revision" ("changeRequestId", "createdAt", "createdById", "id", "mergedParentId", "parentId", "spaceId", "type", "variables") SELECT "changeRequestId", "createdAt", "createdById", "id", "mergedParentId", "parentId", "spaceId", "type", json("variables") FROM "Revision";
DROP TABLE "Revision";
ALTER TABLE "new_Revision" RENAME TO "Revision";
CREATE INDEX "Revision_spaceId_idx" ON "Revision"("spaceId");
CREATE TABLE "new_RevisionPage" (
    "revisionId" TEXT NOT NULL,
    "pageId" TEXT NOT NULL,
    "parentPageId" TEXT,
    "index" INTEGER NOT NULL,
    "kind" TEXT NOT NULL,
    "title" TEXT NOT NULL,
    "slug" TEXT NOT NULL,
    "path" TEXT NOT NULL,
    "description" TEXT,
    "emoji" TEXT,
    "icon" TEXT,
    "hidden" BOOLEAN NOT NULL DEFAULT false,
    "documentHash" TEXT,
    "linkTarget" JSONB,
    "layout" JSONB,
    "createdAt" DATETIME NOT NULL,
    "updatedAt" DATETIME NOT NULL,

    PRIMARY KEY ("revisionId", "pageId"),
    CONSTRAINT "RevisionPage_revisionId_fkey" FOREIGN KEY ("revisionId") REFERENCES "Revision" ("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "RevisionPage_documentHash_fkey" FOREIGN KEY ("documentHash") REFERENCES "ContentDocument" ("hash") ON DELETE RESTRICT ON UPDATE CASCADE,
    CONSTRAINT "RevisionPage_kind_check" CHECK ("kind" IN ('document', 'group', 'link'))
);
INSERT INTO "new_RevisionPage" ("createdAt", "description", "documentHash", "emoji", "hidden", "icon", "index", "kind", "layout", "linkTarget", "pageId", "parentPageId", "path", "revisionId", "slug", "title", "updatedAt") SELECT "createdAt", "description", "documentHash", "emoji", "hidden", "icon", "index", "kind", json("layout"), json("linkTarget"), "pageId", "parentPageId", "path", "revisionId", "slug", "title", "updatedAt" FROM "RevisionPage";
DROP TABLE "RevisionPage";
ALTER TABLE "new_RevisionPage" RENAME TO "RevisionPage";
CREATE INDEX "RevisionPage_revisionId_parentPageId_index_idx" ON "RevisionPage"("revisionId", "parentPageId", "index");
CREATE INDEX "RevisionPage_revisionId_path_idx" ON "RevisionPage"("revisionId", "path");
CREATE INDEX "RevisionPage_documentHash_idx" ON "RevisionPage"("documentHash");
CREATE TABLE "new_ContentDocument" (
    "hash" TEXT NOT NULL PRIMARY KEY,
    "json" JSONB NOT NULL,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP
);
INSERT INTO "new_ContentDocument" ("createdAt", "hash", "json") SELECT "createdAt", "hash", json("json") FROM "ContentDocument";
DROP TABLE "ContentDocument";
ALTER TABLE "new_ContentDocument" RENAME TO "ContentDocument";
-- References of other kinds were stored but never read (src/content/links.ts): dropped, so that the check holds.
DELETE FROM "DocumentReference" WHERE "targetKind" NOT IN ('page', 'file', 'url', 'space', 'user', 'collection');
CREATE TABLE "new_DocumentReference" (
    "documentHash" TEXT NOT NULL,
    "targetKind" TEXT NOT NULL,
    "target" TEXT NOT NULL,
    "nodeKey" TEXT,

    PRIMARY KEY ("documentHash", "targetKind", "target"),
    CONSTRAINT "DocumentReference_documentHash_fkey" FOREIGN KEY ("documentHash") REFERENCES "ContentDocument" ("hash") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "DocumentReference_targetKind_check" CHECK ("targetKind" IN ('page', 'file', 'url', 'space', 'user', 'collection'))
);
INSERT INTO "new_DocumentReference" ("documentHash", "nodeKey", "target", "targetKind") SELECT "documentHash", "nodeKey", "target", "targetKind" FROM "DocumentReference";
DROP TABLE "DocumentReference";
ALTER TABLE "new_DocumentReference" RENAME TO "DocumentReference";
CREATE INDEX "DocumentReference_targetKind_target_idx" ON "DocumentReference"("targetKind", "target");
CREATE TABLE "new_ChangeRequest" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "spaceId" TEXT NOT NULL,
    "number" INTEGER NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'draft',
    "subject" TEXT NOT NULL DEFAULT '',
    "description" JSONB,
    "createdById" TEXT NOT NULL,
    "revisionId" TEXT NOT NULL,
    "revisionInitialId" TEXT NOT NULL,
    "revisionMergedAncestorId" TEXT,
    "revisionMergedId" TEXT,
    "mergedAt" DATETIME,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL,
    CONSTRAINT "ChangeRequest_spaceId_fkey" FOREIGN KEY ("spaceId") REFERENCES "Space" ("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "ChangeRequest_createdById_fkey" FOREIGN KEY ("createdById") REFERENCES "User" ("id") ON DELETE RESTRICT ON UPDATE CASCADE,
    CONSTRAINT "ChangeRequest_status_check" CHECK ("status" IN ('draft', 'open', 'merged', 'archived'))
);
INSERT INTO "new_ChangeRequest" ("createdAt", "createdById", "description", "id", "mergedAt", "number", "revisionId", "revisionInitialId", "revisionMergedAncestorId", "revisionMergedId", "spaceId", "status", "subject", "updatedAt") SELECT "createdAt", "createdById", json("description"), "id", "mergedAt", "number", "revisionId", "revisionInitialId", "revisionMergedAncestorId", "revisionMergedId", "spaceId", "status", "subject", "updatedAt" FROM "ChangeRequest";
DROP TABLE "ChangeRequest";
ALTER TABLE "new_ChangeRequest" RENAME TO "ChangeRequest";
CREATE INDEX "ChangeRequest_spaceId_status_createdAt_id_idx" ON "ChangeRequest"("spaceId", "status", "createdAt", "id");
CREATE INDEX "ChangeRequest_createdById_idx" ON "ChangeRequest"("createdById");
CREATE UNIQUE INDEX "ChangeRequest_spaceId_number_key" ON "ChangeRequest"("spaceId", "number");
CREATE TABLE "new_ChangeRequestReview" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "changeRequestId" TEXT NOT NULL,
    "reviewerId" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "revisionId" TEXT NOT NULL,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "ChangeRequestReview_changeRequestId_fkey" FOREIGN KEY ("changeRequestId") REFERENCES "ChangeRequest" ("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "ChangeRequestReview_reviewerId_fkey" FOREIGN KEY ("reviewerId") REFERENCES "User" ("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "ChangeRequestReview_status_check" CHECK ("status" IN ('approved', 'changes-requested'))
);
INSERT INTO "new_ChangeRequestReview" ("changeRequestId", "createdAt", "id", "reviewerId", "revisionId", "status") SELECT "changeRequestId", "createdAt", "id", "reviewerId", "revisionId", "status" FROM "ChangeRequestReview";
DROP TABLE "ChangeRequestReview";
ALTER TABLE "new_ChangeRequestReview" RENAME TO "ChangeRequestReview";
CREATE INDEX "ChangeRequestReview_changeRequestId_createdAt_idx" ON "ChangeRequestReview"("changeRequestId", "createdAt");
CREATE TABLE "new_Site" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "organizationId" TEXT NOT NULL,
    "type" TEXT NOT NULL DEFAULT 'basic',
    "title" TEXT NOT NULL,
    "visibility" TEXT NOT NULL DEFAULT 'public',
    "published" BOOLEAN NOT NULL DEFAULT false,
    "publishedAt" DATETIME,
    "unpublishedAt" DATETIME,
    "basename" TEXT NOT NULL,
    "hostname" TEXT,
    "proxy" TEXT,
    "adaptiveContent" BOOLEAN NOT NULL DEFAULT false,
    "agentsContext" TEXT NOT NULL DEFAULT 'included',
    "adaptiveSchema" JSONB,
    "adaptiveSchemaUpdatedAt" DATETIME,
    "customizations" JSONB NOT NULL DEFAULT '{}',
    "defaultSectionId" TEXT,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL,
    CONSTRAINT "Site_organizationId_fkey" FOREIGN KEY ("organizationId") REFERENCES "Organization" ("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "Site_type_check" CHECK ("type" IN ('basic', 'premium', 'ultimate', 'sponsored', 'legacy-basic', 'legacy-premium')),
    CONSTRAINT "Site_visibility_check" CHECK ("visibility" IN ('public', 'unlisted', 'share-link', 'visitor-auth')),
    CONSTRAINT "Site_agentsContext_check" CHECK ("agentsContext" IN ('excluded', 'included'))
);
INSERT INTO "new_Site" ("adaptiveContent", "adaptiveSchema", "adaptiveSchemaUpdatedAt", "agentsContext", "basename", "createdAt", "customizations", "defaultSectionId", "hostname", "id", "organizationId", "proxy", "published", "publishedAt", "title", "type", "unpublishedAt", "updatedAt", "visibility") SELECT "adaptiveContent", json("adaptiveSchema"), "adaptiveSchemaUpdatedAt", "agentsContext", "basename", "createdAt", json("customizations"), "defaultSectionId", "hostname", "id", "organizationId", "proxy", "published", "publishedAt", "title", "type", "unpublishedAt", "updatedAt", "visibility" FROM "Site";
DROP TABLE "Site";
ALTER TABLE "new_Site" RENAME TO "Site";
CREATE UNIQUE INDEX "Site_hostname_key" ON "Site"("hostname");
CREATE INDEX "Site_organizationId_createdAt_id_idx" ON "Site"("organizationId", "createdAt", "id");
CREATE UNIQUE INDEX "Site_organizationId_basename_key" ON "Site"("organizationId", "basename");
CREATE TABLE "new_SiteSpace" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "siteId" TEXT NOT NULL,
    "sectionId" TEXT,
    "spaceId" TEXT NOT NULL,
    "path" TEXT NOT NULL,
    "condition" TEXT,
    "hidden" BOOLEAN NOT NULL DEFAULT false,
    "isDefault" BOOLEAN NOT NULL DEFAULT false,
    "position" REAL NOT NULL DEFAULT 0,
    "customizations" JSONB NOT NULL DEFAULT '{}',
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL,
    CONSTRAINT "SiteSpace_siteId_fkey" FOREIGN KEY ("siteId") REFERENCES "Site" ("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "SiteSpace_sectionId_fkey" FOREIGN KEY ("sectionId") REFERENCES "SiteSection" ("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "SiteSpace_spaceId_fkey" FOREIGN KEY ("spaceId") REFERENCES "Space" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);
INSERT INTO "new_SiteSpace" ("condition", "createdAt", "customizations", "hidden", "id", "isDefault", "path", "position", "sectionId", "siteId", "spaceId", "updatedAt") SELECT "condition", "createdAt", json("customizations"), "hidden", "id", "isDefault", "path", "position", "sectionId", "siteId", "spaceId", "updatedAt" FROM "SiteSpace";
DROP TABLE "SiteSpace";
ALTER TABLE "new_SiteSpace" RENAME TO "SiteSpace";
CREATE INDEX "SiteSpace_siteId_sectionId_position_id_idx" ON "SiteSpace"("siteId", "sectionId", "position", "id");
CREATE INDEX "SiteSpace_sectionId_position_id_idx" ON "SiteSpace"("sectionId", "position", "id");
CREATE INDEX "SiteSpace_spaceId_idx" ON "SiteSpace"("spaceId");
CREATE TABLE "new_Job" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "organizationId" TEXT NOT NULL,
    "spaceId" TEXT,
    "translationId" TEXT,
    "kind" TEXT NOT NULL,
    "state" TEXT NOT NULL DEFAULT 'queued',
    "step" TEXT,
    "percent" INTEGER NOT NULL DEFAULT 0,
    "message" TEXT,
    "input" JSONB NOT NULL DEFAULT '{}',
    "result" JSONB,
    "error" TEXT,
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "leaseOwner" TEXT,
    "leaseExpiresAt" DATETIME,
    "cancelRequested" BOOLEAN NOT NULL DEFAULT false,
    "createdById" TEXT,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "startedAt" DATETIME,
    "finishedAt" DATETIME,
    "updatedAt" DATETIME NOT NULL,
    CONSTRAINT "Job_organizationId_fkey" FOREIGN KEY ("organizationId") REFERENCES "Organization" ("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "Job_kind_check" CHECK ("kind" IN ('git-import', 'git-export', 'translation-run')),
    CONSTRAINT "Job_state_check" CHECK ("state" IN ('queued', 'running', 'succeeded', 'failed', 'cancelled'))
);
INSERT INTO "new_Job" ("attempts", "cancelRequested", "createdAt", "createdById", "error", "finishedAt", "id", "input", "kind", "leaseExpiresAt", "leaseOwner", "message", "organizationId", "percent", "result", "spaceId", "startedAt", "state", "step", "translationId", "updatedAt") SELECT "attempts", "cancelRequested", "createdAt", "createdById", "error", "finishedAt", "id", json("input"), "kind", "leaseExpiresAt", "leaseOwner", "message", "organizationId", "percent", json("result"), "spaceId", "startedAt", "state", "step", "translationId", "updatedAt" FROM "Job";
DROP TABLE "Job";
ALTER TABLE "new_Job" RENAME TO "Job";
CREATE INDEX "Job_state_createdAt_idx" ON "Job"("state", "createdAt");
CREATE INDEX "Job_organizationId_createdAt_id_idx" ON "Job"("organizationId", "createdAt", "id");
CREATE INDEX "Job_spaceId_createdAt_id_idx" ON "Job"("spaceId", "createdAt", "id");
CREATE INDEX "Job_translationId_createdAt_id_idx" ON "Job"("translationId", "createdAt", "id");
CREATE TABLE "new_GitSync" (
    "spaceId" TEXT NOT NULL PRIMARY KEY,
    "provider" TEXT NOT NULL DEFAULT 'git',
    "url" TEXT NOT NULL,
    "ref" TEXT NOT NULL,
    "projectDirectory" TEXT,
    "credentials" TEXT,
    "lastCommit" TEXT,
    "lastSyncFingerprint" TEXT,
    "lastSyncAt" DATETIME,
    "lastSyncKind" TEXT,
    "lastSyncStatus" TEXT,
    "lastSyncError" TEXT,
    "lastJobId" TEXT,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL,
    CONSTRAINT "GitSync_spaceId_fkey" FOREIGN KEY ("spaceId") REFERENCES "Space" ("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "GitSync_provider_check" CHECK ("provider" IN ('github', 'gitlab', 'bitbucket', 'git')),
    CONSTRAINT "GitSync_lastSyncKind_check" CHECK ("lastSyncKind" IN ('import', 'export')),
    CONSTRAINT "GitSync_lastSyncStatus_check" CHECK ("lastSyncStatus" IN ('queued', 'running', 'succeeded', 'failed', 'cancelled'))
);
INSERT INTO "new_GitSync" ("createdAt", "credentials", "lastCommit", "lastJobId", "lastSyncAt", "lastSyncError", "lastSyncFingerprint", "lastSyncKind", "lastSyncStatus", "projectDirectory", "provider", "ref", "spaceId", "updatedAt", "url") SELECT "createdAt", "credentials", "lastCommit", "lastJobId", "lastSyncAt", "lastSyncError", "lastSyncFingerprint", "lastSyncKind", "lastSyncStatus", "projectDirectory", "provider", "ref", "spaceId", "updatedAt", "url" FROM "GitSync";
DROP TABLE "GitSync";
ALTER TABLE "new_GitSync" RENAME TO "GitSync";
CREATE TABLE "new_Translation" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "organizationId" TEXT NOT NULL,
    "sourceSpaceId" TEXT NOT NULL,
    "sourceLanguage" TEXT,
    "language" TEXT NOT NULL,
    "targetSpaceId" TEXT NOT NULL,
    "instructions" JSONB NOT NULL DEFAULT '{"object":"document","data":{},"nodes":[]}',
    "resultRevisionId" TEXT,
    "runs" INTEGER NOT NULL DEFAULT 0,
    "totalWords" INTEGER NOT NULL DEFAULT 0,
    "totalPages" INTEGER NOT NULL DEFAULT 0,
    "totalDuration" INTEGER NOT NULL DEFAULT 0,
    "latestRunDuration" INTEGER NOT NULL DEFAULT 0,
    "latestPages" INTEGER NOT NULL DEFAULT 0,
    "latestWords" INTEGER NOT NULL DEFAULT 0,
    "createdById" TEXT,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL,
    CONSTRAINT "Translation_organizationId_fkey" FOREIGN KEY ("organizationId") REFERENCES "Organization" ("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "Translation_sourceLanguage_check" CHECK ("sourceLanguage" IN ('en', 'fr', 'de', 'es', 'it', 'pt', 'pt-br', 'ru', 'ja', 'zh', 'yue', 'ko', 'ar', 'hi', 'nl', 'pl', 'tr', 'sv', 'no', 'da', 'fi', 'el', 'cs', 'hu', 'ro', 'th', 'vi', 'id', 'ms', 'he', 'uk', 'sk', 'bg', 'hr', 'lt', 'lv', 'et', 'sl')),
    CONSTRAINT "Translation_language_check" CHECK ("language" IN ('en', 'fr', 'de', 'es', 'it', 'pt', 'pt-br', 'ru', 'ja', 'zh', 'yue', 'ko', 'ar', 'hi', 'nl', 'pl', 'tr', 'sv', 'no', 'da', 'fi', 'el', 'cs', 'hu', 'ro', 'th', 'vi', 'id', 'ms', 'he', 'uk', 'sk', 'bg', 'hr', 'lt', 'lv', 'et', 'sl'))
);
INSERT INTO "new_Translation" ("createdAt", "createdById", "id", "instructions", "language", "latestPages", "latestRunDuration", "latestWords", "organizationId", "resultRevisionId", "runs", "sourceLanguage", "sourceSpaceId", "targetSpaceId", "totalDuration", "totalPages", "totalWords", "updatedAt") SELECT "createdAt", "createdById", "id", json("instructions"), "language", "latestPages", "latestRunDuration", "latestWords", "organizationId", "resultRevisionId", "runs", "sourceLanguage", "sourceSpaceId", "targetSpaceId", "totalDuration", "totalPages", "totalWords", "updatedAt" FROM "Translation";
DROP TABLE "Translation";
ALTER TABLE "new_Translation" RENAME TO "Translation";
CREATE INDEX "Translation_organizationId_createdAt_id_idx" ON "Translation"("organizationId", "createdAt", "id");
CREATE UNIQUE INDEX "Translation_sourceSpaceId_language_key" ON "Translation"("sourceSpaceId", "language");
CREATE TABLE "new_TranslationSegment" (
    "hash" TEXT NOT NULL,
    "language" TEXT NOT NULL,
    "text" TEXT NOT NULL,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,

    PRIMARY KEY ("hash", "language"),
    CONSTRAINT "TranslationSegment_language_check" CHECK ("language" IN ('en', 'fr', 'de', 'es', 'it', 'pt', 'pt-br', 'ru', 'ja', 'zh', 'yue', 'ko', 'ar', 'hi', 'nl', 'pl', 'tr', 'sv', 'no', 'da', 'fi', 'el', 'cs', 'hu', 'ro', 'th', 'vi', 'id', 'ms', 'he', 'uk', 'sk', 'bg', 'hr', 'lt', 'lv', 'et', 'sl'))
);
INSERT INTO "new_TranslationSegment" ("createdAt", "hash", "language", "text") SELECT "createdAt", "hash", "language", "text" FROM "TranslationSegment";
DROP TABLE "TranslationSegment";
ALTER TABLE "new_TranslationSegment" RENAME TO "TranslationSegment";
PRAGMA foreign_keys=ON;
PRAGMA defer_foreign_keys=OFF;

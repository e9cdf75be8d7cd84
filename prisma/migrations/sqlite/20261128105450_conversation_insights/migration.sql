-- CreateTable
CREATE TABLE "Conversation" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "organizationId" TEXT NOT NULL,
    "source" TEXT NOT NULL,
    "externalId" TEXT NOT NULL,
    "subject" TEXT,
    "parts" JSONB NOT NULL,
    "metadata" JSONB NOT NULL DEFAULT '{}',
    "contentHash" TEXT NOT NULL,
    "createdAt" DATETIME NOT NULL,
    "ingestedAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "processedAt" DATETIME,
    "impact" TEXT,
    CONSTRAINT "Conversation_organizationId_fkey" FOREIGN KEY ("organizationId") REFERENCES "Organization" ("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "Conversation_impact_check" CHECK ("impact" IN ('low', 'medium', 'high'))
);

-- CreateTable
CREATE TABLE "ConversationIssue" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "organizationId" TEXT NOT NULL,
    "conversationId" TEXT NOT NULL,
    "clusterId" TEXT,
    "title" TEXT NOT NULL,
    "details" JSONB NOT NULL,
    "summary" TEXT NOT NULL,
    "impact" TEXT NOT NULL,
    "terms" JSONB NOT NULL,
    "createdAt" DATETIME NOT NULL,
    "ingestedAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "ConversationIssue_organizationId_fkey" FOREIGN KEY ("organizationId") REFERENCES "Organization" ("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "ConversationIssue_conversationId_fkey" FOREIGN KEY ("conversationId") REFERENCES "Conversation" ("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "ConversationIssue_clusterId_fkey" FOREIGN KEY ("clusterId") REFERENCES "IssuesCluster" ("id") ON DELETE SET NULL ON UPDATE CASCADE,
    CONSTRAINT "ConversationIssue_impact_check" CHECK ("impact" IN ('low', 'medium', 'high'))
);

-- CreateTable
CREATE TABLE "IssuesCluster" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "organizationId" TEXT NOT NULL,
    "label" TEXT NOT NULL,
    "icon" TEXT NOT NULL,
    "summary" JSONB NOT NULL,
    "impact" TEXT NOT NULL,
    "muted" BOOLEAN NOT NULL DEFAULT false,
    "centroid" JSONB NOT NULL,
    "issueCount" INTEGER NOT NULL DEFAULT 0,
    "conversationCount" INTEGER NOT NULL DEFAULT 0,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL,
    CONSTRAINT "IssuesCluster_organizationId_fkey" FOREIGN KEY ("organizationId") REFERENCES "Organization" ("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "IssuesCluster_impact_check" CHECK ("impact" IN ('low', 'medium', 'high'))
);

-- CreateTable
CREATE TABLE "ConversationInsightsState" (
    "organizationId" TEXT NOT NULL PRIMARY KEY,
    "corpus" JSONB NOT NULL DEFAULT '{}',
    "lockJobId" TEXT,
    "lockExpiresAt" DATETIME,
    CONSTRAINT "ConversationInsightsState_organizationId_fkey" FOREIGN KEY ("organizationId") REFERENCES "Organization" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- RedefineTables
PRAGMA defer_foreign_keys=ON;
PRAGMA foreign_keys=OFF;
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
    "conversationsIssuesClusterId" TEXT,
    CONSTRAINT "ChangeRequest_spaceId_fkey" FOREIGN KEY ("spaceId") REFERENCES "Space" ("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "ChangeRequest_createdById_fkey" FOREIGN KEY ("createdById") REFERENCES "User" ("id") ON DELETE RESTRICT ON UPDATE CASCADE,
    CONSTRAINT "ChangeRequest_conversationsIssuesClusterId_fkey" FOREIGN KEY ("conversationsIssuesClusterId") REFERENCES "IssuesCluster" ("id") ON DELETE SET NULL ON UPDATE CASCADE,
    CONSTRAINT "ChangeRequest_status_check" CHECK ("status" IN ('draft', 'open', 'merged', 'archived'))
);
INSERT INTO "new_ChangeRequest" ("createdAt", "createdById", "description", "id", "mergedAt", "number", "revisionId", "revisionInitialId", "revisionMergedAncestorId", "revisionMergedId", "spaceId", "status", "subject", "updatedAt") SELECT "createdAt", "createdById", "description", "id", "mergedAt", "number", "revisionId", "revisionInitialId", "revisionMergedAncestorId", "revisionMergedId", "spaceId", "status", "subject", "updatedAt" FROM "ChangeRequest";
DROP TABLE "ChangeRequest";
ALTER TABLE "new_ChangeRequest" RENAME TO "ChangeRequest";
CREATE INDEX "ChangeRequest_spaceId_status_createdAt_id_idx" ON "ChangeRequest"("spaceId", "status", "createdAt", "id");
CREATE INDEX "ChangeRequest_createdById_idx" ON "ChangeRequest"("createdById");
CREATE UNIQUE INDEX "ChangeRequest_spaceId_number_key" ON "ChangeRequest"("spaceId", "number");
PRAGMA foreign_keys=ON;
PRAGMA defer_foreign_keys=OFF;

-- CreateIndex
CREATE INDEX "Conversation_organizationId_ingestedAt_id_idx" ON "Conversation"("organizationId", "ingestedAt", "id");

-- CreateIndex
CREATE INDEX "Conversation_organizationId_source_ingestedAt_id_idx" ON "Conversation"("organizationId", "source", "ingestedAt", "id");

-- CreateIndex
CREATE INDEX "Conversation_organizationId_processedAt_idx" ON "Conversation"("organizationId", "processedAt");

-- CreateIndex
CREATE UNIQUE INDEX "Conversation_organizationId_source_externalId_key" ON "Conversation"("organizationId", "source", "externalId");

-- CreateIndex
CREATE INDEX "ConversationIssue_organizationId_ingestedAt_id_idx" ON "ConversationIssue"("organizationId", "ingestedAt", "id");

-- CreateIndex
CREATE INDEX "ConversationIssue_clusterId_createdAt_idx" ON "ConversationIssue"("clusterId", "createdAt");

-- CreateIndex
CREATE INDEX "ConversationIssue_conversationId_idx" ON "ConversationIssue"("conversationId");

-- CreateIndex
CREATE INDEX "IssuesCluster_organizationId_updatedAt_id_idx" ON "IssuesCluster"("organizationId", "updatedAt", "id");

-- CreateIndex
CREATE INDEX "IssuesCluster_organizationId_issueCount_id_idx" ON "IssuesCluster"("organizationId", "issueCount", "id");

-- CreateIndex
CREATE INDEX "IssuesCluster_organizationId_conversationCount_id_idx" ON "IssuesCluster"("organizationId", "conversationCount", "id");

-- The new job kind and token scopes (JOB_KINDS, TOKEN_SCOPES, src/db/value-sets.ts): the tables are
-- redefined by hand with their new CHECK constraints, as SQLite cannot alter one.
PRAGMA defer_foreign_keys=ON;
PRAGMA foreign_keys=OFF;
CREATE TABLE "new_Job" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "organizationId" TEXT NOT NULL,
    "spaceId" TEXT,
    "translationId" TEXT,
    "openAPISpecId" TEXT,
    "kind" TEXT NOT NULL,
    "state" TEXT NOT NULL DEFAULT 'queued',
    "step" TEXT,
    "percent" INTEGER NOT NULL DEFAULT 0,
    "message" TEXT,
    "input" JSONB NOT NULL DEFAULT '{}',
    "result" JSONB,
    "error" TEXT,
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "retries" INTEGER NOT NULL DEFAULT 0,
    "runAfter" DATETIME,
    "leaseOwner" TEXT,
    "leaseExpiresAt" DATETIME,
    "cancelRequested" BOOLEAN NOT NULL DEFAULT false,
    "eventSequence" INTEGER NOT NULL DEFAULT 0,
    "createdById" TEXT,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "startedAt" DATETIME,
    "finishedAt" DATETIME,
    "updatedAt" DATETIME NOT NULL,
    CONSTRAINT "Job_organizationId_fkey" FOREIGN KEY ("organizationId") REFERENCES "Organization" ("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "Job_kind_check" CHECK ("kind" IN ('git-import', 'git-export', 'translation-run', 'openapi-processing', 'conversation-processing', 'renderer-revalidation')),
    CONSTRAINT "Job_state_check" CHECK ("state" IN ('queued', 'running', 'succeeded', 'failed', 'cancelled'))
);
INSERT INTO "new_Job" ("attempts", "cancelRequested", "createdAt", "createdById", "error", "eventSequence", "finishedAt", "id", "input", "kind", "leaseExpiresAt", "leaseOwner", "message", "openAPISpecId", "organizationId", "percent", "result", "retries", "runAfter", "spaceId", "startedAt", "state", "step", "translationId", "updatedAt") SELECT "attempts", "cancelRequested", "createdAt", "createdById", "error", "eventSequence", "finishedAt", "id", "input", "kind", "leaseExpiresAt", "leaseOwner", "message", "openAPISpecId", "organizationId", "percent", "result", "retries", "runAfter", "spaceId", "startedAt", "state", "step", "translationId", "updatedAt" FROM "Job";
DROP TABLE "Job";
ALTER TABLE "new_Job" RENAME TO "Job";
CREATE INDEX "Job_state_createdAt_idx" ON "Job"("state", "createdAt");
CREATE INDEX "Job_organizationId_createdAt_id_idx" ON "Job"("organizationId", "createdAt", "id");
CREATE INDEX "Job_spaceId_createdAt_id_idx" ON "Job"("spaceId", "createdAt", "id");
CREATE INDEX "Job_translationId_createdAt_id_idx" ON "Job"("translationId", "createdAt", "id");
CREATE INDEX "Job_openAPISpecId_createdAt_id_idx" ON "Job"("openAPISpecId", "createdAt", "id");
CREATE TABLE "new_ApiTokenScope" (
    "tokenId" TEXT NOT NULL,
    "scope" TEXT NOT NULL,

    PRIMARY KEY ("tokenId", "scope"),
    CONSTRAINT "ApiTokenScope_tokenId_fkey" FOREIGN KEY ("tokenId") REFERENCES "ApiToken" ("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "ApiTokenScope_scope_check" CHECK ("scope" IN ('user:read', 'organization:read', 'organization:write', 'organization:members:read', 'organization:members:write', 'space:read', 'space:write', 'change-request:merge', 'site:read', 'site:write', 'site:publish', 'openapi:read', 'openapi:write', 'conversations:ingest'))
);
INSERT INTO "new_ApiTokenScope" ("tokenId", "scope") SELECT "tokenId", "scope" FROM "ApiTokenScope";
DROP TABLE "ApiTokenScope";
ALTER TABLE "new_ApiTokenScope" RENAME TO "ApiTokenScope";
PRAGMA foreign_keys=ON;
PRAGMA defer_foreign_keys=OFF;

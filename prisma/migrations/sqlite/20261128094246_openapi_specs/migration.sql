
-- CreateTable
CREATE TABLE "OpenAPISpec" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "organizationId" TEXT NOT NULL,
    "slug" TEXT NOT NULL,
    "sourceKind" TEXT NOT NULL,
    "sourceURL" TEXT,
    "sourceTextKey" TEXT,
    "visibility" TEXT NOT NULL DEFAULT 'private',
    "processingState" TEXT NOT NULL DEFAULT 'pending',
    "lastVersionId" TEXT,
    "lastProcessedAt" DATETIME,
    "lastProcessErrorCode" TEXT,
    "lastProcessedErrors" JSONB NOT NULL DEFAULT '[]',
    "lastProcessedErrorCount" INTEGER NOT NULL DEFAULT 0,
    "processingJobId" TEXT,
    "createdById" TEXT,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL,
    CONSTRAINT "OpenAPISpec_organizationId_fkey" FOREIGN KEY ("organizationId") REFERENCES "Organization" ("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "OpenAPISpec_sourceKind_check" CHECK ("sourceKind" IN ('url', 'text')),
    CONSTRAINT "OpenAPISpec_visibility_check" CHECK ("visibility" IN ('private', 'public')),
    CONSTRAINT "OpenAPISpec_processingState_check" CHECK ("processingState" IN ('pending', 'progress', 'complete')),
    CONSTRAINT "OpenAPISpec_lastProcessErrorCode_check" CHECK ("lastProcessErrorCode" IN ('FETCH_TIMEOUT', 'FETCH_ERROR', 'PARSE_ERROR'))
);

-- CreateTable
CREATE TABLE "OpenAPISpecVersion" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "specId" TEXT NOT NULL,
    "contentHash" TEXT NOT NULL,
    "sourceURL" TEXT,
    "files" JSONB NOT NULL,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "OpenAPISpecVersion_specId_fkey" FOREIGN KEY ("specId") REFERENCES "OpenAPISpec" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateIndex
CREATE INDEX "OpenAPISpec_organizationId_createdAt_id_idx" ON "OpenAPISpec"("organizationId", "createdAt", "id");

-- CreateIndex
CREATE UNIQUE INDEX "OpenAPISpec_organizationId_slug_key" ON "OpenAPISpec"("organizationId", "slug");

-- CreateIndex
CREATE INDEX "OpenAPISpecVersion_specId_createdAt_id_idx" ON "OpenAPISpecVersion"("specId", "createdAt", "id");


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
    CONSTRAINT "Job_kind_check" CHECK ("kind" IN ('git-import', 'git-export', 'translation-run', 'openapi-processing', 'renderer-revalidation')),
    CONSTRAINT "Job_state_check" CHECK ("state" IN ('queued', 'running', 'succeeded', 'failed', 'cancelled'))
);
INSERT INTO "new_Job" ("attempts", "cancelRequested", "createdAt", "createdById", "error", "eventSequence", "finishedAt", "id", "input", "kind", "leaseExpiresAt", "leaseOwner", "message", "organizationId", "percent", "result", "spaceId", "startedAt", "state", "step", "translationId", "updatedAt") SELECT "attempts", "cancelRequested", "createdAt", "createdById", "error", "eventSequence", "finishedAt", "id", "input", "kind", "leaseExpiresAt", "leaseOwner", "message", "organizationId", "percent", "result", "spaceId", "startedAt", "state", "step", "translationId", "updatedAt" FROM "Job";
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
    CONSTRAINT "ApiTokenScope_scope_check" CHECK ("scope" IN ('user:read', 'organization:read', 'organization:write', 'organization:members:read', 'organization:members:write', 'space:read', 'space:write', 'change-request:merge', 'site:read', 'site:write', 'site:publish', 'openapi:read', 'openapi:write'))
);
INSERT INTO "new_ApiTokenScope" ("tokenId", "scope") SELECT "tokenId", "scope" FROM "ApiTokenScope";
DROP TABLE "ApiTokenScope";
ALTER TABLE "new_ApiTokenScope" RENAME TO "ApiTokenScope";
PRAGMA foreign_keys=ON;
PRAGMA defer_foreign_keys=OFF;

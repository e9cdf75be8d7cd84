-- AlterTable
ALTER TABLE "Job" ADD COLUMN     "openAPISpecId" TEXT;

-- CreateTable
CREATE TABLE "OpenAPISpec" (
    "id" TEXT NOT NULL,
    "organizationId" TEXT NOT NULL,
    "slug" TEXT NOT NULL,
    "sourceKind" TEXT NOT NULL,
    "sourceURL" TEXT,
    "sourceTextKey" TEXT,
    "visibility" TEXT NOT NULL DEFAULT 'private',
    "processingState" TEXT NOT NULL DEFAULT 'pending',
    "lastVersionId" TEXT,
    "lastProcessedAt" TIMESTAMP(3),
    "lastProcessErrorCode" TEXT,
    "lastProcessedErrors" JSONB NOT NULL DEFAULT '[]',
    "lastProcessedErrorCount" INTEGER NOT NULL DEFAULT 0,
    "processingJobId" TEXT,
    "createdById" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "OpenAPISpec_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "OpenAPISpec_sourceKind_check" CHECK ("sourceKind" IN ('url', 'text')),
    CONSTRAINT "OpenAPISpec_visibility_check" CHECK ("visibility" IN ('private', 'public')),
    CONSTRAINT "OpenAPISpec_processingState_check" CHECK ("processingState" IN ('pending', 'progress', 'complete')),
    CONSTRAINT "OpenAPISpec_lastProcessErrorCode_check" CHECK ("lastProcessErrorCode" IN ('FETCH_TIMEOUT', 'FETCH_ERROR', 'PARSE_ERROR'))
);

-- CreateTable
CREATE TABLE "OpenAPISpecVersion" (
    "id" TEXT NOT NULL,
    "specId" TEXT NOT NULL,
    "contentHash" TEXT NOT NULL,
    "sourceURL" TEXT,
    "files" JSONB NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "OpenAPISpecVersion_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "OpenAPISpec_organizationId_createdAt_id_idx" ON "OpenAPISpec"("organizationId", "createdAt", "id");

-- CreateIndex
CREATE UNIQUE INDEX "OpenAPISpec_organizationId_slug_key" ON "OpenAPISpec"("organizationId", "slug");

-- CreateIndex
CREATE INDEX "OpenAPISpecVersion_specId_createdAt_id_idx" ON "OpenAPISpecVersion"("specId", "createdAt", "id");

-- CreateIndex
CREATE INDEX "Job_openAPISpecId_createdAt_id_idx" ON "Job"("openAPISpecId", "createdAt", "id");

-- AddForeignKey
ALTER TABLE "OpenAPISpec" ADD CONSTRAINT "OpenAPISpec_organizationId_fkey" FOREIGN KEY ("organizationId") REFERENCES "Organization"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "OpenAPISpecVersion" ADD CONSTRAINT "OpenAPISpecVersion_specId_fkey" FOREIGN KEY ("specId") REFERENCES "OpenAPISpec"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- The new job kind and token scopes (JOB_KINDS, TOKEN_SCOPES, src/db/value-sets.ts): written by hand, Prisma does not model CHECK constraints.
ALTER TABLE "Job" DROP CONSTRAINT "Job_kind_check",
    ADD CONSTRAINT "Job_kind_check" CHECK ("kind" IN ('git-import', 'git-export', 'translation-run', 'openapi-processing', 'renderer-revalidation'));
ALTER TABLE "ApiTokenScope" DROP CONSTRAINT "ApiTokenScope_scope_check",
    ADD CONSTRAINT "ApiTokenScope_scope_check" CHECK ("scope" IN ('user:read', 'organization:read', 'organization:write', 'organization:members:read', 'organization:members:write', 'space:read', 'space:write', 'change-request:merge', 'site:read', 'site:write', 'site:publish', 'openapi:read', 'openapi:write'));

-- CreateTable
CREATE TABLE "Job" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "organizationId" TEXT NOT NULL,
    "spaceId" TEXT,
    "translationId" TEXT,
    "kind" TEXT NOT NULL,
    "state" TEXT NOT NULL DEFAULT 'queued',
    "step" TEXT,
    "percent" INTEGER NOT NULL DEFAULT 0,
    "message" TEXT,
    "input" TEXT NOT NULL DEFAULT '{}',
    "result" TEXT,
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
    CONSTRAINT "Job_organizationId_fkey" FOREIGN KEY ("organizationId") REFERENCES "Organization" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "GitSync" (
    "spaceId" TEXT NOT NULL PRIMARY KEY,
    "provider" TEXT NOT NULL DEFAULT 'git',
    "url" TEXT NOT NULL,
    "ref" TEXT NOT NULL,
    "projectDirectory" TEXT,
    "credentials" TEXT,
    "lastCommit" TEXT,
    "lastSyncAt" DATETIME,
    "lastSyncKind" TEXT,
    "lastSyncStatus" TEXT,
    "lastSyncError" TEXT,
    "lastJobId" TEXT,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL,
    CONSTRAINT "GitSync_spaceId_fkey" FOREIGN KEY ("spaceId") REFERENCES "Space" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "Translation" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "organizationId" TEXT NOT NULL,
    "sourceSpaceId" TEXT NOT NULL,
    "sourceLanguage" TEXT,
    "language" TEXT NOT NULL,
    "targetSpaceId" TEXT NOT NULL,
    "instructions" TEXT NOT NULL DEFAULT '{"object":"document","data":{},"nodes":[]}',
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
    CONSTRAINT "Translation_organizationId_fkey" FOREIGN KEY ("organizationId") REFERENCES "Organization" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "TranslationSegment" (
    "hash" TEXT NOT NULL,
    "language" TEXT NOT NULL,
    "text" TEXT NOT NULL,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,

    PRIMARY KEY ("hash", "language")
);

-- CreateIndex
CREATE INDEX "Job_state_createdAt_idx" ON "Job"("state", "createdAt");

-- CreateIndex
CREATE INDEX "Job_organizationId_createdAt_id_idx" ON "Job"("organizationId", "createdAt", "id");

-- CreateIndex
CREATE INDEX "Job_spaceId_createdAt_id_idx" ON "Job"("spaceId", "createdAt", "id");

-- CreateIndex
CREATE INDEX "Job_translationId_createdAt_id_idx" ON "Job"("translationId", "createdAt", "id");

-- CreateIndex
CREATE INDEX "Translation_organizationId_createdAt_id_idx" ON "Translation"("organizationId", "createdAt", "id");

-- CreateIndex
CREATE UNIQUE INDEX "Translation_sourceSpaceId_language_key" ON "Translation"("sourceSpaceId", "language");

-- CreateTable
CREATE TABLE "Job" (
    "id" TEXT NOT NULL,
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
    "leaseExpiresAt" TIMESTAMP(3),
    "cancelRequested" BOOLEAN NOT NULL DEFAULT false,
    "createdById" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "startedAt" TIMESTAMP(3),
    "finishedAt" TIMESTAMP(3),
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "Job_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "GitSync" (
    "spaceId" TEXT NOT NULL,
    "provider" TEXT NOT NULL DEFAULT 'git',
    "url" TEXT NOT NULL,
    "ref" TEXT NOT NULL,
    "projectDirectory" TEXT,
    "credentials" TEXT,
    "lastCommit" TEXT,
    "lastSyncAt" TIMESTAMP(3),
    "lastSyncKind" TEXT,
    "lastSyncStatus" TEXT,
    "lastSyncError" TEXT,
    "lastJobId" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "GitSync_pkey" PRIMARY KEY ("spaceId")
);

-- CreateTable
CREATE TABLE "Translation" (
    "id" TEXT NOT NULL,
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
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "Translation_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "TranslationSegment" (
    "hash" TEXT NOT NULL,
    "language" TEXT NOT NULL,
    "text" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "TranslationSegment_pkey" PRIMARY KEY ("hash","language")
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

-- AddForeignKey
ALTER TABLE "Job" ADD CONSTRAINT "Job_organizationId_fkey" FOREIGN KEY ("organizationId") REFERENCES "Organization"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "GitSync" ADD CONSTRAINT "GitSync_spaceId_fkey" FOREIGN KEY ("spaceId") REFERENCES "Space"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Translation" ADD CONSTRAINT "Translation_organizationId_fkey" FOREIGN KEY ("organizationId") REFERENCES "Organization"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- RedefineTables
PRAGMA defer_foreign_keys=ON;
PRAGMA foreign_keys=OFF;
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
    CONSTRAINT "Job_kind_check" CHECK ("kind" IN ('git-import', 'git-export', 'translation-run', 'renderer-revalidation')),
    CONSTRAINT "Job_state_check" CHECK ("state" IN ('queued', 'running', 'succeeded', 'failed', 'cancelled'))
);
INSERT INTO "new_Job" ("attempts", "cancelRequested", "createdAt", "createdById", "error", "eventSequence", "finishedAt", "id", "input", "kind", "leaseExpiresAt", "leaseOwner", "message", "organizationId", "percent", "result", "spaceId", "startedAt", "state", "step", "translationId", "updatedAt") SELECT "attempts", "cancelRequested", "createdAt", "createdById", "error", "eventSequence", "finishedAt", "id", "input", "kind", "leaseExpiresAt", "leaseOwner", "message", "organizationId", "percent", "result", "spaceId", "startedAt", "state", "step", "translationId", "updatedAt" FROM "Job";
DROP TABLE "Job";
ALTER TABLE "new_Job" RENAME TO "Job";
CREATE INDEX "Job_state_createdAt_idx" ON "Job"("state", "createdAt");
CREATE INDEX "Job_organizationId_createdAt_id_idx" ON "Job"("organizationId", "createdAt", "id");
CREATE INDEX "Job_spaceId_createdAt_id_idx" ON "Job"("spaceId", "createdAt", "id");
CREATE INDEX "Job_translationId_createdAt_id_idx" ON "Job"("translationId", "createdAt", "id");
PRAGMA foreign_keys=ON;
PRAGMA defer_foreign_keys=OFF;

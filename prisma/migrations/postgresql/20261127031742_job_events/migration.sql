-- AlterTable
ALTER TABLE "Job" ADD COLUMN     "eventSequence" INTEGER NOT NULL DEFAULT 0;

-- CreateTable
CREATE TABLE "JobEvent" (
    "jobId" TEXT NOT NULL,
    "sequence" INTEGER NOT NULL,
    "state" TEXT NOT NULL,
    "step" TEXT,
    "percent" INTEGER NOT NULL,
    "message" TEXT,
    "error" TEXT,
    "at" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "JobEvent_pkey" PRIMARY KEY ("jobId","sequence"),
    CONSTRAINT "JobEvent_state_check" CHECK ("state" IN ('queued', 'running', 'succeeded', 'failed', 'cancelled'))
);

-- AddForeignKey
ALTER TABLE "JobEvent" ADD CONSTRAINT "JobEvent_jobId_fkey" FOREIGN KEY ("jobId") REFERENCES "Job"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Backfill: a job written before this migration gets one event, its state then.
INSERT INTO "JobEvent" ("jobId", "sequence", "state", "step", "percent", "message", "error", "at")
SELECT "id", 1, "state", "step", "percent", "message", "error", "updatedAt" FROM "Job";
UPDATE "Job" SET "eventSequence" = 1;

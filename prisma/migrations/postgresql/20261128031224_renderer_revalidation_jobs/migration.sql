-- AlterTable
ALTER TABLE "Job" ADD COLUMN     "retries" INTEGER NOT NULL DEFAULT 0,
ADD COLUMN     "runAfter" TIMESTAMP(3);

-- The new job kind (JOB_KINDS, src/db/value-sets.ts): written by hand, Prisma does not model CHECK constraints.
ALTER TABLE "Job" DROP CONSTRAINT "Job_kind_check",
    ADD CONSTRAINT "Job_kind_check" CHECK ("kind" IN ('git-import', 'git-export', 'translation-run', 'renderer-revalidation'));

-- AlterTable
ALTER TABLE "IssuesCluster" ADD COLUMN     "embedding" JSONB;

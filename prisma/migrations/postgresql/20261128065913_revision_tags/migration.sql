-- AlterTable
ALTER TABLE "Revision" ADD COLUMN     "tags" JSONB NOT NULL DEFAULT '[]';

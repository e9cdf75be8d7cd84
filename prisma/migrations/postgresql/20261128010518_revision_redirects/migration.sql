-- AlterTable
ALTER TABLE "Revision" ADD COLUMN     "redirects" JSONB NOT NULL DEFAULT '[]';

-- DropForeignKey
ALTER TABLE "RevisionPage" DROP CONSTRAINT "RevisionPage_revisionId_fkey";

-- DropForeignKey
ALTER TABLE "RevisionPage" DROP CONSTRAINT "RevisionPage_documentHash_fkey";

-- DropForeignKey
ALTER TABLE "RevisionFile" DROP CONSTRAINT "RevisionFile_revisionId_fkey";

-- DropTable
DROP TABLE "RevisionPage";

-- DropTable
DROP TABLE "RevisionFile";

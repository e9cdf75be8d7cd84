-- AlterTable
ALTER TABLE "Revision" ADD COLUMN     "fileChunks" JSONB NOT NULL DEFAULT '[]',
ADD COLUMN     "pageChunks" JSONB NOT NULL DEFAULT '[]';

-- CreateTable
CREATE TABLE "RevisionChunk" (
    "hash" TEXT NOT NULL,
    "entries" JSONB NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "RevisionChunk_pkey" PRIMARY KEY ("hash")
);

-- CreateTable
CREATE TABLE "RevisionGit" (
    "revisionId" TEXT NOT NULL,
    "oid" TEXT NOT NULL,
    "message" TEXT NOT NULL,
    "createdByService" BOOLEAN NOT NULL,
    "url" TEXT,
    "ref" TEXT NOT NULL,
    "blobs" JSONB NOT NULL,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "RevisionGit_pkey" PRIMARY KEY ("revisionId")
);

-- AddForeignKey
ALTER TABLE "RevisionGit" ADD CONSTRAINT "RevisionGit_revisionId_fkey" FOREIGN KEY ("revisionId") REFERENCES "Revision"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- CreateTable
CREATE TABLE "RevisionGit" (
    "revisionId" TEXT NOT NULL PRIMARY KEY,
    "oid" TEXT NOT NULL,
    "message" TEXT NOT NULL,
    "createdByService" BOOLEAN NOT NULL,
    "url" TEXT,
    "ref" TEXT NOT NULL,
    "blobs" JSONB NOT NULL,
    "updatedAt" DATETIME NOT NULL,
    CONSTRAINT "RevisionGit_revisionId_fkey" FOREIGN KEY ("revisionId") REFERENCES "Revision" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

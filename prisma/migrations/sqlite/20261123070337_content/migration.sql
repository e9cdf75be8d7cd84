-- CreateTable
CREATE TABLE "RevisionPage" (
    "revisionId" TEXT NOT NULL,
    "pageId" TEXT NOT NULL,
    "parentPageId" TEXT,
    "index" INTEGER NOT NULL,
    "kind" TEXT NOT NULL,
    "title" TEXT NOT NULL,
    "slug" TEXT NOT NULL,
    "path" TEXT NOT NULL,
    "description" TEXT,
    "emoji" TEXT,
    "icon" TEXT,
    "hidden" BOOLEAN NOT NULL DEFAULT false,
    "documentHash" TEXT,
    "linkTarget" TEXT,
    "layout" TEXT,
    "createdAt" DATETIME NOT NULL,
    "updatedAt" DATETIME NOT NULL,

    PRIMARY KEY ("revisionId", "pageId"),
    CONSTRAINT "RevisionPage_revisionId_fkey" FOREIGN KEY ("revisionId") REFERENCES "Revision" ("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "RevisionPage_documentHash_fkey" FOREIGN KEY ("documentHash") REFERENCES "ContentDocument" ("hash") ON DELETE RESTRICT ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "ContentDocument" (
    "hash" TEXT NOT NULL PRIMARY KEY,
    "json" TEXT NOT NULL,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP
);

-- CreateTable
CREATE TABLE "DocumentReference" (
    "documentHash" TEXT NOT NULL,
    "targetKind" TEXT NOT NULL,
    "target" TEXT NOT NULL,
    "nodeKey" TEXT,

    PRIMARY KEY ("documentHash", "targetKind", "target"),
    CONSTRAINT "DocumentReference_documentHash_fkey" FOREIGN KEY ("documentHash") REFERENCES "ContentDocument" ("hash") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "RevisionFile" (
    "revisionId" TEXT NOT NULL,
    "fileId" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "contentType" TEXT NOT NULL,
    "size" INTEGER NOT NULL,
    "storageKey" TEXT NOT NULL,
    "width" INTEGER,
    "height" INTEGER,

    PRIMARY KEY ("revisionId", "fileId"),
    CONSTRAINT "RevisionFile_revisionId_fkey" FOREIGN KEY ("revisionId") REFERENCES "Revision" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "ChangeRequest" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "spaceId" TEXT NOT NULL,
    "number" INTEGER NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'draft',
    "subject" TEXT NOT NULL DEFAULT '',
    "description" TEXT,
    "createdById" TEXT NOT NULL,
    "revisionId" TEXT NOT NULL,
    "revisionInitialId" TEXT NOT NULL,
    "revisionMergedAncestorId" TEXT,
    "revisionMergedId" TEXT,
    "mergedAt" DATETIME,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL,
    CONSTRAINT "ChangeRequest_spaceId_fkey" FOREIGN KEY ("spaceId") REFERENCES "Space" ("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "ChangeRequest_createdById_fkey" FOREIGN KEY ("createdById") REFERENCES "User" ("id") ON DELETE RESTRICT ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "ChangeRequestContributor" (
    "changeRequestId" TEXT NOT NULL,
    "userId" TEXT NOT NULL,
    "updatedAt" DATETIME NOT NULL,

    PRIMARY KEY ("changeRequestId", "userId"),
    CONSTRAINT "ChangeRequestContributor_changeRequestId_fkey" FOREIGN KEY ("changeRequestId") REFERENCES "ChangeRequest" ("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "ChangeRequestContributor_userId_fkey" FOREIGN KEY ("userId") REFERENCES "User" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "ChangeRequestReview" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "changeRequestId" TEXT NOT NULL,
    "reviewerId" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "revisionId" TEXT NOT NULL,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "ChangeRequestReview_changeRequestId_fkey" FOREIGN KEY ("changeRequestId") REFERENCES "ChangeRequest" ("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "ChangeRequestReview_reviewerId_fkey" FOREIGN KEY ("reviewerId") REFERENCES "User" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- RedefineTables
PRAGMA defer_foreign_keys=ON;
PRAGMA foreign_keys=OFF;
CREATE TABLE "new_Space" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "organizationId" TEXT NOT NULL,
    "parentId" TEXT,
    "title" TEXT NOT NULL DEFAULT '',
    "emoji" TEXT NOT NULL DEFAULT '',
    "visibility" TEXT NOT NULL DEFAULT 'private',
    "editMode" TEXT NOT NULL DEFAULT 'live',
    "defaultLevel" TEXT DEFAULT 'inherit',
    "language" TEXT,
    "mergeRules" TEXT NOT NULL DEFAULT '{"type":"inherit"}',
    "position" REAL NOT NULL DEFAULT 0,
    "revisionId" TEXT NOT NULL,
    "lastChangeRequestNumber" INTEGER NOT NULL DEFAULT 0,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL,
    "deletedAt" DATETIME,
    CONSTRAINT "Space_organizationId_fkey" FOREIGN KEY ("organizationId") REFERENCES "Organization" ("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "Space_parentId_fkey" FOREIGN KEY ("parentId") REFERENCES "Collection" ("id") ON DELETE SET NULL ON UPDATE CASCADE
);
INSERT INTO "new_Space" ("createdAt", "defaultLevel", "deletedAt", "editMode", "emoji", "id", "language", "mergeRules", "organizationId", "parentId", "position", "revisionId", "title", "updatedAt", "visibility") SELECT "createdAt", "defaultLevel", "deletedAt", "editMode", "emoji", "id", "language", "mergeRules", "organizationId", "parentId", "position", "revisionId", "title", "updatedAt", "visibility" FROM "Space";
DROP TABLE "Space";
ALTER TABLE "new_Space" RENAME TO "Space";
CREATE INDEX "Space_organizationId_deletedAt_createdAt_id_idx" ON "Space"("organizationId", "deletedAt", "createdAt", "id");
CREATE INDEX "Space_parentId_position_id_idx" ON "Space"("parentId", "position", "id");
CREATE INDEX "Space_deletedAt_idx" ON "Space"("deletedAt");
CREATE TABLE "new_Revision" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "spaceId" TEXT NOT NULL,
    "parentId" TEXT,
    "mergedParentId" TEXT,
    "type" TEXT NOT NULL DEFAULT 'edits',
    "changeRequestId" TEXT,
    "createdById" TEXT,
    "variables" TEXT NOT NULL DEFAULT '{}',
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "Revision_spaceId_fkey" FOREIGN KEY ("spaceId") REFERENCES "Space" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);
INSERT INTO "new_Revision" ("createdAt", "id", "parentId", "spaceId") SELECT "createdAt", "id", "parentId", "spaceId" FROM "Revision";
DROP TABLE "Revision";
ALTER TABLE "new_Revision" RENAME TO "Revision";
CREATE INDEX "Revision_spaceId_idx" ON "Revision"("spaceId");
PRAGMA foreign_keys=ON;
PRAGMA defer_foreign_keys=OFF;

-- CreateIndex
CREATE INDEX "RevisionPage_revisionId_parentPageId_index_idx" ON "RevisionPage"("revisionId", "parentPageId", "index");

-- CreateIndex
CREATE INDEX "RevisionPage_revisionId_path_idx" ON "RevisionPage"("revisionId", "path");

-- CreateIndex
CREATE INDEX "RevisionPage_documentHash_idx" ON "RevisionPage"("documentHash");

-- CreateIndex
CREATE INDEX "DocumentReference_targetKind_target_idx" ON "DocumentReference"("targetKind", "target");

-- CreateIndex
CREATE INDEX "ChangeRequest_spaceId_status_createdAt_id_idx" ON "ChangeRequest"("spaceId", "status", "createdAt", "id");

-- CreateIndex
CREATE INDEX "ChangeRequest_createdById_idx" ON "ChangeRequest"("createdById");

-- CreateIndex
CREATE UNIQUE INDEX "ChangeRequest_spaceId_number_key" ON "ChangeRequest"("spaceId", "number");

-- CreateIndex
CREATE INDEX "ChangeRequestContributor_userId_idx" ON "ChangeRequestContributor"("userId");

-- CreateIndex
CREATE INDEX "ChangeRequestReview_changeRequestId_createdAt_idx" ON "ChangeRequestReview"("changeRequestId", "createdAt");

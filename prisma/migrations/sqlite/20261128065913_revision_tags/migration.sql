-- RedefineTables
PRAGMA defer_foreign_keys=ON;
PRAGMA foreign_keys=OFF;
CREATE TABLE "new_Revision" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "spaceId" TEXT NOT NULL,
    "parentId" TEXT,
    "mergedParentId" TEXT,
    "type" TEXT NOT NULL DEFAULT 'edits',
    "changeRequestId" TEXT,
    "createdById" TEXT,
    "variables" JSONB NOT NULL DEFAULT '{}',
    "pageChunks" JSONB NOT NULL DEFAULT '[]',
    "fileChunks" JSONB NOT NULL DEFAULT '[]',
    "reusableContents" JSONB NOT NULL DEFAULT '[]',
    "redirects" JSONB NOT NULL DEFAULT '[]',
    "tags" JSONB NOT NULL DEFAULT '[]',
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "Revision_spaceId_fkey" FOREIGN KEY ("spaceId") REFERENCES "Space" ("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "Revision_type_check" CHECK ("type" IN ('edits', 'merge', 'rollback', 'update'))
);
INSERT INTO "new_Revision" ("changeRequestId", "createdAt", "createdById", "fileChunks", "id", "mergedParentId", "pageChunks", "parentId", "redirects", "reusableContents", "spaceId", "type", "variables") SELECT "changeRequestId", "createdAt", "createdById", "fileChunks", "id", "mergedParentId", "pageChunks", "parentId", "redirects", "reusableContents", "spaceId", "type", "variables" FROM "Revision";
DROP TABLE "Revision";
ALTER TABLE "new_Revision" RENAME TO "Revision";
CREATE INDEX "Revision_spaceId_idx" ON "Revision"("spaceId");
PRAGMA foreign_keys=ON;
PRAGMA defer_foreign_keys=OFF;

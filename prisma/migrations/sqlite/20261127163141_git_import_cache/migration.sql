-- CreateTable
CREATE TABLE "GitImportCache" (
    "spaceId" TEXT NOT NULL PRIMARY KEY,
    "entries" JSONB NOT NULL,
    "updatedAt" DATETIME NOT NULL,
    CONSTRAINT "GitImportCache_spaceId_fkey" FOREIGN KEY ("spaceId") REFERENCES "Space" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "SiteRedirect" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "siteId" TEXT NOT NULL,
    "source" TEXT NOT NULL,
    "destination" JSONB NOT NULL,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL,
    CONSTRAINT "SiteRedirect_siteId_fkey" FOREIGN KEY ("siteId") REFERENCES "Site" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateIndex
CREATE INDEX "SiteRedirect_siteId_createdAt_id_idx" ON "SiteRedirect"("siteId", "createdAt", "id");

-- CreateIndex
CREATE UNIQUE INDEX "SiteRedirect_siteId_source_key" ON "SiteRedirect"("siteId", "source");

-- CreateTable
CREATE TABLE "GitImportCache" (
    "spaceId" TEXT NOT NULL,
    "entries" JSONB NOT NULL,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "GitImportCache_pkey" PRIMARY KEY ("spaceId")
);

-- AddForeignKey
ALTER TABLE "GitImportCache" ADD CONSTRAINT "GitImportCache_spaceId_fkey" FOREIGN KEY ("spaceId") REFERENCES "Space"("id") ON DELETE CASCADE ON UPDATE CASCADE;

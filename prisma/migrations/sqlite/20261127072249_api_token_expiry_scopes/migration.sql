-- AlterTable
ALTER TABLE "ApiToken" ADD COLUMN "expiresAt" DATETIME;

-- CreateTable
CREATE TABLE "ApiTokenScope" (
    "tokenId" TEXT NOT NULL,
    "scope" TEXT NOT NULL,

    PRIMARY KEY ("tokenId", "scope"),
    CONSTRAINT "ApiTokenScope_tokenId_fkey" FOREIGN KEY ("tokenId") REFERENCES "ApiToken" ("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "ApiTokenScope_scope_check" CHECK ("scope" IN ('user:read', 'organization:read', 'organization:write', 'organization:members:read', 'organization:members:write', 'space:read', 'space:write', 'change-request:merge', 'site:read', 'site:write', 'site:publish'))
);

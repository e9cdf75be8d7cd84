-- AlterTable
ALTER TABLE "ApiToken" ADD COLUMN     "expiresAt" TIMESTAMP(3);

-- CreateTable
CREATE TABLE "ApiTokenScope" (
    "tokenId" TEXT NOT NULL,
    "scope" TEXT NOT NULL,

    CONSTRAINT "ApiTokenScope_pkey" PRIMARY KEY ("tokenId","scope"),
    CONSTRAINT "ApiTokenScope_scope_check" CHECK ("scope" IN ('user:read', 'organization:read', 'organization:write', 'organization:members:read', 'organization:members:write', 'space:read', 'space:write', 'change-request:merge', 'site:read', 'site:write', 'site:publish'))
);

-- AddForeignKey
ALTER TABLE "ApiTokenScope" ADD CONSTRAINT "ApiTokenScope_tokenId_fkey" FOREIGN KEY ("tokenId") REFERENCES "ApiToken"("id") ON DELETE CASCADE ON UPDATE CASCADE;

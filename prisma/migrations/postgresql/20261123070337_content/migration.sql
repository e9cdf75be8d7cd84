-- AlterTable
ALTER TABLE "Space" ADD COLUMN     "lastChangeRequestNumber" INTEGER NOT NULL DEFAULT 0;

-- AlterTable
ALTER TABLE "Revision" ADD COLUMN     "changeRequestId" TEXT,
ADD COLUMN     "createdById" TEXT,
ADD COLUMN     "mergedParentId" TEXT,
ADD COLUMN     "type" TEXT NOT NULL DEFAULT 'edits',
ADD COLUMN     "variables" TEXT NOT NULL DEFAULT '{}';

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
    "createdAt" TIMESTAMP(3) NOT NULL,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "RevisionPage_pkey" PRIMARY KEY ("revisionId","pageId")
);

-- CreateTable
CREATE TABLE "ContentDocument" (
    "hash" TEXT NOT NULL,
    "json" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "ContentDocument_pkey" PRIMARY KEY ("hash")
);

-- CreateTable
CREATE TABLE "DocumentReference" (
    "documentHash" TEXT NOT NULL,
    "targetKind" TEXT NOT NULL,
    "target" TEXT NOT NULL,
    "nodeKey" TEXT,

    CONSTRAINT "DocumentReference_pkey" PRIMARY KEY ("documentHash","targetKind","target")
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

    CONSTRAINT "RevisionFile_pkey" PRIMARY KEY ("revisionId","fileId")
);

-- CreateTable
CREATE TABLE "ChangeRequest" (
    "id" TEXT NOT NULL,
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
    "mergedAt" TIMESTAMP(3),
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "ChangeRequest_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "ChangeRequestContributor" (
    "changeRequestId" TEXT NOT NULL,
    "userId" TEXT NOT NULL,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "ChangeRequestContributor_pkey" PRIMARY KEY ("changeRequestId","userId")
);

-- CreateTable
CREATE TABLE "ChangeRequestReview" (
    "id" TEXT NOT NULL,
    "changeRequestId" TEXT NOT NULL,
    "reviewerId" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "revisionId" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "ChangeRequestReview_pkey" PRIMARY KEY ("id")
);

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

-- AddForeignKey
ALTER TABLE "RevisionPage" ADD CONSTRAINT "RevisionPage_revisionId_fkey" FOREIGN KEY ("revisionId") REFERENCES "Revision"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "RevisionPage" ADD CONSTRAINT "RevisionPage_documentHash_fkey" FOREIGN KEY ("documentHash") REFERENCES "ContentDocument"("hash") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "DocumentReference" ADD CONSTRAINT "DocumentReference_documentHash_fkey" FOREIGN KEY ("documentHash") REFERENCES "ContentDocument"("hash") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "RevisionFile" ADD CONSTRAINT "RevisionFile_revisionId_fkey" FOREIGN KEY ("revisionId") REFERENCES "Revision"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ChangeRequest" ADD CONSTRAINT "ChangeRequest_spaceId_fkey" FOREIGN KEY ("spaceId") REFERENCES "Space"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ChangeRequest" ADD CONSTRAINT "ChangeRequest_createdById_fkey" FOREIGN KEY ("createdById") REFERENCES "User"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ChangeRequestContributor" ADD CONSTRAINT "ChangeRequestContributor_changeRequestId_fkey" FOREIGN KEY ("changeRequestId") REFERENCES "ChangeRequest"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ChangeRequestContributor" ADD CONSTRAINT "ChangeRequestContributor_userId_fkey" FOREIGN KEY ("userId") REFERENCES "User"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ChangeRequestReview" ADD CONSTRAINT "ChangeRequestReview_changeRequestId_fkey" FOREIGN KEY ("changeRequestId") REFERENCES "ChangeRequest"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ChangeRequestReview" ADD CONSTRAINT "ChangeRequestReview_reviewerId_fkey" FOREIGN KEY ("reviewerId") REFERENCES "User"("id") ON DELETE CASCADE ON UPDATE CASCADE;

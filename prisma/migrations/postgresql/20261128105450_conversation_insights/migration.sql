-- AlterTable
ALTER TABLE "ChangeRequest" ADD COLUMN     "conversationsIssuesClusterId" TEXT;

-- CreateTable
CREATE TABLE "Conversation" (
    "id" TEXT NOT NULL,
    "organizationId" TEXT NOT NULL,
    "source" TEXT NOT NULL,
    "externalId" TEXT NOT NULL,
    "subject" TEXT,
    "parts" JSONB NOT NULL,
    "metadata" JSONB NOT NULL DEFAULT '{}',
    "contentHash" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL,
    "ingestedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "processedAt" TIMESTAMP(3),
    "impact" TEXT,

    CONSTRAINT "Conversation_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "Conversation_impact_check" CHECK ("impact" IN ('low', 'medium', 'high'))
);

-- CreateTable
CREATE TABLE "ConversationIssue" (
    "id" TEXT NOT NULL,
    "organizationId" TEXT NOT NULL,
    "conversationId" TEXT NOT NULL,
    "clusterId" TEXT,
    "title" TEXT NOT NULL,
    "details" JSONB NOT NULL,
    "summary" TEXT NOT NULL,
    "impact" TEXT NOT NULL,
    "terms" JSONB NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL,
    "ingestedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "ConversationIssue_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "ConversationIssue_impact_check" CHECK ("impact" IN ('low', 'medium', 'high'))
);

-- CreateTable
CREATE TABLE "IssuesCluster" (
    "id" TEXT NOT NULL,
    "organizationId" TEXT NOT NULL,
    "label" TEXT NOT NULL,
    "icon" TEXT NOT NULL,
    "summary" JSONB NOT NULL,
    "impact" TEXT NOT NULL,
    "muted" BOOLEAN NOT NULL DEFAULT false,
    "centroid" JSONB NOT NULL,
    "issueCount" INTEGER NOT NULL DEFAULT 0,
    "conversationCount" INTEGER NOT NULL DEFAULT 0,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "IssuesCluster_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "IssuesCluster_impact_check" CHECK ("impact" IN ('low', 'medium', 'high'))
);

-- CreateTable
CREATE TABLE "ConversationInsightsState" (
    "organizationId" TEXT NOT NULL,
    "corpus" JSONB NOT NULL DEFAULT '{}',
    "lockJobId" TEXT,
    "lockExpiresAt" TIMESTAMP(3),

    CONSTRAINT "ConversationInsightsState_pkey" PRIMARY KEY ("organizationId")
);

-- CreateIndex
CREATE INDEX "Conversation_organizationId_ingestedAt_id_idx" ON "Conversation"("organizationId", "ingestedAt", "id");

-- CreateIndex
CREATE INDEX "Conversation_organizationId_source_ingestedAt_id_idx" ON "Conversation"("organizationId", "source", "ingestedAt", "id");

-- CreateIndex
CREATE INDEX "Conversation_organizationId_processedAt_idx" ON "Conversation"("organizationId", "processedAt");

-- CreateIndex
CREATE UNIQUE INDEX "Conversation_organizationId_source_externalId_key" ON "Conversation"("organizationId", "source", "externalId");

-- CreateIndex
CREATE INDEX "ConversationIssue_organizationId_ingestedAt_id_idx" ON "ConversationIssue"("organizationId", "ingestedAt", "id");

-- CreateIndex
CREATE INDEX "ConversationIssue_clusterId_createdAt_idx" ON "ConversationIssue"("clusterId", "createdAt");

-- CreateIndex
CREATE INDEX "ConversationIssue_conversationId_idx" ON "ConversationIssue"("conversationId");

-- CreateIndex
CREATE INDEX "IssuesCluster_organizationId_updatedAt_id_idx" ON "IssuesCluster"("organizationId", "updatedAt", "id");

-- CreateIndex
CREATE INDEX "IssuesCluster_organizationId_issueCount_id_idx" ON "IssuesCluster"("organizationId", "issueCount", "id");

-- CreateIndex
CREATE INDEX "IssuesCluster_organizationId_conversationCount_id_idx" ON "IssuesCluster"("organizationId", "conversationCount", "id");

-- AddForeignKey
ALTER TABLE "ChangeRequest" ADD CONSTRAINT "ChangeRequest_conversationsIssuesClusterId_fkey" FOREIGN KEY ("conversationsIssuesClusterId") REFERENCES "IssuesCluster"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Conversation" ADD CONSTRAINT "Conversation_organizationId_fkey" FOREIGN KEY ("organizationId") REFERENCES "Organization"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ConversationIssue" ADD CONSTRAINT "ConversationIssue_organizationId_fkey" FOREIGN KEY ("organizationId") REFERENCES "Organization"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ConversationIssue" ADD CONSTRAINT "ConversationIssue_conversationId_fkey" FOREIGN KEY ("conversationId") REFERENCES "Conversation"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ConversationIssue" ADD CONSTRAINT "ConversationIssue_clusterId_fkey" FOREIGN KEY ("clusterId") REFERENCES "IssuesCluster"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "IssuesCluster" ADD CONSTRAINT "IssuesCluster_organizationId_fkey" FOREIGN KEY ("organizationId") REFERENCES "Organization"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ConversationInsightsState" ADD CONSTRAINT "ConversationInsightsState_organizationId_fkey" FOREIGN KEY ("organizationId") REFERENCES "Organization"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- The new job kind and token scopes (JOB_KINDS, TOKEN_SCOPES, src/db/value-sets.ts): written by hand, Prisma does not model CHECK constraints.
ALTER TABLE "Job" DROP CONSTRAINT "Job_kind_check",
    ADD CONSTRAINT "Job_kind_check" CHECK ("kind" IN ('git-import', 'git-export', 'translation-run', 'openapi-processing', 'conversation-processing', 'renderer-revalidation'));
ALTER TABLE "ApiTokenScope" DROP CONSTRAINT "ApiTokenScope_scope_check",
    ADD CONSTRAINT "ApiTokenScope_scope_check" CHECK ("scope" IN ('user:read', 'organization:read', 'organization:write', 'organization:members:read', 'organization:members:write', 'space:read', 'space:write', 'change-request:merge', 'site:read', 'site:write', 'site:publish', 'openapi:read', 'openapi:write', 'conversations:ingest'));

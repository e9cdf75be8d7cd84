-- CreateTable
CREATE TABLE "Team" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "organizationId" TEXT NOT NULL,
    "title" TEXT NOT NULL,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL,
    CONSTRAINT "Team_organizationId_fkey" FOREIGN KEY ("organizationId") REFERENCES "Organization" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "TeamMember" (
    "teamId" TEXT NOT NULL,
    "userId" TEXT NOT NULL,
    "role" TEXT NOT NULL DEFAULT 'member',
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,

    PRIMARY KEY ("teamId", "userId"),
    CONSTRAINT "TeamMember_teamId_fkey" FOREIGN KEY ("teamId") REFERENCES "Team" ("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "TeamMember_userId_fkey" FOREIGN KEY ("userId") REFERENCES "User" ("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "TeamMember_role_check" CHECK ("role" IN ('owner', 'member'))
);

-- CreateTable
CREATE TABLE "ContentGrant" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "organizationId" TEXT NOT NULL,
    "resourceKind" TEXT NOT NULL,
    "resourceId" TEXT NOT NULL,
    "granteeKind" TEXT NOT NULL,
    "granteeId" TEXT NOT NULL,
    "role" TEXT NOT NULL,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL,
    CONSTRAINT "ContentGrant_organizationId_fkey" FOREIGN KEY ("organizationId") REFERENCES "Organization" ("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "ContentGrant_resourceKind_check" CHECK ("resourceKind" IN ('space', 'collection')),
    CONSTRAINT "ContentGrant_granteeKind_check" CHECK ("granteeKind" IN ('user', 'team')),
    CONSTRAINT "ContentGrant_role_check" CHECK ("role" IN ('read', 'comment', 'edit', 'review', 'create', 'admin'))
);

-- CreateTable
CREATE TABLE "InviteLink" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "organizationId" TEXT NOT NULL,
    "targetKind" TEXT NOT NULL,
    "targetId" TEXT,
    "role" TEXT,
    "secretHash" TEXT NOT NULL,
    "expiresAt" DATETIME,
    "maxUses" INTEGER,
    "uses" INTEGER NOT NULL DEFAULT 0,
    "createdById" TEXT,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL,
    CONSTRAINT "InviteLink_organizationId_fkey" FOREIGN KEY ("organizationId") REFERENCES "Organization" ("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "InviteLink_targetKind_check" CHECK ("targetKind" IN ('organization', 'space', 'collection')),
    CONSTRAINT "InviteLink_role_check" CHECK ("role" IN ('read', 'comment', 'edit', 'review', 'create', 'admin'))
);

-- CreateTable
CREATE TABLE "SamlProvider" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "organizationId" TEXT NOT NULL,
    "label" TEXT NOT NULL,
    "ssoURL" TEXT,
    "entityID" TEXT,
    "certificate" TEXT,
    "defaultRole" TEXT,
    "defaultTeamId" TEXT,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL,
    CONSTRAINT "SamlProvider_organizationId_fkey" FOREIGN KEY ("organizationId") REFERENCES "Organization" ("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "SamlProvider_defaultRole_check" CHECK ("defaultRole" IN ('read', 'comment', 'edit', 'review', 'create', 'admin'))
);

-- CreateTable
CREATE TABLE "SamlRequest" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "providerId" TEXT NOT NULL,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expiresAt" DATETIME NOT NULL,
    CONSTRAINT "SamlRequest_providerId_fkey" FOREIGN KEY ("providerId") REFERENCES "SamlProvider" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "SamlAssertion" (
    "providerId" TEXT NOT NULL,
    "assertionId" TEXT NOT NULL,
    "expiresAt" DATETIME NOT NULL,

    PRIMARY KEY ("providerId", "assertionId"),
    CONSTRAINT "SamlAssertion_providerId_fkey" FOREIGN KEY ("providerId") REFERENCES "SamlProvider" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "OrganizationSigningKey" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "organizationId" TEXT NOT NULL,
    "algorithm" TEXT NOT NULL,
    "publicJwk" TEXT NOT NULL,
    "privateJwk" TEXT NOT NULL,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "retiredAt" DATETIME,
    CONSTRAINT "OrganizationSigningKey_organizationId_fkey" FOREIGN KEY ("organizationId") REFERENCES "Organization" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateIndex
CREATE INDEX "Team_organizationId_createdAt_id_idx" ON "Team"("organizationId", "createdAt", "id");

-- CreateIndex
CREATE INDEX "TeamMember_userId_idx" ON "TeamMember"("userId");

-- CreateIndex
CREATE INDEX "ContentGrant_organizationId_granteeKind_granteeId_idx" ON "ContentGrant"("organizationId", "granteeKind", "granteeId");

-- CreateIndex
CREATE INDEX "ContentGrant_granteeKind_granteeId_idx" ON "ContentGrant"("granteeKind", "granteeId");

-- CreateIndex
CREATE UNIQUE INDEX "ContentGrant_resourceKind_resourceId_granteeKind_granteeId_key" ON "ContentGrant"("resourceKind", "resourceId", "granteeKind", "granteeId");

-- CreateIndex
CREATE UNIQUE INDEX "InviteLink_secretHash_key" ON "InviteLink"("secretHash");

-- CreateIndex
CREATE INDEX "InviteLink_organizationId_createdAt_id_idx" ON "InviteLink"("organizationId", "createdAt", "id");

-- CreateIndex
CREATE INDEX "SamlProvider_organizationId_createdAt_id_idx" ON "SamlProvider"("organizationId", "createdAt", "id");

-- CreateIndex
CREATE INDEX "SamlRequest_expiresAt_idx" ON "SamlRequest"("expiresAt");

-- CreateIndex
CREATE INDEX "SamlAssertion_expiresAt_idx" ON "SamlAssertion"("expiresAt");

-- CreateIndex
CREATE INDEX "OrganizationSigningKey_organizationId_createdAt_idx" ON "OrganizationSigningKey"("organizationId", "createdAt");

-- CreateTable
CREATE TABLE "OrganizationAgentInstructions" (
    "organizationId" TEXT NOT NULL PRIMARY KEY,
    "instructions" TEXT NOT NULL,
    "updatedById" TEXT NOT NULL,
    "updatedAt" DATETIME NOT NULL,
    CONSTRAINT "OrganizationAgentInstructions_organizationId_fkey" FOREIGN KEY ("organizationId") REFERENCES "Organization" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "OrganizationAgentInstructions" (
    "organizationId" TEXT NOT NULL,
    "instructions" TEXT NOT NULL,
    "updatedById" TEXT NOT NULL,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "OrganizationAgentInstructions_pkey" PRIMARY KEY ("organizationId")
);

-- AddForeignKey
ALTER TABLE "OrganizationAgentInstructions" ADD CONSTRAINT "OrganizationAgentInstructions_organizationId_fkey" FOREIGN KEY ("organizationId") REFERENCES "Organization"("id") ON DELETE CASCADE ON UPDATE CASCADE;

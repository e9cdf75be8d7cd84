-- AlterTable
ALTER TABLE "GitSync" ADD COLUMN "lastSyncFingerprint" TEXT;

-- DropTable
PRAGMA foreign_keys=off;
DROP TABLE "RevisionPage";
PRAGMA foreign_keys=on;

-- DropTable
PRAGMA foreign_keys=off;
DROP TABLE "RevisionFile";
PRAGMA foreign_keys=on;

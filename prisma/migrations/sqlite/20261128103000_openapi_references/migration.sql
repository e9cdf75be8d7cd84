-- References to OpenAPI specs ({kind: 'openapi', spec: slug}) are stored (REFERENCE_TARGET_KINDS):
-- the check takes the new kind, redefined by hand as SQLite cannot alter one.
CREATE TABLE "new_DocumentReference" (
    "documentHash" TEXT NOT NULL,
    "targetKind" TEXT NOT NULL,
    "target" TEXT NOT NULL,
    "nodeKey" TEXT,

    PRIMARY KEY ("documentHash", "targetKind", "target"),
    CONSTRAINT "DocumentReference_documentHash_fkey" FOREIGN KEY ("documentHash") REFERENCES "ContentDocument" ("hash") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "DocumentReference_targetKind_check" CHECK ("targetKind" IN ('page', 'file', 'url', 'space', 'user', 'collection', 'openapi'))
);
INSERT INTO "new_DocumentReference" ("documentHash", "nodeKey", "target", "targetKind") SELECT "documentHash", "nodeKey", "target", "targetKind" FROM "DocumentReference";
DROP TABLE "DocumentReference";
ALTER TABLE "new_DocumentReference" RENAME TO "DocumentReference";
CREATE INDEX "DocumentReference_targetKind_target_idx" ON "DocumentReference"("targetKind", "target");

-- Documents stored before kept no row for their OpenAPI references: found now as
-- extractReferences (src/content/document/references.ts) finds them, a node's `data.ref`, in
-- document order, each with the key of its node.
INSERT OR IGNORE INTO "DocumentReference" ("documentHash", "targetKind", "target", "nodeKey")
SELECT d."hash", 'openapi', json_extract(t."value", '$.spec'),
       json_extract(d."json", substr(t."path", 1, length(t."path") - length('.data')) || '.key')
FROM "ContentDocument" d, json_tree(d."json") t
WHERE t."key" = 'ref' AND t."type" = 'object' AND t."path" LIKE '%.data'
  AND json_extract(t."value", '$.kind') = 'openapi' AND json_type(t."value", '$.spec') = 'text'
ORDER BY d."hash", t."id";

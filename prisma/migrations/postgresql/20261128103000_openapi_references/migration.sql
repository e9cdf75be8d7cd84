-- References to OpenAPI specs ({kind: 'openapi', spec: slug}) are stored (REFERENCE_TARGET_KINDS).
ALTER TABLE "DocumentReference" DROP CONSTRAINT "DocumentReference_targetKind_check";
ALTER TABLE "DocumentReference"
    ADD CONSTRAINT "DocumentReference_targetKind_check" CHECK ("targetKind" IN ('page', 'file', 'url', 'space', 'user', 'collection', 'openapi'));

-- Documents stored before kept no row for their OpenAPI references: found now as
-- extractReferences (src/content/document/references.ts) finds them, a node's `data.ref`, in
-- document order, each with the key of its node.
INSERT INTO "DocumentReference" ("documentHash", "targetKind", "target", "nodeKey")
SELECT d."hash", 'openapi', n.node -> 'data' -> 'ref' ->> 'spec', n.node ->> 'key'
FROM "ContentDocument" d
CROSS JOIN LATERAL jsonb_path_query(d."json", 'strict $.** ? (@.data.ref.kind == "openapi" && @.data.ref.spec.type() == "string")') WITH ORDINALITY AS n(node, position)
ORDER BY d."hash", n.position
ON CONFLICT DO NOTHING;

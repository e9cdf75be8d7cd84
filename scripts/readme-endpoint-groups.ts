/**
 * The last step of `npm run codegen`: writes the list of endpoint groups with
 * the counts served (codegen/endpoint-groups.cjs) into README.md's section
 * "API reference", from the route table codegen has just written.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as groups from '../codegen/endpoint-groups.cjs';
import { restRoutes } from '../src/rest/generated/routes.ts';

const readmePath = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'README.md');
const readme = fs.readFileSync(readmePath, 'utf8');
const updated = groups.withReadmeSection(readme, groups.readmeList(groups.endpointGroups(restRoutes)));
if (updated !== readme) fs.writeFileSync(readmePath, updated);
console.error(`README.md: endpoint groups ${updated === readme ? 'unchanged' : 'updated'}`);

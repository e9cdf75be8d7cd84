/** Prints the Pothos schema to schema.graphql (checked in; reviewed like code). */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { printSchema } from 'graphql';
import { schema } from '../src/schema/index.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
fs.writeFileSync(path.join(root, 'schema.graphql'), printSchema(schema));

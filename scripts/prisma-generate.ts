/**
 * Generates the Prisma clients for both providers from prisma/schema.prisma.
 * Runs at `npm install` (postinstall). The PostgreSQL schema is derived, never
 * edited: only the datasource provider and the output folder differ.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { derivePostgresSchema } from '../src/db/schema-files.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const sqliteSchema = path.join(root, 'prisma/schema.prisma');
const postgresSchema = path.join(root, 'prisma/generated/postgresql.prisma');

fs.mkdirSync(path.dirname(postgresSchema), { recursive: true });
fs.writeFileSync(postgresSchema, derivePostgresSchema(fs.readFileSync(sqliteSchema, 'utf8')));

// Offline: `prisma generate` only checks that the schema engine binary exists
// (it never runs it), so any existing file will do; migrations use the wasm engine.
const env = {
  ...process.env,
  // the Pothos generator is a bin of @pothos/plugin-prisma
  PATH: `${path.join(root, 'node_modules/.bin')}${path.delimiter}${process.env.PATH ?? ''}`,
  PRISMA_SCHEMA_ENGINE_BINARY: process.execPath, CHECKPOINT_DISABLE: '1', PRISMA_HIDE_UPDATE_MESSAGE: '1' };
const prismaCli = path.join(root, 'node_modules/prisma/build/index.js');
for (const schema of [sqliteSchema, postgresSchema]) {
  execFileSync(process.execPath, [prismaCli, 'generate', '--schema', schema], { cwd: root, env, stdio: 'inherit' });
}

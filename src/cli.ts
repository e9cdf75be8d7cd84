/**
 * `npm run cli -- <command>`: operator commands on the same DATABASE_URL as
 * the server. Each prints one line of JSON.
 *   user:create --email ada@example.com --name "Ada"   -> {"user": {...}, "token": "..."}
 *   token:create --email ada@example.com [--label x]   -> {"user": {...}, "token": "..."}
 *   db:migrate                                          -> {"applied": ["<migration>", ...]}
 */
import { Command, InvalidArgumentError } from 'commander';
import { z } from 'zod';
import { createUserWithToken, issueTokenForEmail, presentUser } from './auth/users.ts';
import { loadConfig } from './config.ts';
import { createDb, type Db } from './db/client.ts';
import { migrate } from './db/migrate.ts';
import { parseDatabaseUrl } from './db/provider/config.ts';
import { prepareDatabase } from './db/provider/setup.ts';
import { Urls } from './urls.ts';

const email = (value: string) => {
  const parsed = z.email().safeParse(value);
  if (!parsed.success) throw new InvalidArgumentError('not an e-mail address');
  return parsed.data.toLowerCase();
};

async function withDb<T>(fn: (db: Db, urls: Urls) => Promise<T>): Promise<T> {
  const config = loadConfig();
  const database = parseDatabaseUrl(config.databaseUrl);
  await prepareDatabase(database);
  await migrate(database);
  const db = createDb(database, { timeouts: config.databaseTimeouts });
  try {
    return await fn(db, new Urls(config));
  } finally {
    await db.$disconnect();
  }
}

const program = new Command('cli').description('Operator commands for the docs publishing API').exitOverride();

program
  .command('user:create')
  .description('Create a user and an API token')
  .requiredOption('--email <email>', 'e-mail address', email)
  .requiredOption('--name <name>', 'display name')
  .option('--label <label>', 'a label for the token')
  .action(async (opts: { email: string; name: string; label?: string }) => {
    await withDb(async (db, urls) => {
      const { user, token } = await createUserWithToken(db, { email: opts.email, displayName: opts.name, label: opts.label });
      console.log(JSON.stringify({ user: presentUser(urls, user), token }));
    });
  });

program
  .command('token:create')
  .description('Issue another API token for an existing user')
  .requiredOption('--email <email>', 'e-mail address', email)
  .option('--label <label>', 'a label for the token')
  .action(async (opts: { email: string; label?: string }) => {
    await withDb(async (db, urls) => {
      const { user, token } = await issueTokenForEmail(db, opts.email, opts.label);
      console.log(JSON.stringify({ user: presentUser(urls, user), token }));
    });
  });

program
  .command('db:migrate')
  .description('Apply the pending database migrations and exit (the one-shot step before several servers start)')
  .action(async () => {
    const database = parseDatabaseUrl(loadConfig().databaseUrl);
    await prepareDatabase(database);
    const { applied } = await migrate(database);
    console.log(JSON.stringify({ applied }));
  });

try {
  await program.parseAsync(process.argv);
} catch (error) {
  const code = (error as { code?: string }).code;
  if (code === 'commander.helpDisplayed' || code === 'commander.version') process.exit(0);
  if (!code?.startsWith('commander.')) console.error(`error: ${(error as Error).message}`);
  process.exit(1);
}

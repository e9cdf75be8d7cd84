/**
 * `npm run cli -- <command>`: operator commands on the same DATABASE_URL as
 * the server. Each prints one line of JSON.
 *   user:create --email ada@example.com --name "Ada" [token options]   -> {"user": {...}, "token": "...", "apiToken": {...}}
 *   token:create --email ada@example.com [token options]                -> {"user": {...}, "token": "...", "apiToken": {...}}
 *     token options: --label x, --expires-in 30d | 2027-01-31, --scopes space:read,site:read
 *   token:list --email ada@example.com                                  -> {"user": {...}, "tokens": [{id, label, scopes, ...}]}
 *   token:revoke --email ada@example.com --id <token id>                -> {"revoked": {...}}
 *   member:add --email ada@example.com --org <organization id> --role edit -> {"member": {...}}
 *   keys:rotate --org <organization id>                                 -> {"key": {kid, ...}, "retired": [{kid, ...}]}
 *   keys:list --org <organization id>                                   -> {"keys": [{kid, algorithm, createdAt, retiredAt}]}
 *   keys:delete --org <organization id> --kid <key id>                  -> {"deleted": {kid, ...}}
 *     the organization's keys that sign visitor claims (POST /v1/orgs/{id}/ping); public keys at
 *     GET /.well-known/jwks/{organizationId}.json
 *   db:migrate                                                          -> {"applied": ["<migration>", ...]}
 * The secret of a token is printed once, by the command that creates it.
 */
import { Command, InvalidArgumentError } from 'commander';
import { z } from 'zod';
import { listApiTokens, parseExpiry, parseScopes, revokeApiToken, type ApiTokenView } from './auth/tokens.ts';
import { announceViewersChanged, changesViewers, type ViewerMessage } from './auth/viewer-cache.ts';
import { createUserWithToken, findUserByEmail, issueTokenForEmail, presentUser } from './auth/users.ts';
import { deleteSigningKey, listSigningKeys, rotateSigningKey, type SigningKeyView } from './auth/visitor-claims.ts';
import { loadConfig, type AppConfig } from './config.ts';
import { closeDb, createDb, type Db } from './db/client.ts';
import { migrate } from './db/migrate.ts';
import { createEventHub, deploymentNamespace } from './event-bus.ts';
import { parseDatabaseUrl } from './db/provider/config.ts';
import { prepareDatabase } from './db/provider/setup.ts';
import { AppError, NotFoundError } from './errors/index.ts';
import { upgradeSearchIndex } from './search/search-index.ts';
import { ADDABLE_ROLES, addMember, signingKeySealer } from './services/member.ts';
import { collectGarbage } from './storage/collect-garbage.ts';
import { createStorage } from './storage/storage.ts';
import { Urls } from './urls.ts';

const email = (value: string) => {
  const parsed = z.email().safeParse(value);
  if (!parsed.success) throw new InvalidArgumentError('not an e-mail address');
  return parsed.data.toLowerCase();
};

/**
 * Runs a command on the database. A command that changed callers (a token revoked, a member
 * added) tells the running servers through Redis when REDIS_URL is set, and returns once each
 * forgot the callers it kept; without Redis they read them again within VIEWER_CACHE_MAX_AGE_MS.
 */
async function withDb<T>(fn: (db: Db, urls: Urls, config: AppConfig) => Promise<T>): Promise<T> {
  const config = loadConfig();
  const database = parseDatabaseUrl(config.databaseUrl);
  await prepareDatabase(database);
  await migrate(database);
  let viewersChanged = false;
  const db = createDb(database, {
    timeouts: config.databaseTimeouts,
    preparedStatements: config.databasePreparedStatements,
    onWrite: (table, sql) => {
      viewersChanged ||= changesViewers(table, sql);
    },
  });
  try {
    const result = await fn(db, new Urls(config), config);
    if (viewersChanged && config.redisUrl) {
      const events = createEventHub(config.redisUrl, { namespace: deploymentNamespace(config.databaseUrl) });
      try {
        await announceViewersChanged(events.topic<ViewerMessage>('viewer'));
      } finally {
        await events.close();
      }
    }
    return result;
  } finally {
    await db.$disconnect();
  }
}

const program = new Command('cli').description('Operator commands for the docs publishing API').exitOverride();

/** The token options of user:create and token:create. */
interface TokenOptions {
  label?: string;
  expiresIn?: Date;
  scopes?: string[];
}

/** Commander parsers rethrow our 400s as its own argument errors, so they print as usage errors do. */
const asArgument =
  <T>(parse: (value: string) => T) =>
  (value: string): T => {
    try {
      return parse(value);
    } catch (error) {
      if (error instanceof AppError) throw new InvalidArgumentError(error.message.replace(/^[\w-]+: /, ''));
      throw error;
    }
  };

const tokenOptions = (command: Command) =>
  command
    .option('--label <label>', 'a label for the token')
    .option('--expires-in <when>', 'when the token expires: a duration (30d, 12h, 90m, 2w) or an ISO 8601 date; default: never', asArgument((v) => parseExpiry(v)))
    .option(
      '--scopes <scopes>',
      'comma-separated scopes the token is limited to (default: none, it acts with the user\'s roles)',
      asArgument((v) => parseScopes(v.split(',').map((s) => s.trim()).filter(Boolean))),
    );

const tokenInput = (opts: TokenOptions) => ({ label: opts.label, expiresAt: opts.expiresIn ?? null, scopes: opts.scopes ?? [] });

/** A token in the CLI's output: dates as ISO text, the secret never. */
const presentToken = (token: ApiTokenView) => ({
  ...token,
  createdAt: token.createdAt.toISOString(),
  expiresAt: token.expiresAt?.toISOString() ?? null,
  lastUsedAt: token.lastUsedAt?.toISOString() ?? null,
});

tokenOptions(
  program
    .command('user:create')
    .description('Create a user and an API token (the secret is printed once)')
    .requiredOption('--email <email>', 'e-mail address', email)
    .requiredOption('--name <name>', 'display name'),
).action(async (opts: { email: string; name: string } & TokenOptions) => {
  await withDb(async (db, urls) => {
    const { user, token, apiToken } = await createUserWithToken(db, { email: opts.email, displayName: opts.name, ...tokenInput(opts) });
    console.log(JSON.stringify({ user: presentUser(urls, user), token, apiToken: presentToken(apiToken) }));
  });
});

tokenOptions(
  program
    .command('token:create')
    .description('Issue another API token for an existing user (the secret is printed once)')
    .requiredOption('--email <email>', 'e-mail address', email),
).action(async (opts: { email: string } & TokenOptions) => {
  await withDb(async (db, urls) => {
    const { user, token, apiToken } = await issueTokenForEmail(db, opts.email, tokenInput(opts));
    console.log(JSON.stringify({ user: presentUser(urls, user), token, apiToken: presentToken(apiToken) }));
  });
});

program
  .command('token:list')
  .description("List a user's API tokens (never their secrets)")
  .requiredOption('--email <email>', 'e-mail address', email)
  .action(async (opts: { email: string }) => {
    await withDb(async (db, urls) => {
      const user = await findUserByEmail(db, opts.email);
      const tokens = await listApiTokens(db, user.id);
      console.log(JSON.stringify({ user: presentUser(urls, user), tokens: tokens.map(presentToken) }));
    });
  });

program
  .command('token:revoke')
  .description("Revoke one of a user's API tokens: the next request with it answers 401")
  .requiredOption('--email <email>', 'e-mail address of the token\'s user', email)
  .requiredOption('--id <id>', 'the token id (token:list shows it)')
  .action(async (opts: { email: string; id: string }) => {
    await withDb(async (db) => {
      const user = await findUserByEmail(db, opts.email);
      console.log(JSON.stringify({ revoked: presentToken(await revokeApiToken(db, user.id, opts.id)) }));
    });
  });

program
  .command('member:add')
  .description('Add an existing user to an organization with a role')
  .requiredOption('--email <email>', 'e-mail address of the user', email)
  .requiredOption('--org <organizationId>', 'the organization id')
  .requiredOption('--role <role>', `one of ${ADDABLE_ROLES.join(', ')}`)
  .action(async (opts: { email: string; org: string; role: string }) => {
    await withDb(async (db, urls) => {
      const { organization, user, role } = await addMember(db, { organizationId: opts.org, email: opts.email, role: opts.role });
      console.log(JSON.stringify({ member: { organization: { id: organization.id, title: organization.title }, user: presentUser(urls, user), role: role ?? 'guest' } }));
    });
  });

/** A signing key in the CLI's output: dates as ISO text (the private half never leaves src/auth/visitor-claims.ts). */
const presentKey = (key: SigningKeyView) => ({ ...key, createdAt: key.createdAt.toISOString(), retiredAt: key.retiredAt?.toISOString() ?? null });

async function requireOrganization(db: Db, organizationId: string) {
  if (!(await db.organization.findUnique({ where: { id: organizationId }, select: { id: true } }))) throw new NotFoundError('Organization', organizationId);
}

program
  .command('keys:rotate')
  .description("Make a new key to sign the organization's visitor claims; the previous ones are retired, still published until deleted")
  .requiredOption('--org <organizationId>', 'the organization id')
  .action(async (opts: { org: string }) => {
    await withDb(async (db, _urls, config) => {
      await requireOrganization(db, opts.org);
      const { key, retired } = await rotateSigningKey(db, signingKeySealer(config), opts.org);
      console.log(JSON.stringify({ key: presentKey(key), retired: retired.map(presentKey) }));
    });
  });

program
  .command('keys:list')
  .description("List the organization's visitor claims signing keys, newest first (public information only)")
  .requiredOption('--org <organizationId>', 'the organization id')
  .action(async (opts: { org: string }) => {
    await withDb(async (db) => {
      await requireOrganization(db, opts.org);
      console.log(JSON.stringify({ keys: (await listSigningKeys(db, opts.org)).map(presentKey) }));
    });
  });

program
  .command('keys:delete')
  .description('Delete a retired signing key: it is no longer published, so what it signed stops verifying')
  .requiredOption('--org <organizationId>', 'the organization id')
  .requiredOption('--kid <kid>', 'the key id (keys:list shows it)')
  .action(async (opts: { org: string; kid: string }) => {
    await withDb(async (db) => {
      console.log(JSON.stringify({ deleted: presentKey(await deleteSigningKey(db, opts.org, opts.kid)) }));
    });
  });

program
  .command('db:migrate')
  .description('Apply the pending database migrations, rewrite the search index if older rules wrote it, and exit (the one-shot step before several servers start)')
  .action(async () => {
    const database = parseDatabaseUrl(loadConfig().databaseUrl);
    await prepareDatabase(database);
    const { applied } = await migrate(database);
    // Here rather than in every replica's start: they then find the index current.
    const db = createDb(database);
    try {
      const searchIndex = await upgradeSearchIndex(db, database.provider);
      console.log(JSON.stringify({ applied, searchIndex }));
    } finally {
      await closeDb(db);
    }
  });

program
  .command('storage:gc')
  .description('Delete the stored files nothing refers to any more and that are older than STORAGE_GC_GRACE_SECONDS (what every server also does every STORAGE_GC_INTERVAL_SECONDS)')
  .action(async () => {
    const result = await withDb((db, _urls, config) =>
      collectGarbage({ db, storage: createStorage(config.storage), graceMs: config.storageGc.graceSeconds * 1000 }),
    );
    console.log(JSON.stringify(result));
  });

try {
  await program.parseAsync(process.argv);
} catch (error) {
  const code = (error as { code?: string }).code;
  if (code === 'commander.helpDisplayed' || code === 'commander.version') process.exit(0);
  if (!code?.startsWith('commander.')) console.error(`error: ${(error as Error).message}`);
  process.exit(1);
}

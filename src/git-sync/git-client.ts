/**
 * The Git side of Git Sync: reading a branch's files from a repository and
 * pushing new content to it, over HTTP(S) with isomorphic-git; no system git.
 *
 * - Every operation works in its own bare repository in a temporary directory
 *   (removed afterwards, also on failure) and never checks files out: files
 *   are read from, and written as, Git objects, so no name in a repository
 *   ever becomes a path on this machine.
 * - Reads fetch one commit (depth 1, one branch); writes fetch the same, build
 *   the new tree from the old one (only the project directory changes), commit
 *   and push without force. A branch that moved meanwhile is refused, by
 *   isomorphic-git's fast-forward check and by the server's compare-and-swap
 *   of the old value.
 * - The repository URL comes from users, so the HTTP client follows the rules
 *   of remote file fetches (../storage/remote-fetch.ts): http and https only,
 *   every address of the host checked (no loopback, private, link-local...
 *   unless `allowPrivateAddresses`), connections pinned to the checked
 *   addresses, each redirect checked again, timeouts, a byte budget.
 * - Credentials (from the URL or given apart) reach the server through
 *   isomorphic-git's `onAuth`, only for the URL's own host; they never appear
 *   in a returned value or an error message.
 *
 * Failures are `GitSyncError`s whose message is written for a person.
 */
import nodeFs from 'node:fs';
import { STATUS_CODES } from 'node:http';
import os from 'node:os';
import path from 'node:path';
import git, { type GitAuth, type GitHttpRequest, type GitHttpResponse, type HttpClient, type TreeEntry } from 'isomorphic-git';
import { Agent, request as undiciRequest, type Dispatcher } from 'undici';
import { RemoteFetchError, GitSyncError, GitSyncFailure } from '../errors/external.ts';
import {
  addressPolicy,
  discard,
  header,
  MAX_REDIRECTS,
  pinnedLookup,
  REDIRECT_STATUSES,
  resolveChecked,
} from '../storage/remote-fetch.ts';
import type { KeptClone, KeptClones } from './kept-clones.ts';
import { normalizePath } from './repo-paths.ts';

/** Where a repository may be reached and how much of it is accepted; the app passes its FETCH_* settings. */
export interface RemotePolicy {
  /** Allow loopback, private, link-local, ... addresses (FETCH_ALLOW_PRIVATE_ADDRESSES); for development and tests. */
  allowPrivateAddresses: boolean;
  /**
   * Milliseconds each HTTP exchange may wait: resolving the host, connecting,
   * the response headers, and any pause within a response body.
   */
  timeoutMs: number;
  /** Largest download (all responses together) and largest total of file sizes read or written; default 200 MiB. */
  maxRepositoryBytes?: number;
  /** Most files read or written (and most folders walked); default 20,000. */
  maxFiles?: number;
  /** Time allowed for a whole operation; default 10 minutes. The caller's `signal` can end it sooner. */
  maxDurationMs?: number;
}

export const DEFAULT_MAX_REPOSITORY_BYTES = 200 * 1024 * 1024;
export const DEFAULT_MAX_FILES = 20_000;
export const DEFAULT_MAX_DURATION_MS = 10 * 60 * 1000;

export interface GitCredentials {
  username: string;
  password: string;
}

export interface GitProgress {
  phase: string;
  loaded: number;
  /** 0 when unknown. */
  total: number;
}

interface RepositoryInput {
  /** http(s) URL of the repository; may carry `user:token@`, which is split off (see `splitCredentials`). */
  url: string;
  /** `refs/heads/<branch>` or a branch name. */
  ref: string;
  /** Basic-auth credentials; take precedence over any in the URL. */
  credentials?: GitCredentials | null;
  /** The directory holding the content ('' or null: the repository's top). */
  projectDirectory?: string | null;
  policy: RemotePolicy;
  signal?: AbortSignal;
  onProgress?: (progress: GitProgress) => void;
}

export type ReadRepositoryInput = RepositoryInput;

export interface RepositorySnapshot {
  /** The commit read. */
  commit: string;
  /** Its message. */
  message: string;
  /** Every regular file under the project directory, by '/'-separated path relative to it. */
  files: Map<string, Uint8Array>;
  /** The blob id of each of those files. */
  blobs: Map<string, string>;
}

export interface WriteRepositoryInput extends RepositoryInput {
  /** The whole new content of the project directory, by '/'-separated path relative to it. */
  files: Map<string, Uint8Array>;
  message: string;
  /** Author and committer of the new commit. */
  author: { name: string; email: string };
}

export interface WriteResult {
  /** The new commit, or the branch's unchanged one. */
  commit: string;
  /** Its message. */
  message: string;
  /** The blob id of each file written, by the same paths as `files`. */
  blobs: Map<string, string>;
  /** False when the content was already there: no commit, no push. */
  changed: boolean;
}


const fs = nodeFs;
const TIMEOUT_CODES = new Set(['UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT']);

function decodeUserInfo(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

/**
 * Splits basic-auth credentials off a repository URL:
 * `https://user:token@host/repo.git` -> `{ url: 'https://host/repo.git', credentials: { username: 'user', password: 'token' } }`.
 * A trailing slash and a fragment are dropped. Throws `GitSyncError`
 * ('invalid-input', without repeating the URL) for anything but an http(s)
 * URL without a query string.
 */
export function splitCredentials(url: string): { url: string; credentials: GitCredentials | null } {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new GitSyncError('invalid-input', 'the repository URL is not a valid URL');
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new GitSyncError('invalid-input', `only http and https repository URLs are supported, not ${parsed.protocol.replace(/:$/, '')}`);
  }
  if (parsed.search) throw new GitSyncError('invalid-input', 'a repository URL may not have a query string');
  const credentials =
    parsed.username || parsed.password ? { username: decodeUserInfo(parsed.username), password: decodeUserInfo(parsed.password) } : null;
  // `origin` never includes the user info.
  return { url: `${parsed.origin}${parsed.pathname.replace(/\/+$/, '')}`, credentials };
}

/** `owner/name` of a repository URL as stored (no credentials): its path without slashes at the ends or `.git`. */
export function repositoryName(url: string): string {
  return new URL(url).pathname.replace(/^\/+|\/+$/g, '').replace(/\.git$/, '');
}

/** The Git hosts GitBook's API names as a Git Sync's `installationProvider`; null for the others. */
export function installationProvider(provider: string): 'github' | 'gitlab' | null {
  return provider === 'github' || provider === 'gitlab' ? provider : null;
}

const BRANCH_NAME_FORBIDDEN = /[\x00-\x20\x7f~^:?*[\\]|\.\.|@\{|\/\/|^[-/.]|\/\.|\/$|\.$|\.lock(\/|$)/;

/** `main` or `refs/heads/main` -> `refs/heads/main`; other refs and malformed names are refused. */
function branchRef(ref: string): string {
  const name = ref.startsWith('refs/heads/') ? ref.slice('refs/heads/'.length) : ref;
  if (name === '' || name === '@' || name.startsWith('refs/') || BRANCH_NAME_FORBIDDEN.test(name)) {
    throw new GitSyncError('invalid-input', `${JSON.stringify(ref)} is not a branch name`);
  }
  return `refs/heads/${name}`;
}

/** A project directory as a repository path ('' for the top); refuses one that climbs out or enters `.git`. */
function directoryPath(projectDirectory: string | null | undefined): string {
  const normalized = normalizePath(projectDirectory ?? '');
  if (normalized === null || normalized.split('/').some((s) => s.toLowerCase() === '.git')) {
    throw new GitSyncError('invalid-input', `${JSON.stringify(projectDirectory)} is not a directory of the repository`);
  }
  return normalized;
}

/** Whether a tree entry name is one we read or write: no separators, no `.`/`..`, never `.git`. */
function isSafeName(name: string): boolean {
  return name !== '' && name !== '.' && name !== '..' && !name.includes('/') && !name.includes('\0') && name.toLowerCase() !== '.git';
}

/** Everything one operation shares: settings, signals, the transport's first failure, the temporary repository. */
interface Operation {
  url: string;
  origin: URL;
  credentials: GitCredentials | null;
  policy: Required<RemotePolicy>;
  /** The caller's signal and the operation's deadline together. */
  signal: AbortSignal;
  callerSignal: AbortSignal | undefined;
  /** The first failure the HTTP client saw: it explains whatever isomorphic-git throws after it. */
  failure: GitSyncError | null;
  gitdir: string;
  cache: object;
  /** The file system objects are read through: node's, or once a read has fetched, `packedObjects`. */
  objects: typeof nodeFs;
  /** A budget of its own for the download (an incremental fetch, ./kept-clones.ts), besides the policy's. */
  maxFetchBytes: number | null;
  http: HttpClient;
  onAuth: (() => GitAuth) | undefined;
  onProgress: ((progress: GitProgress) => void) | undefined;
}

function abortFailure(op: Operation): GitSyncError {
  if (op.callerSignal?.aborted) return new GitSyncError('aborted', 'the Git operation was cancelled');
  return new GitSyncError('timeout', `the Git operation took longer than ${op.policy.maxDurationMs} ms`);
}

function withoutAuthorization(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).filter(([name]) => name.toLowerCase() !== 'authorization'));
}

async function collect(body: AsyncIterable<Uint8Array> | Iterable<Uint8Array>): Promise<Buffer> {
  const chunks: Uint8Array[] = [];
  for await (const chunk of body) chunks.push(chunk);
  return Buffer.concat(chunks);
}

/**
 * The isomorphic-git `HttpClient` of one operation. Hosts are resolved and
 * checked once per operation; each gets an undici Agent whose lookup answers
 * only with the checked addresses. Redirects are followed here (GET and HEAD,
 * and 307/308 for POST, whose body is buffered), each hop checked; when the
 * discovery request (`/info/refs`) is redirected, later requests go to the
 * new base, as git itself does. The Authorization header is only sent to the
 * repository URL's own origin (or its https upgrade).
 */
function createHttpClient(op: Operation): { http: HttpClient; close(): Promise<void> } {
  const allowed = addressPolicy(op.policy);
  const agents = new Map<string, Promise<Agent>>();
  const rebased = new Map<string, string>();
  let received = 0;

  const remember = (failure: GitSyncError): GitSyncError => {
    op.failure ??= failure;
    return failure;
  };

  const fail = (reason: GitSyncFailure, message: string): never => {
    throw remember(new GitSyncError(reason, message));
  };

  const mayCarryCredentials = (url: URL) =>
    url.origin === op.origin.origin ||
    (op.origin.protocol === 'http:' && url.protocol === 'https:' && url.hostname === op.origin.hostname && op.origin.port === '' && url.port === '');

  const parseHop = (raw: string | URL, base?: URL): URL => {
    let url: URL;
    try {
      url = new URL(raw, base);
    } catch {
      return fail('protocol', 'the Git server redirected to an invalid URL');
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      fail('redirects', `the Git server redirected to a ${url.protocol.replace(/:$/, '')} URL; only http and https are followed`);
    }
    if (url.username || url.password) fail('redirects', 'the Git server redirected to a URL with credentials');
    return url;
  };

  const agentFor = (url: URL): Promise<Agent> => {
    const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
    let agent = agents.get(host);
    if (!agent) {
      agent = (async () => {
        const lookupSignal = AbortSignal.any([op.signal, AbortSignal.timeout(op.policy.timeoutMs)]);
        try {
          const addresses = await resolveChecked(url, allowed, lookupSignal);
          return new Agent({
            connect: { lookup: pinnedLookup(host, addresses), timeout: op.policy.timeoutMs },
            headersTimeout: op.policy.timeoutMs,
            bodyTimeout: op.policy.timeoutMs,
          });
        } catch (error) {
          if (error instanceof RemoteFetchError) {
            if (error.reason === 'address') fail('address', `address refused: ${error.message}`);
            fail('network', `could not resolve the host name of ${url.host}`);
          }
          if (op.signal.aborted) throw remember(abortFailure(op));
          return fail('timeout', `resolving ${url.host} took longer than ${op.policy.timeoutMs} ms`);
        }
      })();
      agent.catch(() => undefined);
      agents.set(host, agent);
    }
    return agent;
  };

  const transportFailure = (error: unknown, url: URL): GitSyncError => {
    if (error instanceof GitSyncError) return remember(error);
    if (op.signal.aborted) return remember(abortFailure(op));
    const code = (error as { code?: unknown } | null)?.code;
    if (typeof code === 'string' && TIMEOUT_CODES.has(code)) {
      return remember(new GitSyncError('timeout', `${url.host} did not answer within ${op.policy.timeoutMs} ms`));
    }
    // The underlying message can name internal details; the code is enough to act on.
    return remember(new GitSyncError('network', `could not reach ${url.host}${typeof code === 'string' ? ` (${code})` : ''}`));
  };

  async function* counted(body: Dispatcher.ResponseData['body'], url: URL): AsyncGenerator<Uint8Array> {
    try {
      for await (const chunk of body as AsyncIterable<Buffer>) {
        received += chunk.byteLength;
        if (received > op.policy.maxRepositoryBytes) {
          discard(body);
          fail('too-large', `the repository is larger than the ${op.policy.maxRepositoryBytes} bytes allowed`);
        }
        if (op.maxFetchBytes !== null && received > op.maxFetchBytes) {
          discard(body);
          fail('too-large', `the fetch into the kept repository took more than ${op.maxFetchBytes} bytes`);
        }
        yield chunk;
      }
    } catch (error) {
      throw transportFailure(error, url);
    }
  }

  const rebase = (url: string): string => {
    for (const [from, to] of rebased) {
      if (url === from || url.startsWith(`${from}/`)) return to + url.slice(from.length);
    }
    return url;
  };

  /** After `/x/info/refs?...` was answered from `/y/info/refs?...`, `/x` stands for `/y`. */
  const recordRedirect = (requested: string, final: string) => {
    const at = requested.lastIndexOf('/info/refs');
    if (at < 0) return;
    const suffix = requested.slice(at);
    if (final.endsWith(suffix)) rebased.set(requested.slice(0, at), final.slice(0, final.length - suffix.length));
  };

  async function request({ url, method: rawMethod, headers: rawHeaders, body }: GitHttpRequest): Promise<GitHttpResponse> {
    const method = (rawMethod ?? 'GET').toUpperCase();
    const requested = rebase(url);
    let current = parseHop(requested);
    let headers: Record<string, string> = { ...rawHeaders, 'accept-encoding': 'identity' };
    try {
      const payload = body ? await collect(body) : undefined;
      for (let redirects = 0; ; redirects++) {
        if (!mayCarryCredentials(current)) headers = withoutAuthorization(headers);
        op.signal.throwIfAborted();
        const dispatcher = await agentFor(current);
        const response = await undiciRequest(current, { dispatcher, method: method as Dispatcher.HttpMethod, headers, body: payload, signal: op.signal });
        const location = header(response.headers, 'location');
        const follows = method === 'GET' || method === 'HEAD' || response.statusCode === 307 || response.statusCode === 308;
        if (REDIRECT_STATUSES.has(response.statusCode) && location && follows) {
          discard(response.body);
          if (redirects >= MAX_REDIRECTS) fail('redirects', `the Git server redirected more than ${MAX_REDIRECTS} times`);
          current = parseHop(location, current);
          continue;
        }
        if (current.href !== requested) recordRedirect(requested, current.href);
        const flat: Record<string, string> = {};
        for (const [name, value] of Object.entries(response.headers)) {
          if (value !== undefined) flat[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
        }
        return {
          url: current.href,
          method,
          statusCode: response.statusCode,
          statusMessage: STATUS_CODES[response.statusCode] ?? '',
          headers: flat,
          body: counted(response.body, current),
        };
      }
    } catch (error) {
      throw transportFailure(error, current);
    }
  }

  return {
    http: { request },
    async close() {
      const settled = await Promise.allSettled(agents.values());
      await Promise.all(settled.map((s) => (s.status === 'fulfilled' ? s.value.destroy().catch(() => undefined) : undefined)));
    },
  };
}

/** Replaces every credential in `text` (the transport and isomorphic-git should never put one there; this makes sure). */
function scrub(text: string, credentials: GitCredentials | null): string {
  let out = text;
  for (const secret of [credentials?.password, credentials?.username]) {
    if (secret) out = out.split(secret).join('***');
  }
  return out;
}

const NON_FAST_FORWARD = 'push rejected: the branch moved (non-fast-forward)';

/** The server's reason for refusing `fullRef` in a push (isomorphic-git's GitPushError), or ''. */
function refError(error: unknown, fullRef: string): string {
  const { code, data } = (error ?? {}) as { code?: unknown; data?: any };
  if (code !== 'GitPushError') return '';
  return String(data?.result?.refs?.[fullRef]?.error ?? data?.result?.error ?? '').trim();
}

/** Whether the remote branch is no longer at `expected` (null: absent); false when that cannot be told. */
async function branchMoved(op: Operation, fullRef: string, expected: string | null): Promise<boolean> {
  const failure = op.failure;
  try {
    const refs = await git.listServerRefs({ http: op.http, url: op.url, prefix: fullRef, protocolVersion: 1, onAuth: op.onAuth });
    return (refs.find((r) => r.ref === fullRef)?.oid ?? null) !== expected;
  } catch {
    // This look is optional: its own failure must not replace the push's.
    op.failure = failure;
    return false;
  }
}

/** Any failure of an operation, as a `GitSyncError` for a person. */
function toGitSyncError(error: unknown, op: Operation, fullRef: string): GitSyncError {
  const translated = ((): GitSyncError => {
    if (op.failure) return op.failure;
    if (error instanceof GitSyncError) return error;
    if (op.signal.aborted) return abortFailure(op);
    const { code, data, message } = (error ?? {}) as { code?: unknown; data?: any; message?: unknown };
    switch (code) {
      case 'HttpError': {
        const status = Number(data?.statusCode);
        if (status === 401 || status === 203) {
          return new GitSyncError(
            'auth',
            op.credentials ? 'authentication failed (401): the credentials were refused' : 'authentication failed (401): the repository requires credentials',
          );
        }
        if (status === 403) return new GitSyncError('forbidden', 'access denied (403)');
        if (status === 404) return new GitSyncError('not-found', 'repository not found');
        return new GitSyncError('status', `the Git server answered ${status}`);
      }
      case 'SmartHttpError':
        return new GitSyncError('protocol', 'the URL does not lead to a Git repository (no smart HTTP answer)');
      case 'EmptyServerResponseError':
      case 'ParseError':
        return new GitSyncError('protocol', 'the Git server sent an answer that could not be read');
      case 'UserCanceledError':
        return new GitSyncError('auth', 'authentication failed');
      case 'PushRejectedError':
        return data?.reason === 'not-fast-forward'
          ? new GitSyncError('non-fast-forward', NON_FAST_FORWARD)
          : new GitSyncError('rejected', 'push rejected');
      case 'GitPushError': {
        const reason = refError(error, fullRef);
        if (/non-fast-forward|fetch first|stale info/i.test(reason)) return new GitSyncError('non-fast-forward', NON_FAST_FORWARD);
        return new GitSyncError('rejected', `push rejected by the server${reason ? `: ${reason}` : ''}`);
      }
      default:
        return new GitSyncError('failed', `the Git operation failed: ${typeof message === 'string' ? message : String(error)}`);
    }
  })();
  const clean = scrub(translated.message, op.credentials);
  return clean === translated.message ? translated : new GitSyncError(translated.reason, clean);
}

/**
 * Runs `work` in a fresh bare repository (or, with `repository`, in that one: a kept clone; with
 * 'none', in none: a question to the server alone) with this input's transport, and turns every
 * failure into a `GitSyncError`; the connections are gone when it settles, and the directory too
 * unless it was given.
 */
async function runOperation<T>(
  input: RepositoryInput,
  fullRef: string,
  work: (op: Operation) => Promise<T>,
  repository?: { gitdir: string; initialized: boolean } | 'none',
): Promise<T> {
  const split = splitCredentials(input.url);
  const credentials = input.credentials ?? split.credentials;
  const policy: Required<RemotePolicy> = {
    allowPrivateAddresses: input.policy.allowPrivateAddresses,
    timeoutMs: input.policy.timeoutMs,
    maxRepositoryBytes: input.policy.maxRepositoryBytes ?? DEFAULT_MAX_REPOSITORY_BYTES,
    maxFiles: input.policy.maxFiles ?? DEFAULT_MAX_FILES,
    maxDurationMs: input.policy.maxDurationMs ?? DEFAULT_MAX_DURATION_MS,
  };
  const deadline = AbortSignal.timeout(policy.maxDurationMs);
  const op: Operation = {
    url: split.url,
    origin: new URL(split.url),
    credentials,
    policy,
    signal: input.signal ? AbortSignal.any([input.signal, deadline]) : deadline,
    callerSignal: input.signal,
    failure: null,
    gitdir: '',
    cache: {},
    objects: fs,
    maxFetchBytes: null,
    http: { request: () => Promise.reject(new Error('no transport')) },
    onAuth: credentials ? () => ({ username: credentials.username, password: credentials.password }) : undefined,
    onProgress: input.onProgress,
  };
  const transport = createHttpClient(op);
  op.http = transport.http;
  let temporary: string | null = null;
  try {
    if (op.signal.aborted) throw abortFailure(op);
    if (repository === 'none') return await work(op);
    if (repository) op.gitdir = repository.gitdir;
    else op.gitdir = temporary = await fs.promises.mkdtemp(path.join(os.tmpdir(), 'git-sync-'));
    if (!repository?.initialized) {
      await git.init({ fs, gitdir: op.gitdir, bare: true, defaultBranch: fullRef.slice('refs/heads/'.length) });
      // fetch records the branch under refs/remotes/origin/, by this remote's refspec.
      await git.addRemote({ fs, gitdir: op.gitdir, remote: 'origin', url: op.url, force: true });
    }
    return await work(op);
  } catch (error) {
    throw toGitSyncError(error, op, fullRef);
  } finally {
    await transport.close();
    if (temporary) await fs.promises.rm(temporary, { recursive: true, force: true });
  }
}

/** What fetching and pushing `fullRef` of the operation's remote both tell isomorphic-git. */
function remoteBranchArgs(op: Operation, fullRef: string) {
  return {
    fs,
    http: op.http,
    gitdir: op.gitdir,
    cache: op.cache,
    remote: 'origin',
    url: op.url,
    ref: fullRef,
    remoteRef: fullRef,
    onAuth: op.onAuth,
    onProgress: op.onProgress,
  };
}

/**
 * Fetches `fullRef`'s tip (depth 1; or, into a kept clone, `shallow: false`, every commit since the
 * one it has); `missing` when the repository is empty or has no such branch.
 */
async function fetchBranch(op: Operation, fullRef: string, options: { shallow: boolean } = { shallow: true }): Promise<{ oid: string } | { missing: 'empty' | 'branch' }> {
  try {
    const result = await git.fetch({ ...remoteBranchArgs(op, fullRef), singleBranch: true, ...(options.shallow ? { depth: 1 } : {}), tags: false });
    return result.fetchHead ? { oid: result.fetchHead } : { missing: 'empty' };
  } catch (error) {
    const { code, data } = (error ?? {}) as { code?: unknown; data?: { what?: unknown } };
    if (!op.failure && code === 'NotFoundError' && data?.what === fullRef) return { missing: 'branch' };
    throw error;
  }
}

async function readEntries(op: Operation, oid: string): Promise<TreeEntry[]> {
  op.signal.throwIfAborted();
  return (await git.readTree({ fs: op.objects, gitdir: op.gitdir, oid, cache: op.cache })).tree;
}

async function rootTree(op: Operation, commit: string): Promise<string> {
  return (await git.readCommit({ fs: op.objects, gitdir: op.gitdir, oid: commit, cache: op.cache })).commit.tree;
}

/** The one error `packedObjects` answers for a loose object: isomorphic-git only tells it from a file. */
const NO_LOOSE_OBJECT = Object.assign(new Error('no loose objects in a fetched repository'), { code: 'ENOENT' });

/**
 * Node's file system for reading the objects of a repository that only fetches wrote: a fetch
 * writes packs, never loose objects, so looking for a loose one is answered at once, and the pack
 * folder is listed once. isomorphic-git does both for every object it reads (a failed open, a
 * readdir): a third of reading 1,000 files. Never for a repository objects are written to (a push).
 */
function packedObjects(gitdir: string): typeof nodeFs {
  const packs = path.join(gitdir, 'objects', 'pack');
  const loose = path.join(gitdir, 'objects') + path.sep;
  let listed: Promise<string[]> | null = null;
  const promises = {
    ...nodeFs.promises,
    readFile: ((file: string, options?: unknown) =>
      typeof file === 'string' && file.startsWith(loose) && /^[0-9a-f]{2}[\\/][0-9a-f]{38}$/.test(file.slice(loose.length))
        ? Promise.reject(NO_LOOSE_OBJECT)
        : nodeFs.promises.readFile(file, options as never)) as typeof nodeFs.promises.readFile,
    readdir: ((dir: string, options?: unknown) =>
      dir === packs ? (listed ??= nodeFs.promises.readdir(dir)) : nodeFs.promises.readdir(dir, options as never)) as unknown as typeof nodeFs.promises.readdir,
  };
  return { ...nodeFs, promises } as typeof nodeFs;
}

const isRegularFile = (entry: TreeEntry) => entry.type === 'blob' && (entry.mode === '100644' || entry.mode === '100755');

/**
 * The commit at the tip of `ref` on the remote, asked of the server without fetching anything
 * (one ls-refs exchange); null when the branch does not exist or the repository is empty.
 */
export async function remoteBranchTip(input: ReadRepositoryInput): Promise<string | null> {
  const fullRef = branchRef(input.ref);
  return runOperation(
    input,
    fullRef,
    async (op) => {
      const refs = await git.listServerRefs({ http: op.http, url: op.url, prefix: fullRef, onAuth: op.onAuth });
      return refs.find((r) => r.ref === fullRef)?.oid ?? null;
    },
    // Listing refs reads and writes nothing locally: no repository to make and remove.
    'none',
  );
}

/** Where `readRepository` keeps the repository for the next read of the same space (./kept-clones.ts). */
export interface KeptRead {
  clones: KeptClones;
  /** KeptClones.key of the space, URL and branch. */
  key: string;
}

/**
 * Reads every regular file of `ref` under `projectDirectory` (paths relative
 * to it). Symbolic links, submodules and `.git` entries are skipped. Throws
 * `GitSyncError`: 'branch-not-found', 'directory-not-found', 'too-large'
 * beyond `maxFiles` or `maxRepositoryBytes`, and the transport's failures.
 *
 * With `kept`, the repository stays for the next read under the same key: that read fetches only
 * the objects its commit adds (the branch's last tip is a local ref, which the fetch names as had),
 * takes the files of every tree whose id it read before without reading them again, and the bytes
 * of every blob whose id it read before from memory.
 */
export async function readRepository(input: ReadRepositoryInput & { kept?: KeptRead | null }): Promise<RepositorySnapshot> {
  const kept = input.kept?.clones.enabled ? input.kept : null;
  const previous = kept ? kept.clones.take(kept.key) : null;
  if (!previous) return readInto(input, kept, null);
  try {
    return await readInto(input, kept, previous);
  } catch (error) {
    // The kept repository did not serve (the branch was rewritten and the fetch brought more than a
    // clone would, or it lacked an object): a fresh clone, unless the failure is the server's or the caller's.
    if (error instanceof GitSyncError && FINAL_REASONS.has(error.reason)) throw error;
    return readInto(input, kept, null);
  }
}

/** Failures that a fresh clone would meet as well. */
const FINAL_REASONS = new Set<GitSyncFailure>(['invalid-input', 'address', 'network', 'timeout', 'aborted', 'redirects', 'status', 'auth', 'forbidden', 'not-found', 'branch-not-found', 'directory-not-found']);

async function readInto(input: ReadRepositoryInput, kept: KeptRead | null, previous: KeptClone | null): Promise<RepositorySnapshot> {
  const fullRef = branchRef(input.ref);
  const directory = directoryPath(input.projectDirectory);
  const gitdir = previous?.gitdir ?? (kept ? await kept.clones.directory() : null);
  const next: KeptClone | null = gitdir ? { gitdir, fetches: (previous?.fetches ?? 0) + 1, trees: new Map(), blobs: new Map(), bytes: 0 } : null;
  let snapshot: RepositorySnapshot;
  try {
    snapshot = await runOperation(
      input,
      fullRef,
      async (op) => {
        // Into a kept repository, not shallow: a shallow fetch (`deepen 1`) is sent the whole tree again
        // whatever the client has, an ordinary one only the objects of the commits since the one it
        // has. In case the branch was rewritten (a fetch reaching far back), at most what the files
        // of the last read took: beyond, a fresh clone costs less.
        if (previous) op.maxFetchBytes = previous.bytes;
        const fetched = await fetchBranch(op, fullRef, { shallow: !previous });
        if ('missing' in fetched) {
          throw new GitSyncError('branch-not-found', `branch ${fullRef} not found${fetched.missing === 'empty' ? ' (the repository is empty)' : ''}`);
        }
        // The tip as a local branch: the next fetch into this repository names it as had, and is sent only what is new.
        if (next) await git.writeRef({ fs, gitdir: op.gitdir, ref: fullRef, value: fetched.oid, force: true });
        op.objects = packedObjects(op.gitdir);
        let tree = await rootTree(op, fetched.oid);
        for (const segment of directory === '' ? [] : directory.split('/')) {
          const entry = (await readEntries(op, tree)).find((e) => e.path === segment && e.type === 'tree');
          if (!entry) throw new GitSyncError('directory-not-found', `directory ${directory} not found in ${fullRef}`);
          tree = entry.oid;
        }

        const { maxFiles, maxRepositoryBytes } = op.policy;
        let folders = 0;
        /** The regular files under tree `oid` (relative paths, blob ids): a tree's own files first, then its folders', in tree order. */
        const list = async (oid: string): Promise<Array<[string, string]>> => {
          const known = previous?.trees.get(oid) ?? next?.trees.get(oid);
          if (known) {
            next?.trees.set(oid, known);
            return known;
          }
          if (++folders > maxFiles) throw new GitSyncError('too-large', `the repository has more than ${maxFiles} folders`);
          const entries = (await readEntries(op, oid)).filter((entry) => isSafeName(entry.path));
          const out: Array<[string, string]> = [];
          for (const entry of entries) if (isRegularFile(entry)) out.push([entry.path, entry.oid]);
          for (const entry of entries) {
            if (entry.type !== 'tree') continue;
            for (const [file, blob] of await list(entry.oid)) out.push([`${entry.path}/${file}`, blob]);
            if (out.length > maxFiles) throw new GitSyncError('too-large', `the repository has more than ${maxFiles} files`);
          }
          next?.trees.set(oid, out);
          return out;
        };
        const listed = await list(tree);
        if (listed.length > maxFiles) throw new GitSyncError('too-large', `the repository has more than ${maxFiles} files`);

        const files = new Map<string, Uint8Array>();
        const blobs = new Map<string, string>();
        let bytes = 0;
        for (const [filePath, oid] of listed) {
          let blob = previous?.blobs.get(oid) ?? next?.blobs.get(oid);
          blob ??= (await git.readBlob({ fs: op.objects, gitdir: op.gitdir, oid, cache: op.cache })).blob;
          bytes += blob.byteLength;
          if (bytes > maxRepositoryBytes) throw new GitSyncError('too-large', `the files take more than the ${maxRepositoryBytes} bytes allowed`);
          files.set(filePath, blob);
          blobs.set(filePath, oid);
          if (next && !next.blobs.has(oid)) {
            next.blobs.set(oid, blob);
            next.bytes += blob.byteLength;
          }
          if (files.size % 500 === 0) op.onProgress?.({ phase: 'Reading files', loaded: files.size, total: 0 });
        }
        op.onProgress?.({ phase: 'Reading files', loaded: files.size, total: files.size });
        const { commit } = await git.readCommit({ fs: op.objects, gitdir: op.gitdir, oid: fetched.oid, cache: op.cache });
        return { commit: fetched.oid, message: commit.message, files, blobs };
      },
      gitdir ? { gitdir, initialized: previous !== null } : undefined,
    );
  } catch (error) {
    // What a failed read left in the directory is not known: the next read starts a new one.
    if (next) await kept!.clones.discard(next);
    throw error;
  }
  if (next) await kept!.clones.give(kept!.key, next);
  return snapshot;
}

/** The files to write as nested folders. */
interface Folder {
  files: Map<string, Uint8Array>;
  folders: Map<string, Folder>;
}

function emptyFolder(): Folder {
  return { files: new Map(), folders: new Map() };
}

/** `files` as folders; refuses unsafe paths, a name used both as file and folder, and more than the policy allows. */
function toFolder(files: Map<string, Uint8Array>, policy: Required<RemotePolicy>): Folder {
  if (files.size > policy.maxFiles) throw new GitSyncError('too-large', `more than ${policy.maxFiles} files to write`);
  const root = emptyFolder();
  let bytes = 0;
  for (const [filePath, content] of files) {
    const segments = filePath.split('/');
    if (normalizePath(filePath) !== filePath || filePath === '' || !segments.every(isSafeName)) {
      throw new GitSyncError('invalid-input', `${JSON.stringify(filePath)} is not a valid file path`);
    }
    bytes += content.byteLength;
    if (bytes > policy.maxRepositoryBytes) throw new GitSyncError('too-large', `the files take more than the ${policy.maxRepositoryBytes} bytes allowed`);
    let folder = root;
    for (const segment of segments.slice(0, -1)) {
      if (folder.files.has(segment)) throw new GitSyncError('invalid-input', `${JSON.stringify(filePath)} is inside a file`);
      let next = folder.folders.get(segment);
      if (!next) folder.folders.set(segment, (next = emptyFolder()));
      folder = next;
    }
    const name = segments[segments.length - 1]!;
    if (folder.folders.has(name)) throw new GitSyncError('invalid-input', `${JSON.stringify(filePath)} is both a file and a folder`);
    folder.files.set(name, content);
  }
  return root;
}

const TREE_MODE = '040000';

function sameEntries(a: TreeEntry[], b: TreeEntry[]): boolean {
  if (a.length !== b.length) return false;
  const key = (e: TreeEntry) => `${e.path}\0${e.mode}\0${e.oid}`;
  const keys = new Set(a.map(key));
  return b.every((e) => keys.has(key(e)));
}

/** Writes a tree of `entries` unless it equals the old one; null for no entries (Git keeps no empty folder). */
async function writeEntries(op: Operation, entries: TreeEntry[], old: { oid: string; entries: TreeEntry[] } | null): Promise<string | null> {
  if (entries.length === 0) return null;
  if (old && sameEntries(entries, old.entries)) return old.oid;
  return git.writeTree({ fs, gitdir: op.gitdir, tree: entries });
}

/**
 * The tree of `folder` over the old tree `oldOid`: its files (an old
 * executable bit kept), its folders, and the old entries this module does not
 * manage (symbolic links, submodules) where nothing new takes their name.
 * Every other old entry goes.
 */
async function writeFolder(op: Operation, folder: Folder, oldOid: string | null): Promise<string | null> {
  const oldEntries = oldOid ? await readEntries(op, oldOid) : [];
  const oldByName = new Map(oldEntries.map((e) => [e.path, e]));
  const entries: TreeEntry[] = [];
  for (const [name, content] of folder.files) {
    const previous = oldByName.get(name);
    const { oid } = await git.hashBlob({ object: content });
    if (previous?.oid !== oid) await git.writeBlob({ fs, gitdir: op.gitdir, blob: content });
    const mode = previous && isRegularFile(previous) && previous.mode === '100755' ? '100755' : '100644';
    entries.push({ mode, path: name, oid, type: 'blob' });
  }
  for (const [name, child] of folder.folders) {
    const previous = oldByName.get(name);
    const oid = await writeFolder(op, child, previous?.type === 'tree' ? previous.oid : null);
    if (oid) entries.push({ mode: TREE_MODE, path: name, oid, type: 'tree' });
  }
  for (const entry of oldEntries) {
    if (folder.files.has(entry.path) || folder.folders.has(entry.path) || !isSafeName(entry.path)) continue;
    if (entry.type === 'commit' || (entry.type === 'blob' && !isRegularFile(entry))) {
      entries.push(entry);
    } else if (entry.type === 'tree') {
      const oid = await writeFolder(op, emptyFolder(), entry.oid);
      if (oid) entries.push({ mode: TREE_MODE, path: entry.path, oid, type: 'tree' });
    }
  }
  return writeEntries(op, entries, oldOid ? { oid: oldOid, entries: oldEntries } : null);
}

/** The root tree with the folder at `segments` replaced by `content`; everything else as it was. */
async function replaceFolder(op: Operation, oldOid: string | null, segments: string[], content: Folder): Promise<string | null> {
  if (segments.length === 0) return writeFolder(op, content, oldOid);
  const [name, ...rest] = segments as [string, ...string[]];
  const oldEntries = oldOid ? await readEntries(op, oldOid) : [];
  const previous = oldEntries.find((e) => e.path === name);
  const child = await replaceFolder(op, previous?.type === 'tree' ? previous.oid : null, rest, content);
  const entries = oldEntries.filter((e) => e.path !== name || (child === null && e.type !== 'tree'));
  if (child) entries.push({ mode: TREE_MODE, path: name, oid: child, type: 'tree' });
  return writeEntries(op, entries, oldOid ? { oid: oldOid, entries: oldEntries } : null);
}

function checkAuthor(author: { name: string; email: string }): { name: string; email: string } {
  const name = author.name.trim();
  const email = author.email.trim();
  if (!name || /[<>\n\r\0]/.test(name) || /[<>\n\r\0\s]/.test(email)) {
    throw new GitSyncError('invalid-input', 'the commit author needs a name and an email address without <, > or line breaks');
  }
  return { name, email };
}

/**
 * Makes the content of `projectDirectory` on `ref` exactly `files` (regular
 * files; symbolic links and submodules there stay unless a file takes their
 * place; everything outside the directory is untouched), commits it as
 * `author` and pushes without force. A missing branch, or an empty
 * repository, starts a new history. Nothing changed: no commit, no push,
 * `changed: false`. Throws `GitSyncError`, 'non-fast-forward' when the
 * branch moved since it was fetched.
 */
export async function writeRepository(input: WriteRepositoryInput): Promise<WriteResult> {
  const fullRef = branchRef(input.ref);
  const directory = directoryPath(input.projectDirectory);
  const author = checkAuthor(input.author);
  if (input.message.trim() === '') throw new GitSyncError('invalid-input', 'a commit message is required');
  const message = input.message.endsWith('\n') ? input.message : `${input.message}\n`;
  return runOperation(input, fullRef, async (op) => {
    const content = toFolder(input.files, op.policy);
    const fetched = await fetchBranch(op, fullRef);
    const parent = 'oid' in fetched ? fetched.oid : null;
    const oldRoot = parent ? await rootTree(op, parent) : null;

    op.onProgress?.({ phase: 'Writing files', loaded: 0, total: input.files.size });
    const newRoot =
      (await replaceFolder(op, oldRoot, directory === '' ? [] : directory.split('/'), content)) ??
      (await git.writeTree({ fs, gitdir: op.gitdir, tree: [] }));
    op.onProgress?.({ phase: 'Writing files', loaded: input.files.size, total: input.files.size });
    const blobs = await blobIds(input.files);
    if (parent && newRoot === oldRoot) {
      const { commit } = await git.readCommit({ fs, gitdir: op.gitdir, oid: parent, cache: op.cache });
      return { commit: parent, message: commit.message, blobs, changed: false };
    }

    const signature = { ...author, timestamp: Math.floor(Date.now() / 1000), timezoneOffset: 0 };
    const commit = await git.writeCommit({
      fs,
      gitdir: op.gitdir,
      commit: { message, tree: newRoot, parent: parent ? [parent] : [], author: signature, committer: signature },
    });
    await git.writeRef({ fs, gitdir: op.gitdir, ref: fullRef, value: commit, force: true });
    op.signal.throwIfAborted();
    try {
      await git.push({ ...remoteBranchArgs(op, fullRef), force: false, signal: op.signal });
    } catch (error) {
      // receive-pack answers "failed to update ref" when the branch is no longer
      // where the push said it was (or for other reasons): look before naming it.
      if (!op.failure && refError(error, fullRef) === 'failed to update ref' && (await branchMoved(op, fullRef, parent))) {
        throw new GitSyncError('non-fast-forward', NON_FAST_FORWARD);
      }
      throw error;
    }
    return { commit, message, blobs, changed: true };
  });
}

/** Git's blob id of each file's bytes (what `git hash-object` prints). */
async function blobIds(files: ReadonlyMap<string, Uint8Array>): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (const [path, bytes] of files) out.set(path, (await git.hashBlob({ object: bytes })).oid);
  return out;
}

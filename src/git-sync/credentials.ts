/**
 * Git credentials at rest: encrypted with AES-256-GCM under SECRETS_KEY (64
 * hex characters are the key itself; any other text is hashed into one), or,
 * when unset, under a key generated once and kept beside the stored files.
 * They are decrypted only by the job that clones or pushes, never returned.
 * `sealSecret`/`openSecret` seal other secrets kept in the database the same way.
 */
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import type { AppConfig } from '../config.ts';
import { keptSecret } from '../storage/signed-url.ts';

const SECRETS_KEY_FILE = '.secrets-key';
const VERSION = 'v1';

export interface GitCredentials {
  username: string;
  password: string;
}

function keyOf(config: Pick<AppConfig, 'secretsKey' | 'storage'>): Buffer {
  const text = config.secretsKey ?? keptSecret(config.storage.dir, SECRETS_KEY_FILE);
  return /^[0-9a-f]{64}$/i.test(text) ? Buffer.from(text, 'hex') : createHash('sha256').update(text).digest();
}

/**
 * `text` sealed with AES-256-GCM under the service's secrets key (the same key as Git
 * credentials): `v1.<iv>.<tag>.<sealed>`. Used for the other secrets kept in the database too
 * (organizations' private signing keys, src/auth/visitor-claims.ts).
 */
export function sealSecret(config: Pick<AppConfig, 'secretsKey' | 'storage'>, text: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', keyOf(config), iv);
  const sealed = Buffer.concat([cipher.update(text, 'utf8'), cipher.final()]);
  return [VERSION, iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), sealed.toString('base64url')].join('.');
}

/** The text `sealSecret` sealed, or null when it cannot be read (another key, tampered). */
export function openSecret(config: Pick<AppConfig, 'secretsKey' | 'storage'>, text: string): string | null {
  const [version, iv, tag, sealed] = text.split('.');
  if (version !== VERSION || !iv || !tag || !sealed) return null;
  try {
    const decipher = createDecipheriv('aes-256-gcm', keyOf(config), Buffer.from(iv, 'base64url'));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(sealed, 'base64url')), decipher.final()]).toString('utf8');
  } catch {
    return null;
  }
}

export function encryptCredentials(config: Pick<AppConfig, 'secretsKey' | 'storage'>, credentials: GitCredentials): string {
  return sealSecret(config, JSON.stringify(credentials));
}

/** The credentials, or null when they cannot be read (another key, tampered): the sync then runs without. */
export function decryptCredentials(config: Pick<AppConfig, 'secretsKey' | 'storage'>, text: string): GitCredentials | null {
  const plain = openSecret(config, text);
  if (plain === null) return null;
  try {
    const parsed = JSON.parse(plain) as GitCredentials;
    return typeof parsed.username === 'string' && typeof parsed.password === 'string' ? parsed : null;
  } catch {
    return null;
  }
}

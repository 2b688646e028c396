import { base64url, sha256Hex } from './encoding';
import { openStore, type ApiKeyRecord } from './db';
import { committed, storing } from './storage-errors';

/**
 * API keys are provisioned by the app (there is no HTTP endpoint that creates one). Only the SHA-256 of
 * a key is stored; the key itself is returned once, at provisioning. A fresh origin has no keys, so every
 * /v1 request is 401 until the app provisions one.
 */
export interface ApiKeyInfo {
  id: string;
  label: string;
  createdAt: number;
}

export interface ProvisionedApiKey extends ApiKeyInfo {
  /** The secret to send as `Authorization: ApiKey <key>`. Not retrievable later. */
  key: string;
}

const KEY_PREFIX = 'lsk_';
const MIN_KEY_LENGTH = 16;

/**
 * Creates an API key (256 random bits) or registers one the app supplies (at least 16 characters,
 * no whitespace), e.g. a key the app already uses against the hosted service. Idempotent: a key that is
 * already stored (by this tab or another, even at the same moment) is returned with its first record.
 */
export async function provisionApiKey(options: { label?: string; key?: string } = {}): Promise<ProvisionedApiKey> {
  const key = options.key ?? KEY_PREFIX + base64url(crypto.getRandomValues(new Uint8Array(32)));
  if (key.length < MIN_KEY_LENGTH || /\s/.test(key)) {
    throw new TypeError(`an API key must be at least ${MIN_KEY_LENGTH} characters without whitespace`);
  }
  const hash = await sha256Hex(key);
  return storing('provisioning an API key', async () => {
    const db = await openStore();
    // One read-write transaction: tabs provisioning the same key at once are serialised by IndexedDB,
    // so the first stores it and the others find and return that record.
    const tx = db.transaction('apiKeys', 'readwrite');
    const existing = await tx.store.get(hash);
    const record: ApiKeyRecord = existing ?? { hash, id: crypto.randomUUID(), label: options.label ?? '', createdAt: Date.now() };
    await committed(tx, existing ? [] : [tx.store.add(record)]);
    return { key, id: record.id, label: record.label, createdAt: record.createdAt };
  });
}

export async function listApiKeys(): Promise<ApiKeyInfo[]> {
  const db = await openStore();
  const all = await db.getAll('apiKeys');
  return all
    .map(({ id, label, createdAt }) => ({ id, label, createdAt }))
    .sort((a, b) => a.createdAt - b.createdAt);
}

/** Revokes a key by id; tokens issued for it stop working too. Returns whether a key was removed. */
export async function revokeApiKey(id: string): Promise<boolean> {
  const db = await openStore();
  const tx = db.transaction('apiKeys', 'readwrite');
  const hash = await tx.store.index('byId').getKey(id);
  if (hash !== undefined) await tx.store.delete(hash);
  await tx.done;
  return hash !== undefined;
}

/** The stored record of a presented key, or undefined when it is not provisioned. */
export async function findApiKey(key: string): Promise<ApiKeyRecord | undefined> {
  const db = await openStore();
  return db.get('apiKeys', await sha256Hex(key));
}

export async function apiKeyExists(id: string): Promise<boolean> {
  const db = await openStore();
  return (await db.getKeyFromIndex('apiKeys', 'byId', id)) !== undefined;
}

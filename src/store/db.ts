import { openDB, type DBSchema, type IDBPDatabase } from 'idb';

/**
 * One IndexedDB database shared by the page (provisioning, biasing) and the service worker (the /v1 API).
 * Both sides import this module, so they always agree on the schema.
 */
export const DB_NAME = 'localscribe';
const DB_VERSION = 1;

export interface ModelRecord {
  /** Insertion order; the primary key, so a cursor over the store lists models in creation order. */
  seq?: number;
  id: string;
  name: string;
  description: string;
  phraseCount: number;
  createdAt: number;
}

export interface PhraseRecord {
  /** Insertion order across the whole store (auto-increment); pages are cut along it. */
  seq?: number;
  modelId: string;
  value: string;
}

export interface ApiKeyRecord {
  /** Hex SHA-256 of the key; the key itself is never stored. */
  hash: string;
  id: string;
  label: string;
  createdAt: number;
}

export interface LocalscribeSchema extends DBSchema {
  models: { key: number; value: ModelRecord; indexes: { byId: string } };
  phrases: {
    key: number;
    value: PhraseRecord;
    indexes: { byModel: [string, number]; byModelValue: [string, string] };
  };
  apiKeys: { key: string; value: ApiKeyRecord; indexes: { byId: string } };
  /** Singletons: the token signing key, the limits settings and the credit usage. */
  meta: { key: string; value: unknown };
}

export type LocalscribeDb = IDBPDatabase<LocalscribeSchema>;

let opening: Promise<LocalscribeDb> | null = null;

export function openStore(): Promise<LocalscribeDb> {
  opening ??= openDB<LocalscribeSchema>(DB_NAME, DB_VERSION, {
    upgrade(db) {
      const models = db.createObjectStore('models', { keyPath: 'seq', autoIncrement: true });
      models.createIndex('byId', 'id', { unique: true });
      const phrases = db.createObjectStore('phrases', { keyPath: 'seq', autoIncrement: true });
      phrases.createIndex('byModel', ['modelId', 'seq']);
      phrases.createIndex('byModelValue', ['modelId', 'value'], { unique: true });
      const keys = db.createObjectStore('apiKeys', { keyPath: 'hash' });
      keys.createIndex('byId', 'id', { unique: true });
      db.createObjectStore('meta');
    },
    // Another context wants a newer schema: step aside instead of blocking it.
    blocking() {
      void opening?.then((db) => db.close());
      opening = null;
    },
    terminated() {
      opening = null;
    },
  }).catch((err: unknown) => {
    opening = null;
    throw err;
  });
  return opening;
}

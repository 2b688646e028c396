import { openDB, type DBSchema, type IDBPDatabase, type IDBPTransaction, type StoreNames } from 'idb';
import { describeStorageError, storageUnavailable } from './storage-errors';

/**
 * One IndexedDB database shared by the page (provisioning, biasing) and the service worker (the /v1 API).
 * Both sides import this module, so they always agree on the schema.
 */
export const DB_NAME = 'localscribe';
/** The schema version: the number of UPGRADES. */
export const DB_VERSION = 2;

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
  /** Credit held by /v1 transcriptions in flight (src/store/usage.ts). Since version 2. */
  reservations: { key: string; value: ReservationRecord };
}

export interface ReservationRecord {
  id: string;
  seconds: number;
  /** The service-worker instance that holds it; another instance's reservations are stale (it is gone). */
  owner: string;
  createdAt: number;
}

export type LocalscribeDb = IDBPDatabase<LocalscribeSchema>;

type UpgradeTx = IDBPTransaction<LocalscribeSchema, StoreNames<LocalscribeSchema>[], 'versionchange'>;

/**
 * UPGRADES[v] takes a database from version v to v + 1; a database at any older version runs the steps
 * it lacks, in order. A shipped step never changes: a new schema adds a step.
 */
const UPGRADES: ((db: IDBPDatabase<LocalscribeSchema>, tx: UpgradeTx) => void)[] = [
  (db) => {
    const models = db.createObjectStore('models', { keyPath: 'seq', autoIncrement: true });
    models.createIndex('byId', 'id', { unique: true });
    const phrases = db.createObjectStore('phrases', { keyPath: 'seq', autoIncrement: true });
    phrases.createIndex('byModel', ['modelId', 'seq']);
    phrases.createIndex('byModelValue', ['modelId', 'value'], { unique: true });
    const keys = db.createObjectStore('apiKeys', { keyPath: 'hash' });
    keys.createIndex('byId', 'id', { unique: true });
    db.createObjectStore('meta');
  },
  (db) => {
    db.createObjectStore('reservations', { keyPath: 'id' });
  },
];

let opening: Promise<LocalscribeDb> | null = null;
let persistAsked = false;

/** The shared connection, opened (and upgraded) on first use; closed when another context upgrades. */
export function openStore(): Promise<LocalscribeDb> {
  if (!opening) {
    const current = openDatabase(DB_NAME, () => {
      // Another context wants a newer schema: step aside instead of blocking it; the next call reopens.
      if (opening === current) opening = null;
    });
    opening = current;
    current.catch(() => {
      if (opening === current) opening = null;
    });
    askPersistence();
  }
  return opening;
}

/**
 * Opens `name` at DB_VERSION, upgrading an older database step by step. The connection closes itself
 * on `versionchange` (another tab upgrading) and calls `onClosed`. When an older connection elsewhere
 * does not close (blocked), this fails at once with an error saying so rather than waiting forever.
 * Exported for tests, which open databases of their own names.
 */
export function openDatabase(name: string, onClosed: () => void = () => undefined): Promise<LocalscribeDb> {
  if (typeof indexedDB === 'undefined') {
    return Promise.reject(storageUnavailable('this context has no indexedDB (a private mode or an embedding that disables it?)'));
  }
  return new Promise<LocalscribeDb>((resolve, reject) => {
    let gaveUp = false;
    let request: Promise<LocalscribeDb>;
    try {
      request = openDB<LocalscribeSchema>(name, DB_VERSION, {
        upgrade(db, oldVersion, _newVersion, tx) {
          for (let v = oldVersion; v < DB_VERSION; v++) UPGRADES[v]!(db, tx);
        },
        blocked(currentVersion) {
          gaveUp = true;
          reject(
            storageUnavailable(
              `another tab holds the database open at version ${currentVersion} and does not close it for the upgrade to ` +
                `version ${DB_VERSION}; close or reload the other tabs of this app`,
            ),
          );
        },
        blocking(_currentVersion, _blockedVersion, event) {
          (event.target as IDBDatabase).close();
          onClosed();
        },
        terminated: onClosed,
      });
    } catch (err) {
      // indexedDB.open throws at once where storage is forbidden (an opaque origin: SecurityError).
      reject(describeOpenFailure(err));
      return;
    }
    request.then(
      (db) => (gaveUp ? db.close() : resolve(db)),
      (err: unknown) => reject(describeOpenFailure(err)),
    );
  });
}

function describeOpenFailure(err: unknown): unknown {
  if (err instanceof DOMException && err.name === 'VersionError') {
    return storageUnavailable(
      `the database is at a newer version than this code's ${DB_VERSION} (a newer version of this app upgraded it); reload this page`,
    );
  }
  return describeStorageError(err, 'opening the database');
}

/** Asks once per context that the browser keep this origin's data under storage pressure; a refusal is fine. */
function askPersistence(): void {
  if (persistAsked) return;
  persistAsked = true;
  const storage = typeof navigator !== 'undefined' ? navigator.storage : undefined;
  // persist() exists in windows only (not in service workers).
  if (typeof storage?.persist === 'function') void storage.persist().catch(() => false);
}

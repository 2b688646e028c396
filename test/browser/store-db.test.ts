import { describe, expect, it } from 'vitest';
import { DB_VERSION, openDatabase } from '../../src/store/db';

// The database's upgrade path and its manners towards other tabs, on real IndexedDB in Chromium.
// Each test uses a database of its own name (the library's is 'localscribe').

const fresh = (what: string) => `localscribe-test-${what}-${crypto.randomUUID()}`;

/** Opens with plain IndexedDB, as another tab (or an older version of the library) would. */
function rawOpen(name: string, version: number, upgrade?: (db: IDBDatabase) => void): Promise<IDBDatabase> {
  return new Promise((resolve, reject) => {
    const open = indexedDB.open(name, version);
    open.onupgradeneeded = () => upgrade?.(open.result);
    open.onsuccess = () => resolve(open.result);
    open.onerror = () => reject(open.error);
  });
}

/** Version 1 as the library shipped it, with one API key stored. */
function versionOne(db: IDBDatabase): void {
  const models = db.createObjectStore('models', { keyPath: 'seq', autoIncrement: true });
  models.createIndex('byId', 'id', { unique: true });
  const phrases = db.createObjectStore('phrases', { keyPath: 'seq', autoIncrement: true });
  phrases.createIndex('byModel', ['modelId', 'seq']);
  phrases.createIndex('byModelValue', ['modelId', 'value'], { unique: true });
  const keys = db.createObjectStore('apiKeys', { keyPath: 'hash' });
  keys.createIndex('byId', 'id', { unique: true });
  db.createObjectStore('meta');
  keys.add({ hash: 'ab'.repeat(32), id: 'key-1', label: 'from v1', createdAt: 1 });
}

describe('database versions (real IndexedDB)', () => {
  it('a database at version 1 is upgraded step by step, keeping its data', async () => {
    const name = fresh('upgrade');
    (await rawOpen(name, 1, versionOne)).close();
    const db = await openDatabase(name);
    expect(db.version).toBe(DB_VERSION);
    expect([...db.objectStoreNames].sort()).toEqual(['apiKeys', 'meta', 'models', 'phrases', 'reservations']);
    expect(await db.get('apiKeys', 'ab'.repeat(32))).toMatchObject({ id: 'key-1', label: 'from v1' });
    await db.put('reservations', { id: 'r1', seconds: 1, owner: 'sw', createdAt: 2 });
    expect(await db.count('reservations')).toBe(1);
    db.close();
  });

  it('closes its connection when another tab upgrades (versionchange), and cannot open a newer database', async () => {
    const name = fresh('versionchange');
    let closed = false;
    await openDatabase(name, () => (closed = true));
    // Blocked (and never settling) if the library's connection stayed open.
    const newer = await rawOpen(name, DB_VERSION + 1);
    expect(closed).toBe(true);
    newer.close();
    await expect(openDatabase(name)).rejects.toMatchObject({
      status: 500,
      detail: expect.stringMatching(new RegExp(`newer version than this code's ${DB_VERSION}.*reload this page`)),
    });
  });

  it('fails at once, naming the cause, when an older connection elsewhere blocks the upgrade; opens once it closes', async () => {
    const name = fresh('blocked');
    const old = await rawOpen(name, 1, versionOne); // no versionchange handler: it never steps aside
    await expect(openDatabase(name)).rejects.toMatchObject({
      status: 500,
      detail: expect.stringMatching(/another tab holds the database open at version 1 .*close or reload the other tabs/),
    });
    old.close();
    const db = await openDatabase(name);
    expect(db.version).toBe(DB_VERSION);
    db.close();
  });
});

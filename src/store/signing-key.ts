import { openStore } from './db';

const META_KEY = 'tokenSigningKey';

/**
 * The HMAC-SHA-256 key that signs access tokens. Generated once per origin and stored in IndexedDB as a
 * non-extractable CryptoKey, so script on the page can use it but never read its bytes.
 */
export async function getSigningKey(): Promise<CryptoKey> {
  const db = await openStore();
  const stored = (await db.get('meta', META_KEY)) as CryptoKey | undefined;
  if (stored) return stored;
  const fresh = await crypto.subtle.generateKey({ name: 'HMAC', hash: 'SHA-256', length: 256 }, false, [
    'sign',
    'verify',
  ]);
  // Two contexts may race to create it: the first write wins and both use the winner.
  const tx = db.transaction('meta', 'readwrite');
  const winner = (await tx.store.get(META_KEY)) as CryptoKey | undefined;
  if (!winner) await tx.store.put(fresh, META_KEY);
  await tx.done;
  return winner ?? fresh;
}
